//! A limited token's chat request (docs/api.md, "Spending limits"): the worst case of the model
//! that answers is reserved before anything is served, and when the answer ends its cost is
//! charged and the rest released, in one transaction of the store; a request that never reaches
//! a charge (no upstream answered, the client went away first) releases its reservation when
//! dropped. Candidates whose worst case does not fit what the token has left are skipped; a
//! fallback to a dearer one than is held re-reserves for it, in the place of the hold before.

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

/// A request's reservation, charged once or released; extended while it lives.
pub struct Reservation {
    store: Arc<dyn Store>,
    id: String,
    /// What is held: the most the request is charged.
    pub worst: Credits,
    done: AtomicBool,
    /// The task extending it every quarter of its life, so that an answer longer than that
    /// (a long stream) stays counted; stopped when it is charged or released.
    keeper: tokio::task::AbortHandle,
}

/// What a request may reserve, candidate by candidate (in routing order).
pub struct Allowance {
    /// Each candidate's worst case.
    worst: Vec<Credits>,
    state: State,
    /// Where to ask, for a token (an API key or a session has no limit).
    token: Option<Token>,
}

/// A token's store and ids, to reserve with.
struct Token {
    store: Arc<dyn Store>,
    workspace_id: String,
    id: String,
}

enum State {
    /// No limit: an API key, a session, a token without one.
    Unlimited,
    /// `reservation` is held; the period had `left` for this request when it was made.
    Held {
        reservation: Arc<Reservation>,
        left: Credits,
    },
    /// A fallback found that the period had only `left`, less than any candidate still to try.
    Spent { left: Credits },
}

/// Reserves for a request made with a token that has a limit the worst case of the first of its
/// candidates (`worst`, in routing order) that fits what the period leaves; for an API key, a
/// session or a token without one, nothing. The refusal (402 `credit_limit_reached`) when no
/// candidate fits. The store is asked at admission, not what authentication read: a limit set
/// after this request was authenticated, and answered before it is admitted, holds it.
pub async fn admit(
    store: &Arc<dyn Store>,
    principal: &Principal,
    worst: Vec<Credits>,
) -> Result<Allowance, Response> {
    let mut allowance = Allowance {
        worst,
        state: State::Unlimited,
        token: None,
    };
    if !crate::secrets::is_token_id(&principal.credential_id) {
        return Ok(allowance);
    }
    allowance.token = Some(Token {
        store: store.clone(),
        workspace_id: principal.workspace_id.clone(),
        id: principal.credential_id.clone(),
    });
    let hold = Hold::new(&principal.credential_id, allowance.worst.clone());
    match allowance.reserve(hold, 0).await {
        Ok(()) => Ok(allowance),
        Err(Refused::Limit(spend)) => Err(refusal(&spend, &allowance.worst)),
        Err(Refused::Store(err)) => Err(crate::http::error::ApiError::from(err).into_response()),
    }
}

enum Refused {
    Limit(Spend),
    Store(store::StoreError),
}

impl Allowance {
    /// Each candidate's worst case, in routing order.
    pub fn worst(&self) -> &[Credits] {
        &self.worst
    }

    /// Whether candidate `i` fits what the period had left for this request when last asked.
    pub fn fits(&self, i: usize) -> bool {
        match &self.state {
            State::Unlimited => true,
            State::Held { left, .. } | State::Spent { left } => self.worst[i] <= *left,
        }
    }

    /// Before candidate `i` is tried, what is known without the store: the reservation it is
    /// charged through (`None` without a limit), or why it is skipped; `None` when a dearer
    /// reservation must be asked for ([`Allowance::reserve_for`]).
    pub fn at_hand(&self, i: usize) -> Option<Result<Option<Arc<Reservation>>, String>> {
        let worst = self.worst[i];
        match &self.state {
            State::Unlimited => Some(Ok(None)),
            State::Spent { left } => Some(Err(too_dear(worst, *left))),
            State::Held { reservation, .. } if worst <= reservation.worst => {
                Some(Ok(Some(reservation.clone())))
            }
            State::Held { left, .. } if worst > *left => Some(Err(too_dear(worst, *left))),
            State::Held { .. } => None,
        }
    }

