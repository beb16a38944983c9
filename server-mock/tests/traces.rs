//! Traces over OTLP/HTTP: what the server exports, decoded by a collector here with the
//! protocol's own generated types (`opentelemetry-proto`, not the server's encoder): a server
//! span per request that joins the caller's `traceparent` (and passes it on to upstreams),
//! under it one `admission` span (authentication, then for the gateway routing, the limit, the
//! budget and a payment) and a client span per upstream attempt; with the collector down,
//! requests are answered all the same and the spans dropped are counted. (Refused requests'
//! admission spans: `trace_refusals.rs`.)

mod common;

use common::collector::{attribute, collector};
use common::hooks::{eventually, free_addr};
use common::upstream::{KEY_VAR, answering, catalogue, catalogue_with};
use common::{Options, Server};
use futures::StreamExt;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::{Value, json};

/// A server exporting traces to `endpoint`, sending them every 100 ms.
fn traced(endpoint: &str, more: &[&str]) -> Server {
    let mut args = vec!["--otlp-endpoint".to_string(), endpoint.to_string()];
    args.extend(more.iter().map(|a| a.to_string()));
    Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100"), (KEY_VAR, "sk-upstream")],
        args,
        ..Default::default()
    })
}

#[tokio::test]
async fn a_request_is_a_server_span_in_the_callers_trace() {
    let (endpoint, mut spans) = collector().await;
    let server = traced(&endpoint, &[]);
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let listed = server
        .request(reqwest::Method::GET, "/v1/tokens", &server.admin_key)
        .header("traceparent", format!("00-{trace_id}-{parent}-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let (service, span) = spans
        .take_with_service(|s| s.name == "GET /v1/tokens")
        .await;
    assert_eq!(service, "tokctl-server");
    assert_eq!(
        hex::encode(&span.trace_id),
        trace_id,
        "joins the caller's trace"
    );
    assert_eq!(hex::encode(&span.parent_span_id), parent);
    assert_eq!(span.kind, SpanKind::Server as i32);
    assert_eq!(
        attribute(&span, "http.request.method").as_deref(),
        Some("GET")
    );
    assert_eq!(
        attribute(&span, "http.route").as_deref(),
        Some("/v1/tokens")
    );
    assert_eq!(
        attribute(&span, "http.response.status_code").as_deref(),
        Some("200")
    );
    assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
    // Authentication is the request's admission span, ended within it.
    let admission = spans
        .take(|s| s.name == "admission" && s.trace_id == span.trace_id)
        .await;
    assert_eq!(admission.parent_span_id, span.span_id);
    assert_eq!(admission.kind, SpanKind::Internal as i32);
    assert!(admission.end_time_unix_nano <= span.end_time_unix_nano);
    let key = attribute(&admission, "tokctl.key_id").unwrap_or_default();
    assert!(key.starts_with("key_"), "tokctl.key_id {key}");
    assert_eq!(attribute(&span, "tokctl.key_id"), Some(key));

    // Without a traceparent: a trace of its own, named by the route's template.
    let unknown = server
        .get("/v1/tokens/tok_missing", &server.admin_key)
        .await;
    assert_eq!(unknown.status(), 404);
    let span = spans.take(|s| s.name == "GET /v1/tokens/{id}").await;
    assert!(span.parent_span_id.is_empty(), "a root span");
    assert_ne!(hex::encode(&span.trace_id), trace_id);
    assert_eq!(
        attribute(&span, "http.response.status_code").as_deref(),
        Some("404")
    );
}

#[tokio::test]
async fn with_the_collector_down_requests_are_answered_and_drops_counted() {
    // A port nothing listens on.
    let down = format!("http://{}/v1/traces", free_addr());
    let server = traced(&down, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics = server.metrics_url();
    for _ in 0..20 {
        let listed = server.get("/v1/tokens", &server.admin_key).await;
        assert_eq!(listed.status(), 200);
    }
    let dropped = eventually("spans counted as dropped", || async {
        let text = reqwest::get(&metrics).await.ok()?.text().await.ok()?;
        let line = text
            .lines()
            .find(|l| l.starts_with("tokctl_trace_spans_dropped_total"))?;
        let count: f64 = line.rsplit(' ').next()?.parse().ok()?;
        (count >= 20.0).then_some(count)
    })
    .await;
    assert!(dropped >= 20.0, "{dropped}");
}

#[tokio::test]
async fn each_upstream_attempt_is_a_client_span_with_the_genai_attributes() {
    let (endpoint, mut spans) = collector().await;
    let upstream = wiremock::MockServer::start().await;
    let usage = json!({"prompt_tokens": 12, "completion_tokens": 5,
                       "prompt_tokens_details": {"cached_tokens": 4}});
    answering(&upstream, "hello there", usage).await;
    let dir = tempfile::tempdir().unwrap();
    let models = catalogue(dir.path(), &format!("{}/v1", upstream.uri()), "gpt-up");
    let server = traced(&endpoint, &["--models", &models]);
    let trace_id = "0af7651916cd43dd8448eb211c80319c";
    for stream in [false, true] {
        let body = json!({"model": "upstream", "stream": stream, "max_tokens": 50,
                          "temperature": 0.5, "top_p": 0.9,
                          "messages": [{"role": "user", "content": "hi"}]});
        let answer = server
            .request(
                reqwest::Method::POST,
                "/v1/chat/completions",
                &server.admin_key,
            )
            .header("traceparent", format!("00-{trace_id}-b7ad6b7169203331-01"))
            .header("x-claude-code-session-id", "sess-42")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let text = answer.text().await.unwrap();
        assert!(text.contains("hello there"), "{text}");
        let client = spans.take(|s| s.name == "chat gpt-up").await;
        let server_span = spans.take(|s| s.name == "POST /v1/chat/completions").await;
        assert_eq!(hex::encode(&client.trace_id), trace_id);
        assert_eq!(
            client.parent_span_id, server_span.span_id,
            "under the server span"
        );
        assert_eq!(client.kind, SpanKind::Client as i32);
        // Authentication and admission are one span under the request's, ended before the
        // attempt began; no other span of the gateway's own in the trace.
        let admission = spans.take(|s| s.name == "admission").await;
        assert_eq!(admission.parent_span_id, server_span.span_id);
        assert_eq!(admission.kind, SpanKind::Internal as i32);
        assert!(admission.start_time_unix_nano >= server_span.start_time_unix_nano);
        assert!(
            admission.end_time_unix_nano <= client.start_time_unix_nano,
            "admitted before the attempt"
        );
        let key = attribute(&admission, "tokctl.key_id").unwrap_or_default();
        assert!(key.starts_with("key_"), "tokctl.key_id {key}");
        let candidates = attribute(&admission, "tokctl.candidates").unwrap_or_default();
        assert!(
            candidates.parse::<u32>().is_ok_and(|n| n >= 1),
            "{candidates}"
        );
        assert_eq!(
            attribute(&admission, "tokctl.x402").as_deref(),
            Some("false")
        );
        assert!(
            admission
                .status
                .as_ref()
                .is_none_or(|s| s.code != StatusCode::Error as i32)
        );
        let own = spans
            .seen
            .iter()
            .filter(|(_, s)| s.trace_id == server_span.trace_id)
            .map(|(_, s)| s.name.clone())
            .collect::<Vec<_>>();
        assert!(own.is_empty(), "spans beyond the three: {own:?}");
        // The request's span: who sent it, what answered, what it cost; a stream's covers its body.
        let key = attribute(&server_span, "tokctl.key_id").unwrap_or_default();
        assert!(key.starts_with("key_"), "tokctl.key_id {key}");
        assert_eq!(
            attribute(&server_span, "tokctl.routed_model").as_deref(),
            Some("upstream")
        );
        let reason = attribute(&server_span, "tokctl.route_reason").unwrap_or_default();
        assert!(!reason.is_empty(), "a route reason");
        let credits = attribute(&server_span, "tokctl.credits_consumed").unwrap_or_default();
        assert!(
            credits.parse::<f64>().is_ok_and(|c| c > 0.0),
            "credits {credits}"
        );
        if !stream {
            let answer: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(credits, answer["platform"]["credits_consumed"].to_string());
        }
        assert!(
            server_span.end_time_unix_nano >= client.end_time_unix_nano,
            "covers the attempt"
        );
        // The upstream was asked under the attempt's span: its spans join the trace.
        let asked = upstream.received_requests().await.unwrap_or_default();
        let sent = asked.last().and_then(|r| r.headers.get("traceparent"));
        let sent = sent.and_then(|v| v.to_str().ok()).unwrap_or_default();
        let expected = format!("00-{trace_id}-{}-01", hex::encode(&client.span_id));
        assert_eq!(sent, expected, "the traceparent the upstream got");
        let session = attribute(&server_span, "gen_ai.conversation.id");
        assert_eq!(session.as_deref(), Some("sess-42"), "the agent's session");
        let host = upstream.address().ip().to_string();
        let port = upstream.address().port().to_string();
        for (key, value) in [
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.provider.name", "openai"),
            ("gen_ai.request.model", "upstream"),
            ("gen_ai.request.max_tokens", "50"),
            ("gen_ai.request.temperature", "0.5"),
            ("gen_ai.request.top_p", "0.9"),
            ("gen_ai.response.model", "gpt-up"),
            ("gen_ai.response.finish_reasons", "stop"),
            ("gen_ai.usage.input_tokens", "12"),
            ("gen_ai.usage.output_tokens", "5"),
            ("gen_ai.usage.cache_read.input_tokens", "4"),
            ("tokctl.routed_model", "upstream"),
            ("server.address", host.as_str()),
            ("server.port", port.as_str()),
        ] {
            assert_eq!(
                attribute(&client, key).as_deref(),
                Some(value),
                "{key} (stream {stream})"
            );
        }
        let id = attribute(&client, "gen_ai.response.id").unwrap_or_default();
        assert!(text.contains(&id) && !id.is_empty(), "the answer's id {id}");
        let first = client.events.iter().any(|e| e.name == "gen_ai.first_token");
        assert_eq!(first, stream, "a stream's first token is an event");
        // No content, no secret: the upstream key never leaves in a span.
        let bytes = format!("{client:?}{server_span:?}");
        assert!(
            !bytes.contains("sk-upstream")
                && !bytes.contains("hello there")
                && !bytes.contains("\"hi\"")
        );
    }
}

#[tokio::test]
async fn a_failed_attempt_is_a_failed_span_beside_the_one_that_answered() {
    let (endpoint, mut spans) = collector().await;
    let broken = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(503).set_body_string("down"))
        .mount(&broken)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/v1", broken.uri());
    let models = catalogue_with(dir.path(), &url, "gpt-down", "fallbacks = [\"local\"]");
    let server = traced(
        &endpoint,
        &["--models", &models, "--sim-token-delay-ms", "0"],
    );
    let body = json!({"model": "upstream", "messages": [{"role": "user", "content": "hi"}]});
    let answer = server
        .post("/v1/chat/completions", &server.admin_key, &body)
        .await;
    assert_eq!(
        answer.status(),
        200,
        "the simulated model answers after the failure"
    );
    let failed = spans.take(|s| s.name == "chat gpt-down").await;
    assert_eq!(
        attribute(&failed, "error.type").as_deref(),
        Some("http_5xx")
    );
    assert_eq!(
        failed.status.as_ref().map(|s| s.code),
        Some(2),
        "status error"
    );
    let answered = spans.take(|s| s.name == "chat local").await;
    assert_eq!(
        answered.parent_span_id, failed.parent_span_id,
        "both under the request"
    );
    assert_eq!(
        attribute(&answered, "gen_ai.provider.name").as_deref(),
        Some("simulated")
    );
    assert!(attribute(&answered, "error.type").is_none());
}

#[tokio::test]
async fn with_a_collector_that_hangs_the_spans_past_the_queue_are_dropped_and_counted() {
    // A collector that takes connections and never answers: the first batch's export waits
    // (5 s) while the queue (4,096 spans) fills; what comes after is dropped, and counted.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hanging = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let server = Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100")],
        args: vec![
            "--otlp-endpoint".into(),
            hanging,
            "--metrics-listen".into(),
            "127.0.0.1:0".into(),
        ],
        rate_limit: Some(1_000_000),
        ..Default::default()
    });
    let metrics = server.metrics_url();
    // Each request is two spans (the request's, and its admission: authentication).
    let requests = 4_000;
    let answered = futures::stream::iter(0..requests)
        .map(|_| async { server.get("/v1/scopes", &server.admin_key).await.status() })
        .buffer_unordered(8)
        .filter(|status| std::future::ready(*status == 200))
        .count()
        .await;
    assert_eq!(answered, requests, "every request answered");
    let text = reqwest::get(&metrics).await.unwrap().text().await.unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("tokctl_trace_spans_dropped_total"))
        .unwrap();
    let dropped: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    // At most the queue and two batches (a timed-out export counts its 512) are not refused at
    // the queue: the rest must be counted there.
    let floor = (2 * requests - 4_096 - 2 * 512) as f64;
    assert!(dropped >= floor, "dropped {dropped}, at least {floor}");
}

#[tokio::test]
async fn spans_still_waiting_are_sent_when_the_server_stops() {
    let (endpoint, mut spans) = collector().await;
    // A delay no test waits out: the spans leave only because the server stops.
    let mut server = Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "600000")],
        args: vec!["--otlp-endpoint".to_string(), endpoint],
        ..Default::default()
    });
    let listed = server.get("/v1/tokens", &server.admin_key).await;
    assert_eq!(listed.status(), 200);
    // Stopped on a thread of its own: the collector answers on this one meanwhile.
    let clean = tokio::task::spawn_blocking(move || server.stop())
        .await
        .unwrap();
    assert!(clean, "the server exits cleanly");
    let span = spans.take(|s| s.name == "GET /v1/tokens").await;
    assert_eq!(span.kind, SpanKind::Server as i32);
    assert_eq!(
        attribute(&span, "http.response.status_code").as_deref(),
        Some("200")
    );
}
