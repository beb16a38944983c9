//! The chat completions gateway: `POST /v1/chat/completions`, OpenAI-compatible, with routing,
//! budgets, credit accounting and SSE streaming; and the pipeline every inbound dialect shares
//! (`serve`), which Anthropic's `POST /v1/messages` (`messages/`) and OpenAI's
//! `POST /v1/responses` (`responses/`) call too.

mod accounting;
mod answer;
mod anthropic;
pub mod breaker;
pub mod catalogue;
mod complete;
mod decode;
pub mod dialect;
mod failures;
pub mod form;
mod funds;
#[cfg(test)]
mod fuzz;
pub mod health;
pub mod latency;
mod limit;
pub mod messages;
pub mod models;
mod openai;
mod provider;
pub mod request;
pub mod responses;
pub mod routing;
pub mod schema;
mod simulated;
mod spans;
mod spread;
mod stream;
mod tries;
pub mod upstream;
mod wire;

pub(crate) use self::accounting::Accounting;
pub use self::accounting::Platform;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{FromRef, FromRequestParts, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use self::failures::Failures;
use self::funds::{Funds, Reserved};
use self::health::Health;
use self::request::{ChatRequest, Checked, Inbound, prompt_tokens};
use self::routing::{Ask, route};
use crate::auth::{Authenticated, require};
use crate::chat::catalogue::{Catalogue, Model};
use crate::credits::Credits;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::extract::ApiJson;
use crate::http::routes::Routes;
use crate::request_log::Logged;
use crate::store::Store;
use crate::telemetry::traces::Admission;
use crate::telemetry::{Arrival, Metrics, Traced};
use crate::usage::Ledger;
use crate::x402::facilitator::Facilitator;
use crate::x402::gate;

/// How long a translated Messages stream waits on a silent upstream before a `ping`, unless
/// configured (`--stream-ping-ms`).
pub const DEFAULT_PING_EVERY: Duration = Duration::from_secs(10);

/// What the gateway needs: the catalogue (with each model's way to its upstream), each
/// model's health, the ledger.
pub struct Gateway {
    pub catalogue: Catalogue,
    /// Each model's circuit breaker, on this instance.
    pub health: Health,
    /// Delay between tokens of the simulated provider's streams.
    pub sim_token_delay: Duration,
    /// How long a translated Messages stream waits on a silent upstream before a `ping`.
    pub ping_every: Duration,
    pub ledger: Arc<Ledger>,
    /// Where answers and attempts are counted (per model: in `health`).
    pub metrics: Metrics,
    /// Where requests' spans go (nowhere unless traces are on).
    pub traces: crate::telemetry::Traces,
    /// The overhead histograms: whole answers, streams.
    overhead: [metrics::Histogram; 2],
    /// Where x402 payments are verified and settled.
    pub facilitator: Arc<Facilitator>,
}

impl Gateway {
    /// A gateway over `catalogue` recording completions in `ledger`; circuits follow
    /// `breaker` where a model's catalogue entry does not say otherwise.
    pub fn new(
        catalogue: Catalogue,
        breaker: breaker::Policy,
        sim_token_delay: Duration,
        ledger: Ledger,
        metrics: Metrics,
    ) -> Self {
        Gateway {
            health: Health::new(&catalogue, breaker, &metrics),
            catalogue,
            sim_token_delay,
            ping_every: DEFAULT_PING_EVERY,
            traces: crate::telemetry::Traces::default(),
            ledger: Arc::new(ledger),
            overhead: metrics.overhead(),
            metrics,
            facilitator: Arc::default(),
        }
    }
}

/// Routes of this resource: the completions, and the models they route over.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Gateway>: FromRef<S>,
{
    Routes::new()
        .post("/v1/chat/completions", create)
        .merge(models::routes())
}

/// Create a chat completion (OpenAI-compatible), streamed as SSE when `stream` is true.
pub async fn create(
    State(gateway): State<Arc<Gateway>>,
    caller: Caller,
    headers: HeaderMap,
    body: Result<ApiJson<ChatRequest>, ApiError>,
) -> Response {
    let body = body.map(|ApiJson(request)| request);
    serve(&gateway, caller, &headers, body, |request, _| {
        request.check()
    })
    .await
}

/// Who asks the gateway (a credential with `chat:write`, or the 401 or 403 before any body is
/// read), and when the request arrived (while metrics are on).
pub struct Caller {
    pub store: Arc<dyn Store>,
    pub auth: Authenticated<require::ChatWrite>,
    pub request_id: Option<String>,
    pub arrived: Option<Instant>,
    /// Where its spans go, while traces are on.
    pub traced: Option<Traced>,
    /// Its span of authentication and admission, begun by the auth layer and ended once the
    /// request is admitted (or refused), while traces are on.
    pub admission: Option<Admission>,
    /// Its entry in the request log, while the log is on.
    pub logged: Option<Logged>,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller
where
    Arc<dyn Store>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        // Taken, not copied: nothing after the caller reads it.
        let traced = parts.extensions.remove::<Traced>();
        let admission = traced.as_ref().and_then(Traced::take_admission);
        let auth = match Authenticated::from_request_parts(parts, state).await {
            Ok(auth) => auth,
            Err(err) => {
                if let Some(span) = admission {
                    span.failed(err.body().error, format!("refused: {}", err.status()));
                }
                return Err(err);
            }
        };
        let logged = parts.extensions.get::<Logged>().cloned();
        if let Some(logged) = &logged {
            let principal = &auth.principal;
            logged.caller(&principal.workspace_id, &principal.credential_id);
        }
        Ok(Caller {
            logged,
            store: Arc::from_ref(state),
            request_id: auth.request_id.clone(),
            arrived: parts.extensions.get::<Arrival>().map(|Arrival(at)| *at),
            traced,
            admission,
            auth,
        })
    }
}

