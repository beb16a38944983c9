//! `GET /v1/models`: the catalogue as OpenAI clients list models, with prices and figures.

use axum::Json;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;

use axum::extract::{FromRef, State};
use serde::Serialize;
use utoipa::ToSchema;

use super::Gateway;
use super::breaker;
use super::catalogue::{Model, ProviderKind};
use super::health::View;
use crate::auth::{Authenticated, require};
use crate::credits::{Credits, Price};
use crate::http::routes::Routes;
use crate::store::Store;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Gateway>: FromRef<S>,
{
    Routes::new().get("/v1/models", list)
}

/// One model as `GET /v1/models` shows it (OpenAI's shape plus prices and figures).
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelView {
    pub id: String,
    /// Always `model`.
    pub object: &'static str,
    pub created: i64,
    pub owned_by: String,
    /// Other names a request may give for this model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Who serves it, as the catalogue names it: `simulated`, `openai` (any OpenAI-compatible
    /// upstream), `anthropic`, or a provider preset (`groq`, `azure`, ...).
    pub provider: &'static str,
    /// Credits per 1,000 prompt tokens (exact decimal).
    #[schema(value_type = f64)]
    pub prompt_price: Credits,
    /// Credits per 1,000 completion tokens (exact decimal).
    #[schema(value_type = f64)]
    pub completion_price: Credits,
    /// Credits per 1,000 prompt tokens read from the provider's cache, when the catalogue sets
    /// a price of its own for them (else `prompt_price`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub cache_read_price: Option<Credits>,
    /// Credits per 1,000 prompt tokens written to the provider's cache (5-minute), when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub cache_write_price: Option<Credits>,
    /// Credits per 1,000 prompt tokens written to a 1-hour cache, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub cache_write_1h_price: Option<Credits>,
    pub quality: f64,
    pub latency_ms: u64,
    pub max_output_tokens: u32,
    /// How the model is doing, as the instance that answered sees it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<HealthView>,
    /// The model's deployments, when it lists several ways to its upstream; `health` is then
    /// its best deployment's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deployments: Vec<DeploymentView>,
}

/// One deployment of a model, as `GET /v1/models` shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeploymentView {
    pub name: String,
    /// Who serves it, as the catalogue names it.
    pub provider: &'static str,
    /// Its share of the model's requests, relative to the other deployments'.
    pub weight: u32,
    /// Its own limits per minute, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpm: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpm: Option<u64>,
    /// Credits per 1,000 prompt and completion tokens it is charged at.
    #[schema(value_type = f64)]
    pub prompt_price: Credits,
    #[schema(value_type = f64)]
    pub completion_price: Credits,
    pub health: HealthView,
}

/// A circuit's state.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CircuitState {
    /// Requests go through.
    Closed,
    /// Skipped by routing until `open_until`; a request naming it gets 503.
    Open,
    /// The next request is let through as its probe.
    HalfOpen,
}

/// A model's health on the instance that answered (each instance keeps its own): its circuit
/// breaker, and how fast it has answered lately.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthView {
    pub state: CircuitState,
    /// While open: when the next request may be let through as its probe.
    pub open_until: Option<String>,
    /// What opened the circuit last, in words.
    pub opened_after: Option<String>,
    /// Failures since its last success.
    pub failures_in_a_row: u32,
    /// Requests and failures in the breaker's window (60 s unless configured).
    pub recent_requests: u32,
    pub recent_failures: u32,
    /// `recent_failures / recent_requests` (0 with no requests).
    pub error_rate: f64,
    /// The time to first token `auto-fast` routes on, in ms: observed, or the catalogue's
    /// `latency_ms` until enough answers have been seen.
    pub first_token_ms: f64,
    /// Whether `first_token_ms` was observed.
    pub first_token_observed: bool,
    /// The median time to first token of its recent answers, in ms.
    pub first_token_ms_p50: Option<f64>,
    /// Output tokens per second of its recent streams.
    pub tokens_per_second: Option<f64>,
    /// Answers whose speed was observed (upstreams only: simulated models keep their figure).
    pub samples: u64,
}

