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
use super::upstream::{Reply, Upstreams};
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

/// Sends `body` to `model`'s upstream; an answer that is not a success is a failure quoting
/// what the upstream said.
async fn send(upstreams: &Upstreams, model: &Model, body: &Value) -> Result<Reply, Failure> {
    let target = model
        .target
        .as_ref()
        .ok_or_else(|| Failure::other("the model has no upstream"))?;
    let body =
        serde_json::to_vec(body).map_err(|_| Failure::other("could not encode the request"))?;
    let reply = upstreams.post(target, body).await?;
    if !reply.status.is_success() {
        let status = reply.status.as_u16();
        let text = reply.bytes().await.unwrap_or_default();
        return Err(Failure::other(format!(
            "HTTP {status}: {}",
            crate::error::truncate(&String::from_utf8_lossy(&text), QUOTE)
        )));
    }
    Ok(reply)
}

/// A whole completion.
pub async fn complete(
    upstreams: &Upstreams,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<Completion, Failure> {
    let bytes = in_time(model, async {
        send(upstreams, model, &body(model, cap, request, false))
            .await?
            .bytes()
            .await
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
    upstreams: &Upstreams,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<ItemStream, Failure> {
    let reply = in_time(
        model,
        send(upstreams, model, &body(model, cap, request, true)),
    )
    .await?;
    let events = reply.stream().eventsource();
    let items = events
        .map(|event| -> Vec<Result<Item, Failure>> {
            let event = match event {
                Ok(event) => event,
                Err(eventsource_stream::EventStreamError::Transport(failure)) => {
                    return vec![Err(failure)];
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
