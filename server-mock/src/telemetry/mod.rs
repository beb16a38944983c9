//! Operators' signals: the one place where measurements are recorded. The edge layer reports
//! every answered request, the gateway each upstream attempt and answer, the ledger and the
//! webhook worker their own work; a new metric is added here (in [`registry`]'s list), not
//! threaded through the handlers.
//!
//! Two outputs: log lines (answered requests at `debug` with their latency, upstream failures
//! at `warn`), and, when `--metrics-listen` is given, Prometheus metrics ([`Metrics`]).

mod gateway;
pub mod outage;
pub mod registry;
pub mod traces;

use std::fmt::Display;
use std::time::Instant;

use axum::http::Method;

pub use gateway::{ModelMetrics, Outcome};
pub use outage::{Backoff, Outage};
pub use registry::Metrics;
pub use traces::{Attributes, ChildSpan, ServerSpan, TraceConfig, Traced, Traces, session_id};

/// When a request arrived, left in its extensions for the handlers that measure their own
/// part of it (the gateway's overhead); only while metrics are on.
#[derive(Debug, Clone, Copy)]
pub struct Arrival(pub Instant);

/// A request being answered, noted only when a signal will be recorded for it (so the hot
/// path pays nothing when debug logging and metrics are off).
pub struct Request {
    method: Method,
    /// The path, kept only for the debug log line.
    path: Option<String>,
    route: Option<&'static str>,
    started: Instant,
    metrics: Metrics,
}

impl Metrics {
    /// Notes a request as it arrives, or `None` when nothing would record it.
    pub fn arrived(&self, method: &Method, path: &str) -> Option<Request> {
        let log = tracing::enabled!(tracing::Level::DEBUG);
        if !log && !self.is_on() {
            return None;
        }
        Some(Request {
            method: method.clone(),
            path: log.then(|| path.to_string()),
            route: self.route(path),
            started: Instant::now(),
            metrics: self.clone(),
        })
    }
}

impl Request {
    /// When it arrived.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Records the answer's status and how long it took.
    pub fn answered(self, status: u16) {
        let took = self.started.elapsed();
        let metrics = &self.metrics;
        if metrics.is_on() {
            let route = self.route.unwrap_or("");
            let method = registry::method_label(&self.method);
            metrics
                .http(route, method, status)
                .record(took.as_secs_f64());
            match status {
                401 => metrics
                    .counter(registry::AUTH_FAILURES, &[("reason", "unauthenticated")])
                    .increment(1),
                403 => metrics
                    .counter(registry::AUTH_FAILURES, &[("reason", "forbidden")])
                    .increment(1),
                429 => metrics
                    .counter(registry::RATE_LIMITED, &[("http_route", route)])
                    .increment(1),
                _ => {}
            }
        }
        if let Some(path) = self.path {
            let latency_ms = took.as_secs_f64() * 1000.0;
            let method = self.method;
            tracing::debug!(%method, path, status, latency_ms, "answered");
        }
    }
}

/// An upstream `model` failed before answering; the gateway tries the next candidate.
pub fn upstream_failed(model: &str, failure: &dyn Display) {
    tracing::warn!(
        model,
        error = %failure,
        "upstream failed before answering; trying the next candidate"
    );
}

/// `model`'s circuit opened (for `open_for`, after `why`) or, with `None`, closed again.
pub fn circuit_changed(model: &str, open_for: Option<std::time::Duration>, why: &str) {
    match open_for {
        Some(open_for) => tracing::warn!(
            model,
            open_for_s = open_for.as_secs_f64(),
            why,
            "circuit opened: the model is skipped until its cooldown ends"
        ),
        None => tracing::info!(model, "circuit closed: the model answers again"),
    }
}
