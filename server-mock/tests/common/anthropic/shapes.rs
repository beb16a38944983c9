//! The shapes Anthropic's API reference shows, as JSON values: a whole `message`, its usage, the
//! stream's events (`message_start` ... `message_stop`, tool input as `input_json_delta`
//! pieces, errors) and the SSE text that carries them. The mock sends only these, and the
//! `anthropic` Python SDK's types hold them (`tests/anthropic_sdk.rs`).

use serde_json::{Value, json};

/// A whole `message`, as the API reference shows one.
pub fn message(model: &Value, content: Vec<Value>, stop_reason: &str, usage: Value) -> Value {
    json!({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": usage,
    })
}

pub fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// `usage` with `input` fresh prompt tokens, `output`, and cache writes (5-minute) and reads.
pub fn usage(input: u64, output: u64, written: u64, read: u64) -> Value {
    json!({
        "input_tokens": input,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output,
        "service_tier": "standard",
    })
}

/// `message_start`, its message empty and its usage's output count 1, as Anthropic sends it.
pub fn start(model: &Value, usage: &Value) -> Value {
    let mut usage = usage.clone();
    usage["output_tokens"] = json!(1);
    let mut message = message(model, vec![], "end_turn", usage);
    message["stop_reason"] = Value::Null;
    json!({"type": "message_start", "message": message})
}

/// A text block at `index`, streamed in `pieces`.
pub fn text_events(index: u64, pieces: &[&str]) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
    ];
    for piece in pieces {
        events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}));
    }
    events.push(json!({"type": "content_block_stop", "index": index}));
    events
}

/// A `tool_use` block at `index`, its input streamed as `input_json_delta` pieces.
pub fn tool_events(index: u64, id: &str, name: &str, pieces: &[&str]) -> Vec<Value> {
    let mut events = vec![json!({"type": "content_block_start", "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})];
    events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": ""}}));
    for piece in pieces {
        events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}));
    }
    events.push(json!({"type": "content_block_stop", "index": index}));
    events
}

/// `message_delta` and `message_stop`: the stop reason and the cumulative output count.
pub fn end_events(stop_reason: &str, output: u64) -> Vec<Value> {
    vec![
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": output}}),
        json!({"type": "message_stop"}),
    ]
}

pub fn error_event(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// The events that stream `message`: start, a ping, each block, the end.
pub fn events_of(message: &Value, model: &Value) -> Vec<Value> {
    let mut events = vec![start(model, &message["usage"]), json!({"type": "ping"})];
    for (index, block) in message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let index = index as u64;
        match block["type"].as_str() {
            Some("text") => {
                let text = block["text"].as_str().unwrap_or("");
                let (a, b) = text.split_at(
                    text.char_indices()
                        .nth(text.chars().count() / 2)
                        .map_or(0, |(i, _)| i),
                );
                events.extend(text_events(index, &[a, b]));
            }
            Some("tool_use") => {
                let input = block["input"].to_string();
                let (a, b) = input.split_at(input.len() / 2);
                events.extend(tool_events(
                    index,
                    block["id"].as_str().unwrap(),
                    block["name"].as_str().unwrap(),
                    &[a, b],
                ));
            }
            Some("thinking") => {
                events.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}));
                events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}}));
                events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": block["signature"]}}));
                events.push(json!({"type": "content_block_stop", "index": index}));
            }
            _ => {}
        }
    }
    let output = message["usage"]["output_tokens"].as_u64().unwrap_or(0);
    events.extend(end_events(
        message["stop_reason"].as_str().unwrap_or("end_turn"),
        output,
    ));
    events
}

/// SSE as Anthropic writes it: an `event:` line naming the type, then the `data:` line.
pub fn sse_text(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap_or("message")
            )
        })
        .collect()
}

/// An error in Anthropic's envelope.
pub fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"})
}
