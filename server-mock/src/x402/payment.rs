//! A verified payment and its settlement: `exact` charged once the answer is there and before
//! any of it is sent, `upto` settled after the answer for what it cost; what a settlement came
//! to, for `PAYMENT-RESPONSE` and `platform.settlement`.

use std::sync::Arc;

use alloy_primitives::U256;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde::Serialize;

use super::facilitator::Facilitator;
use super::offer::{facilitator_down, invalid_status, refused_by_store};
use super::price;
use super::wire::{self, PaymentPayload, Requirements, SettleResponse};
use crate::credits::Credits;
use crate::store::{self, PaymentRecord, PaymentStatus, Store};

/// A verified payment, to settle.
pub struct Payment {
    pub(super) record: PaymentRecord,
    pub(super) payment: PaymentPayload,
    /// The requirements the client accepted, `amount` the amount it authorized.
    pub(super) requirements: Requirements,
    pub(super) authorized: U256,
    pub(super) credit_price: String,
    pub(super) store: Arc<dyn Store>,
    pub(super) facilitator: Arc<Facilitator>,
}

/// What an answer was billed: its credits, its ledger entry and the model that answered.
#[derive(Debug, Clone)]
pub struct Charged {
    pub credits: Credits,
    pub usage_id: String,
    pub model: String,
}

/// What a settlement came to, as the final chunk's `platform.settlement` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Settlement {
    /// `settled`, `pending` (retried until settled or expired) or `failed`.
    pub status: &'static str,
    pub scheme: String,
    pub network: String,
    pub payer: String,
    /// Atomic units of the token.
    pub amount: String,
    /// The transaction, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Settlement {
    /// Notes in the request's log entry the atomic units it settled (nothing while it is
    /// pending, or when it failed).
    pub fn log(&self, logged: &crate::request_log::Logged) {
        if self.status == "settled" {
            logged.paid(&self.amount);
        }
    }

    /// `PAYMENT-RESPONSE`'s value.
    pub fn header(&self) -> HeaderValue {
        let response = SettleResponse {
            success: self.status == "settled",
            transaction: self.transaction.clone().unwrap_or_default(),
            network: self.network.clone(),
            payer: Some(self.payer.clone()),
            error_reason: self.error.clone(),
            amount: Some(self.amount.clone()),
        };
        HeaderValue::from_str(&wire::encode(&response)).unwrap_or(HeaderValue::from_static(""))
    }
}

impl Payment {
    /// Before the upstream is asked: an `upto` payment is recorded (for nothing yet), so that
    /// an answer cut by a crash is settled for nothing rather than forgotten.
    pub(super) async fn open(&self) -> Result<(), Response> {
        match self.is_upto() {
            true => self.save().await.map_err(refused_by_store),
            false => Ok(()),
        }
    }

    /// Once the answer is there, before any of it is sent: `exact` settles the authorized
    /// amount; `Err` is the answer to send instead (the facilitator refused, or could not be
    /// reached: no answer is sent unpaid). Nothing for `upto`.
    pub async fn charge(&mut self) -> Result<(), Response> {
        if self.is_upto() {
            return Ok(());
        }
        self.record.amount = self.authorized.to_string();
        let url = self.record.facilitator_url.clone();
        let settled = self
            .facilitator
            .settle(&url, &self.payment, &self.requirements)
            .await;
        match settled {
            Ok(response) if response.success => {
                mark_settled(&mut self.record, response.transaction);
                self.save().await.map_err(refused_by_store)
            }
            Ok(response) => {
                let reason = response
                    .error_reason
                    .unwrap_or_else(|| "no reason given".into());
                self.record.status = PaymentStatus::Failed;
                self.record.error = Some(reason.clone());
                let _ = self.save().await;
                Err(invalid_status(
                    StatusCode::PAYMENT_REQUIRED,
                    format!("The facilitator could not settle the payment: {reason}"),
                ))
            }
            Err(err) => {
                // It may have gone through: the outbox asks again, and records what it hears.
                self.record.error = Some(err.to_string());
                self.record.next_attempt_at = store::now();
                let _ = self.save().await;
                Err(facilitator_down(&err))
            }
        }
    }

