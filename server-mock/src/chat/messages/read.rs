//! A Messages request read into the chat request the gateway routes: the body through the
//! internal form (`chat/form/messages.rs`, which drops and names what has no place), the
//! gateway's extensions from headers, the client's body and Anthropic headers kept for an
//! Anthropic upstream.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName};
use serde_json::{Map, Value};

use crate::chat::form::Conversation;
use crate::chat::request::{ChatRequest, Checked, Inbound, Original, RouteStrategy};
use crate::credits::Credits;
use crate::http::openai::GatewayError;

/// The most it may cost, in credits (the body's `budget_limit`).
pub const BUDGET_LIMIT: &str = "x-tokctl-budget-limit";
/// `cost_weight=0.7,quality_weight=0.3` (the body's `route_strategy`).
pub const ROUTE_STRATEGY: &str = "x-tokctl-route-strategy";
/// The paying wallet's address (the body's `agent_wallet`).
pub const AGENT_WALLET: &str = "x-tokctl-agent-wallet";
/// Anthropic's headers an Anthropic upstream is sent as the client sent them.
const FORWARDED: [&str; 2] = ["anthropic-version", "anthropic-beta"];

/// `body` (a Messages request) and `headers` as a checked chat request for routing.
pub fn checked(body: Map<String, Value>, headers: &HeaderMap) -> Result<Checked, GatewayError> {
    let model = match body.get("model") {
        Some(Value::String(model)) if !model.trim().is_empty() => model.clone(),
        _ => {
            return Err(GatewayError::invalid(
                "model",
                "model: a model name is required",
            ));
        }
    };
    // A whole number from 1 to i64::MAX, written as an integer or with nothing after the
    // point (`12.0`).
    let whole = match body.get("max_tokens") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(n) => Some(n).filter(|n| (1..=i64::MAX as u64).contains(n)),
            None => n
                .as_f64()
                .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n < i64::MAX as f64)
                .map(|n| n as u64),
        },
        _ => None,
    };
    let max_tokens = match whole {
        Some(n) => u32::try_from(n).unwrap_or(u32::MAX),
        _ => {
            return Err(GatewayError::invalid(
                "max_tokens",
                "max_tokens: a whole number of at least 1 is required",
            ));
        }
    };
    let stream = match body.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(GatewayError::invalid("stream", "stream: must be a boolean")),
    };
    let read = Conversation::from_messages(&body)
        .map_err(|refusal| GatewayError::invalid(refusal.param, refusal.message))?;
    let mut chat = read.form.to_chat(&model, max_tokens, stream);
    // Turns with nothing the form keeps (empty text, dropped blocks) leave an empty user turn.
    if chat["messages"].as_array().is_some_and(Vec::is_empty) {
        chat["messages"] = serde_json::json!([{"role": "user", "content": ""}]);
    }
    let mut request: ChatRequest = serde_json::from_value(chat)
        .map_err(|err| GatewayError::invalid("messages", format!("messages: {err}")))?;
    request.budget_limit = budget(headers)?;
    request.route_strategy = strategy(headers)?;
    request.agent_wallet = header(headers, AGENT_WALLET)?.map(str::to_string);
    let mut checked = request.check()?;
    let forwarded = FORWARDED
        .iter()
        .filter_map(|name| {
            let value = headers.get(*name)?;
            Some((HeaderName::from_static(name), value.clone()))
        })
        .collect();
    checked.inbound = Inbound::Messages(Arc::new(Original {
        body,
        headers: forwarded,
        dropped: read.dropped,
    }));
    Ok(checked)
}

/// Header `name`'s text, if sent; a value that is not text is refused.
fn header<'h>(headers: &'h HeaderMap, name: &'static str) -> Result<Option<&'h str>, GatewayError> {
    headers
        .get(name)
        .map(|value| {
            value
                .to_str()
                .map(str::trim)
                .map_err(|_| GatewayError::invalid(name, format!("{name} must be plain text")))
        })
        .transpose()
}

fn budget(headers: &HeaderMap) -> Result<Option<Credits>, GatewayError> {
    header(headers, BUDGET_LIMIT)?
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
    let Some(text) = header(headers, ROUTE_STRATEGY)? else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    fn agent_turn() -> Value {
        json!({"model": "claude-sonnet-4-6", "max_tokens": 32000, "stream": true,
            "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "system", "content": "Be brief."},
                         {"role": "user", "content": [{"type": "text", "text": "hi"}]}],
            "thinking": {"type": "adaptive"}, "context_management": {"edits": []},
            "output_config": {"effort": "high"}, "metadata": {"user_id": "u1"}})
    }

    #[test]
    fn what_an_agent_sends_on_every_turn_is_read_and_the_rest_named() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-beta",
            "context-management-2025-06-27".parse().unwrap(),
        );
        headers.insert(BUDGET_LIMIT, "0.5".parse().unwrap());
        headers.insert(
            ROUTE_STRATEGY,
            "cost_weight=1, quality_weight=0".parse().unwrap(),
        );
        let checked = checked(body(agent_turn()), &headers).unwrap();
        assert!(checked.stream);
        assert_eq!(checked.max_tokens, Some(32000));
        assert_eq!(checked.weights, (1.0, 0.0));
        assert_eq!(checked.request.budget_limit, Credits::parse_exact("0.5"));
        let roles: Vec<&str> = checked
            .request
            .messages
            .iter()
            .map(|m| m.role.as_str())
            .collect();
        assert_eq!(roles, ["system", "system", "user"]);
        let Inbound::Messages(original) = &checked.inbound else {
            panic!("not read as Messages");
        };
        assert_eq!(original.headers.len(), 1, "the client's beta goes with it");
        for dropped in [
            "thinking",
            "context_management",
            "output_config.effort",
            "cache_control",
        ] {
            assert!(
                original.dropped.iter().any(|d| d == dropped),
                "{dropped}: {:?}",
                original.dropped
            );
        }
    }

    #[test]
    fn a_body_that_is_not_a_messages_request_is_refused_with_the_field() {
        let cases = [
            (json!({"max_tokens": 5, "messages": []}), "model"),
            (
                json!({"model": "m", "messages": [{"role": "user", "content": "x"}]}),
                "max_tokens",
            ),
            (
                json!({"model": "m", "max_tokens": 0, "messages": []}),
                "max_tokens",
            ),
            (
                json!({"model": "m", "max_tokens": 5, "stream": "yes", "messages": []}),
                "stream",
            ),
            (
                json!({"model": "m", "max_tokens": 5, "messages": "hi"}),
                "messages",
            ),
        ];
        for (request, param) in cases {
            let err = checked(body(request.clone()), &HeaderMap::new()).unwrap_err();
            assert_eq!(err.param, Some(param), "{request}");
        }
        let mut headers = HeaderMap::new();
        headers.insert(ROUTE_STRATEGY, "fast".parse().unwrap());
        let err = checked(body(agent_turn()), &headers).unwrap_err();
        assert_eq!(err.param, Some(ROUTE_STRATEGY));
        let mut headers = HeaderMap::new();
        headers.insert(BUDGET_LIMIT, "lots".parse().unwrap());
        let err = checked(body(agent_turn()), &headers).unwrap_err();
        assert_eq!(err.param, Some(BUDGET_LIMIT));
    }
}
