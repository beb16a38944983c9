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
    /// `simulated` or `openai`.
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
