//! A canned OpenAI-compatible upstream for `bench/gateway.sh`: `POST /v1/chat/completions`
//! answers at once with a fixed completion, or a fixed SSE stream when `"stream": true`.
//! Usage: `mock_upstream ADDR`.

use axum::Json;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
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

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let app = axum::Router::new().route("/v1/chat/completions", post(complete));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