    /// What it has come to so far (for `exact` once charged: the settlement).
    pub fn settlement(&self) -> Settlement {
        Settlement {
            status: match self.record.status {
                PaymentStatus::Settled => "settled",
                PaymentStatus::Pending => "pending",
                PaymentStatus::Failed | PaymentStatus::Expired => "failed",
            },
            scheme: self.record.scheme.clone(),
            network: self.record.network.clone(),
            payer: self.record.payer.clone(),
            amount: self.record.amount.clone(),
            transaction: self.record.transaction.clone(),
            error: self.record.error.clone(),
        }
    }

    /// Whether it authorizes at least `worst`: a candidate whose worst case it does not cover
    /// is not tried.
    pub fn covers(&self, worst: Credits) -> bool {
        price::atomic(worst, &self.credit_price).is_some_and(|needed| needed <= self.authorized)
    }

    /// Why a candidate of worst case `worst` is not tried (see [`Payment::covers`]).
    pub fn short_of(&self, worst: Credits) -> String {
        format!(
            "its worst case {worst} exceeds what this {} payment authorizes ({} atomic units)",
            self.requirements.scheme, self.authorized
        )
    }

    /// Whether it is `upto` (settled after the answer, for what it cost).
    pub fn is_upto(&self) -> bool {
        self.requirements.scheme == "upto"
    }

    /// After the answer, which cost `consumed` credits and is `usage_id` in the ledger: `upto`
    /// settles that cost (never more than authorized; a facilitator that cannot be reached
    /// leaves it to the outbox), `exact` notes the ledger entry. What it came to.
    pub async fn finish(mut self, charged: Charged) -> Settlement {
        let consumed = charged.credits;
        self.record.usage_id = Some(charged.usage_id);
        self.record.model = Some(charged.model);
        if !self.is_upto() {
            let _ = self.save().await;
            return self.settlement();
        }
        let cost = price::atomic(consumed, &self.credit_price).unwrap_or(self.authorized);
        let amount = cost.min(self.authorized);
        self.record.amount = amount.to_string();
        self.requirements.amount = amount.to_string();
        self.record.requirements = serde_json::to_string(&self.requirements).unwrap_or_default();
        self.record.next_attempt_at = store::now();
        settle(
            &mut self.record,
            &self.payment,
            &self.requirements,
            &self.facilitator,
        )
        .await;
        if let Err(err) = self.save().await {
            err.log("x402: could not record a settlement");
        }
        self.settlement()
    }

    async fn save(&self) -> Result<(), crate::store::StoreError> {
        self.store.save_payment(self.record.clone()).await
    }
}

/// Settles `record`'s payment for its `amount` and notes the outcome in it: settled, failed
/// (the facilitator refused), expired, or still pending (the facilitator could not be reached;
/// attempts counted, the next one scheduled). An amount of 0 settles without a transaction.
pub async fn settle(
    record: &mut PaymentRecord,
    payment: &PaymentPayload,
    requirements: &Requirements,
    facilitator: &Facilitator,
) {
    record.attempts += 1;
    let now = store::now();
    if record.amount == "0" {
        record.status = PaymentStatus::Settled;
        record.settled_at = Some(now);
        return;
    }
    if record.expires_at <= now {
        record.status = PaymentStatus::Expired;
        record.error = Some("the authorization ran out before it could be settled".into());
        return;
    }
    match facilitator
        .settle(&record.facilitator_url, payment, requirements)
        .await
    {
        Ok(response) if response.success => mark_settled(record, response.transaction),
        Ok(response) => {
            record.status = PaymentStatus::Failed;
            record.error = Some(response.error_reason.unwrap_or_else(|| "refused".into()));
        }
        Err(err) => {
            record.error = Some(err.to_string());
            let wait = retry_after(record.attempts);
            record.next_attempt_at = now + wait;
        }
    }
}

/// Notes in `record` that it was settled, by `transaction` (none when empty).
fn mark_settled(record: &mut PaymentRecord, transaction: String) {
    record.status = PaymentStatus::Settled;
    record.transaction = (!transaction.is_empty()).then_some(transaction);
    record.error = None;
    record.settled_at = Some(store::now());
}

/// The wait before settlement attempt `attempts + 1`: 5 s, doubling, at most 10 minutes.
fn retry_after(attempts: u32) -> chrono::Duration {
    let seconds = 5u64.saturating_mul(1 << attempts.min(7)).min(600);
    chrono::Duration::seconds(seconds as i64)
}