fn tenths(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

impl From<View> for HealthView {
    fn from(view: View) -> Self {
        HealthView {
            state: match view.state {
                breaker::State::Closed => CircuitState::Closed,
                breaker::State::Open => CircuitState::Open,
                breaker::State::HalfOpen => CircuitState::HalfOpen,
            },
            open_until: view.open_until.map(crate::format::timestamp),
            opened_after: view.opened_after,
            failures_in_a_row: view.failures_in_a_row,
            recent_requests: view.recent_requests,
            recent_failures: view.recent_failures,
            error_rate: match view.recent_requests {
                0 => 0.0,
                n => tenths(1000.0 * f64::from(view.recent_failures) / f64::from(n)) / 1000.0,
            },
            first_token_ms: tenths(view.first_token_ms),
            first_token_observed: view.observed,
            first_token_ms_p50: view.first_token_ms_p50.map(tenths),
            tokens_per_second: view.tokens_per_second.map(tenths),
            samples: view.samples,
        }
    }
}

/// `model`'s listed deployments with their health (none for a model that lists none).
fn deployments(gateway: &Gateway, model: &Model) -> Vec<DeploymentView> {
    let views = gateway.health.views(model);
    let each = model.deployments.iter().zip(views);
    each.filter_map(|(deployment, view)| {
        Some(DeploymentView {
            name: deployment.deployment.clone()?,
            provider: deployment.named.0.name,
            weight: deployment.share.0,
            rpm: deployment.rpm,
            tpm: deployment.tpm,
            prompt_price: deployment.prompt_price.per_1k(),
            completion_price: deployment.completion_price.per_1k(),
            health: HealthView::from(view),
        })
    })
    .collect()
}

/// `{"object": "list", "data": [...]}`, as OpenAI clients expect.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelList {
    pub object: &'static str,
    pub data: Vec<ModelView>,
}

/// List the models the gateway routes to, with prices, quality/latency figures and each one's
/// health on this instance; in Anthropic's list shape (`data` of `{type, id, display_name,
/// created_at}`, `has_more`, `first_id`, `last_id`, aliases listed too) when the request carries
/// `anthropic-version`.
#[utoipa::path(get, path = "/v1/models", tag = "models",
    responses((status = 200, body = ModelList),
        (status = 401, description = "In OpenAI's error envelope", body = crate::chat::schema::OpenAiError),
        (status = 429, description = "In OpenAI's error envelope", body = crate::chat::schema::OpenAiError)))]
pub async fn list(
    State(gateway): State<Arc<Gateway>>,
    _auth: Authenticated<require::AnyScope>,
    headers: HeaderMap,
) -> Response {
    if headers.contains_key("anthropic-version") {
        return Json(anthropic_list(&gateway)).into_response();
    }
    let data = gateway
        .catalogue
        .models()
        .iter()
        .map(|m| ModelView {
            id: m.id.clone(),
            object: "model",
            created: 0,
            owned_by: match (m.provider, m.named.0.name) {
                (ProviderKind::Simulated, _) => "tokctl-simulated".into(),
                (ProviderKind::Openai, "openai") => "openai-compatible".into(),
                (_, name) => name.into(),
            },
            aliases: m.aliases.clone(),
            provider: m.named.0.name,
            prompt_price: m.prompt_price.per_1k(),
            completion_price: m.completion_price.per_1k(),
            cache_read_price: m.cache_read_price.map(Price::per_1k),
            cache_write_price: m.cache_write_price.map(Price::per_1k),
            cache_write_1h_price: m.cache_write_1h_price.map(Price::per_1k),
            quality: m.quality,
            latency_ms: m.latency_ms,
            max_output_tokens: m.max_output_tokens,
            health: gateway.health.view(m).map(HealthView::from),
            deployments: deployments(&gateway, m),
        })
        .collect();
    Json(ModelList {
        object: "list",
        data,
    })
    .into_response()
}

/// The models as Anthropic's clients list them (a request carrying `anthropic-version`): each
/// model, then each alias as a model of its own, so an agent finds the names it knows.
fn anthropic_list(gateway: &Gateway) -> Value {
    let models = gateway.catalogue.models();
    let ids = models.iter().map(|m| (m.id.as_str(), m.id.clone()));
    let aliases = models.iter().flat_map(|m| {
        m.aliases
            .iter()
            .map(|alias| (alias.as_str(), format!("{alias} (routes to {})", m.id)))
    });
    let data: Vec<Value> = ids
        .chain(aliases)
        .map(|(id, name)| {
            json!({"type": "model", "id": id, "display_name": name,
                   "created_at": "1970-01-01T00:00:00Z"})
        })
        .collect();
    json!({
        "data": data,
        "has_more": false,
        "first_id": data.first().map(|m| m["id"].clone()),
        "last_id": data.last().map(|m| m["id"].clone()),
    })
}
