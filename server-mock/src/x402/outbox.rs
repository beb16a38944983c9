//! Settlements still to make: an `upto` answer whose facilitator could not be reached when it
//! ended, an `exact` settlement whose outcome was not heard, or a payment whose answer was cut
//! by a crash (settled for nothing). Retried with growing waits until settled, refused or past
//! the authorization's deadline; never lost. With several instances, each is leased to one.

use std::sync::Arc;
use std::time::Duration;

use super::facilitator::Facilitator;
use super::payment;
use super::wire::{PaymentPayload, Requirements};
use crate::store::{self, PaymentStatus, Store};
use crate::telemetry::Backoff;

/// How often the outbox is read.
const EVERY: Duration = Duration::from_secs(1);
/// How long a payment is leased to the instance settling it.
const LEASE: Duration = Duration::from_secs(120);
/// Payments taken at a time.
const BATCH: usize = 16;

/// Runs until aborted.
pub async fn run(store: Arc<dyn Store>, facilitator: Arc<Facilitator>) {
    let mut backoff = Backoff::new(EVERY);
    loop {
        let now = store::now();
        let lease = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
        let due = store.due_payments(now, lease, BATCH).await;
        let pause = backoff.after(due.as_ref().is_err_and(|err| err.is_unavailable()));
        match due {
            Ok(due) => {
                for record in due {
                    settle_one(store.as_ref(), &facilitator, record).await;
                }
            }
            Err(err) => err.log("x402: could not read the settlement outbox"),
        }
        tokio::time::sleep(pause).await;
    }
}

async fn settle_one(
    store: &dyn Store,
    facilitator: &Facilitator,
    mut record: store::PaymentRecord,
) {
    let parsed: Result<(PaymentPayload, Requirements), _> = serde_json::from_str(&record.payment)
        .and_then(|payment| Ok((payment, serde_json::from_str(&record.requirements)?)));
    match parsed {
        Ok((payment, requirements)) => {
            payment::settle(&mut record, &payment, &requirements, facilitator).await;
        }
        Err(err) => {
            record.status = PaymentStatus::Failed;
            record.error = Some(format!("the stored payment cannot be read: {err}"));
        }
    }
    if record.status != PaymentStatus::Pending {
        tracing::info!(payment = %record.id, status = record.status.as_str(), "x402: settlement retried");
    }
    if let Err(err) = store.save_payment(record).await {
        err.log("x402: could not record a settlement");
    }
}
