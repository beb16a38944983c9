//! A limited token's chat request (docs/api.md, "Spending limits"): its worst case is reserved
//! before anything is served, and when the answer ends its cost is charged and the rest
//! released, in one transaction of the store; a request that never reaches a charge (no
//! upstream answered, the client went away first) releases its reservation when dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::http::openai::GatewayError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::oneshot;

use crate::auth::Principal;
use crate::credits::Credits;
use crate::format::timestamp;
use crate::store::{self, Hold, Reserved, Reset, Spend, Store, UsageRecord};
use crate::usage::{Ledger, Recorded};

/// A request's reservation, charged once or released.
pub struct Reservation {
    store: Arc<dyn Store>,
    id: String,
    /// What is held: the most the request is charged.
    pub worst: Credits,
    done: AtomicBool,
}

/// Reserves `worst` for a request made with a token that has a limit: `None` for an API key, a
/// session or a token without one, the refusal (402 `credit_limit_reached`) when it does not fit.
/// The store is asked at admission, not what authentication read: a limit set after this request
/// was authenticated, and answered before it is admitted, holds it.
pub async fn admit(
    store: &Arc<dyn Store>,
    principal: &Principal,
    worst: Credits,
) -> Result<Option<Reservation>, Response> {
    if !crate::secrets::is_token_id(&principal.credential_id) {
        return Ok(None);
    }
    let hold = Hold::new(&principal.credential_id, worst);
    let id = hold.id.clone();
    match store.reserve(&principal.workspace_id, hold).await {
        Ok(Reserved::Unlimited) => Ok(None),
        Ok(Reserved::Held) => Ok(Some(Reservation {
            store: store.clone(),
            id,
            worst,
            done: AtomicBool::new(false),
        })),
        Ok(Reserved::Refused(spend)) => Err(refusal(&spend, worst)),
        Err(err) => Err(crate::http::error::ApiError::from(err).into_response()),
    }
}

impl Reservation {
    /// Writes `record` to the ledger and drops the reservation, in one transaction; resolves once
    /// written (the answer waits for it, so a later request sees the spend). When the store
    /// refuses, the record goes to `ledger`'s queue instead (never lost), and the reservation
    /// stays counted until it expires, so the limit is not passed meanwhile.
    pub fn charge(&self, ledger: &Arc<Ledger>, record: UsageRecord) -> Recorded {
        self.done.store(true, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        let (store, id, ledger) = (self.store.clone(), self.id.clone(), ledger.clone());
        tokio::spawn(async move {
            if let Err(err) = store.charge(&id, record.clone()).await {
                err.log("could not charge a limited token's request; queued for the ledger");
                ledger.record(record);
            }
            let _ = tx.send(());
        });
        Recorded::when(rx)
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.done.swap(true, Ordering::SeqCst) {
            return;
        }
        let (store, id) = (self.store.clone(), std::mem::take(&mut self.id));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = store.release(&id).await {
                    err.log("could not release a reservation (it expires by itself)");
                }
            });
        }
    }
}

/// A period in words, for messages.
fn per(reset: Reset) -> &'static str {
    match reset {
        Reset::Daily => "a day",
        Reset::Weekly => "a week",
        Reset::Monthly => "a month",
        Reset::Never => "in all",
    }
}

/// 402 in OpenAI's envelope: the limit, what the period holds, when it resets (`Retry-After`).
fn refusal(spend: &Spend, worst: Credits) -> Response {
    let when = match spend.period.resets_at {
        Some(at) => format!("it resets at {}", timestamp(at)),
        None => "it does not reset (PATCH /v1/tokens/:id changes it)".to_string(),
    };
    let message = format!(
        "This token's credit limit of {} {} leaves {}, and this request may cost up to {}; {when}",
        spend.limit.credit_limit.in_words(),
        per(spend.limit.reset),
        spend.remaining().in_words(),
        worst.in_words(),
    );
    let retry_after = spend.period.resets_at.map(|at| {
        let micros = (at - store::now()).num_microseconds().unwrap_or(0).max(1);
        (micros as u64).div_ceil(1_000_000)
    });
    let error = GatewayError {
        status: StatusCode::PAYMENT_REQUIRED,
        message,
        kind: "invalid_request_error",
        code: Some("credit_limit_reached"),
        param: None,
        retry_after,
    };
    let figures = json!({
        "credit_limit": spend.limit.credit_limit.to_json(),
        "spent": spend.spent.to_json(),
        "reserved": spend.reserved.to_json(),
        "worst_case": worst.to_json(),
        "resets_at": spend.period.resets_at.map(timestamp),
    });
    error.response_with(figures.as_object().cloned().unwrap_or_default())
}
