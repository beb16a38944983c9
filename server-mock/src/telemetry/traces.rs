//! Traces over OpenTelemetry's OTLP/HTTP (protobuf), off unless an endpoint is given: a server
//! span for each request, joined to the caller's trace when it sends a W3C `traceparent`.
//!
//! Spans are recorded straight into what is exported (`span`), with W3C trace context and
//! parent-based ratio sampling (`context`), and leave through a batcher (`export`): a bounded
//! list and a thread of its own that encodes them (`otlp`) and sends them, so a request never
//! waits for the collector. When the collector is down or slow, the spans that could not be
//! sent are dropped and counted ([`registry::TRACE_SPANS_DROPPED`]).
//!
//! Not the OpenTelemetry SDK's tracer, nor its API's attribute values: the SDK's spans, their
//! context and its processor, then values allocated, kept, encoded and dropped one by one, cost
//! the gateway about 13,000 instructions a request more than this (BENCHMARKS.md). Attributes
//! are encoded as they are set (`attributes`).

use std::sync::Arc;
use std::time::Duration;

use super::registry::{self, Metrics};
use axum::http::header::{HeaderName, HeaderValue};
use axum::http::{HeaderMap, Method};

mod attributes;
mod context;
mod export;
mod otlp;
mod span;

pub use attributes::Attributes;
pub use span::{ADMISSION, Admission, ChildSpan, ServerSpan, Traced};

/// Spans kept in memory waiting to be sent; past this, new ones are dropped.
const QUEUE: usize = 4096;
/// How long one export may take before it counts as failed (its spans dropped).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// Headers that name an agent's session (Claude Code's, and the gateway's own for any client),
/// recorded as `gen_ai.conversation.id`.
/// Names made once: a lookup by text parses the name again each time.
const SESSION_HEADERS: [HeaderName; 2] = [CLAUDE_CODE_SESSION, TOKCTL_SESSION];
/// Claude Code's session header.
const CLAUDE_CODE_SESSION: HeaderName = HeaderName::from_static("x-claude-code-session-id");
/// The gateway's own session header, for any client.
const TOKCTL_SESSION: HeaderName = HeaderName::from_static("x-tokctl-session-id");
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
    session_of(first_of(headers, &SESSION_HEADERS))
}

/// The session id among the values of [`SESSION_HEADERS`], the first that is plain text of at
/// most `SESSION_MAX` bytes.
fn session_of(values: [Option<&HeaderValue>; 2]) -> Option<&str> {
    values
        .into_iter()
        .flatten()
        .find_map(|value| value.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= SESSION_MAX)
}

/// The first value `headers` hold of each of `names`, found in one pass over the few headers a
/// request has (a lookup by name hashes the name, each time).
fn first_of<'a, const N: usize>(
    headers: &'a HeaderMap,
    names: &[HeaderName; N],
) -> [Option<&'a HeaderValue>; N] {
    let mut found = [None; N];
    for (name, value) in headers {
        if let Some(i) = names.iter().position(|known| known == name) {
            found[i].get_or_insert(value);
        }
    }
    found
}

/// What a server span reads of a request's headers: the sessions', then the trace context's.
const READ: [HeaderName; 4] = [
    CLAUDE_CODE_SESSION,
    TOKCTL_SESSION,
    context::TRACEPARENT,
    context::TRACESTATE,
];

/// The server's tracer, or nothing when traces are off (then every call here is a branch on
/// `None`).
#[derive(Clone, Default)]
pub struct Traces(Option<Arc<Inner>>);

struct Inner {
    /// The API's routes, for the span's name and `http.route`.
    routes: matchit::Router<Route>,
    batcher: export::Batcher,
    /// Share of new traces kept.
    ratio: f64,
    /// The name of every admission span.
    admission: Arc<str>,
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
        let service = std::env::var("OTEL_SERVICE_NAME")
            .ok()
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| "tokctl-server".to_string());
        let mut resource = Attributes::resource();
        resource.str("service.name", &service);
        resource.str("service.version", env!("CARGO_PKG_VERSION"));
        let resource = resource.bytes().to_vec();
        let batcher = export::bounded(endpoint, EXPORT_TIMEOUT, QUEUE, dropped, resource)
            .map_err(|err| anyhow::anyhow!("cannot export traces to {endpoint}: {err}"))?;
        let ratio = config.sample_ratio.clamp(0.0, 1.0);
        tracing::info!(endpoint = %endpoint, sample_ratio = ratio, "exporting traces over OTLP/HTTP");
        Ok(Traces(Some(Arc::new(Inner {
            routes: route_names(routes),
            batcher,
            ratio,
            admission: Arc::from(span::ADMISSION),
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
        let [one, other, parent, state] = first_of(headers, &READ);
        let parent = context::extract(parent, state);
        let ids = context::server(parent.as_ref(), inner.ratio);
        let remote = parent.map(|parent| (parent.span, true));
        let open = span::Open::start(inner.clone(), ids, remote, span::Kind::Server, || {
            let route = inner.routes.at(path).ok().map(|found| found.value);
            // Room for what the request turns out to be (its credential, model, route, cost,
            // status), so that the span's list is not grown again and again.
            let mut attributes = Attributes::with_capacity(384);
            attributes.str("http.request.method", method.as_str());
            let name = match route {
                Some(route) => {
                    attributes.str("http.route", route.template);
                    route.name(method)
                }
                None => Arc::from(method.as_str()),
            };
            if let Some(id) = session_of([one, other]) {
                attributes.str("gen_ai.conversation.id", id);
            }
            (name, attributes)
        });
        Some(ServerSpan::new(open))
    }

    /// Sends what is queued and stops the exporter, waiting at most a few seconds (a collector
    /// that is down does not hold the server's exit).
    pub async fn shutdown(&self) {
        if let Some(inner) = self.0.clone() {
            let stopped =
                tokio::task::spawn_blocking(move || inner.batcher.shutdown(SHUTDOWN_TIMEOUT));
            if let Ok(Err(err)) = stopped.await {
                tracing::warn!(error = %err, "traces not all sent at shutdown");
            }
        }
    }
}

/// A route's template and its spans' names, one per method it answers.
struct Route {
    template: &'static str,
    names: Vec<(Method, Arc<str>)>,
}

impl Route {
    /// The span's name for `method` (`GET /v1/tokens/{id}`).
    fn name(&self, method: &Method) -> Arc<str> {
        match self.names.iter().find(|(m, _)| m == method) {
            Some((_, name)) => name.clone(),
            None => Arc::from(format!("{method} {}", self.template)),
        }
    }
}

/// The routes of `routes` by path, with their spans' names made once (each span shares its
/// route's).
fn route_names(routes: &[(Method, &'static str)]) -> matchit::Router<Route> {
    let mut by_path: Vec<Route> = Vec::new();
    for (method, template) in routes {
        let name = Arc::<str>::from(format!("{method} {template}"));
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
