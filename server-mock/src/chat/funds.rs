//! What pays for each candidate of a chat request: a limited token's allowance (a reservation
//! of the candidate's worst case) and an x402 payment (whose authorization must cover it). A
//! candidate neither covers is skipped, and the route reason says why.

use std::sync::Arc;

use super::catalogue::Model;
use super::failures::Failures;
use super::limit::{Allowance, Reservation};
use crate::x402::payment::Payment;

/// A limited token's reservation for the candidate being tried, if any.
pub type Reserved = Option<Arc<Reservation>>;

/// A request's funds, for its candidates in routing order.
pub struct Funds {
    pub allowance: Allowance,
    /// A verified x402 payment, settled once a candidate answers.
    pub payment: Option<Payment>,
}

impl Funds {
    /// Before candidate `i` is tried, what is known without the store: its reservation (`None`
    /// without a limit), or why it is skipped; `None` when the store must be asked for a
    /// dearer reservation ([`Allowance::reserve_for`]).
    fn at_hand(&self, i: usize) -> Option<Result<Reserved, String>> {
        let worst = self.allowance.worst()[i];
        if let Some(payment) = &self.payment
            && !payment.covers(worst)
        {
            return Some(Err(payment.short_of(worst)));
        }
        self.allowance.at_hand(i)
    }

    /// Candidate `i`'s (`model`'s) reservation (`None` inside when the request has no limit),
    /// or `None` when it is skipped, not covered (noted in `failures`).
    pub async fn reserve(
        &mut self,
        i: usize,
        model: &Model,
        failures: &mut Failures,
    ) -> Option<Reserved> {
        let funded = match self.at_hand(i) {
            Some(funded) => funded,
            None => self.allowance.reserve_for(i).await,
        };
        match funded {
            Ok(reservation) => Some(reservation),
            Err(why) => {
                failures.pass(model, why);
                None
            }
        }
    }
}
