//! `POST /v1/messages` (issue 38): Anthropic's Messages API on the gateway's rules. An
//! Anthropic model (the faithful mock, `common/anthropic/`) is sent the client's own body and
//! its answers come back as it wrote them; a simulated model's answer is written as
//! Anthropic's message and events; errors are in Anthropic's envelope. The OpenAI-compatible
//! upstream and the limits, and count_tokens and model discovery, are in `messages/`.

mod common;
#[path = "messages/discovery.rs"]
mod discovery;
#[path = "messages/translated.rs"]
mod translated;

use common::Server;
use common::anthropic::{Anthropic, KEY, Reply};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A gateway over the mock's catalogue (`claude`, alias `claude-sonnet`, up to 64,000 tokens;
/// `local`, simulated). Keep the directory alive.
pub fn gateway(mock: &Anthropic) -> (tempfile::TempDir, Server) {
    common::anthropic::gateway(mock, "max_output_tokens = 64000", &[])
}

/// POSTs `body` to `path` as Anthropic's SDK does: `x-api-key` and `anthropic-version`, plus
/// `headers`.
pub async fn send(
    server: &Server,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(server.url(path))
        .header("x-api-key", &server.admin_key)
        .header("anthropic-version", "2023-06-01")
        .json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// A stream's events as (name, data), in order.
pub fn events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let mut name = String::new();
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(rest) = line.strip_prefix("event: ") {
                    name = rest.to_string();
                } else if let Some(rest) = line.strip_prefix("data: ") {
                    data.push_str(rest);
                }
            }
            (name, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

/// The text of a stream's `text_delta`s.
pub fn streamed_text(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(_, data)| data["delta"]["type"] == "text_delta")
        .map(|(_, data)| data["delta"]["text"].as_str().unwrap())
        .collect()
}

