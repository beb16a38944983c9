//! A collector of traces on loopback for the tests: OTLP/HTTP requests decoded with the
//! `opentelemetry-proto` crate's generated types (an implementation independent of the
//! server's exporter), each span kept with its service's name, and every byte received.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use tokio::sync::mpsc;

/// A collector on loopback: its traces URL, and the spans it receives.
pub async fn collector() -> (String, Spans) {
    let (tx, rx) = mpsc::unbounded_channel();
    let raw = Arc::new(Mutex::new(Vec::new()));
    let received = raw.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        post(move |body: Bytes| {
            let tx = tx.clone();
            received.lock().unwrap().extend_from_slice(&body);
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
    let spans = Spans {
        rx,
        seen: Vec::new(),
        raw,
    };
    (format!("http://{addr}/v1/traces"), spans)
}

pub fn text(value: &AnyValue) -> Option<String> {
    match value {
        AnyValue::StringValue(s) => Some(s.clone()),
        AnyValue::IntValue(i) => Some(i.to_string()),
        AnyValue::DoubleValue(d) => Some(d.to_string()),
        AnyValue::BoolValue(b) => Some(b.to_string()),
        AnyValue::ArrayValue(list) => {
            let each: Option<Vec<String>> = list
                .values
                .iter()
                .map(|v| text(v.value.as_ref()?))
                .collect();
            Some(each?.join(","))
        }
        _ => None,
    }
}

/// The spans a collector received, kept in order of arrival.
pub struct Spans {
    rx: mpsc::UnboundedReceiver<(String, Span)>,
    /// Each with its service's name.
    pub seen: Vec<(String, Span)>,
    /// Every byte the collector received.
    pub raw: Arc<Mutex<Vec<u8>>>,
}

impl Spans {
    /// The first span received that `wanted` picks (waiting up to 20 s for it), taken out,
    /// with its service's name.
    pub async fn take_with_service(&mut self, wanted: impl Fn(&Span) -> bool) -> (String, Span) {
        loop {
            if let Some(at) = self.seen.iter().position(|(_, span)| wanted(span)) {
                return self.seen.remove(at);
            }
            let received = tokio::time::timeout(Duration::from_secs(20), self.rx.recv())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "no such span within 20 s; received: {:?}",
                        self.seen.iter().map(|(_, s)| &s.name).collect::<Vec<_>>()
                    )
                })
                .expect("the collector runs");
            self.seen.push(received);
        }
    }

    /// The first span received that `wanted` picks, taken out.
    pub async fn take(&mut self, wanted: impl Fn(&Span) -> bool) -> Span {
        self.take_with_service(wanted).await.1
    }
}

/// `span`'s attribute `key`, as text.
pub fn attribute(span: &Span, key: &str) -> Option<String> {
    let found = span.attributes.iter().find(|a| a.key == key)?;
    text(found.value.as_ref()?.value.as_ref()?)
}
