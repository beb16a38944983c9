//! Traces over OpenTelemetry's OTLP/HTTP (protobuf), off unless an endpoint is given: a server
//! span for each request, joined to the caller's trace when it sends a W3C `traceparent`.
//!
//! Spans leave through the SDK's batch processor: a bounded queue and a thread of its own that
//! sends them, so a request never waits for the collector. When the collector is down or slow,
//! the spans that could not be sent are dropped and counted ([`registry::TRACE_SPANS_DROPPED`]).

use std::sync::Arc;
use std::time::Duration;

use axum::http::header::{HeaderName, HeaderValue};
use axum::http::{HeaderMap, Method};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_http::{HeaderExtractor, HeaderInjector};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracer, SdkTracerProvider};

use super::registry::{self, Metrics};

mod export;

/// The W3C trace context header.
const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// Spans kept in memory waiting to be sent; past this, new ones are dropped.
const QUEUE: usize = 4096;
/// How long one export may take before it counts as failed (its spans dropped).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// Headers that name an agent's session (Claude Code's, and the gateway's own for any client),
/// recorded as `gen_ai.conversation.id`.
const SESSION_HEADERS: [&str; 2] = ["x-claude-code-session-id", "x-tokctl-session-id"];
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
    SESSION_HEADERS
        .iter()
        .find_map(|name| headers.get(*name)?.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= SESSION_MAX)
}

/// The server's tracer, or nothing when traces are off (then every call here is a branch on
/// `None`).
#[derive(Clone, Default)]
pub struct Traces(Option<Arc<Inner>>);

struct Inner {
    /// The API's route templates, for the span's name and `http.route`.
    routes: matchit::Router<&'static str>,
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
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint.clone())
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|err| anyhow::anyhow!("cannot export traces to {endpoint}: {err}"))?;
        let processor = export::bounded(
            exporter,
            QUEUE,
            metrics.counter(registry::TRACE_SPANS_DROPPED, &[]),
        );
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
            routes: registry::templates(routes),
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
        let route = inner.routes.at(path).ok().map(|found| *found.value);
        let mut attributes = vec![KeyValue::new(
            "http.request.method",
            method.as_str().to_string(),
        )];
        let name = match route {
            Some(route) => {
                attributes.push(KeyValue::new("http.route", route));
                format!("{method} {route}")
            }
            None => method.to_string(),
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

/// A request's server span. It ends when the last of its holders lets go: the edge once the
/// answer's head is sent, a stream's relay when the stream ends (so a stream's span covers its
/// body).
pub struct ServerSpan(Context);

/// Where a request's own spans go: under its server span, through the server's tracer. Left in
/// the request's extensions by the edge layer while traces are on.
#[derive(Clone)]
pub struct Traced {
    inner: Arc<Inner>,
    cx: Context,
}

impl Traced {
    /// A client span under the request's (an upstream attempt), started now.
    pub fn client(&self, name: String, attributes: Vec<KeyValue>) -> ChildSpan {
        self.child(name, SpanKind::Client, attributes)
    }

    /// A span of the gateway's own work under the request's (authentication, admission),
    /// started now.
    pub fn internal(&self, name: &'static str, attributes: Vec<KeyValue>) -> ChildSpan {
        self.child(name.into(), SpanKind::Internal, attributes)
    }

    fn child(&self, name: String, kind: SpanKind, attributes: Vec<KeyValue>) -> ChildSpan {
        let span = self
            .inner
            .tracer
            .span_builder(name)
            .with_kind(kind)
            .with_attributes(attributes)
            .start_with_context(&self.inner.tracer, &self.cx);
        ChildSpan(self.cx.with_span(span))
    }

    /// Whether message content goes into spans (`--trace-content`).
    pub fn content(&self) -> bool {
        self.inner.content
    }

    /// Adds attributes to the request's server span (what it turned out to be: the token that
    /// sent it, the model that answered, what it cost).
    pub fn set(&self, attributes: Vec<KeyValue>) {
        self.cx.span().set_attributes(attributes);
    }

    /// Marks the request failed after its answer's head was sent (a stream cut).
    pub fn failed(&self, error_type: &'static str) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("error.type", error_type));
        span.set_status(Status::error(""));
    }
}

/// A span under a request's: an upstream attempt (client), or the gateway's own work.
pub struct ChildSpan(Context);

impl ChildSpan {
    /// The W3C `traceparent` header naming this span, for the upstream request it stands for.
    pub fn traceparent(&self) -> Option<(HeaderName, HeaderValue)> {
        let mut headers = HeaderMap::new();
        TraceContextPropagator::new().inject_context(&self.0, &mut HeaderInjector(&mut headers));
        let value = headers.remove(TRACEPARENT)?;
        Some((TRACEPARENT, value))
    }

    /// Adds attributes known once the answer came.
    pub fn set(&self, attributes: Vec<KeyValue>) {
        self.0.span().set_attributes(attributes);
    }

    /// Marks a moment of the attempt (`gen_ai.first_token`).
    pub fn event(&self, name: &'static str) {
        self.0.span().add_event(name, Vec::new());
    }

    /// Ends it as failed, of `error_type`.
    pub fn failed(self, error_type: &'static str, message: String) {
        let span = self.0.span();
        span.set_attribute(KeyValue::new("error.type", error_type));
        span.set_status(Status::error(message));
        span.end();
    }

    /// Ends it.
    pub fn end(self) {
        self.0.span().end();
    }
}

impl ServerSpan {
    /// Where the request's own spans go.
    pub fn traced(&self, traces: &Traces) -> Option<Traced> {
        let inner = traces.0.clone()?;
        Some(Traced {
            inner,
            cx: self.0.clone(),
        })
    }

    /// Notes the answer's `status` (a 5xx marks it an error) and lets go of it: it ends now,
    /// or when the last [`Traced`] holding it lets go (a stream's relay).
    pub fn answered(self, status: u16) {
        let span = self.0.span();
        span.set_attribute(KeyValue::new(
            "http.response.status_code",
            i64::from(status),
        ));
        if status >= 500 {
            span.set_attribute(KeyValue::new("error.type", status.to_string()));
            span.set_status(Status::error(""));
        }
    }
}