/// What Claude Code sends on every turn (trimmed): blocks with `cache_control`, a system turn
/// among the messages, `thinking`, `context_management`, `output_config`, `metadata`.
pub fn agent_turn(model: &str, text: &str) -> Value {
    json!({
        "model": model, "max_tokens": 32000,
        "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]}
        ],
        "tools": [{"name": "Bash", "description": "Run a command", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
                  {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}],
        "thinking": {"type": "adaptive"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015"}]},
        "output_config": {"effort": "high"},
        "metadata": {"user_id": "user_abc"}
    })
}

#[tokio::test]
async fn an_anthropic_model_gets_the_clients_body_and_its_answer_comes_back_as_written() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let request = agent_turn("claude-sonnet", "hello there");
    let beta = "context-management-2025-06-27,oauth-2025-04-20";
    let response = send(
        &server,
        "/v1/messages",
        &request,
        &[("anthropic-beta", beta)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    assert_eq!(headers["x-tokctl-routed-model"], "claude");
    assert!(
        headers["x-tokctl-request-id"]
            .to_str()
            .unwrap()
            .starts_with("req_")
    );
    let credits: f64 = headers["x-tokctl-credits-consumed"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(credits > 0.0);
    assert!(
        headers.get("x-tokctl-dropped").is_none(),
        "nothing is dropped on the way to Claude"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        mock.sent().messages[0],
        "the upstream's message, unchanged"
    );

    let seen = &mock.seen()[0];
    let mut expected = request.clone();
    expected["model"] = json!("claude-sonnet-4-5");
    assert_eq!(
        seen.body, expected,
        "only the model's name changes on the way"
    );
    assert_eq!(
        seen.headers["anthropic-beta"], beta,
        "the client's betas replace the catalogue's"
    );
    assert_eq!(seen.headers["anthropic-version"], "2023-06-01");
    assert_eq!(seen.headers["x-api-key"], KEY);
}

#[tokio::test]
async fn an_anthropic_stream_is_relayed_event_by_event() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let mut request = agent_turn("claude", "What is the weather?");
    request["stream"] = json!(true);
    request["tools"] = json!([{"name": "get_weather", "input_schema": {"type": "object"}}]);
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-tokctl-routed-model"], "claude");
    let got = events(&response.text().await.unwrap());
    let sent = mock.sent().events;
    let names: Vec<&str> = got.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    let data: Vec<&Value> = got.iter().map(|(_, data)| data).collect();
    assert_eq!(
        data,
        sent.iter().collect::<Vec<_>>(),
        "every event as the upstream sent it"
    );
    assert!(names.contains(&"ping"));
    assert!(
        got.iter()
            .any(|(_, d)| d["delta"]["type"] == "input_json_delta")
    );
    assert_eq!(mock.last()["stream"], true);

    // The bill is the upstream's usage: the ledger has it.
    let usage: Value = server
        .get("/v1/usage", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert!(usage.to_string().contains("claude"), "{usage}");
}

#[tokio::test]
async fn an_anthropic_upstreams_errors_come_back_unchanged() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let request = agent_turn("claude", "hi");
    for (status, kind, retry_after) in [
        (400, "invalid_request_error", None),
        (529, "overloaded_error", None),
        (429, "rate_limit_error", Some(7)),
    ] {
        mock.queue(Reply::Status(status, kind, retry_after));
        let response = send(&server, "/v1/messages", &request, &[]).await;
        assert_eq!(response.status().as_u16(), status, "{kind}");
        let after = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string());
        assert_eq!(after, retry_after.map(|s| s.to_string()), "{kind}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(&body, mock.sent().errors.last().unwrap(), "{kind}");
    }
}

#[tokio::test]
async fn a_simulated_model_answers_in_anthropics_shapes_whole_and_streamed() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let request = agent_turn("local", "tell me about tokens");
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let dropped = response.headers()["x-tokctl-dropped"]
        .to_str()
        .unwrap()
        .to_string();
    for name in [
        "thinking",
        "context_management",
        "output_config.effort",
        "cache_control",
    ] {
        assert!(dropped.contains(name), "{name} not named in {dropped}");
    }
    assert_eq!(response.headers()["x-tokctl-routed-model"], "local");
    let whole: Value = response.json().await.unwrap();
    assert_eq!(whole["type"], "message");
    assert_eq!(whole["role"], "assistant");
    assert!(whole["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(whole["model"], "local");
    assert_eq!(whole["stop_reason"], "end_turn");
    assert_eq!(whole["content"][0]["type"], "text");
    let text = whole["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("You said: tell me about tokens"), "{text}");
    let output = whole["usage"]["output_tokens"].as_u64().unwrap();
    assert!(output > 0);
    assert_eq!(whole["usage"]["cache_read_input_tokens"], 0);

    let mut streamed = request.clone();
    streamed["stream"] = json!(true);
    let response = send(&server, "/v1/messages", &streamed, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let got = events(&response.text().await.unwrap());
    let names: Vec<&str> = got.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        &names[..3],
        ["message_start", "ping", "content_block_start"]
    );
    assert_eq!(
        &names[names.len() - 3..],
        ["content_block_stop", "message_delta", "message_stop"]
    );
    assert_eq!(
        got[0].1["message"]["usage"]["cache_creation_input_tokens"],
        0
    );
    assert_eq!(
        streamed_text(&got),
        text,
        "the stream says what the whole answer says"
    );
    let delta = &got[names.len() - 2].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], output);
    assert!(
        mock.seen().is_empty(),
        "the simulated model asked no upstream"
    );
}

#[tokio::test]
async fn errors_are_in_anthropics_envelope_with_its_types() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let request = agent_turn("local", "hi");
    let kind = |body: &Value| {
        assert_eq!(body["type"], "error", "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        body["error"]["type"].as_str().unwrap().to_string()
    };

    let anonymous = reqwest::Client::new()
        .post(server.url("/v1/messages"))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(anonymous.headers().contains_key("x-tokctl-request-id"));
    assert_eq!(
        kind(&anonymous.json().await.unwrap()),
        "authentication_error"
    );

    let reader = server.create_token("reader", &["tokens:read"]).await;
    let forbidden = reqwest::Client::new()
        .post(server.url("/v1/messages"))
        .bearer_auth(common::secret(&reader))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
    assert_eq!(kind(&forbidden.json().await.unwrap()), "permission_error");

    let unknown = send(&server, "/v1/messages", &agent_turn("gpt-9", "hi"), &[]).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(kind(&unknown.json().await.unwrap()), "not_found_error");

    let mut no_cap = request.clone();
    no_cap.as_object_mut().unwrap().remove("max_tokens");
    let invalid = send(&server, "/v1/messages", &no_cap, &[]).await;
    assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
    let body: Value = invalid.json().await.unwrap();
    assert_eq!(kind(&body), "invalid_request_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_tokens")
    );

    let malformed = reqwest::Client::new()
        .post(server.url("/v1/messages"))
        .header("x-api-key", &server.admin_key)
        .header("content-type", "application/json")
        .body("{\"model\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        kind(&malformed.json().await.unwrap()),
        "invalid_request_error"
    );

    let poor = send(
        &server,
        "/v1/messages",
        &agent_turn("claude", "hi"),
        &[("x-tokctl-budget-limit", "0.000000001")],
    )
    .await;
    assert_eq!(poor.status(), StatusCode::PAYMENT_REQUIRED);
    assert_eq!(kind(&poor.json().await.unwrap()), "billing_error");

    // Claude is the only candidate and its circuit is open after enough 529s: 503, overloaded.
    for _ in 0..8 {
        mock.queue(Reply::Status(529, "overloaded_error", None));
    }
    let mut last = None;
    for _ in 0..8 {
        let response = send(&server, "/v1/messages", &agent_turn("claude", "hi"), &[]).await;
        last = Some(response.status());
        if response.status() == StatusCode::SERVICE_UNAVAILABLE {
            assert!(response.headers().contains_key("retry-after"));
            assert_eq!(kind(&response.json().await.unwrap()), "overloaded_error");
            break;
        }
    }
    assert_eq!(
        last,
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "the circuit opened"
    );
}

#[tokio::test]
async fn an_agents_first_turn_past_64_kib_is_taken() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let mut request = agent_turn("local", "hi");
    request["system"][0]["text"] = json!("You are Claude Code. ".repeat(10_000));
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "{}",
        response.text().await.unwrap()
    );
}
