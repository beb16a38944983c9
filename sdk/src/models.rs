//! The models the gateway routes to.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::credits;
use crate::error::Result;

/// A model of the gateway's catalogue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Model {
    /// The id to ask for.
    pub id: String,
    /// Who serves it, as the catalogue names it: `simulated`, `openai` (any OpenAI-compatible
    /// upstream), `anthropic`, or a provider preset (`groq`, `azure`, ...).
    #[serde(default)]
    pub provider: String,
    /// Credits per 1,000 prompt tokens, exact.
    #[serde(
        default,
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub prompt_price: Decimal,
    /// Credits per 1,000 completion tokens, exact.
    #[serde(
        default,
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub completion_price: Decimal,
    /// Quality score, 0 to 1.
    #[serde(default)]
    pub quality: f64,
    /// Typical latency to the first token.
    #[serde(default)]
    pub latency_ms: u64,
    /// Most completion tokens a request may get.
    #[serde(default)]
    pub max_output_tokens: u32,
    /// How the model is doing on the server instance that answered (absent from servers that
    /// predate it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<ModelHealth>,
    /// The model's deployments, when it lists several ways to its upstream (`health` is then
    /// its best deployment's); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deployments: Vec<Deployment>,
}

/// One deployment of a model: a way to its upstream with its own weight, limits, prices and
/// health.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Deployment {
    /// Its name, unique within its model.
    pub name: String,
    /// Who serves it, as the catalogue names it.
    #[serde(default)]
    pub provider: String,
    /// Its share of the model's requests, relative to the other deployments'.
    #[serde(default)]
    pub weight: u32,
    /// Its own limit of requests per minute, if any.
    #[serde(default)]
    pub rpm: Option<u32>,
    /// Its own limit of tokens per minute, if any.
    #[serde(default)]
    pub tpm: Option<u64>,
    /// Credits per 1,000 prompt tokens it is charged at, exact.
    #[serde(
        default,
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub prompt_price: Decimal,
    /// Credits per 1,000 completion tokens it is charged at, exact.
    #[serde(
        default,
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub completion_price: Decimal,
    /// How it is doing on the server instance that answered.
    pub health: ModelHealth,
}

/// A model's health on one server instance: its circuit breaker, and how fast it has answered
/// lately.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHealth {
    /// `closed` (requests go through), `open` (skipped until `open_until`), or `half_open`
    /// (the next request is its probe).
    pub state: String,
    /// While open: when the next request may be let through as its probe.
    #[serde(default)]
    pub open_until: Option<chrono::DateTime<chrono::Utc>>,
    /// What opened the circuit last, in words.
    #[serde(default)]
    pub opened_after: Option<String>,
    /// Failures since its last success.
    #[serde(default)]
    pub failures_in_a_row: u32,
    /// Requests in the breaker's window.
    #[serde(default)]
    pub recent_requests: u32,
    /// Failures in the breaker's window.
    #[serde(default)]
    pub recent_failures: u32,
    /// `recent_failures / recent_requests`.
    #[serde(default)]
    pub error_rate: f64,
    /// The time to first token `auto-fast` routes on, in ms.
    #[serde(default)]
    pub first_token_ms: f64,
    /// Whether `first_token_ms` was observed (else it is the catalogue's figure).
    #[serde(default)]
    pub first_token_observed: bool,
    /// The median time to first token of its recent answers, in ms.
    #[serde(default)]
    pub first_token_ms_p50: Option<f64>,
    /// Output tokens per second of its recent streams.
    #[serde(default)]
    pub tokens_per_second: Option<f64>,
    /// Answers whose speed was observed.
    #[serde(default)]
    pub samples: u64,
}

#[derive(Deserialize)]
struct ModelList {
    data: Vec<Model>,
}

/// Model endpoints, from [`Client::models`].
pub struct Models<'c> {
    client: &'c Client,
}

impl<'c> Models<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Models { client }
    }

    /// Every model, with prices and quality/latency figures.
    pub async fn list(&self) -> Result<Vec<Model>> {
        let list: ModelList = self.client.get(self.client.url(&["models"]), &[]).await?;
        Ok(list.data)
    }
}
