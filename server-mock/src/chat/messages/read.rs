//! A Messages request read into the chat request the gateway routes: the body through the
//! internal form (`chat/form/messages.rs`, which drops and names what has no place), the
//! gateway's extensions from headers, the client's body and Anthropic headers kept for an
//! Anthropic upstream.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName};
use serde_json::{Map, Value};

use crate::chat::dialect;
use crate::chat::form::Conversation;
use crate::chat::request::{Checked, Inbound, Original};
use crate::http::openai::GatewayError;

/// Anthropic's headers an Anthropic upstream is sent as the client sent them.
/// (Names parsed once: a name given as text would be parsed on every lookup.)
const FORWARDED: [HeaderName; 2] = [
    HeaderName::from_static("anthropic-version"),
    HeaderName::from_static("anthropic-beta"),
];

/// `body` (a Messages request) and `headers` as a checked chat request for routing.
pub fn checked(body: Map<String, Value>, headers: &HeaderMap) -> Result<Checked, GatewayError> {
    let model = dialect::model(&body)?;
    let cap = dialect::count(&body, "max_tokens")?.ok_or_else(|| {
        GatewayError::invalid(
            "max_tokens",
            "max_tokens: a whole number of at least 1 is required",
        )
    })?;
    let stream = dialect::stream(&body)?;
    let read = Conversation::from_messages(&body)
        .map_err(|refusal| GatewayError::invalid(refusal.param, refusal.message))?;
    let forwarded = FORWARDED
        .iter()
        .filter_map(|name| Some((name.clone(), headers.get(name)?.clone())))
        .collect();
    let inbound = Inbound::Messages(Arc::new(Original {
        body,
        headers: forwarded,
        dropped: read.dropped,
        effort: read.effort,
    }));
    dialect::checked(&read.form, &model, (Some(cap), stream), headers, inbound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::request::{BUDGET_LIMIT, ROUTE_STRATEGY};
    use crate::credits::Credits;
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
        let effort = original.effort.as_ref().expect("output_config.effort read");
        assert_eq!(effort.from, ["output_config.effort", "thinking"]);
        for dropped in ["context_management", "cache_control"] {
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
