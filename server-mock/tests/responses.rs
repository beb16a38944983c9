//! `POST /v1/responses` passed through (issue 38, point 2): a model whose OpenAI upstream serves
//! the Responses API itself (catalogue `responses = true`) is sent the client's own body, but
//! for the model's upstream name, the cap and the stream flag, at `{base_url}/responses`; its
//! answer, its stream and its errors come back as it wrote them, and the bill is its usage. The
//! translated path (a model that does not serve Responses) is driven by OpenAI's own client in
//! `anthropic_sdk.rs` and by Codex in `codex.rs`.

mod common;

use common::upstream::{catalogue_with, gateway};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// What Codex sends every turn: hosted tools, reasoning, include and a namespace among them.
fn codex_turn(stream: bool) -> Value {
    json!({"model": "upstream", "instructions": "You are Codex.", "store": false, "stream": stream,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]}],
        "tools": [{"type": "web_search"}, {"type": "namespace", "name": "mcp__github", "tools": []},
                  {"type": "function", "name": "shell", "parameters": {"type": "object"}}],
        "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "high", "summary": "auto"},
        "prompt_cache_key": "k", "parallel_tool_calls": false})
}

fn answer() -> Value {
    json!({"id": "resp_up", "object": "response", "created_at": 1, "status": "completed", "model": "m",
        "output": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
                   {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Two files.", "annotations": []}]}],
        "usage": {"input_tokens": 21, "input_tokens_details": {"cached_tokens": 5},
                  "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 3}, "total_tokens": 28}})
}

/// The upstream's events for [`answer`], as OpenAI writes them (`event:` and `data:`).
fn events() -> Vec<(&'static str, Value)> {
    let mut open = answer();
    open["status"] = json!("in_progress");
    open["output"] = json!([]);
    open["usage"] = Value::Null;
    let item = json!({"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []});
    let part = json!({"type": "output_text", "text": "", "annotations": []});
    let at = |n: u64| json!({"item_id": "msg_1", "output_index": 0, "content_index": 0, "sequence_number": n});
    let with = |mut base: Value, kind: &str, extra: Value| {
        base["type"] = json!(kind);
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base
    };
    vec![
        (
            "response.created",
            json!({"type": "response.created", "sequence_number": 0, "response": open}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item}),
        ),
        (
            "response.content_part.added",
            with(at(2), "response.content_part.added", json!({"part": part})),
        ),
        (
            "response.output_text.delta",
            with(
                at(3),
                "response.output_text.delta",
                json!({"delta": "Two ", "logprobs": []}),
            ),
        ),
        (
            "response.output_text.delta",
            with(
                at(4),
                "response.output_text.delta",
                json!({"delta": "files.", "logprobs": []}),
            ),
        ),
        (
            "response.output_text.done",
            with(
                at(5),
                "response.output_text.done",
                json!({"text": "Two files.", "logprobs": []}),
            ),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "sequence_number": 6, "response": answer()}),
        ),
    ]
}

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// A gateway whose `upstream` model serves Responses at `mock`. Keep the directory alive.
fn behind(mock: &MockServer) -> (tempfile::TempDir, common::Server) {
    let tmp = tempfile::tempdir().unwrap();
    let base = format!("{}/v1", mock.uri());
    let models = catalogue_with(tmp.path(), &base, "m", "responses = true");
    (tmp, gateway(&models, "k"))
}

async fn post(server: &common::Server, body: &Value) -> reqwest::Response {
    server.post("/v1/responses", &server.admin_key, body).await
}

/// The one ledger entry's (prompt, completion) tokens.
async fn billed(server: &common::Server) -> (u64, u64) {
    let usage: Value = server
        .get("/v1/usage", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    let entry = &usage["data"][0];
    assert_eq!(entry["model"], "upstream", "{usage}");
    let count = |field: &str| entry[field].as_u64().unwrap_or_else(|| panic!("{usage}"));
    (count("prompt_tokens"), count("completion_tokens"))
}

#[tokio::test]
async fn the_clients_request_passes_through_and_the_answer_comes_back_as_written() {
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .and(header("authorization", "Bearer k"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer()))
        .mount(&mock)
        .await;
    let (_tmp, server) = behind(&mock);
    let request = codex_turn(false);
    let response = post(&server, &request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    assert_eq!(headers["x-tokctl-routed-model"], "upstream");
    let id = headers["x-tokctl-request-id"].to_str().unwrap();
    assert_eq!(id, headers["x-request-id"].to_str().unwrap());
    assert!(
        headers.get("x-tokctl-dropped").is_none(),
        "nothing is dropped on the way to an upstream serving Responses"
    );
    assert!(headers.contains_key("x-tokctl-credits-consumed"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, answer(), "the upstream's response object, unchanged");

    let sent: Value = mock.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    let mut expected = request.clone();
    expected["model"] = json!("m");
    expected["max_output_tokens"] = json!(1024);
    expected.as_object_mut().unwrap().remove("stream");
    assert_eq!(
        sent, expected,
        "only the model, the cap and the stream flag change"
    );
    assert_eq!(billed(&server).await, (21, 7));
}

#[tokio::test]
async fn a_stream_is_relayed_event_by_event_and_billed_from_its_usage() {
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .and(body_partial_json(json!({"stream": true})))
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse(&events()), "text/event-stream"))
        .mount(&mock)
        .await;
    let (_tmp, server) = behind(&mock);
    let response = post(&server, &codex_turn(true)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    let got: Vec<(String, Value)> = text
        .split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let name = frame.lines().find_map(|l| l.strip_prefix("event: "));
            let data = frame.lines().find_map(|l| l.strip_prefix("data: "));
            (
                name.unwrap_or_default().to_string(),
                serde_json::from_str(data.unwrap()).unwrap(),
            )
        })
        .collect();
    let sent: Vec<(String, Value)> = events()
        .into_iter()
        .map(|(name, data)| (name.to_string(), data))
        .collect();
    assert_eq!(got, sent, "every event as the upstream wrote it, in order");
    assert_eq!(billed(&server).await, (21, 7));
}

#[tokio::test]
async fn the_upstreams_errors_come_back_unchanged() {
    let mock = MockServer::start().await;
    let error = json!({"error": {"message": "Your input exceeds the context window of this model.",
        "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(error.clone()))
        .mount(&mock)
        .await;
    let (_tmp, server) = behind(&mock);
    let response = post(&server, &codex_turn(true)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, error, "Codex matches the upstream's own wording");

    // A stream that fails after its start ends with the upstream's own response.failed.
    mock.reset().await;
    let mut failed = events()[..4].to_vec();
    failed.push(("response.failed", json!({"type": "response.failed", "sequence_number": 4,
        "response": {"id": "resp_up", "status": "failed", "error": {"code": "server_error", "message": "boom"}}})));
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse(&failed), "text/event-stream"))
        .mount(&mock)
        .await;
    let text = post(&server, &codex_turn(true)).await.text().await.unwrap();
    let last = text.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: response.failed\n"), "{text}");
    assert!(last.contains("\"message\":\"boom\""), "{text}");
}

#[tokio::test]
async fn a_reasoning_effort_reaches_a_model_that_takes_it_and_is_named_dropped_otherwise() {
    let mock = MockServer::start().await;
    common::upstream::answering(
        &mock,
        "Done.",
        json!({"prompt_tokens": 9, "completion_tokens": 2}),
    )
    .await;
    let base = format!("{}/v1", mock.uri());
    for takes in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let flag = if takes { "reasoning_effort = true" } else { "" };
        let server = gateway(&catalogue_with(tmp.path(), &base, "m", flag), "k");
        let responses = json!({"model": "upstream", "input": "hi", "reasoning": {"effort": "high", "summary": "auto"}});
        let messages = json!({"model": "upstream", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}],
            "thinking": {"type": "enabled", "budget_tokens": 10000}});
        for (path, body, setting, level) in [
            ("/v1/responses", responses, "reasoning", "high"),
            ("/v1/messages", messages, "thinking", "medium"),
        ] {
            let response = server.post(path, &server.admin_key, &body).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let dropped = response
                .headers()
                .get("x-tokctl-dropped")
                .map(|v| v.to_str().unwrap().to_string());
            let sent: Value = mock
                .received_requests()
                .await
                .unwrap()
                .last()
                .unwrap()
                .body_json()
                .unwrap();
            if takes {
                assert_eq!(sent["reasoning_effort"], level, "{path}");
                assert_eq!(dropped, None, "{path}");
            } else {
                assert!(sent.get("reasoning_effort").is_none(), "{path}: {sent}");
                assert_eq!(dropped.as_deref(), Some(setting), "{path}");
            }
        }
    }
}
