//! One try of one deployment, let through by its circuit: what came of it goes to the
//! deployment's breaker, latency and metrics.

use std::sync::Arc;
use std::time::Instant;

use super::Shared;
use crate::chat::answer::Failure;
use crate::chat::breaker::{Pass, State, Verdict};
use crate::chat::latency::Latency;
use crate::telemetry::{ChildSpan, Outcome};

/// One try of one model, let through by its circuit.
pub struct Attempt {
    shared: Option<Arc<Shared>>,
    pass: Pass,
    started: Instant,
    /// When a stream's first token came.
    first: Option<Instant>,
    /// Whether a verdict was given, so that dropping it gives none.
    decided: bool,
    /// Whether its outcome was counted in the metrics, so that dropping it counts it cancelled.
    counted: bool,
    /// Its client span, while traces are on.
    span: Option<ChildSpan>,
}

impl Attempt {
    pub(super) fn new(shared: Option<Arc<Shared>>, pass: Pass, started: Instant) -> Self {
        Attempt {
            shared,
            pass,
            started,
            first: None,
            decided: false,
            counted: false,
            span: None,
        }
    }

    /// Traces it as `span` (ended with its outcome).
    pub fn traced(&mut self, span: ChildSpan) {
        self.span = Some(span);
    }

    /// Adds what its answer says to its span.
    pub fn describe(&self, attributes: impl FnOnce(&mut crate::telemetry::Attributes)) {
        if let Some(span) = &self.span {
            span.set(attributes);
        }
    }

    fn end_span(&mut self, failed: Option<(Outcome, String)>) {
        match (self.span.take(), failed) {
            (Some(span), Some((outcome, why))) => span.failed(outcome.label(), why),
            (Some(span), None) => span.end(),
            (None, _) => {}
        }
    }

    fn count(&mut self, outcome: Outcome) {
        self.counted = true;
        if let Some(shared) = &self.shared {
            shared.metrics.outcome(outcome);
        }
    }

    fn first_token(&self, took: std::time::Duration) {
        if let Some(shared) = &self.shared {
            shared.metrics.first_token(took);
        }
    }

    fn record(&mut self, verdict: Verdict<'_>, observe: impl FnOnce(&mut Latency)) {
        self.decided = true;
        if let Some(shared) = &self.shared {
            let (pass, now) = (self.pass, Instant::now());
            let changed = shared.with(|health| {
                let before = health.breaker.state(now);
                health.breaker.record(pass, verdict, now);
                if shared.observed {
                    observe(&mut health.latency);
                }
                let open_for = health.breaker.open_until(now).map(|until| until - now);
                let after = health.breaker.state(now);
                let changed = after != before && after != State::HalfOpen;
                changed.then(|| (open_for, health.breaker.why().to_string()))
            });
            if let Some((open_for, why)) = changed {
                crate::telemetry::circuit_changed(&shared.id, open_for, &why);
            }
        }
    }

    /// The upstream gave its whole answer.
    pub fn succeeded(&mut self) {
        let took = self.started.elapsed();
        self.count(Outcome::Success);
        self.first_token(took);
        self.record(Verdict::Success, |latency| latency.first_token(took));
        self.end_span(None);
    }

    /// A stream's first token came. A probe has shown what it had to (the circuit closes now,
    /// not when the stream ends); a cut later is still counted as a failure.
    pub fn answering(&mut self) {
        let now = Instant::now();
        self.first = Some(now);
        let took = now.duration_since(self.started);
        self.first_token(took);
        if let Some(span) = &self.span {
            span.event("gen_ai.first_token");
        }
        if self.pass == Pass::Probe {
            self.record(Verdict::Answering, |latency| latency.first_token(took));
            // The stream's end still gives the probe's verdict (success, or a cut that
            // re-opens the circuit).
            self.decided = false;
        } else if let Some(shared) = &self.shared
            && shared.observed
        {
            shared.with(|health| health.latency.first_token(took));
        }
    }

    /// A stream ended whole after `tokens` tokens.
    pub fn finished(&mut self, tokens: u64) {
        let after_first = self.first.map(|first| first.elapsed());
        self.count(Outcome::Success);
        self.record(Verdict::Success, |latency| {
            if let Some(over) = after_first {
                latency.output(tokens.saturating_sub(1), over);
            }
        });
        self.end_span(None);
    }

    /// The upstream failed; counted unless the failure was the client's own (a 4xx other than
    /// 408 and 429).
    pub fn failed(&mut self, failure: &Failure) {
        let outcome = match self.first {
            Some(_) => Outcome::StreamCut,
            None => failure.outcome(),
        };
        self.count(outcome);
        self.end_span(Some((outcome, failure.cause())));
        let cause = failure.cause();
        let verdict = if failure.counts() {
            Verdict::Failure {
                cause: &cause,
                retry_after: failure.retry_after,
            }
        } else {
            Verdict::None
        };
        self.record(verdict, |_| {});
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.counted {
            self.count(Outcome::Cancelled);
        }
        self.end_span(Some((Outcome::Cancelled, "the client went away".into())));
        if !self.decided {
            self.record(Verdict::None, |_| {});
        }
    }
}
