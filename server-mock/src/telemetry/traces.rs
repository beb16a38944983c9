//! Traces over OpenTelemetry's OTLP/HTTP (protobuf), off unless an endpoint is given: a server
//! span for each request, joined to the caller's trace when it sends a W3C `traceparent`.
//!
//! Spans are made by the SDK's tracer and leave through a batcher of our own (`export`): a
//! bounded list and a thread of its own that sends them, so a request never waits for the
//! collector. When the collector is down or slow, the spans that could not be sent are dropped
//! and counted ([`registry::TRACE_SPANS_DROPPED`]).

use std::sync::Arc;
use std::time::Duration;

use axum::http::header::{HeaderName, HeaderValue};
use axum::http::{HeaderMap, Method};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{KeyValue, Value};
use opentelemetry_http::HeaderExtractor;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracer, SdkTracerProvider};

use super::registry::{self, Metrics};

mod export;
mod otlp;
mod span;

pub use span::{ADMISSION, Admission, ChildSpan, Handoff, ServerSpan, Traced};

/// The W3C trace context header.
const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// Spans kept in memory waiting to be sent; past this, new ones are dropped.
const QUEUE: usize = 4096;
/// How long one export may take before it counts as failed (its spans dropped).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// Headers that name an agent's session (Claude Code's, and the gateway's own for any client),
/// recorded as `gen_ai.conversation.id`.
/// Names made once: a lookup by text parses the name again each time.
const SESSION_HEADERS: [HeaderName; 2] = [
    HeaderName::from_static("x-claude-code-session-id"),
    HeaderName::from_static("x-tokctl-session-id"),
];
/// Longest session id recorded.
const SESSION_MAX: usize = 128;

/// How long the server waits for the last spans to leave when it stops.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(3);

/// Where traces go and which are kept.
#[derive(Debug, Clone)]
pub struct TraceConfig {
    /// The OTLP/HTTP traces URL (`http://collector:4318/v1/traces`); `None`: no traces.
    pub endpoint: Option<String>,
    /// Share of new traces kept (0 to 1); a request that joins a caller's trace follows the
    /// caller's decision.
    pub sample_ratio: f64,
    /// Whether upstream attempts' spans carry the messages (secrets redacted); off by default.
    pub content: bool,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            endpoint: None,
            sample_ratio: 1.0,
            content: false,
        }
    }
}

impl TraceConfig {
    /// The traces URL from the standard variables, when no flag gave one:
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with
    /// `/v1/traces` appended (as the OTLP exporter specification says).
    pub fn endpoint_from_env() -> Option<String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(url) = var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            return Some(url);
        }
        let base = var("OTEL_EXPORTER_OTLP_ENDPOINT")?;
        Some(format!("{}/v1/traces", base.trim_end_matches('/')))
    }
}

/// The agent session a request names (Claude Code's header, or the gateway's own), when it is
/// plain text of at most `SESSION_MAX` bytes.
pub fn session_id(headers: &HeaderMap) -> Option<&str> {
    // One pass over the few headers a request has (a lookup by name hashes the name, twice).
    let mut found: [Option<&HeaderValue>; 2] = [None, None];
    for (name, value) in headers {
        if let Some(i) = SESSION_HEADERS.iter().position(|known| known == name) {
            found[i].get_or_insert(value);
        }
    }
    found
        .into_iter()
        .flatten()
        .find_map(|value| value.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= SESSION_MAX)
}

/// The server's tracer, or nothing when traces are off (then every call here is a branch on
/// `None`).
#[derive(Clone, Default)]
pub struct Traces(Option<Arc<Inner>>);

struct Inner {
    /// The API's routes, for the span's name and `http.route`.
    routes: matchit::Router<Route>,
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    propagator: TraceContextPropagator,
    /// Whether message content is recorded.
    content: bool,
}

