//! An Anthropic upstream failing: a 529 counts against its circuit and `auto` falls back; a
//! 429's `retry-after` opens the circuit that long; a 400 is the request's fault and counts for
//! nothing; an error event before any content is a failure like a 5xx (fallback), after content
//! it ends the stream with an error event and `[DONE]`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::common::anthropic::{Anthropic, Reply};
use super::common::upstream::{chunks, content, events};
use super::{chat, gateway};

/// `auto` with quality first: `claude`, then `local`.
fn auto(text: &str) -> Value {
    json!({"model": "auto", "route_strategy": {"quality_weight": 1, "cost_weight": 0},
           "messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn a_529_opens_the_circuit_and_auto_falls_back() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(
        &mock,
        "[models.breaker]\nfailures = 2\ncooldown = \"60s\"",
        &[],
    );
    for _ in 0..2 {
        let (status, body) = chat(&server, auto("you are overloaded")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["platform"]["routed_model"], "local");
        let reason = body["platform"]["route_reason"].as_str().unwrap();
        assert!(reason.contains("after claude (HTTP 529"), "{reason}");
        assert!(reason.contains("overloaded_error"), "{reason}");
    }
    assert_eq!(mock.seen().len(), 2);
    let (status, body) = chat(&server, auto("hello")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["platform"]["routed_model"], "local");
    let reason = body["platform"]["route_reason"].as_str().unwrap();
    assert!(
        reason.contains("claude skipped: open for 60 s after 2 failures in a row, last: HTTP 529"),
        "{reason}"
    );
    assert_eq!(
        mock.seen().len(),
        2,
        "an open circuit sends nothing upstream"
    );
    let models: Value = server
        .get("/v1/models", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    let claude = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "claude")
        .unwrap()
        .clone();
    assert_eq!(claude["health"]["state"], "open", "{claude}");
    assert_eq!(claude["owned_by"], "anthropic");
    assert_eq!(claude["provider"], "anthropic");
}

#[tokio::test]
async fn a_429_opens_the_circuit_for_its_retry_after_and_a_400_counts_for_nothing() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "[models.breaker]\nfailures = 1", &[]);
    for _ in 0..3 {
        mock.queue(Reply::Status(400, "invalid_request_error", None));
        let (status, body) = chat(&server, auto("hi")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["platform"]["routed_model"], "local", "{body}");
    }
    let (status, body) = chat(&server, auto("hello")).await;
    assert_eq!(
        (status, body["platform"]["routed_model"].as_str()),
        (StatusCode::OK, Some("claude")),
        "{body}"
    );

    mock.queue(Reply::Status(429, "rate_limit_error", Some(30)));
    let (_, body) = chat(&server, auto("hi")).await;
    assert_eq!(body["platform"]["routed_model"], "local");
    let (_, body) = chat(&server, auto("hi")).await;
    let reason = body["platform"]["route_reason"].as_str().unwrap();
    assert!(
        reason.contains("after the upstream asked for 30 s (429 Retry-After)"),
        "{reason}"
    );
}

#[tokio::test]
async fn an_error_event_before_content_falls_back_and_after_content_ends_the_stream() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let mut request = auto("fail-before anything");
    request["stream"] = json!(true);
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &request)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let chunks = chunks(&response.text().await.unwrap());
    let last = chunks.last().unwrap();
    assert_eq!(last["platform"]["routed_model"], "local");
    let reason = last["platform"]["route_reason"].as_str().unwrap();
    assert!(
        reason.contains("claude (the upstream failed: overloaded_error: Overloaded)"),
        "{reason}"
    );

    let request = json!({"model": "claude", "stream": true, "messages": [{"role": "user", "content": "fail-after some"}]});
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &request)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let events = events(&text);
    assert_eq!(events.last(), Some(&"[DONE]"), "{text}");
    let error: Value = serde_json::from_str(events[events.len() - 2]).unwrap();
    assert_eq!(error["error"]["code"], "upstream_error", "{text}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("api_error"),
        "{error}"
    );
    let content = content(&super::common::upstream::chunks(&text));
    assert_eq!(content, "Half an");
}
