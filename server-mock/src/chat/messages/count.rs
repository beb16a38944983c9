//! `POST /v1/messages/count_tokens`: how many input tokens a Messages request holds, which
//! Claude Code asks between turns. An Anthropic model's upstream is asked (the client's body
//! with the upstream's model name, its answer relayed unchanged); for any other model (and
//! `auto`) it is estimated here by the 4-characters rule. No credits and no limit reservation:
//! the request counts once in the rate limit, like any other.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::auth::{Authenticated, require};
use crate::chat::Gateway;
use crate::chat::catalogue::ProviderKind;
use crate::chat::failures;
use crate::chat::form::{Conversation, Part};
use crate::chat::openai::whole;
use crate::chat::routing::is_auto;
use crate::chat::upstream::Extra;
use crate::http::anthropic::from_openai;
use crate::http::extract::AgentJson;
use crate::http::openai::GatewayError;

/// Count the input tokens of a Messages request.
pub async fn count_tokens(
    State(gateway): State<Arc<Gateway>>,
    _auth: Authenticated<require::ChatWrite>,
    headers: HeaderMap,
    AgentJson(body): AgentJson<Map<String, Value>>,
) -> Response {
    from_openai(count(&gateway, &headers, body).await).await
}

async fn count(gateway: &Gateway, headers: &HeaderMap, mut body: Map<String, Value>) -> Response {
    let name = match body.get("model") {
        Some(Value::String(model)) if !model.trim().is_empty() => model.clone(),
        _ => {
            let err = GatewayError::invalid("model", "model: a model name is required");
            return err.into_response();
        }
    };
    let model = match gateway.catalogue.get(&name) {
        Some(model) => Some(model),
        None if is_auto(&name) => None,
        None => return GatewayError::model_not_found(&name).into_response(),
    };
    // An Anthropic model's first deployment counts the tokens.
    let deployment = model.and_then(|m| m.deployments.first());
    if let Some(model) = deployment.filter(|m| m.provider == ProviderKind::Anthropic) {
        let upstream = model.upstream_name();
        body.insert("model".into(), json!(upstream));
        let extra = Extra {
            headers: ["anthropic-version", "anthropic-beta"]
                .iter()
                .filter_map(|name| {
                    Some((HeaderName::from_static(name), headers.get(*name)?.clone()))
                })
                .collect(),
            path: Some("/v1/messages/count_tokens"),
        };
        // A map of JSON values always serialises.
        let sent = serde_json::to_vec(&body).unwrap_or_default();
        return match whole(model, &extra, sent).await {
            Ok(bytes) => {
                let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
                (json, bytes).into_response()
            }
            Err(failure) if failure.status.is_some() && failure.body.is_some() => {
                failures::relay(failure)
            }
            Err(failure) => GatewayError::upstream(format!(
                "the upstream could not count the tokens: {failure}"
            ))
            .into_response(),
        };
    }
    match Conversation::from_messages(&body) {
        Ok(read) => Json(json!({"input_tokens": estimate(&read.form, &body)})).into_response(),
        Err(refusal) => GatewayError::invalid(refusal.param, refusal.message).into_response(),
    }
}

/// Tokens in `form` (and its tools as `body` wrote them) by the 4-characters rule, with 4 for
/// each turn's framing and 3 for the reply's priming, as chat requests are estimated.
pub fn estimate(form: &Conversation, body: &Map<String, Value>) -> u64 {
    let mut chars: usize = form.system.iter().map(|s| s.chars().count()).sum();
    let mut turns = form.system.len() as u64;
    for turn in &form.turns {
        turns += 1;
        chars += turn.parts.iter().map(part_chars).sum::<usize>();
    }
    let tools = body.get("tools").map_or(0, |tools| tools.to_string().len());
    (chars + tools).div_ceil(4) as u64 + 4 * turns + 3
}

fn part_chars(part: &Part) -> usize {
    match part {
        Part::Text(text) => text.chars().count(),
        // An image is billed by its pixels, which are not read here: a flat guess.
        Part::Image(_) => 6000,
        Part::ToolCall(call) => {
            call.name.len() + Value::Object(call.input.clone()).to_string().len()
        }
        Part::ToolResult(result) => result.content.iter().map(part_chars).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longer_requests_count_more_and_tools_count() {
        let body = |value: Value| match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        let short = body(json!({"messages": [{"role": "user", "content": "abcd"}]}));
        let read = Conversation::from_messages(&short).unwrap();
        // 1 token of text, 4 for the turn, 3 for the reply.
        assert_eq!(estimate(&read.form, &short), 8);
        let tooled = body(json!({"messages": [{"role": "user", "content": "abcd"}],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}]}));
        let read = Conversation::from_messages(&tooled).unwrap();
        assert!(estimate(&read.form, &tooled) > 8);
    }
}