    /// Reserves candidate `i`'s worst case, dearer than what is held, in the place of the hold
    /// before (the first of it and the candidates after it that fits): the reservation, or why
    /// it is skipped.
    pub async fn reserve_for(&mut self, i: usize) -> Result<Option<Arc<Reservation>>, String> {
        let worst = self.worst[i];
        let State::Held { reservation, .. } = &self.state else {
            return self.at_hand(i).unwrap_or(Ok(None));
        };
        let held = reservation.clone();
        let Some(token) = &self.token else {
            return Ok(None);
        };
        let hold = Hold::new(&token.id, self.worst[i..].to_vec()).replacing(&held.id);
        match self.reserve(hold, i).await {
            Ok(()) => {}
            Err(Refused::Limit(spend)) => {
                self.state = State::Spent {
                    left: spend.remaining(),
                }
            }
            Err(Refused::Store(err)) => {
                return Err(format!("its reservation could not be made: {err}"));
            }
        }
        // What was held is gone with the store's answer (or stays with it, without a limit).
        if !matches!(self.state, State::Unlimited) {
            held.done.store(true, Ordering::SeqCst);
        }
        match &self.state {
            State::Held { reservation, .. } if reservation.worst == worst => {
                Ok(Some(reservation.clone()))
            }
            State::Held { left, .. } | State::Spent { left } => Err(too_dear(worst, *left)),
            State::Unlimited => Ok(None),
        }
    }

    /// Asks the store for `hold`, whose amounts are the worst cases from candidate `from` on.
    async fn reserve(&mut self, hold: Hold, from: usize) -> Result<(), Refused> {
        let Some(token) = &self.token else {
            return Ok(());
        };
        let id = hold.id.clone();
        match token.store.reserve(&token.workspace_id, hold).await {
            Ok(Reserved::Unlimited) => self.state = State::Unlimited,
            Ok(Reserved::Held { choice, left }) => {
                let reservation = Reservation::new(&token.store, id, self.worst[from + choice]);
                self.state = State::Held {
                    reservation: Arc::new(reservation),
                    left,
                };
            }
            Ok(Reserved::Refused(spend)) => return Err(Refused::Limit(spend)),
            Err(err) => return Err(Refused::Store(err)),
        }
        Ok(())
    }
}

/// Why a candidate is skipped: it may cost more than the token has left.
fn too_dear(worst: Credits, left: Credits) -> String {
    format!("its worst case {worst} exceeds the {left} this token has left")
}

impl Reservation {
    /// The reservation `id` of `worst`, just made, extended from now on.
    fn new(store: &Arc<dyn Store>, id: String, worst: Credits) -> Reservation {
        let life = store::hold_life();
        let every = (life / 4).to_std().unwrap_or_default();
        let (to_extend, hold) = (store.clone(), id.clone());
        let keeper = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                if let Err(err) = to_extend.extend(&hold, store::now() + life).await {
                    err.log("could not extend a reservation (it counts until it expires)");
                }
            }
        });
        Reservation {
            store: store.clone(),
            id,
            worst,
            done: AtomicBool::new(false),
            keeper: keeper.abort_handle(),
        }
    }

    /// Writes `record` to the ledger and drops the reservation, in one transaction; resolves once
    /// written (the answer waits for it, so a later request sees the spend). When the store
    /// refuses, the record goes to `ledger`'s queue instead (never lost), and the reservation
    /// stays counted until it expires, so the limit is not passed meanwhile.
    pub fn charge(&self, ledger: &Arc<Ledger>, record: UsageRecord) -> Recorded {
        self.done.store(true, Ordering::SeqCst);
        self.keeper.abort();
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
        self.keeper.abort();
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

/// 402 in OpenAI's envelope: the limit, what the period holds, when it resets (`Retry-After`);
/// `worst` are the candidates' worst cases, the least of which did not fit.
fn refusal(spend: &Spend, worst: &[Credits]) -> Response {
    let least = worst.iter().copied().min().unwrap_or_default();
    let when = match spend.period.resets_at {
        Some(at) => format!("it resets at {}", timestamp(at)),
        None => "it does not reset (PATCH /v1/tokens/:id changes it)".to_string(),
    };
    let cost = match worst.len() {
        1 => format!("this request may cost up to {}", least.in_words()),
        n => format!(
            "each of the {n} models this request could be routed to may cost at least {}",
            least.in_words()
        ),
    };
    let message = format!(
        "This token's credit limit of {} {} leaves {}, and {cost}; {when}",
        spend.limit.credit_limit.in_words(),
        per(spend.limit.reset),
        spend.remaining().in_words(),
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
        "worst_case": least.to_json(),
        "resets_at": spend.period.resets_at.map(timestamp),
    });
    error.response_with(figures.as_object().cloned().unwrap_or_default())
}
