//! `GET /v1/models`: the catalogue as OpenAI clients list models, with prices and figures.

use axum::Json;
use std::sync::Arc;

use axum::extract::{FromRef, State};
use serde::Serialize;
use utoipa::ToSchema;

use super::Gateway;
use super::catalogue::ProviderKind;
use crate::auth::{Authenticated, require};
use crate::credits::Credits;
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
    pub provider: ProviderKind,
    /// Credits per 1,000 prompt tokens (exact decimal).
    #[schema(value_type = f64)]
    pub prompt_price: Credits,
    /// Credits per 1,000 completion tokens (exact decimal).
    #[schema(value_type = f64)]
    pub completion_price: Credits,
    pub quality: f64,
    pub latency_ms: u64,
    pub max_output_tokens: u32,
}

/// `{"object": "list", "data": [...]}`, as OpenAI clients expect.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelList {
    pub object: &'static str,
    pub data: Vec<ModelView>,
}

/// List the models the gateway routes to, with prices and quality/latency figures.
#[utoipa::path(get, path = "/v1/models", tag = "models",
    responses((status = 200, body = ModelList),
        (status = 401, description = "In OpenAI's error envelope", body = crate::chat::schema::OpenAiError),
        (status = 429, description = "In OpenAI's error envelope", body = crate::chat::schema::OpenAiError)))]
pub async fn list(
    State(gateway): State<Arc<Gateway>>,
    _auth: Authenticated<require::AnyScope>,
) -> Json<ModelList> {
    let data = gateway
        .catalogue
        .models()
        .iter()
        .map(|m| ModelView {
            id: m.id.clone(),
            object: "model",
            created: 0,
            owned_by: match m.provider {
                ProviderKind::Simulated => "tokctl-simulated".into(),
                ProviderKind::Openai => "openai-compatible".into(),
            },
            provider: m.provider,
            prompt_price: m.prompt_price.per_1k(),
            completion_price: m.completion_price.per_1k(),
            quality: m.quality,
            latency_ms: m.latency_ms,
            max_output_tokens: m.max_output_tokens,
        })
        .collect();
    Json(ModelList {
        object: "list",
        data,
    })
}
