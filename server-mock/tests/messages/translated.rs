//! `/v1/messages` to an OpenAI-compatible upstream: translated through the internal form both
//! ways, whole and streamed, with a tool round trip; and a token's credit limit refusing as
//! Anthropic's `billing_error`.

use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::upstream::{delta, gateway_for, sse};
use crate::{events, send};

fn tool_call_answer() -> Value {
    json!({"id": "up", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "Listing.",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}}]}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 9}})
}

#[tokio::test]
async fn a_tool_round_trip_through_an_openai_compatible_model() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("\"role\":\"tool\""))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "up", "object": "chat.completion",
            "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "Two files."}}], "usage": {"prompt_tokens": 60, "completion_tokens": 3}})))
        .with_priority(1)
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(tool_call_answer()))
        .with_priority(2)
        .mount(&upstream)
        .await;
    let (_tmp, server) = gateway_for(&upstream);
    let tools = json!([{"name": "Bash", "description": "Run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]);
    let mut request = json!({"model": "upstream", "max_tokens": 100, "system": "Be brief.", "tools": tools,
        "stop_sequences": ["END"], "messages": [{"role": "user", "content": "What is here?"}]});
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let first: Value = response.json().await.unwrap();
    assert_eq!(first["stop_reason"], "tool_use");
    assert_eq!(
        first["content"][0],
        json!({"type": "text", "text": "Listing."})
    );
    assert_eq!(
        first["content"][1],
        json!({"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls"}})
    );
    assert_eq!(first["usage"]["input_tokens"], 40);
    assert_eq!(first["usage"]["output_tokens"], 9);

    let sent: Value = upstream.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["model"], "m");
    assert_eq!(
        sent["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    assert_eq!(sent["stop"], json!(["END"]));
    assert_eq!(sent["tools"][0]["function"]["name"], "Bash");

    let messages = request["messages"].as_array_mut().unwrap();
    messages.push(json!({"role": "assistant", "content": first["content"]}));
    messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "a.txt b.txt"}]}));
    let response = send(&server, "/v1/messages", &request, &[]).await;
    let second: Value = response.json().await.unwrap();
    assert_eq!(second["content"][0]["text"], "Two files.", "{second}");
    let sent: Value = upstream.received_requests().await.unwrap()[1]
        .body_json()
        .unwrap();
    let tool = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    assert_eq!(tool["content"], "a.txt b.txt");
    let call = &sent["messages"][2]["tool_calls"][0];
    assert_eq!(call["function"]["arguments"], "{\"command\":\"ls\"}");
}

#[tokio::test]
async fn an_openai_compatible_stream_becomes_anthropics_events() {
    let upstream = MockServer::start().await;
    let call = json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "finish_reason": null,
        "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": ""}}]}}]});
    let args = json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "finish_reason": null,
        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"command\":\"ls\"}"}}]}}]});
    let mut last = delta("");
    last["choices"][0]["finish_reason"] = json!("tool_calls");
    let usage = json!({"id": "up", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 9}});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            sse(&[delta("Listing"), delta("."), call, args, last, usage]),
            "text/event-stream",
        ))
        .mount(&upstream)
        .await;
    let (_tmp, server) = gateway_for(&upstream);
    let request = json!({"model": "upstream", "max_tokens": 100, "stream": true,
        "messages": [{"role": "user", "content": "What is here?"}]});
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let got = events(&response.text().await.unwrap());
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(crate::streamed_text(&got), "Listing.");
    assert_eq!(
        got[6].1["content_block"],
        json!({"type": "tool_use", "id": "call_1", "name": "Bash", "input": {}})
    );
    assert_eq!(
        got[7].1["delta"],
        json!({"type": "input_json_delta", "partial_json": "{\"command\":\"ls\"}"})
    );
    assert_eq!(got[9].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(got[9].1["usage"]["input_tokens"], 40);
    assert_eq!(got[9].1["usage"]["output_tokens"], 9);
}

#[tokio::test]
async fn a_token_over_its_credit_limit_is_refused_as_a_billing_error() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(tool_call_answer()))
        .mount(&upstream)
        .await;
    let (_tmp, server) = gateway_for(&upstream);
    let created: Value = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &json!({"name": "agent", "scopes": ["chat:write"],
            "credit_limit": "0.000001", "limit_reset": "daily"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let secret = crate::common::secret(&created);
    let request = json!({"model": "upstream", "max_tokens": 1000, "messages": [{"role": "user", "content": "hi"}]});
    let response = reqwest::Client::new()
        .post(server.url("/v1/messages"))
        .bearer_auth(&secret)
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYMENT_REQUIRED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "billing_error");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("limit"), "{message}");
    assert!(upstream.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_silent_upstream_gets_pings_between_events() {
    // Simulated tokens 400 ms apart, a ping after 100 ms of silence.
    let server = crate::common::Server::start_with(crate::common::Options {
        args: vec![
            "--sim-token-delay-ms".into(),
            "400".into(),
            "--stream-ping-ms".into(),
            "100".into(),
        ],
        ..Default::default()
    });
    let request = json!({"model": "sim-mini", "max_tokens": 3, "stream": true,
        "messages": [{"role": "user", "content": "hello"}]});
    let response = send(&server, "/v1/messages", &request, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let got = events(&response.text().await.unwrap());
    let names: Vec<&str> = got.iter().map(|(name, _)| name.as_str()).collect();
    let first_delta = names
        .iter()
        .position(|n| *n == "content_block_delta")
        .unwrap();
    let last_delta = names
        .iter()
        .rposition(|n| *n == "content_block_delta")
        .unwrap();
    assert!(last_delta > first_delta, "{names:?}");
    assert!(
        names[first_delta..last_delta].contains(&"ping"),
        "a ping while the tokens are apart: {names:?}"
    );
    assert!(
        got.iter()
            .filter(|(n, _)| n == "ping")
            .all(|(_, d)| *d == json!({"type": "ping"}))
    );
    assert_eq!(names.last(), Some(&"message_stop"));
}
