//! Traces over OTLP/HTTP: what the server exports, decoded by a collector here with the
//! protocol's own generated types (`opentelemetry-proto`, not the server's encoder): a server
//! span per request that joins the caller's `traceparent`; with the collector down, requests are
//! answered all the same and the spans dropped are counted.

mod common;

use std::time::Duration;

use axum::body::Bytes;
use axum::routing::post;
use common::hooks::{eventually, free_addr};
use common::{Options, Server};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use tokio::sync::mpsc;

/// A collector on loopback: its traces URL, and each span it receives with its service name.
async fn collector() -> (String, mpsc::UnboundedReceiver<(String, Span)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = axum::Router::new().route(
        "/v1/traces",
        post(move |body: Bytes| {
            let tx = tx.clone();
            async move {
                let request = ExportTraceServiceRequest::decode(body).expect("an OTLP request");
                for resource in request.resource_spans {
                    let service = resource
                        .resource
                        .iter()
                        .flat_map(|r| &r.attributes)
                        .find(|a| a.key == "service.name")
                        .and_then(|a| text(a.value.as_ref()?.value.as_ref()?))
                        .unwrap_or_default();
                    for span in resource.scope_spans.into_iter().flat_map(|s| s.spans) {
                        let _ = tx.send((service.clone(), span));
                    }
                }
                ExportTraceServiceRequest::default().encode_to_vec()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1/traces"), rx)
}

fn text(value: &AnyValue) -> Option<String> {
    match value {
        AnyValue::StringValue(s) => Some(s.clone()),
        AnyValue::IntValue(i) => Some(i.to_string()),
        _ => None,
    }
}

/// `span`'s attribute `key`, as text.
fn attribute(span: &Span, key: &str) -> Option<String> {
    let found = span.attributes.iter().find(|a| a.key == key)?;
    text(found.value.as_ref()?.value.as_ref()?)
}

/// A server exporting traces to `endpoint`, sending them every 100 ms.
fn traced(endpoint: &str, more: &[&str]) -> Server {
    let mut args = vec!["--otlp-endpoint".to_string(), endpoint.to_string()];
    args.extend(more.iter().map(|a| a.to_string()));
    Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100")],
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
    let (service, span) = loop {
        let (service, span) = tokio::time::timeout(Duration::from_secs(20), spans.recv())
            .await
            .expect("a span within 20 s")
            .expect("the collector runs");
        if span.name == "GET /v1/tokens" {
            break (service, span);
        }
    };
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

    // Without a traceparent: a trace of its own, named by the route's template.
    let unknown = server
        .get("/v1/tokens/tok_missing", &server.admin_key)
        .await;
    assert_eq!(unknown.status(), 404);
    let span = loop {
        let (_, span) = tokio::time::timeout(Duration::from_secs(20), spans.recv())
            .await
            .expect("a span within 20 s")
            .expect("the collector runs");
        if span.name == "GET /v1/tokens/{id}" {
            break span;
        }
    };
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
