//! `POST /v1/responses`: OpenAI's Responses API, stateless, on the gateway's rules, for Codex
//! CLI and OpenAI's SDKs. The request is read into the internal form and on to the chat
//! request the gateway routes; the gateway's extensions come as headers (as for
//! `/v1/messages`); the answer is written as a `response` object or the Responses events
//! (`chat/wire/responses.rs`). Errors are in OpenAI's envelope, as on chat completions. What
//! only a stateful API could honour (`store: true`, `previous_response_id`, `conversation`) is
//! refused, saying the gateway keeps nothing.

pub mod schema;

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value};

use super::dialect;
use super::form::Conversation;
use super::request::{Checked, Inbound, Original};
use super::{Caller, Gateway, serve};
use crate::http::error::ApiError;
use crate::http::extract::AgentJson;
use crate::http::openai::GatewayError;
use crate::http::routes::Routes;
use crate::store::Store;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Gateway>: FromRef<S>,
{
    Routes::new().post("/v1/responses", create)
}

/// Create a response (OpenAI's Responses API, stateless), streamed as its events when `stream`
/// is true.
pub async fn create(
    State(gateway): State<Arc<Gateway>>,
    caller: Caller,
    headers: HeaderMap,
    body: Result<AgentJson<Map<String, Value>>, ApiError>,
) -> Response {
    let body = body.map(|AgentJson(body)| body);
    serve(&gateway, caller, &headers, body, checked).await
}

/// Fields only a stateful API could honour.
const STATEFUL: [&str; 2] = ["previous_response_id", "conversation"];

/// `body` (a Responses request) and `headers` as a checked chat request for routing.
pub fn checked(body: Map<String, Value>, headers: &HeaderMap) -> Result<Checked, GatewayError> {
    let model = dialect::model(&body)?;
    if body.get("store") == Some(&Value::Bool(true)) {
        return Err(GatewayError::invalid(
            "store",
            "store: the gateway is stateless and keeps no response; send store: false (as Codex does) and the whole input each turn",
        ));
    }
    for field in STATEFUL {
        if body.get(field).is_some_and(|value| !value.is_null()) {
            return Err(GatewayError::invalid(
                field,
                format!(
                    "{field}: the gateway is stateless and keeps no response or conversation; send the whole input each turn"
                ),
            ));
        }
    }
    let cap = dialect::count(&body, "max_output_tokens")?;
    let stream = dialect::stream(&body)?;
    let read = Conversation::from_responses(&body)
        .map_err(|refusal| GatewayError::invalid(refusal.param, refusal.message))?;
    let inbound = Inbound::Responses(Arc::new(Original {
        body,
        headers: Vec::new(),
        dropped: read.dropped,
        effort: read.effort,
    }));
    dialect::checked(&read.form, &model, (cap, stream), headers, inbound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn what_codex_sends_is_taken_and_state_is_refused() {
        let codex = json!({"model": "auto", "instructions": "You are Codex.", "store": false, "stream": true,
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls"}]}],
            "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "medium", "summary": "auto"},
            "tools": [{"type": "web_search"}], "prompt_cache_key": "k"});
        let read = checked(body(codex.clone()), &HeaderMap::new()).unwrap();
        assert!(read.stream);
        assert_eq!(read.max_tokens, None, "the model's own maximum");
        let Inbound::Responses(original) = &read.inbound else {
            panic!("not read as Responses");
        };
        assert!(original.dropped.contains(&"tools.web_search".to_string()));
        for (field, value) in [
            ("store", json!(true)),
            ("previous_response_id", json!("resp_1")),
            ("conversation", json!("conv_1")),
        ] {
            let mut stateful = codex.clone();
            stateful[field] = value;
            let err = checked(body(stateful), &HeaderMap::new()).unwrap_err();
            assert_eq!(err.param, Some(field));
            assert!(err.message.contains("stateless"), "{}", err.message);
        }
        let mut capped = codex;
        capped["max_output_tokens"] = json!(0);
        assert_eq!(
            checked(body(capped), &HeaderMap::new()).unwrap_err().param,
            Some("max_output_tokens")
        );
    }
}
