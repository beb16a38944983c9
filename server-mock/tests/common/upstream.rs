//! An OpenAI-compatible upstream (wiremock) behind the gateway: a catalogue naming it, a
//! gateway using that catalogue, and SSE bodies for the mock to send.

use reqwest::Response;
use serde_json::{Value, json};

use super::{Options, Server};

pub const KEY_VAR: &str = "TOKCTL_TEST_UPSTREAM_KEY";

/// A catalogue with `upstream` (an openai model at `base_url`, best quality) and a simulated one.
pub fn catalogue(dir: &std::path::Path, base_url: &str, upstream_model: &str) -> String {
    catalogue_with(dir, base_url, upstream_model, "")
}

/// [`catalogue`] with more TOML lines (`extra`) in the `upstream` model's entry.
pub fn catalogue_with(
    dir: &std::path::Path,
    base_url: &str,
    upstream_model: &str,
    extra: &str,
) -> String {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[[models]]
id = "upstream"
provider = "openai"
base_url = "{base_url}"
api_key_env = "{KEY_VAR}"
upstream_model = "{upstream_model}"
prompt_price = 1.0
completion_price = 2.0
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
    path.display().to_string()
}

pub fn gateway(models: &str, key: &str) -> Server {
    Server::start_with(Options {
        env: vec![(KEY_VAR, key)],
        args: vec![
            "--models".into(),
            models.into(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    })
}

pub async fn chat(server: &Server, body: Value) -> Response {
    server
        .post("/v1/chat/completions", &server.admin_key, &body)
        .await
}

pub fn sse(chunks: &[Value]) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

pub fn delta(content: &str) -> Value {
    json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
}

/// Mounts on `upstream` an OpenAI-compatible stream of `pieces`, one delta each, then its finish
/// and its usage.
pub async fn streaming(upstream: &wiremock::MockServer, pieces: &[&str]) {
    let mut chunks: Vec<_> = pieces.iter().map(|piece| delta(piece)).collect();
    let mut last = delta("");
    last["choices"][0]["finish_reason"] = json!("stop");
    chunks.push(last);
    let usage = json!({"prompt_tokens": 12, "completion_tokens": 9});
    chunks.push(
        json!({"id": "up", "object": "chat.completion.chunk", "choices": [], "usage": usage}),
    );
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_raw(sse(&chunks), "text/event-stream"),
        )
        .mount(upstream)
        .await;
}

/// Mounts on `upstream` an OpenAI-compatible answer of `content` reporting `usage`: streamed
/// (the text, a finish chunk, a usage chunk) when the request streams, whole otherwise.
pub async fn answering(upstream: &wiremock::MockServer, content: &str, usage: Value) {
    let mut last = delta("");
    last["choices"][0]["finish_reason"] = json!("stop");
    let usage_chunk =
        json!({"id": "up", "object": "chat.completion.chunk", "choices": [], "usage": usage});
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::body_partial_json(
            json!({"stream": true}),
        ))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_raw(
            sse(&[delta(content), last, usage_chunk]),
            "text/event-stream",
        ))
        .mount(upstream)
        .await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "id": "up", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": usage,
        })))
        .mount(upstream)
        .await;
}

/// The `data:` payloads of an SSE body, in order (`[DONE]` included).
pub fn events(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .collect()
}

/// A gateway whose `upstream` model is a wiremock answering every request with `sse_body`.
/// Keep all three alive for the test.
pub async fn behind_sse(sse_body: String) -> (wiremock::MockServer, tempfile::TempDir, Server) {
    let upstream = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_raw(sse_body, "text/event-stream"),
        )
        .mount(&upstream)
        .await;
    let (tmp, server) = gateway_for(&upstream);
    (upstream, tmp, server)
}

/// A gateway whose `upstream` model (upstream name `m`, key `k`) is `upstream`, with its
/// catalogue in a temporary directory to keep alive for the test.
pub fn gateway_for(upstream: &wiremock::MockServer) -> (tempfile::TempDir, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        &catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "m"),
        "k",
    );
    (tmp, server)
}

/// The chunks of an SSE answer that ends with `[DONE]`, parsed.
pub fn chunks(text: &str) -> Vec<Value> {
    let events = events(text);
    assert_eq!(events.last(), Some(&"[DONE]"), "{text}");
    events[..events.len() - 1]
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect()
}

/// The text of an answer's chunks: their first choices' `delta.content`, joined.
pub fn content(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect()
}
