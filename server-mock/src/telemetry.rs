//! Operators' signals: the one place where request-level measurements are recorded. The edge
//! layer reports every answered request and the gateway every upstream that failed, so a
//! metric (a counter, a latency histogram) is added here, not threaded through the handlers.
//! Today each signal is a log line: answered requests at `debug` with their latency, upstream
//! failures at `warn`.

use std::fmt::Display;
use std::time::Instant;

use axum::http::Method;

/// A request being answered, noted only when a signal will be recorded for it (so the hot
/// path pays nothing when debug logging is off).
pub struct Request {
    method: Method,
    path: String,
    started: Instant,
}

impl Request {
    /// Notes a request as it arrives, or `None` when nothing would record it.
    pub fn arrived(method: &Method, path: &str) -> Option<Request> {
        tracing::enabled!(tracing::Level::DEBUG).then(|| Request {
            method: method.clone(),
            path: path.to_string(),
            started: Instant::now(),
        })
    }

    /// Records the answer's status and how long it took.
    pub fn answered(self, status: u16) {
        let latency_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        let (method, path) = (self.method, self.path);
        tracing::debug!(%method, path, status, latency_ms, "answered");
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
