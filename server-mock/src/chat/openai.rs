//! The `openai` provider: any OpenAI-compatible upstream. The request goes through unchanged
//! (`temperature`, `tools`, `tool_choice` and unknown fields included) except for the model
//! name, our extensions, and `max_tokens`, which is always set so the budget holds. Streams are
//! forwarded chunk by chunk as they arrive.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Map, Value, json};

use super::provider::{Completion, Failure, Item, ItemStream};
use super::request::ChatRequest;
use crate::models::Model;

/// Longest upstream error text quoted in our messages.
const QUOTE: usize = 200;
/// How long an upstream may take to start answering, unless its catalogue entry says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `work` within `model`'s time limit.
async fn in_time<T>(
    model: &Model,
    work: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    let limit = model
        .timeout_ms
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    tokio::time::timeout(limit, work)
        .await
        .unwrap_or_else(|_| Err(Failure::timeout()))
}

fn body(model: &Model, cap: u32, request: &ChatRequest, stream: bool) -> Value {
    let mut body: Map<String, Value> = request.extra.clone();
    body.insert(
        "model".into(),
        json!(model.upstream_model.as_deref().unwrap_or(&model.id)),
    );
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| {
            let mut message = m.extra.clone();
            message.insert("role".into(), json!(m.role));
            message.insert("content".into(), m.content.clone());
            Value::Object(message)
        })
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    let cap_field = if request.max_completion_tokens.is_some() {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body.insert(cap_field.into(), json!(cap));
    for (field, value) in [
        ("temperature", request.temperature.map(|t| json!(t))),
        ("tools", request.tools.clone()),
        ("tool_choice", request.tool_choice.clone()),
    ] {
        if let Some(value) = value {
            body.insert(field.into(), value);
        }
    }
    body.insert("stream".into(), json!(stream));
    if stream {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

async fn send(
    http: &reqwest::Client,
    model: &Model,
    body: &Value,
) -> Result<reqwest::Response, Failure> {
    let base = model
        .base_url
        .as_deref()
        .unwrap_or_default()
        .trim_end_matches('/');
    let mut request = http.post(format!("{base}/chat/completions")).json(body);
    if let Some(var) = &model.api_key_env {
        let key = std::env::var(var).map_err(|_| Failure::other(format!("{var} is not set")))?;
        request = request.bearer_auth(key);
    }
    let response = request.send().await.map_err(|err| {
        if err.is_timeout() {
            Failure::timeout()
        } else {
            Failure::other("connection failed")
        }
    })?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        return Err(Failure::other(format!(
            "HTTP {status}: {}",
            crate::error::truncate(&text, QUOTE)
        )));
    }
    Ok(response)
}

/// A whole completion.
pub async fn complete(
    http: &reqwest::Client,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<Completion, Failure> {
    let bytes = in_time(model, async {
        let response = send(http, model, &body(model, cap, request, false)).await?;
        response.bytes().await.map_err(|err| {
            if err.is_timeout() {
                Failure::timeout()
            } else {
                Failure::other("the upstream answer was cut off")
            }
        })
    })
    .await?;
    let answer: Value = serde_json::from_slice(&bytes)
        .map_err(|_| Failure::other("the upstream answer is not JSON"))?;
    let choice = answer
        .pointer("/choices/0")
        .ok_or_else(|| Failure::other("the upstream answer has no choices"))?;
    let message = choice
        .get("message")
        .cloned()
        .unwrap_or_else(|| json!({"role": "assistant", "content": ""}));
    let usage = |field: &str| {
        answer
            .pointer(&format!("/usage/{field}"))
            .and_then(Value::as_u64)
    };
    let completion_tokens = usage("completion_tokens").unwrap_or_else(|| estimate(&message));
    Ok(Completion {
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .unwrap_or("stop")
            .to_string(),
        message,
        prompt_tokens: usage("prompt_tokens"),
        completion_tokens,
    })
}

/// A stream of deltas; the connection closes when it is dropped.
pub async fn stream(
    http: &reqwest::Client,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<ItemStream, Failure> {
    let response = in_time(model, send(http, model, &body(model, cap, request, true))).await?;
    let events = response.bytes_stream().eventsource();
    let items = events
        .map(|event| -> Vec<Result<Item, Failure>> {
            let event = match event {
                Ok(event) => event,
                Err(eventsource_stream::EventStreamError::Transport(err)) if err.is_timeout() => {
                    return vec![Err(Failure::timeout())];
                }
                Err(err) => {
                    return vec![Err(Failure::other(format!(
                        "the upstream stream broke: {err}"
                    )))];
                }
            };
            if event.data.trim() == "[DONE]" {
                return Vec::new();
            }
            let chunk: Value = match serde_json::from_str(&event.data) {
                Ok(chunk) => chunk,
                Err(_) => {
                    return vec![Err(Failure::other(
                        "the upstream sent a chunk that is not JSON",
                    ))];
                }
            };
            if let Some(error) = chunk.get("error") {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error");
                return vec![Err(Failure::other(format!(
                    "the upstream failed: {}",
                    crate::error::truncate(message, QUOTE)
                )))];
            }
            chunk_items(&chunk)
        })
        .flat_map(futures::stream::iter);
    Ok(Box::pin(items))
}

fn chunk_items(chunk: &Value) -> Vec<Result<Item, Failure>> {
    let mut items = Vec::new();
    if let Some(choice) = chunk.pointer("/choices/0") {
        if let Some(delta) = choice
            .get("delta")
            .filter(|d| d.as_object().is_some_and(|o| !o.is_empty()))
        {
            items.push(Ok(Item::Delta(delta.clone())));
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            items.push(Ok(Item::Finish(reason.to_string())));
        }
    }
    if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
        items.push(Ok(Item::Usage {
            prompt: usage.get("prompt_tokens").and_then(Value::as_u64),
            completion: usage
                .get("completion_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        }));
    }
    items
}

/// Tokens in a message's text, by the 4-characters rule, when the upstream reports none.
pub fn estimate(message: &Value) -> u64 {
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    (text.chars().count() as u64).div_ceil(4)
}
