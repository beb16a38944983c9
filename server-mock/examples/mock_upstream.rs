//! A canned upstream for `bench/gateway.sh`: `POST /v1/chat/completions` (OpenAI-compatible)
//! and `POST /v1/messages` (Anthropic's Messages API, its shapes as in
//! `server-mock/tests/common/anthropic/shapes.rs`) answer at once with a fixed completion, or a fixed
//! SSE stream when `"stream": true`, the same five pieces of text either way.
//! Usage: `mock_upstream ADDR`.

use axum::Json;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http_body_util::BodyExt;
use serde_json::{Value, json};

async fn complete(Json(body): Json<Value>) -> Response {
    let model = body["model"].as_str().unwrap_or("mock").to_string();
    if body["stream"].as_bool().unwrap_or(false) {
        let chunk = |delta: Value, finish: Value| {
            json!({"id": "mock", "object": "chat.completion.chunk", "created": 0, "model": model,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let mut sse = String::new();
        for piece in ["Hello", " from", " the", " mock", " upstream."] {
            sse.push_str(&format!(
                "data: {}\n\n",
                chunk(json!({"content": piece}), Value::Null)
            ));
        }
        sse.push_str(&format!("data: {}\n\n", chunk(json!({}), json!("stop"))));
        let usage = json!({"id": "mock", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}});
        sse.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
        return ([(header::CONTENT_TYPE, "text/event-stream")], sse).into_response();
    }
    Json(json!({
        "id": "mock", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello from the mock upstream."}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    }))
    .into_response()
}

async fn messages(Json(body): Json<Value>) -> Response {
    let model = body["model"].as_str().unwrap_or("mock").to_string();
    let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 5});
    if body["stream"].as_bool().unwrap_or(false) {
        let mut start_usage = usage.clone();
        start_usage["output_tokens"] = json!(1);
        let mut events = vec![
            json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
                "content": [], "model": model, "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "ping"}),
        ];
        for piece in ["Hello", " from", " the", " mock", " upstream."] {
            events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 5}}));
        events.push(json!({"type": "message_stop"}));
        let sse: String = events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
            .collect();
        return ([(header::CONTENT_TYPE, "text/event-stream")], sse).into_response();
    }
    Json(json!({
        "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": "Hello from the mock upstream."}],
        "stop_reason": "end_turn", "stop_sequence": null, "usage": usage
    }))
    .into_response()
}

/// An OTLP/HTTP collector that takes every batch and keeps nothing: an empty
/// `ExportTraceServiceResponse` is a full success. The batch is read to its end a piece at a
/// time as it arrives, never gathered: this process shares the benchmark's two cores with the
/// gateway, and gathering each batch (about 600 KB) into one new buffer cost it 0.2 page faults
/// and about 2 us more CPU a traced request than this (BENCHMARKS.md, twelfth measurement),
/// charged to the gateway's ceiling though a collector is no part of the gateway.
async fn traces(mut batch: axum::body::Body) -> Response {
    while let Some(piece) = batch.frame().await {
        if piece.is_err() {
            return axum::http::StatusCode::BAD_REQUEST.into_response();
        }
    }
    (
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        Vec::<u8>::new(),
    )
        .into_response()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(complete))
        .route("/v1/messages", post(messages))
        .route("/v1/traces", post(traces));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
