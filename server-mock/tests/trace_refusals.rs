//! Traces of refused gateway requests: whatever refuses a request on the gateway's paths
//! (authentication, routing, its dialect's check of the body, a body that is not JSON or not
//! of the request's shape), its `admission` span ends with status ERROR and `error.type` the
//! code the client is answered with, as a collector here decodes them with the protocol's own
//! generated types (`opentelemetry-proto`).

mod common;

use common::collector::{Spans, attribute, collector};
use common::{Options, Server};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::{Value, json};

/// A server exporting traces to `endpoint`, sending them every 100 ms.
fn traced(endpoint: &str) -> Server {
    Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100")],
        args: vec![
            "--otlp-endpoint".into(),
            endpoint.into(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    })
}

#[tokio::test]
async fn a_refused_request_ends_its_admission_span_with_the_refusals_code() {
    let (endpoint, mut spans) = collector().await;
    let server = traced(&endpoint);
    // Refused by authentication: the admission span says so.
    let fine = json!({"model": "sim-mini", "messages": [{"role": "user", "content": "hi"}]});
    let unknown_key = "not-a-credential";
    let answer = server
        .post("/v1/chat/completions", unknown_key, &fine)
        .await;
    assert_eq!(answer.status(), 401);
    let server_span = spans.take(|s| s.name == "POST /v1/chat/completions").await;
    let admission = spans
        .take(|s| s.name == "admission" && s.trace_id == server_span.trace_id)
        .await;
    assert_eq!(
        attribute(&admission, "error.type").as_deref(),
        Some("unauthorized")
    );
    assert_eq!(
        admission.status.as_ref().map(|s| s.code),
        Some(StatusCode::Error as i32)
    );

    // Refused by admission (routing): the same span, with the refusal's code.
    let refused =
        json!({"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]});
    let answer = server
        .post("/v1/chat/completions", &server.admin_key, &refused)
        .await;
    let status = answer.status().as_u16();
    let body: Value = answer.json().await.unwrap();
    let code = body["error"]["code"].as_str().unwrap().to_string();
    assert!((400..500).contains(&status), "{status} {body}");

    let server_span = spans.take(|s| s.name == "POST /v1/chat/completions").await;
    let status_text = status.to_string();
    assert_eq!(
        attribute(&server_span, "http.response.status_code").as_deref(),
        Some(status_text.as_str())
    );
    let admission = spans.take(|s| s.name == "admission").await;
    assert_eq!(admission.parent_span_id, server_span.span_id);
    assert_eq!(
        attribute(&admission, "error.type").as_deref(),
        Some(code.as_str())
    );
    assert_eq!(
        admission.status.as_ref().map(|s| s.code),
        Some(StatusCode::Error as i32)
    );
    let key = attribute(&admission, "tokctl.key_id").unwrap_or_default();
    assert!(key.starts_with("key_"), "authenticated first: {key}");

    // A request answered after it: its spans arrive after the refused one's, and the refused
    // request has no other span (no client span: it asked no upstream).
    let answer = server
        .post("/v1/chat/completions", &server.admin_key, &fine)
        .await;
    assert_eq!(answer.status(), 200);
    let attempt = spans.take(|s| s.name.starts_with("chat ")).await;
    assert_ne!(attempt.trace_id, server_span.trace_id);
    let leftover = spans
        .seen
        .iter()
        .filter(|(_, s)| s.trace_id == server_span.trace_id)
        .map(|(_, s)| s.name.clone())
        .collect::<Vec<_>>();
    assert!(
        leftover.is_empty(),
        "the refused request's other spans: {leftover:?}"
    );
}

/// Sends `body` (raw, as JSON) to `path` with the admin key in a trace of its own (`trace`, 32
/// hex digits); the answer's status and body.
async fn send(server: &Server, path: &str, trace: &str, body: &str) -> (u16, Value) {
    let answer = server
        .request(reqwest::Method::POST, path, &server.admin_key)
        .header("traceparent", format!("00-{trace}-00f067aa0ba902b7-01"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap())
}

/// The admission span of the request to `path` in trace `trace`, checked to be under that
/// request's span and to have ended as failed; its `error.type`.
async fn refused_admission(spans: &mut Spans, path: &str, trace: &str) -> String {
    let in_trace = |s: &Span| hex::encode(&s.trace_id) == trace;
    let name = format!("POST {path}");
    let server_span = spans.take(|s| s.name == name && in_trace(s)).await;
    let admission = spans.take(|s| s.name == "admission" && in_trace(s)).await;
    assert_eq!(admission.parent_span_id, server_span.span_id, "{path}");
    let key = attribute(&admission, "tokctl.key_id").unwrap_or_default();
    assert!(
        key.starts_with("key_"),
        "authenticated first ({path}): {key}"
    );
    assert_eq!(
        admission.status.as_ref().map(|s| s.code),
        Some(StatusCode::Error as i32),
        "{path}: {admission:?}"
    );
    attribute(&admission, "error.type").unwrap_or_default()
}

#[tokio::test]
async fn a_request_its_dialect_refuses_ends_its_admission_span_with_the_refusals_code() {
    let (endpoint, mut spans) = collector().await;
    let server = traced(&endpoint);
    let user = json!([{"role": "user", "content": "hi"}]);
    let cases = [
        // No max_tokens, which Anthropic's API requires.
        (
            "/v1/messages",
            json!({"model": "sim-mini", "messages": user}),
        ),
        // No model.
        ("/v1/messages", json!({"max_tokens": 16, "messages": user})),
        // max_output_tokens out of bounds.
        (
            "/v1/responses",
            json!({"model": "sim-mini", "input": "hi", "max_output_tokens": 0}),
        ),
        // No model.
        ("/v1/responses", json!({"input": "hi"})),
    ];
    for (i, (path, body)) in cases.into_iter().enumerate() {
        let trace = format!("{:032x}", 0xa000 + i);
        let (status, answer) = send(&server, path, &trace, &body.to_string()).await;
        assert_eq!(status, 400, "{path} {answer}");
        let code = answer["error"]["code"].as_str().unwrap_or_default();
        assert!(!code.is_empty(), "{path} {answer}");
        let error_type = refused_admission(&mut spans, path, &trace).await;
        assert_eq!(error_type, code, "{path} {body}");
    }
}

#[tokio::test]
async fn a_body_that_is_not_a_request_ends_its_admission_span_with_the_refusals_code() {
    let (endpoint, mut spans) = collector().await;
    let server = traced(&endpoint);
    let cases = [
        ("/v1/chat/completions", "{\"model\": "),
        ("/v1/chat/completions", r#"{"model": 5, "messages": []}"#),
        ("/v1/responses", "{\"input\": [1,"),
        ("/v1/responses", "[1, 2]"),
    ];
    for (i, (path, body)) in cases.into_iter().enumerate() {
        let trace = format!("{:032x}", 0xb000 + i);
        let (status, answer) = send(&server, path, &trace, body).await;
        assert_eq!(status, 400, "{path} {answer}");
        let code = answer["error"]["code"].as_str().unwrap_or_default();
        assert_eq!(code, "bad_request", "{path} {answer}");
        let error_type = refused_admission(&mut spans, path, &trace).await;
        assert_eq!(error_type, code, "{path} {body}");
    }
    // Anthropic's envelope carries a type by the status and no code: the span has the code the
    // server refused with (as the request log does).
    let trace = format!("{:032x}", 0xb100);
    let (status, answer) = send(&server, "/v1/messages", &trace, "{\"model\": ").await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["type"], "invalid_request_error", "{answer}");
    let error_type = refused_admission(&mut spans, "/v1/messages", &trace).await;
    assert_eq!(error_type, "bad_request");
}
