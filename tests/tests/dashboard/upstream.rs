//! An OpenAI-compatible upstream on loopback for the gateway's catalogue: it answers
//! `POST /v1/chat/completions` whole or streamed, as asked, its first token `first_token` after
//! the request; or, once told to fail, with HTTP 500 at once. Shared by the dashboard's browser
//! tests and the screenshot example.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde_json::{Value, json};

/// Words of a streamed answer, one chunk each.
const WORDS: [&str; 8] = [
    "The", " key", " was", " rotated", " at", " noon", " today", ".",
];
/// The pause between two streamed words (the upstream's output speed).
const BETWEEN_WORDS: Duration = Duration::from_millis(15);

/// A running upstream; it stops with the test's runtime.
pub struct Upstream {
    /// `http://127.0.0.1:PORT/v1`, the catalogue's `base_url`.
    pub base_url: String,
    failing: Arc<AtomicBool>,
}

impl Upstream {
    /// Starts an upstream that answers, its first token `first_token` after each request.
    pub async fn start(first_token: Duration) -> Upstream {
        let failing = Arc::new(AtomicBool::new(false));
        let state = (failing.clone(), first_token);
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move |axum::Json(request): axum::Json<Value>| async move {
                answer(state.0.load(Ordering::SeqCst), state.1, &request).await
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the upstream");
        let addr = listener.local_addr().expect("its address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        Upstream {
            base_url: format!("http://{addr}/v1"),
            failing,
        }
    }

    /// From now on every request gets HTTP 500 (`true`), or an answer again (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// A `[[models]]` entry naming this upstream as `id`, with a catalogue latency of
    /// `latency_ms` and `extra` TOML lines (such as a `[models.breaker]` table) after it.
    pub fn entry(&self, id: &str, latency_ms: u64, extra: &str) -> String {
        format!(
            "[[models]]\nid = \"{id}\"\nprovider = \"openai\"\nbase_url = \"{}\"\n\
             prompt_price = 0.15\ncompletion_price = 0.6\nquality = 0.8\n\
             latency_ms = {latency_ms}\n{extra}\n",
            self.base_url
        )
    }
}

async fn answer(failing: bool, first_token: Duration, request: &Value) -> Response {
    if failing {
        return (StatusCode::INTERNAL_SERVER_ERROR, "upstream overloaded").into_response();
    }
    if request["stream"] != json!(true) {
        tokio::time::sleep(first_token).await;
        return axum::Json(json!({
            "id": "up-1", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": WORDS.concat()},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": WORDS.len()}
        }))
        .into_response();
    }
    let mut chunks: Vec<(Duration, Value)> = WORDS
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let wait = if i == 0 { first_token } else { BETWEEN_WORDS };
            (wait, json!({"id": "up-1", "object": "chat.completion.chunk",
                          "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": null}]}))
        })
        .collect();
    chunks.push((
        Duration::ZERO,
        json!({"id": "up-1", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 12, "completion_tokens": WORDS.len()}}),
    ));
    let events = futures::stream::iter(chunks)
        .then(|(wait, chunk)| async move {
            // The upstream's own pace: how long it takes to produce each word.
            tokio::time::sleep(wait).await;
            Ok::<_, std::convert::Infallible>(Bytes::from(format!("data: {chunk}\n\n")))
        })
        .chain(futures::stream::once(async {
            Ok(Bytes::from_static(b"data: [DONE]\n\n"))
        }));
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(events),
    )
        .into_response()
}