impl Traces {
    /// Starts exporting to `config`'s endpoint (headers from `OTEL_EXPORTER_OTLP_HEADERS`, the
    /// service's name from `OTEL_SERVICE_NAME`, else `tokctl-server`); spans dropped are counted
    /// in `metrics`. Off when no endpoint is configured.
    pub fn start(
        config: &TraceConfig,
        routes: &[(Method, &'static str)],
        metrics: &Metrics,
    ) -> anyhow::Result<Traces> {
        let Some(endpoint) = &config.endpoint else {
            return Ok(Traces(None));
        };
        let dropped = metrics.counter(registry::TRACE_SPANS_DROPPED, &[]);
        let processor = export::bounded(endpoint, EXPORT_TIMEOUT, QUEUE, dropped)
            .map_err(|err| anyhow::anyhow!("cannot export traces to {endpoint}: {err}"))?;
        let service = std::env::var("OTEL_SERVICE_NAME")
            .ok()
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| "tokctl-server".to_string());
        let resource = Resource::builder()
            .with_service_name(service)
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let ratio = config.sample_ratio.clamp(0.0, 1.0);
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
                ratio,
            ))))
            .with_resource(resource)
            .build();
        let tracer = provider.tracer("tokctl-server");
        tracing::info!(endpoint = %endpoint, sample_ratio = ratio, "exporting traces over OTLP/HTTP");
        Ok(Traces(Some(Arc::new(Inner {
            routes: route_names(routes),
            provider,
            tracer,
            propagator: TraceContextPropagator::new(),
            content: config.content,
        }))))
    }

    /// Whether spans are recorded.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// The server span of a request for `path`, named by its route's template
    /// (`GET /v1/tokens/{id}`; the method alone when no route matches), a child of the
    /// caller's span when `headers` carry a `traceparent`.
    pub fn server(&self, method: &Method, path: &str, headers: &HeaderMap) -> Option<ServerSpan> {
        let inner = self.0.as_ref()?;
        let route = inner.routes.at(path).ok().map(|found| found.value);
        // Room for what the request turns out to be (its credential, model, route, cost,
        // status), so that the span's list is not grown again and again.
        let mut attributes = Vec::with_capacity(10);
        attributes.push(KeyValue::new("http.request.method", method_value(method)));
        let name = match route {
            Some(route) => {
                attributes.push(KeyValue::new("http.route", route.template));
                route.name(method)
            }
            None => method.to_string().into(),
        };
        if let Some(id) = session_id(headers) {
            attributes.push(KeyValue::new("gen_ai.conversation.id", id.to_string()));
        }
        let parent = inner.propagator.extract(&HeaderExtractor(headers));
        let span = inner
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(attributes)
            .start_with_context(&inner.tracer, &parent);
        Some(ServerSpan(parent.with_span(span)))
    }

    /// Sends what is queued and stops the exporter, waiting at most a few seconds (a collector
    /// that is down does not hold the server's exit).
    pub async fn shutdown(&self) {
        if let Some(inner) = self.0.clone() {
            let stopped = tokio::task::spawn_blocking(move || {
                inner.provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT)
            });
            if let Ok(Err(err)) = stopped.await {
                tracing::warn!(error = %err, "traces not all sent at shutdown");
            }
        }
    }
}

/// A route's template and its spans' names, one per method it answers.
struct Route {
    template: &'static str,
    names: Vec<(Method, &'static str)>,
}

impl Route {
    /// The span's name for `method` (`GET /v1/tokens/{id}`).
    fn name(&self, method: &Method) -> std::borrow::Cow<'static, str> {
        match self.names.iter().find(|(m, _)| m == method) {
            Some((_, name)) => (*name).into(),
            None => format!("{method} {}", self.template).into(),
        }
    }
}

/// The routes of `routes` by path, with their spans' names made once (and kept for the life of
/// the process: a span's name is `'static` or allocated again for each span).
fn route_names(routes: &[(Method, &'static str)]) -> matchit::Router<Route> {
    let mut by_path: Vec<Route> = Vec::new();
    for (method, template) in routes {
        let name: &'static str = Box::leak(format!("{method} {template}").into_boxed_str());
        match by_path.iter_mut().find(|r| r.template == *template) {
            Some(route) => route.names.push((method.clone(), name)),
            None => by_path.push(Route {
                template,
                names: vec![(method.clone(), name)],
            }),
        }
    }
    let mut router = matchit::Router::new();
    for route in by_path {
        let template = route.template;
        // A template matchit refuses is left unnamed (its spans named by the method alone).
        let _ = router.insert(template, route);
    }
    router
}

/// `http.request.method`'s value: the method's own text, without an allocation for the usual
/// ones.
fn method_value(method: &Method) -> Value {
    let known = [
        Method::GET,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::HEAD,
        Method::OPTIONS,
    ];
    const NAMES: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
    match known.iter().position(|m| m == method) {
        Some(i) => Value::from(NAMES[i]),
        None => Value::from(method.as_str().to_string()),
    }
}
