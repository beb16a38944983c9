//! Trace sampling, parent-based (`--trace-sample-ratio`): a caller's `traceparent` decides
//! whether its trace is kept, whatever the ratio; a request without one starts a trace kept at
//! the ratio. A trace not kept exports nothing, yet its context still reaches the upstream (with
//! the sampled flag off), so the upstream's own spans follow the same decision.

mod common;

use common::collector::{Spans, collector};
use common::upstream::{KEY_VAR, answering, catalogue};
use common::{Options, Server};
use serde_json::json;

/// A gateway in front of an upstream that answers, exporting traces to a collector every
/// 100 ms and keeping new traces at `ratio`: the spans the collector receives, the upstream, the
/// server, and the directory of its catalogue.
async fn gateway(ratio: &str) -> (Spans, wiremock::MockServer, Server, tempfile::TempDir) {
    let (endpoint, spans) = collector().await;
    let upstream = wiremock::MockServer::start().await;
    let usage = json!({"prompt_tokens": 3, "completion_tokens": 1});
    answering(&upstream, "hello", usage).await;
    let dir = tempfile::tempdir().unwrap();
    let models = catalogue(dir.path(), &format!("{}/v1", upstream.uri()), "gpt-up");
    let args = ["--otlp-endpoint", &endpoint, "--trace-sample-ratio", ratio];
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.extend(["--models".to_string(), models]);
    let server = Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100"), (KEY_VAR, "sk-upstream")],
        args,
        ..Default::default()
    });
    (spans, upstream, server, dir)
}

/// Asks `server` for a completion, with `traceparent` when given; gives the `traceparent` the
/// upstream received for it.
async fn chat(
    server: &Server,
    upstream: &wiremock::MockServer,
    traceparent: Option<&str>,
) -> String {
    let body = json!({"model": "upstream", "max_tokens": 20,
                      "messages": [{"role": "user", "content": "hi"}]});
    let mut request = server
        .request(
            reqwest::Method::POST,
            "/v1/chat/completions",
            &server.admin_key,
        )
        .json(&body);
    if let Some(traceparent) = traceparent {
        request = request.header("traceparent", traceparent);
    }
    let answer = request.send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let asked = upstream.received_requests().await.unwrap_or_default();
    let sent = asked.last().and_then(|r| r.headers.get("traceparent"));
    sent.and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// The trace id and flags of a `traceparent`.
fn trace_and_flags(traceparent: &str) -> (&str, &str) {
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "a traceparent: {traceparent:?}");
    (parts[1], parts[3])
}

#[tokio::test]
async fn a_callers_decision_is_followed_and_new_traces_are_kept_at_the_ratio() {
    let (mut spans, upstream, server, _dir) = gateway("0").await;

    // Ratio 0: a new trace is not kept, but the upstream is still asked within it.
    let sent = chat(&server, &upstream, None).await;
    let (unkept_new, flags) = trace_and_flags(&sent);
    assert_eq!(flags, "00", "not sampled: {sent}");
    assert_ne!(unkept_new, "0".repeat(32));
    // A caller that did not sample: not kept either, its trace passed on.
    let unsampled = "11111111111111111111111111111111";
    let sent = chat(
        &server,
        &upstream,
        Some(&format!("00-{unsampled}-2222222222222222-00")),
    )
    .await;
    assert_eq!(trace_and_flags(&sent), (unsampled, "00"));
    // A caller that sampled: kept, whatever the ratio.
    let sampled = "33333333333333333333333333333333";
    let sent = chat(
        &server,
        &upstream,
        Some(&format!("00-{sampled}-4444444444444444-01")),
    )
    .await;
    assert_eq!(trace_and_flags(&sent), (sampled, "01"));
    let span = spans.take(|s| s.name == "POST /v1/chat/completions").await;
    assert_eq!(hex::encode(&span.trace_id), sampled);
    let client = spans.take(|s| s.name == "chat gpt-up").await;
    assert_eq!(hex::encode(&client.trace_id), sampled);
    assert_eq!(
        sent,
        format!("00-{sampled}-{}-01", hex::encode(&client.span_id)),
        "the upstream asked under the attempt's span"
    );
    // Spans leave in the order they end: the two earlier requests' would have come first.
    let earlier: Vec<String> = spans
        .seen
        .iter()
        .map(|(_, s)| hex::encode(&s.trace_id))
        .filter(|trace| trace != sampled)
        .collect();
    assert!(earlier.is_empty(), "spans of traces not kept: {earlier:?}");
}

#[tokio::test]
async fn at_ratio_one_every_new_trace_is_kept_and_named_to_the_upstream() {
    let (mut spans, upstream, server, _dir) = gateway("1").await;
    let sent = chat(&server, &upstream, None).await;
    let (trace, flags) = trace_and_flags(&sent);
    assert_eq!(flags, "01", "sampled: {sent}");
    let span = spans.take(|s| s.name == "POST /v1/chat/completions").await;
    assert_eq!(hex::encode(&span.trace_id), trace);
    assert!(span.parent_span_id.is_empty(), "a root span");
}
