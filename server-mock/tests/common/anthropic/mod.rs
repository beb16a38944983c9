//! A faithful Anthropic upstream: `POST /v1/messages` answered as Anthropic's API reference
//! shows (JSON, and SSE with `event:` lines, `ping`, tool calls streamed as `input_json_delta`
//! pieces, cached usage, errors in Anthropic's envelope, a 529, an error event after 200). It
//! checks what a real one checks first (the key, the version header, `max_tokens`, non-empty
//! `messages`) and records every request. The shapes it sends are checked against the official
//! `anthropic` Python SDK's types (`tests/anthropic_sdk.rs`), so it cannot drift from the API.
//!
//! `count_tokens` answers the body's length over 4.
//!
//! What it answers: the next queued [`Reply`] if any, else by the last user turn: a tool result
//! gets "It is 18°C in Paris."; a text naming `weather` with tools given gets a `get_weather`
//! call; `run-tool` with a `Bash` tool given (as Claude Code gives it) a `Bash` call writing
//! `proof.txt`; `overloaded` a 529; `rate-limited` a 429 (`retry-after: 1`); `fail-before` an
//! error event before any content; `fail-after` one after some; `cache` an answer with cached
//! usage; `think` a thinking block; else an echo.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

mod shapes;
pub use shapes::*;

/// The key the mock accepts.
pub const KEY: &str = "sk-ant-test-key";
/// The environment variable a catalogue names for it.
pub const KEY_VAR: &str = "TOKCTL_TEST_ANTHROPIC_KEY";

/// What the mock answers one request with.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A whole `message` (its `model` filled in from the request when null).
    Message(Value),
    /// SSE events, in order.
    Events(Vec<Value>),
    /// An error status with Anthropic's error body, and maybe `retry-after`.
    Status(u16, &'static str, Option<u64>),
}

/// A request the mock received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub headers: HeaderMap,
    pub body: Value,
}

/// What the mock sent: whole messages, stream events, error bodies.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Sent {
    pub messages: Vec<Value>,
    pub events: Vec<Value>,
    pub errors: Vec<Value>,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
    sent: Mutex<Sent>,
}

/// A catalogue file in `dir`: `claude` (anthropic, at `url`, alias `claude-sonnet`, upstream
/// name `claude-sonnet-4-5`, two beta features, best quality and dearest, cache prices a tenth
/// and 1.25x of its prompt price, `extra` TOML lines in its entry) and `local` (simulated).
pub fn catalogue(dir: &std::path::Path, url: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[[models]]
id = "claude"
aliases = ["claude-sonnet"]
provider = "anthropic"
base_url = "{url}"
api_key_env = "{KEY_VAR}"
upstream_model = "claude-sonnet-4-5"
anthropic_beta = ["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"]
prompt_price = 3.0
completion_price = 15.0
cache_read_price = 0.3
cache_write_price = 3.75
quality = 0.99
latency_ms = 500
{extra}

[[models]]
id = "local"
provider = "simulated"
prompt_price = 0.1
completion_price = 0.2
quality = 0.5
latency_ms = 50
"#
        ),
    )
    .unwrap();
    path
}

/// A gateway over [`catalogue`] for `mock`, with `extra` TOML lines in `claude`'s entry and
/// `args` given to the server (simulated streams without delay). Keep the directory alive.
pub fn gateway(mock: &Anthropic, extra: &str, args: &[&str]) -> (tempfile::TempDir, super::Server) {
    let tmp = tempfile::tempdir().unwrap();
    let path = catalogue(tmp.path(), &mock.url, extra);
    let mut all = vec![
        "--models",
        path.to_str().unwrap(),
        "--sim-token-delay-ms",
        "0",
    ];
    all.extend_from_slice(args);
    let server = super::Server::start_with(super::Options {
        env: vec![(KEY_VAR, KEY)],
        args: all.into_iter().map(String::from).collect(),
        ..Default::default()
    });
    (tmp, server)
}

/// A running mock on 127.0.0.1:0.
pub struct Anthropic {
    /// `http://127.0.0.1:PORT` (the gateway adds `/v1/messages`).
    pub url: String,
    shared: Arc<Shared>,
}

impl Anthropic {
    pub async fn start() -> Anthropic {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/v1/messages", axum::routing::post(messages))
            .route(
                "/v1/messages/count_tokens",
                axum::routing::post(count_tokens),
            )
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Anthropic { url, shared }
    }

    /// Answers the next request with `reply`.
    pub fn queue(&self, reply: Reply) {
        self.shared.queue.lock().unwrap().push_back(reply);
    }

    /// Every request so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }

    /// Everything it has answered with so far.
    pub fn sent(&self) -> Sent {
        self.shared.sent.lock().unwrap().clone()
    }

    /// The last request's body.
    pub fn last(&self) -> Value {
        self.seen()
            .last()
            .expect("the mock saw no request")
            .body
            .clone()
    }
}