/// Answers a gateway request in any dialect: its body as the handler's extractor read it (or
/// refused it: malformed, of the wrong type), checked by the dialect's `check`, then served.
/// Every refusal, of the body, of the check or of admission, ends the request's admission span
/// with the code the client is answered with.
pub(crate) async fn serve<B, E: IntoResponse>(
    gateway: &Arc<Gateway>,
    caller: Caller,
    headers: &HeaderMap,
    body: Result<B, ApiError>,
    check: impl FnOnce(B, &HeaderMap) -> Result<Checked, E>,
) -> Response {
    let checked = match body {
        Ok(body) => check(body, headers).map_err(IntoResponse::into_response),
        Err(rejected) => Err(rejected.into_response()),
    };
    match checked {
        Ok(checked) => serve_checked(gateway, caller, headers, checked).await,
        Err(refusal) => refused(caller.admission, refusal),
    }
}

/// Answers a checked request: routing, the token's limit, an x402 payment, each candidate in
/// turn, the ledger; the answer written in the dialect it came in.
async fn serve_checked(
    gateway: &Arc<Gateway>,
    caller: Caller,
    headers: &HeaderMap,
    checked: Checked,
) -> Response {
    let Caller {
        store,
        auth,
        request_id,
        arrived,
        traced,
        admission,
        logged,
    } = caller;
    if let Some(logged) = &logged {
        logged.asked(&checked.request.model, checked.stream);
    }
    let mut timing = Timing {
        arrived,
        waited: Duration::ZERO,
        traced,
        logged,
    };
    let gateway = gateway.clone();
    // Routing, the token's limit and an x402 payment end the span authentication began.
    let prompt = prompt_tokens(&checked.request.messages);
    let ask = Ask {
        model: &checked.request.model,
        weights: checked.weights,
        budget: checked.request.budget_limit,
        prompt_tokens: prompt,
        max_tokens: checked.max_tokens,
    };
    let route = match route(&gateway.catalogue, &gateway.health, &ask) {
        Ok(route) => route,
        Err(err) => return refused(admission, err.into_response()),
    };
    // Each candidate's worst case (routing kept only those within budget_limit).
    let worst: Vec<Credits> = route
        .candidates
        .iter()
        .map(|(model, cap)| model.worst(prompt, u64::from(*cap)))
        .collect();
    let allowance = match limit::admit(&store, &auth.principal, worst.clone()).await {
        Ok(allowance) => allowance,
        Err(refusal) => return refused(admission, refusal),
    };
    // A payment is offered for the candidates the request could be routed to.
    let routable = || {
        (0..worst.len())
            .filter(|i| allowance.fits(*i))
            .map(|i| worst[i])
    };
    let ask = gate::Ask {
        store: &store,
        facilitator: &gateway.facilitator,
        workspace_id: &auth.principal.workspace_id,
        request_id: request_id.as_deref(),
        wallet: checked.request.agent_wallet.as_deref(),
        worst: routable().max().unwrap_or_default(),
        first: routable().next().unwrap_or_default(),
        headers,
    };
    let payment = match gate::admit(&ask).await {
        Ok(payment) => payment,
        Err(refusal) => return refused(admission, refusal),
    };
    if let Some(span) = admission {
        let budget = checked.request.budget_limit;
        span.set(|a| spans::admitted(worst.len(), budget, payment.is_some(), a));
        span.end();
    }
    let funds = Funds { allowance, payment };
    let id = match checked.inbound {
        Inbound::Chat => format!("chatcmpl-{}", crate::secrets::new_id("")),
        Inbound::Messages(_) => crate::secrets::new_id("msg_"),
        Inbound::Responses(_) => crate::secrets::new_id("resp_"),
    };
    let arrived = timing.arrived;
    let logged = timing.logged.clone();
    let traced = timing.traced.clone();
    let accounting = |model: &Arc<Model>, reason: String, reservation: Reserved| Accounting {
        gateway: gateway.clone(),
        workspace_id: auth.principal.workspace_id.clone(),
        request_id: request_id.clone(),
        wallet: checked.request.agent_wallet.clone(),
        // No allocation on the path of a request made with an API key.
        token_id: crate::secrets::is_token_id(&auth.principal.credential_id)
            .then(|| auth.principal.credential_id.clone()),
        budget: match &reservation {
            Some(reservation) => Some(reservation.worst),
            None => checked.request.budget_limit,
        },
        reservation,
        model: model.clone(),
        reason,
        arrived,
        logged: logged.clone(),
        traced: traced.clone(),
    };
    let response = match checked.stream {
        true => {
            stream::respond(
                &gateway,
                route,
                &checked,
                id,
                prompt,
                accounting,
                funds,
                &mut timing,
            )
            .await
        }
        false => {
            complete::complete(
                &gateway,
                route,
                &checked,
                id,
                prompt,
                accounting,
                funds,
                &mut timing,
            )
            .await
        }
    };
    if let Some(arrived) = timing.arrived {
        let overhead = arrived.elapsed().saturating_sub(timing.waited);
        gateway.overhead[usize::from(checked.stream)].record(overhead.as_secs_f64());
    }
    response
}

/// Ends the admission span as failed with the refusal's code, and answers the refusal.
fn refused(admission: Option<Admission>, refusal: Response) -> Response {
    match admission {
        Some(span) => {
            span.refused(ErrorCode::of(&refusal), refusal.status().as_u16());
            refusal
        }
        None => refusal,
    }
}

/// What a chat request's overhead is measured from: when it arrived (while metrics are on),
/// and how long it has waited on upstreams.
pub(crate) struct Timing {
    pub arrived: Option<Instant>,
    pub waited: Duration,
    /// Where the request's spans go, while traces are on.
    pub traced: Option<Traced>,
    /// Its entry in the request log, while the log is on.
    pub logged: Option<Logged>,
}

impl Timing {
    /// Counts the time since `started` as waiting on an upstream. (The wait is timed around
    /// the provider's future where it is awaited: a wrapper taking the future would move it,
    /// several kilobytes, on every request.)
    pub fn waited_since(&mut self, started: Instant) {
        self.waited += started.elapsed();
    }
}
