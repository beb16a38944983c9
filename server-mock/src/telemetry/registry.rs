//! The metrics registry: every metric's name, help text and histogram buckets, the handles the
//! server records into, and the Prometheus text exposition of it all.
//!
//! Names follow OpenTelemetry's semantic conventions where one exists, in their Prometheus form
//! (dots become underscores, the unit a suffix: `http.server.request.duration` in seconds is
//! `http_server_request_duration_seconds`); the product's own are `tokctl_*`. Histograms keep
//! the bucket boundaries OpenTelemetry advises for each. Labels come from closed sets (routes,
//! methods, statuses, models, outcomes); never a workspace, token or key id.
//!
//! Off (no `--metrics-listen`), [`Metrics`] is `None` inside and every handle it gives out is a
//! no-op, so recording costs a branch.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use axum::http::Method;
use metrics::{Counter, Gauge, Histogram, Key, Label, Metadata, Recorder, Unit};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

/// `http.server.request.duration`, by route template, method and status.
pub const HTTP_DURATION: &str = "http_server_request_duration_seconds";
/// `gen_ai.server.request.duration`: a chat request from arrival to the end of its answer.
pub const CHAT_DURATION: &str = "gen_ai_server_request_duration_seconds";
/// `gen_ai.server.time_to_first_token`, per model that answered.
pub const FIRST_TOKEN: &str = "gen_ai_server_time_to_first_token_seconds";
/// `gen_ai.client.token.usage`, by `gen_ai_token_type` (`input`, `output`).
pub const TOKENS: &str = "gen_ai_client_token_usage";
/// The time the gateway adds to a chat request, apart from waiting on upstreams.
pub const OVERHEAD: &str = "tokctl_gateway_overhead_seconds";
/// Credits charged, in nano-credits (1 credit = 10^9), per model.
pub const CREDITS_CONSUMED: &str = "tokctl_credits_consumed_nanocredits_total";
/// Credits saved against the best model's price, in nano-credits, per model.
pub const CREDITS_SAVED: &str = "tokctl_credits_saved_nanocredits_total";
/// Upstream attempts by model and outcome.
pub const UPSTREAM: &str = "tokctl_upstream_requests_total";
/// Candidates not tried because their circuit was open.
pub const SKIPPED: &str = "tokctl_upstream_skipped_total";
/// Each model's circuit state, one series per state (1 for the current one).
pub const CIRCUIT: &str = "tokctl_upstream_circuit_state";
/// Requests refused for their credential (401) or its scopes (403).
pub const AUTH_FAILURES: &str = "tokctl_auth_failures_total";
/// Requests refused by a rate limit (429), by route.
pub const RATE_LIMITED: &str = "tokctl_rate_limited_total";
/// Webhook delivery attempts by outcome.
pub const DELIVERIES: &str = "tokctl_webhook_deliveries_total";
/// Deliveries waiting in the outbox (pending, leased or not).
pub const OUTBOX: &str = "tokctl_webhook_outbox_depth";
/// How long writing one batch of the credit ledger took.
pub const LEDGER_FLUSH: &str = "tokctl_ledger_flush_duration_seconds";
/// Trace spans dropped: not sent because the collector was down or slow.
pub const TRACE_SPANS_DROPPED: &str = "tokctl_trace_spans_dropped_total";
/// The route templates of `routes`, to find which one a path is (`/v1/tokens/{id}`).
pub(super) fn templates(routes: &[(Method, &'static str)]) -> matchit::Router<&'static str> {
    let mut templates = matchit::Router::new();
    for (_, path) in routes {
        // A path listed twice (two methods) is inserted once.
        let _ = templates.insert(*path, *path);
    }
    templates
}

/// `db.client.connection.count`, by pool and state (`idle`, `used`).
pub const DB_CONNECTIONS: &str = "db_client_connection_count";
/// `db.client.connection.max`, by pool.
pub const DB_MAX: &str = "db_client_connection_max";
/// `db.client.connection.pending_requests`, by pool.
pub const DB_PENDING: &str = "db_client_connection_pending_requests";
/// 1, labelled with the server's version.
pub const BUILD_INFO: &str = "tokctl_build_info";

/// OpenTelemetry's advice for `http.server.request.duration`.
const HTTP_BUCKETS: &[f64] = &[
    0.0, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];
/// OpenTelemetry's advice for `gen_ai.server.request.duration`.
const CHAT_BUCKETS: &[f64] = &[
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/// OpenTelemetry's advice for `gen_ai.server.time_to_first_token`.
const FIRST_TOKEN_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];
/// OpenTelemetry's advice for `gen_ai.client.token.usage`.
const TOKEN_BUCKETS: &[f64] = &[
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];
/// The gateway's own time is tens of microseconds: buckets from 10 µs.
const OVERHEAD_BUCKETS: &[f64] = &[
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1,
];
/// A batch written to SQLite or PostgreSQL: sub-millisecond to seconds.
const FLUSH_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// Name, help and unit of every metric, and each histogram's buckets.
const DESCRIBED: &[(&str, &str, Option<&[f64]>)] = &[
    (
        HTTP_DURATION,
        "Duration of HTTP server requests, until the answer's head (a stream's end is in gen_ai_server_request_duration_seconds).",
        Some(HTTP_BUCKETS),
    ),
    (
        CHAT_DURATION,
        "Chat completion requests from arrival to the end of the answer, by the model that answered (error_type when none did).",
        Some(CHAT_BUCKETS),
    ),
    (
        FIRST_TOKEN,
        "Time from sending a request to an upstream model to its first token (a whole answer's arrival).",
        Some(FIRST_TOKEN_BUCKETS),
    ),
    (
        TOKENS,
        "Tokens per chat completion, by gen_ai_token_type: input or output, and of the input cache_read and cache_creation (the prompt tokens a provider read from or wrote to its cache, when it reported any).",
        Some(TOKEN_BUCKETS),
    ),
    (
        OVERHEAD,
        "Time a chat request spends in the gateway before its answer starts, apart from waiting on upstreams.",
        Some(OVERHEAD_BUCKETS),
    ),
    (
        CREDITS_CONSUMED,
        "Credits charged for chat completions, in nano-credits (divide by 1e9 for credits), by model and the deployment that answered.",
        None,
    ),
    (
        CREDITS_SAVED,
        "Credits saved against the best model's price, in nano-credits (divide by 1e9 for credits).",
        None,
    ),
    (
        UPSTREAM,
        "Requests sent to upstream models, by model, deployment and outcome (success, cancelled, or the kind of failure).",
        None,
    ),
    (
        SKIPPED,
        "Upstream deployments not tried because their circuit was open or their own per-minute limit was reached.",
        None,
    ),
    (
        CIRCUIT,
        "Each deployment's circuit breaker: 1 for its current state (closed, open, half_open), 0 for the others.",
        None,
    ),
    (
        AUTH_FAILURES,
        "Requests refused for their credential (unauthenticated, 401) or its scopes (forbidden, 403).",
        None,
    ),
    (
        RATE_LIMITED,
        "Requests refused by a rate limit (429), by route.",
        None,
    ),
    (DELIVERIES, "Webhook delivery attempts, by outcome.", None),
    (OUTBOX, "Webhook deliveries waiting in the outbox.", None),
    (
        LEDGER_FLUSH,
        "Time to write one batch of the credit ledger.",
        Some(FLUSH_BUCKETS),
    ),
    (
        TRACE_SPANS_DROPPED,
        "Trace spans dropped because the collector was down or too slow.",
        None,
    ),
    (
        DB_CONNECTIONS,
        "Database connections by pool and state (idle, used).",
        None,
    ),
    (
        DB_MAX,
        "The most connections each database pool opens.",
        None,
    ),
    (
        DB_PENDING,
        "Requests waiting for a database connection, by pool.",
        None,
    ),
    (BUILD_INFO, "Always 1; the version is a label.", None),
];

/// The server's metrics, or none (every handle a no-op) when they are off.
#[derive(Clone, Default)]
pub struct Metrics(Option<Arc<Inner>>);

struct Inner {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
    /// Route templates, to label a request by the route it matched.
    routes: matchit::Router<&'static str>,
    /// `http_server_request_duration_seconds` per (route, method, status), made on first use.
    http: RwLock<HashMap<(&'static str, &'static str, u16), Histogram>>,
}

impl Metrics {
    /// Metrics on, labelling requests by the templates of `routes` (`/v1/tokens/{id}`).
    pub fn on(routes: &[(Method, &'static str)]) -> Result<Self, String> {
        let mut builder = PrometheusBuilder::new();
        for (name, _, buckets) in DESCRIBED {
            if let Some(buckets) = buckets {
                builder = builder
                    .set_buckets_for_metric(Matcher::Full((*name).into()), buckets)
                    .map_err(|err| format!("{name}: {err}"))?;
            }
        }
        let recorder = builder.build_recorder();
        for (name, help, _) in DESCRIBED {
            let unit = name.ends_with("_seconds").then_some(Unit::Seconds);
            match name.ends_with("_total") {
                true => recorder.describe_counter((*name).into(), unit, (*help).into()),
                false => recorder.describe_histogram((*name).into(), unit, (*help).into()),
            }
        }
        let templates = templates(routes);
        let metrics = Metrics(Some(Arc::new(Inner {
            handle: recorder.handle(),
            recorder,
            routes: templates,
            http: RwLock::default(),
        })));
        metrics
            .gauge(BUILD_INFO, &[("version", env!("CARGO_PKG_VERSION"))])
            .set(1.0);
        Ok(metrics)
    }

    /// Whether metrics are on.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    fn key(name: &'static str, labels: &[(&'static str, &str)]) -> Key {
        let labels: Vec<Label> = labels
            .iter()
            .map(|(key, value)| Label::new(*key, value.to_string()))
            .collect();
        Key::from_parts(name, labels)
    }

    /// The counter `name` with `labels` (a no-op when off). Registering is a map lookup: keep
    /// the handle rather than asking on every event.
    pub fn counter(&self, name: &'static str, labels: &[(&'static str, &str)]) -> Counter {
        match &self.0 {
            Some(inner) => inner
                .recorder
                .register_counter(&Self::key(name, labels), &META),
            None => Counter::noop(),
        }
    }

    /// The gauge `name` with `labels` (a no-op when off).
    pub fn gauge(&self, name: &'static str, labels: &[(&'static str, &str)]) -> Gauge {
        match &self.0 {
            Some(inner) => inner
                .recorder
                .register_gauge(&Self::key(name, labels), &META),
            None => Gauge::noop(),
        }
    }

    /// The histogram `name` with `labels` (a no-op when off).
    pub fn histogram(&self, name: &'static str, labels: &[(&'static str, &str)]) -> Histogram {
        match &self.0 {
            Some(inner) => inner
                .recorder
                .register_histogram(&Self::key(name, labels), &META),
            None => Histogram::noop(),
        }
    }

    /// The route template `path` matched (`/v1/tokens/{id}`), or `None` for an unknown path.
    pub fn route(&self, path: &str) -> Option<&'static str> {
        let inner = self.0.as_ref()?;
        inner.routes.at(path).ok().map(|found| *found.value)
    }

    /// The request-duration histogram of one route, method and status.
    pub(super) fn http(&self, route: &'static str, method: &'static str, status: u16) -> Histogram {
        let Some(inner) = &self.0 else {
            return Histogram::noop();
        };
        let key = (route, method, status);
        if let Some(found) = inner
            .http
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return found.clone();
        }
        let status_text = status.to_string();
        let labels = [
            ("http_request_method", method),
            ("http_route", route),
            ("http_response_status_code", status_text.as_str()),
        ];
        let histogram = self.histogram(HTTP_DURATION, &labels);
        let mut cache = inner.http.write().unwrap_or_else(|e| e.into_inner());
        cache.entry(key).or_insert(histogram).clone()
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        match &self.0 {
            Some(inner) => inner.handle.render(),
            None => String::new(),
        }
    }

    /// Folds recorded histogram samples into their buckets; run every few seconds so that
    /// samples do not pile up between scrapes.
    pub fn upkeep(&self) {
        if let Some(inner) = &self.0 {
            inner.handle.run_upkeep();
        }
    }
}

static META: Metadata<'static> =
    Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));

/// OpenTelemetry's `http.request.method`: the known methods, `_OTHER` for the rest.
pub(super) fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "_OTHER",
    }
}