async fn messages(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let body: Value = match serde_json::from_str(&body) {
        Ok(body) => body,
        Err(_) => {
            return error(
                400,
                "invalid_request_error",
                "There was an error parsing the body of your request",
                None,
            );
        }
    };
    shared.seen.lock().unwrap().push(Seen {
        headers: headers.clone(),
        body: body.clone(),
    });
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(KEY) {
        return error(401, "authentication_error", "invalid x-api-key", None);
    }
    if headers.get("anthropic-version").is_none() {
        return error(
            400,
            "invalid_request_error",
            "anthropic-version: header is required",
            None,
        );
    }
    if !body["max_tokens"].is_u64() {
        return error(
            400,
            "invalid_request_error",
            "max_tokens: Field required",
            None,
        );
    }
    if body["messages"].as_array().is_none_or(Vec::is_empty) {
        return error(
            400,
            "invalid_request_error",
            "messages: at least one message is required",
            None,
        );
    }
    let model = body["model"].clone();
    let stream = body["stream"].as_bool().unwrap_or(false);
    let queued = shared.queue.lock().unwrap().pop_front();
    let reply = queued.unwrap_or_else(|| by_content(&body, stream));
    let mut sent = shared.sent.lock().unwrap();
    match reply {
        Reply::Status(status, kind, retry_after) => {
            let message = match kind {
                "overloaded_error" => "Overloaded",
                "rate_limit_error" => "This request would exceed your rate limit",
                "api_error" => "Internal server error",
                _ => "messages.0.content: Input should be a valid list",
            };
            sent.errors.push(error_body(kind, message));
            error(status, kind, message, retry_after)
        }
        Reply::Message(mut message) if !stream => {
            if message["model"].is_null() {
                message["model"] = model;
            }
            sent.messages.push(message.clone());
            axum::Json(message).into_response()
        }
        Reply::Message(message) => {
            let events = events_of(&message, &model);
            sent.events.extend(events.iter().cloned());
            sse(&events)
        }
        Reply::Events(events) => {
            sent.events.extend(events.iter().cloned());
            sse(&events)
        }
    }
}

/// `count_tokens`: recorded, and answered with the body's length in bytes over 4 (a real one
/// counts with the model's tokenizer).
async fn count_tokens(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let parsed: Value = serde_json::from_str(&body).unwrap_or_default();
    shared.seen.lock().unwrap().push(Seen {
        headers: headers.clone(),
        body: parsed,
    });
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(KEY) {
        return error(401, "authentication_error", "invalid x-api-key", None);
    }
    axum::Json(json!({"input_tokens": body.len() / 4})).into_response()
}

/// The answer the last user turn asks for (see the module's doc).
fn by_content(body: &Value, stream: bool) -> Reply {
    // The last user turn (Claude Code ends its messages with a system turn).
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .cloned()
        .unwrap_or_default();
    let blocks = last["content"].as_array().cloned().unwrap_or_default();
    let text: String = match &last["content"] {
        Value::String(text) => text.clone(),
        _ => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
    };
    let model = &body["model"];
    if blocks.iter().any(|b| b["type"] == "tool_result") {
        return Reply::Message(message(
            model,
            vec![text_block("It is 18°C in Paris.")],
            "end_turn",
            usage(40, 9, 0, 0),
        ));
    }
    if text.contains("weather") && body["tools"].is_array() {
        let call = json!({"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"city": "Paris", "unit": "celsius"}});
        return Reply::Message(message(
            model,
            vec![text_block("Let me check."), call],
            "tool_use",
            usage(30, 20, 0, 0),
        ));
    }
    let has_bash = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "Bash"));
    if text.contains("run-tool") && has_bash {
        let input =
            json!({"command": "echo tool-ran > proof.txt", "description": "Write the proof file"});
        let call =
            json!({"type": "tool_use", "id": "toolu_01Bash", "name": "Bash", "input": input});
        return Reply::Message(message(
            model,
            vec![text_block("Running it."), call],
            "tool_use",
            usage(30, 20, 0, 0),
        ));
    }
    if text.contains("overloaded") {
        return Reply::Status(529, "overloaded_error", None);
    }
    if text.contains("rate-limited") {
        return Reply::Status(429, "rate_limit_error", Some(1));
    }
    if text.contains("fail-before") {
        let mut events = vec![start(model, &usage(10, 1, 0, 0)), json!({"type": "ping"})];
        events.push(error_event("overloaded_error", "Overloaded"));
        return Reply::Events(events);
    }
    if text.contains("fail-after") {
        let mut events = vec![start(model, &usage(10, 1, 0, 0))];
        events.extend(text_events(0, &["Half", " an"]));
        events.push(error_event("api_error", "Internal server error"));
        return Reply::Events(events);
    }
    if text.contains("cache") {
        let answer = message(
            model,
            vec![text_block("Cached.")],
            "end_turn",
            usage(100, 5, 2_000, 30_000),
        );
        return Reply::Message(answer);
    }
    if text.contains("think") {
        let thinking = json!({"type": "thinking", "thinking": "The user wants a number.", "signature": "EqQBCgIYAhIM"});
        return Reply::Message(message(
            model,
            vec![thinking, text_block("42")],
            "end_turn",
            usage(12, 30, 0, 0),
        ));
    }
    let _ = stream;
    let images = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "image")
        .count();
    let reply = match images {
        0 => format!("Hello from Claude. You said: {text}"),
        n => format!("I see {n} images."),
    };
    Reply::Message(message(
        model,
        vec![text_block(&reply)],
        "end_turn",
        usage(25, 12, 0, 0),
    ))
}

fn sse(events: &[Value]) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        sse_text(events),
    )
        .into_response()
}

fn error(status: u16, kind: &str, message: &str, retry_after: Option<u64>) -> Response {
    let mut response = (
        StatusCode::from_u16(status).unwrap(),
        axum::Json(error_body(kind, message)),
    )
        .into_response();
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, seconds.into());
    }
    response
}
