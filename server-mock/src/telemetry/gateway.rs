//! The gateway's metrics: per model, handles made once when the gateway starts (a request
//! never builds a label set), and the chat answers' own.

use std::time::Duration;

use metrics::{Counter, Gauge, Histogram};

use super::registry::{self, Metrics};

/// How an attempt on an upstream model ended: the closed set of the `outcome` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It answered (a stream: to its end).
    Success,
    /// The request went away before a verdict (the client hung up, or it was refused for its
    /// own sake): not the upstream's doing.
    Cancelled,
    Timeout,
    /// Refused, reset or closed connections.
    Connection,
    Tls,
    /// 429.
    RateLimited,
    /// 5xx.
    ServerError,
    /// A 4xx other than 408 and 429: the request's fault, not counted against the upstream.
    ClientError,
    /// A stream cut after its first token.
    StreamCut,
    /// An answer that could not be read.
    InvalidResponse,
}

impl Outcome {
    const ALL: [Outcome; 10] = [
        Outcome::Success,
        Outcome::Cancelled,
        Outcome::Timeout,
        Outcome::Connection,
        Outcome::Tls,
        Outcome::RateLimited,
        Outcome::ServerError,
        Outcome::ClientError,
        Outcome::StreamCut,
        Outcome::InvalidResponse,
    ];

    /// The label value.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Cancelled => "cancelled",
            Outcome::Timeout => "timeout",
            Outcome::Connection => "connection",
            Outcome::Tls => "tls",
            Outcome::RateLimited => "http_429",
            Outcome::ServerError => "http_5xx",
            Outcome::ClientError => "http_4xx",
            Outcome::StreamCut => "stream_cut",
            Outcome::InvalidResponse => "invalid_response",
        }
    }
}

/// The circuit states, in the order [`ModelMetrics::circuit`] takes them.
pub const CIRCUIT_STATES: [&str; 3] = ["closed", "open", "half_open"];

/// One model's metrics (every handle a no-op while metrics are off).
pub struct ModelMetrics {
    outcomes: [Counter; Outcome::ALL.len()],
    skipped: Counter,
    first_token: Histogram,
    duration: Histogram,
    input: Histogram,
    output: Histogram,
    /// Of the input: tokens read from the provider's cache, and written to it.
    cache_read: Histogram,
    cache_creation: Histogram,
    consumed: Counter,
    saved: Counter,
    circuit: [Gauge; 3],
}

impl Metrics {
    /// The handles of model `id`'s deployment `deployment` (the model's id again for a model
    /// that lists no deployments): the GenAI histograms by model, the gateway's own series by
    /// model and deployment.
    pub fn model(&self, id: &str, deployment: &str) -> ModelMetrics {
        let answered = |name, token_type: Option<&str>| {
            let mut labels = vec![
                ("gen_ai_operation_name", "chat"),
                ("gen_ai_response_model", id),
            ];
            if let Some(token_type) = token_type {
                labels.push(("gen_ai_token_type", token_type));
            }
            self.histogram(name, &labels)
        };
        ModelMetrics {
            outcomes: Outcome::ALL.map(|outcome| {
                self.counter(
                    registry::UPSTREAM,
                    &[
                        ("model", id),
                        ("deployment", deployment),
                        ("outcome", outcome.label()),
                    ],
                )
            }),
            skipped: self.counter(
                registry::SKIPPED,
                &[("model", id), ("deployment", deployment)],
            ),
            first_token: answered(registry::FIRST_TOKEN, None),
            duration: answered(registry::CHAT_DURATION, None),
            input: answered(registry::TOKENS, Some("input")),
            output: answered(registry::TOKENS, Some("output")),
            cache_read: answered(registry::TOKENS, Some("cache_read")),
            cache_creation: answered(registry::TOKENS, Some("cache_creation")),
            consumed: self.counter(
                registry::CREDITS_CONSUMED,
                &[("model", id), ("deployment", deployment)],
            ),
            saved: self.counter(
                registry::CREDITS_SAVED,
                &[("model", id), ("deployment", deployment)],
            ),
            circuit: CIRCUIT_STATES.map(|state| {
                let labels = [("model", id), ("deployment", deployment), ("state", state)];
                self.gauge(registry::CIRCUIT, &labels)
            }),
        }
    }

    /// A chat request that no model answered: its duration, by `error_type` (`unavailable`
    /// when every candidate's circuit was open, `timeout`, `upstream_error`).
    pub fn chat_failed(&self, error_type: &'static str, took: Duration) {
        if self.is_on() {
            let labels = [
                ("gen_ai_operation_name", "chat"),
                ("error_type", error_type),
            ];
            self.histogram(registry::CHAT_DURATION, &labels)
                .record(took.as_secs_f64());
        }
    }

    /// The histograms of the time a chat request spends in the gateway before its answer
    /// starts, upstreams' time apart: whole answers, then streams.
    pub fn overhead(&self) -> [Histogram; 2] {
        ["false", "true"].map(|stream| self.histogram(registry::OVERHEAD, &[("stream", stream)]))
    }
}

impl ModelMetrics {
    /// An attempt on this model ended so.
    pub fn outcome(&self, outcome: Outcome) {
        if let Some(i) = Outcome::ALL.iter().position(|o| *o == outcome) {
            self.outcomes[i].increment(1);
        }
    }

    /// The model was not tried: its circuit was open.
    pub fn skipped(&self) {
        self.skipped.increment(1);
    }

    /// Its first token came `took` after the request was sent.
    pub fn first_token(&self, took: Duration) {
        self.first_token.record(took.as_secs_f64());
    }

    /// It answered a chat request that took `took` from arrival to the end of the answer, with
    /// these token counts (input, output, and of the input those read from the provider's
    /// cache and written to it, recorded when there are any) and charges (nano-credits).
    pub fn answered(
        &self,
        took: Duration,
        (input, output, cache_read, cache_creation): (u64, u64, u64, u64),
        (consumed, saved): (u64, u64),
    ) {
        self.duration.record(took.as_secs_f64());
        self.input.record(input as f64);
        self.output.record(output as f64);
        if cache_read > 0 {
            self.cache_read.record(cache_read as f64);
        }
        if cache_creation > 0 {
            self.cache_creation.record(cache_creation as f64);
        }
        self.consumed.increment(consumed);
        self.saved.increment(saved);
    }

    /// Its circuit is in `CIRCUIT_STATES[state]` now.
    pub fn circuit(&self, state: usize) {
        for (i, gauge) in self.circuit.iter().enumerate() {
            gauge.set(if i == state { 1.0 } else { 0.0 });
        }
    }
}
