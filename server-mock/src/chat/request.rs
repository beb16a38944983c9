//! The chat completion request, and its validation.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::credits::Credits;
use crate::http::openai::GatewayError;

/// `POST /v1/chat/completions` body. Fields the gateway does not use are kept in `extra` and
/// passed to OpenAI-compatible upstreams unchanged. Read field by field (see `decode`), so that
/// `budget_limit` is read from its JSON text, exactly.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub stream: Option<bool>,
    pub stream_options: Option<StreamOptions>,
    pub max_tokens: Option<i64>,
    /// OpenAI's newer name for `max_tokens`.
    pub max_completion_tokens: Option<i64>,
    pub temperature: Option<f64>,
    pub tools: Option<Value>,
    pub tool_choice: Option<Value>,
    pub route_strategy: Option<RouteStrategy>,
    pub budget_limit: Option<Credits>,
    pub agent_wallet: Option<String>,
    pub extra: Map<String, Value>,
}

/// One message: `role` and `content` (null when absent), and whatever else OpenAI allows (tool
/// calls, names), written to an upstream as it came. Read field by field (see `decode`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Message {
    pub role: String,
    pub content: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stream_options`.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct StreamOptions {
    #[serde(default)]
    pub include_usage: bool,
}

/// Weights for `auto` routing (default 0.5 each).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct RouteStrategy {
    #[serde(default)]
    pub cost_weight: Option<f64>,
    #[serde(default)]
    pub quality_weight: Option<f64>,
}

/// The most it may cost, in credits (the body's `budget_limit`).
pub const BUDGET_LIMIT: &str = "x-tokctl-budget-limit";
/// `cost_weight=0.7,quality_weight=0.3` (the body's `route_strategy`).
pub const ROUTE_STRATEGY: &str = "x-tokctl-route-strategy";
/// The paying wallet's address (the body's `agent_wallet`).
pub const AGENT_WALLET: &str = "x-tokctl-agent-wallet";
/// Roles a message may have.
pub const ROLES: [&str; 5] = ["system", "developer", "user", "assistant", "tool"];

/// The largest `budget_limit`, in credits.
pub const MAX_BUDGET_CREDITS: u64 = 1_000_000_000;

/// The dialect a request came in, and for another than chat completions what its answer is
/// written from.
#[derive(Debug, Clone, Default)]
pub enum Inbound {
    /// Chat completions (`request` is the client's own).
    #[default]
    Chat,
    /// Anthropic Messages (`request` is its translation).
    Messages(Arc<Original>),
    /// OpenAI Responses (`request` is its translation).
    Responses(Arc<Original>),
}

impl Inbound {
    /// The client's own request, for a dialect other than chat completions.
    pub fn original(&self) -> Option<&Original> {
        match self {
            Inbound::Chat => None,
            Inbound::Messages(original) | Inbound::Responses(original) => Some(original),
        }
    }
}

/// A request as the client wrote it in a dialect other than chat completions: sent as it came
/// (but for the model's name and the cap) to an upstream that speaks that dialect.
#[derive(Debug)]
pub struct Original {
    pub body: Map<String, Value>,
    /// The client's headers that go with it to such an upstream (`anthropic-version`,
    /// `anthropic-beta`).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// What the translation for any other upstream left out, by name.
    pub dropped: Vec<String>,
    /// The reasoning effort asked for, for a model that takes `reasoning_effort`.
    pub effort: Option<Effort>,
}

/// A reasoning effort a request asked for (`low`, `medium`, `high`, ...), and the settings it
/// was read from: sent as `reasoning_effort` to a model that takes it, else those settings are
/// named as dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Effort {
    pub level: String,
    pub from: Vec<&'static str>,
}

/// A request that passed validation, with defaults applied.
#[derive(Debug, Clone)]
pub struct Checked {
    pub request: ChatRequest,
    pub inbound: Inbound,
    pub stream: bool,
    pub include_usage: bool,
    pub max_tokens: Option<u32>,
    /// (cost weight, quality weight), summing to 1.
    pub weights: (f64, f64),
}

impl ChatRequest {
    /// Checks every field the spec and contract constrain.
    pub fn check(self) -> Result<Checked, GatewayError> {
        if self.messages.is_empty() {
            return Err(GatewayError::invalid(
                "messages",
                "messages must be a non-empty array",
            ));
        }
        for (index, message) in self.messages.iter().enumerate() {
            if !ROLES.contains(&message.role.as_str()) {
                return Err(GatewayError::invalid(
                    "messages",
                    format!("messages[{index}].role must be one of {}", ROLES.join(", ")),
                ));
            }
            let content_ok = match &message.content {
                Value::String(_) | Value::Array(_) => true,
                Value::Null => message.role == "assistant",
                _ => false,
            };
            if !content_ok {
                return Err(GatewayError::invalid(
                    "messages",
                    format!("messages[{index}].content must be a string or an array of parts"),
                ));
            }
        }
        if self.model.trim().is_empty() {
            return Err(GatewayError::invalid(
                "model",
                "model must name a model or auto, auto-fast, auto-cheap",
            ));
        }
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(GatewayError::invalid(
                "temperature",
                "temperature must be between 0 and 2",
            ));
        }
        for (param, value) in [
            ("max_tokens", self.max_tokens),
            ("max_completion_tokens", self.max_completion_tokens),
        ] {
            if value.is_some_and(|n| n < 1) {
                return Err(GatewayError::invalid(
                    param,
                    format!("{param} must be at least 1"),
                ));
            }
        }
        let max_tokens = self
            .max_tokens
            .or(self.max_completion_tokens)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let most = Credits::from_nanos(MAX_BUDGET_CREDITS * 1_000_000_000);
        if let Some(budget) = self.budget_limit
            && !(Credits::from_nanos(1)..=most).contains(&budget)
        {
            return Err(GatewayError::invalid(
                "budget_limit",
                format!("budget_limit must be from 0.000000001 to {MAX_BUDGET_CREDITS} credits"),
            ));
        }
        if self.tools.as_ref().is_some_and(|tools| {
            !tools
                .as_array()
                .is_some_and(|list| list.iter().all(Value::is_object))
        }) {
            return Err(GatewayError::invalid(
                "tools",
                "tools must be an array of tool objects",
            ));
        }
        if self
            .tool_choice
            .as_ref()
            .is_some_and(|choice| !(choice.is_string() || choice.is_object()))
        {
            return Err(GatewayError::invalid(
                "tool_choice",
                "tool_choice must be a string or an object",
            ));
        }
        if let Some(wallet) = &self.agent_wallet
            && !is_wallet(wallet)
        {
            return Err(GatewayError::invalid(
                "agent_wallet",
                "agent_wallet must be a 0x-prefixed address of 40 hexadecimal digits",
            ));
        }
        let weights = weights(self.route_strategy)?;
        Ok(Checked {
            inbound: Inbound::Chat,
            stream: self.stream.unwrap_or(false),
            include_usage: self.stream_options.is_some_and(|o| o.include_usage),
            max_tokens,
            weights,
            request: self,
        })
    }
}

fn weights(strategy: Option<RouteStrategy>) -> Result<(f64, f64), GatewayError> {
    let Some(strategy) = strategy else {
        return Ok((0.5, 0.5));
    };
    let cost = strategy.cost_weight.unwrap_or(0.5);
    let quality = strategy.quality_weight.unwrap_or(0.5);
    let valid = |w: f64| w.is_finite() && (0.0..=1.0).contains(&w);
    if !valid(cost) || !valid(quality) || cost + quality <= 0.0 {
        return Err(GatewayError::invalid(
            "route_strategy",
            "route_strategy weights must be between 0 and 1 and not both 0",
        ));
    }
    Ok((cost / (cost + quality), quality / (cost + quality)))
}

fn is_wallet(wallet: &str) -> bool {
    wallet
        .strip_prefix("0x")
        .is_some_and(|hex| hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The text of a message's content (string, or the text parts of an array).
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// Prompt tokens, estimated as OpenAI's rule of thumb: a token per 4 characters, plus 4 per
/// message for its framing, plus 3 for the reply's priming.
pub fn prompt_tokens(messages: &[Message]) -> u64 {
    let text: u64 = messages
        .iter()
        .map(|m| (content_text(&m.content).chars().count() as u64).div_ceil(4) + 4)
        .sum();
    text + 3
}

impl ChatRequest {
    /// The gateway's extensions from `headers`, for a dialect whose body cannot carry them:
    /// [`BUDGET_LIMIT`], [`ROUTE_STRATEGY`], [`AGENT_WALLET`].
    pub fn extensions_from(&mut self, headers: &HeaderMap) -> Result<(), GatewayError> {
        self.budget_limit = budget(headers)?;
        self.route_strategy = strategy(headers)?;
        self.agent_wallet = header(headers, &WALLET_HEADER)?.map(str::to_string);
        Ok(())
    }
}

/// A header's name parsed once, and as text (for errors): a name given as text would be
/// parsed on every lookup.
type Named = (HeaderName, &'static str);
const BUDGET_HEADER: Named = (HeaderName::from_static(BUDGET_LIMIT), BUDGET_LIMIT);
const STRATEGY_HEADER: Named = (HeaderName::from_static(ROUTE_STRATEGY), ROUTE_STRATEGY);
const WALLET_HEADER: Named = (HeaderName::from_static(AGENT_WALLET), AGENT_WALLET);

/// Header `name`'s text, if sent; a value that is not text is refused.
fn header<'h>(
    headers: &'h HeaderMap,
    (key, name): &Named,
) -> Result<Option<&'h str>, GatewayError> {
    headers
        .get(key)
        .map(|value| {
            value
                .to_str()
                .map(str::trim)
                .map_err(|_| GatewayError::invalid(name, format!("{name} must be plain text")))
        })
        .transpose()
}

fn budget(headers: &HeaderMap) -> Result<Option<Credits>, GatewayError> {
    header(headers, &BUDGET_HEADER)?
        .map(|text| {
            Credits::parse_exact(text).ok_or_else(|| {
                GatewayError::invalid(
                    BUDGET_LIMIT,
                    format!("{BUDGET_LIMIT} must be a decimal number of credits with at most 9 decimal places"),
                )
            })
        })
        .transpose()
}

/// `cost_weight=W, quality_weight=W` (either may be left out).
fn strategy(headers: &HeaderMap) -> Result<Option<RouteStrategy>, GatewayError> {
    let Some(text) = header(headers, &STRATEGY_HEADER)? else {
        return Ok(None);
    };
    let refuse = || {
        GatewayError::invalid(
            ROUTE_STRATEGY,
            format!("{ROUTE_STRATEGY} must read cost_weight=W,quality_weight=W (W from 0 to 1)"),
        )
    };
    let mut strategy = RouteStrategy {
        cost_weight: None,
        quality_weight: None,
    };
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (key, value) = pair.split_once('=').ok_or_else(refuse)?;
        let value: f64 = value.trim().parse().map_err(|_| refuse())?;
        match key.trim() {
            "cost_weight" => strategy.cost_weight = Some(value),
            "quality_weight" => strategy.quality_weight = Some(value),
            _ => return Err(refuse()),
        }
    }
    Ok(Some(strategy))
}
