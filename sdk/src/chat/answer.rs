//! What the gateway answers: a whole completion or its chunks, with `platform` (routing, credits
//! and, for an x402 payment, what was settled) and token counts.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ChatMessage;
use crate::credits;

/// How a request was routed and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Platform {
    /// The model that answered.
    pub routed_model: String,
    /// Why, in words.
    pub route_reason: String,
    /// Credits consumed, exact (never rounded to whole credits, never a binary float).
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub credits_consumed: Decimal,
    /// What the highest-quality model would have cost, minus `credits_consumed`, exact.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub cost_saved_credits: Decimal,
    /// The provider's own reason the answer ended, when chat completions has no word for it
    /// (`finish_reason` is then `stop`): an Anthropic `stop_reason` newer than the gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_finish_reason: Option<String>,
    /// For a request paid with x402 (`agent_wallet` on a workspace with x402 terms): what was
    /// settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settlement: Option<Settlement>,
}

/// An x402 payment's settlement, as `platform.settlement` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Settlement {
    /// `settled`, `pending` (retried by the server until settled or the authorization runs
    /// out) or `failed`.
    pub status: String,
    /// `exact` or `upto`.
    pub scheme: String,
    /// CAIP-2 network.
    pub network: String,
    /// The paying address.
    pub payer: String,
    /// Atomic units of the token settled.
    pub amount: String,
    /// The transaction, when one was made.
    #[serde(default)]
    pub transaction: Option<String>,
    /// Why it failed or waits.
    #[serde(default)]
    pub error: Option<String>,
}

/// Token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Of the prompt's tokens, those the provider read from (or wrote to) its cache; present
    /// only when it reported any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// Of the answer's tokens, those spent reasoning; present only when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens_details: Option<CompletionTokensDetails>,
}

/// `usage.prompt_tokens_details`: cached prompt tokens, charged at the model's cache prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptTokensDetails {
    /// Read from the provider's cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Written to the provider's cache (a 5-minute cache).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Written to a 1-hour cache.
    #[serde(default)]
    pub cache_write_1h_tokens: u64,
}

/// `usage.completion_tokens_details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionTokensDetails {
    /// Spent reasoning.
    #[serde(default)]
    pub reasoning_tokens: u64,
}

/// One choice of a whole completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Choice {
    /// Position, from 0.
    pub index: u32,
    /// The answer.
    pub message: ChatMessage,
    /// `stop`, `length`, `tool_calls`, ...
    pub finish_reason: Option<String>,
}

/// A whole chat completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChatCompletion {
    /// `chatcmpl-...`.
    pub id: String,
    /// `chat.completion`.
    pub object: String,
    /// Unix time in seconds.
    pub created: i64,
    /// The model that answered.
    pub model: String,
    /// The answers (one).
    pub choices: Vec<Choice>,
    /// Token counts.
    pub usage: Usage,
    /// Routing and credits.
    pub platform: Option<Platform>,
}

impl ChatCompletion {
    /// The first choice's text.
    pub fn text(&self) -> &str {
        self.choices
            .first()
            .and_then(|c| c.message.content.as_deref())
            .unwrap_or_default()
    }
}

/// What a chunk adds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Delta {
    /// Set on the first chunk.
    #[serde(default)]
    pub role: Option<String>,
    /// A piece of text.
    #[serde(default)]
    pub content: Option<String>,
    /// Pieces of tool calls, as the upstream sent them.
    #[serde(default)]
    pub tool_calls: Option<Value>,
}

/// One choice of a chunk.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChunkChoice {
    /// Position, from 0.
    pub index: u32,
    /// What this chunk adds.
    pub delta: Delta,
    /// Set on the last content chunk.
    pub finish_reason: Option<String>,
}

/// One streamed chunk.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChatChunk {
    /// The completion's id (the same on every chunk).
    pub id: String,
    /// `chat.completion.chunk`.
    pub object: String,
    /// The model that answers.
    #[serde(default)]
    pub model: String,
    /// Usually one choice; empty on the usage chunk.
    pub choices: Vec<ChunkChoice>,
    /// On the final chunk: routing and credits.
    #[serde(default)]
    pub platform: Option<Platform>,
    /// On the usage chunk (when asked for): token counts.
    #[serde(default)]
    pub usage: Option<Usage>,
}

impl ChatChunk {
    /// The text this chunk adds, if any.
    pub fn text(&self) -> Option<&str> {
        self.choices
            .first()
            .and_then(|c| c.delta.content.as_deref())
    }
}
