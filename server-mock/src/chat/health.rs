//! Health per upstream model, per instance: for each catalogue model a circuit breaker
//! ([`Breaker`]) and, for upstreams, how fast it answers lately ([`Latency`]), shared by this
//! instance's requests. A request asks [`Health::admit`] before it tries a model and says what
//! came of it through the [`Attempt`] it gets back; an attempt dropped without a verdict (the
//! client went away, the request was refused for its own sake) is no verdict, so a probe's slot
//! is never held by a request that is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::answer::Failure;
use super::breaker::{Breaker, Pass, Policy, Refusal, State, Verdict};
use super::catalogue::{Catalogue, Model, ProviderKind};
use super::latency::Latency;
use crate::telemetry::{Metrics, ModelMetrics, Outcome};

/// Every model's health.
pub struct Health {
    models: HashMap<String, Arc<Shared>>,
}

/// One model's health, behind a lock held only to read or change it.
struct Shared {
    /// Whether its speed is observed: upstreams are, simulated models keep their catalogue
    /// figure (they answer at once, whatever `latency_ms` they play).
    observed: bool,
    state: Mutex<ModelHealth>,
    metrics: ModelMetrics,
    /// The model's id, for the log line when its circuit opens or closes.
    id: String,
}

struct ModelHealth {
    breaker: Breaker,
    latency: Latency,
}

impl ModelHealth {
    /// The time to first token to route on: observed when `observed` and enough answers are
    /// in, else the catalogue's `latency_ms`.
    fn first_token_ms(&self, observed: bool, model: &Model) -> (f64, Option<u64>) {
        match observed {
            true => self.latency.estimate(model.latency_ms),
            false => (model.latency_ms as f64, None),
        }
    }
}

impl Shared {
    fn with<T>(&self, f: impl FnOnce(&mut ModelHealth) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A model not tried because its circuit is open.
#[derive(Debug, Clone)]
pub struct Skipped {
    refusal: Refusal,
    at: Instant,
}

impl Skipped {
    /// Whole seconds until the model may be tried again (at least 1): the `Retry-After`.
    pub fn retry_after(&self) -> u64 {
        match self.refusal.until {
            Some(until) => until
                .saturating_duration_since(self.at)
                .as_secs_f64()
                .ceil() as u64,
            None => 1,
        }
        .max(1)
    }

    /// Why, in words: "open for 8 s after 3 failures in a row, last: timed out".
    pub fn describe(&self) -> String {
        match self.refusal.until {
            Some(_) => format!(
                "open for {} s after {}",
                self.retry_after(),
                self.refusal.why
            ),
            None => format!(
                "half-open, its probe request under way (opened after {})",
                self.refusal.why
            ),
        }
    }
}

/// What a model's health looks like now, for `GET /v1/models`.
#[derive(Debug, Clone)]
pub struct View {
    pub state: State,
    /// Until when it stays open, while it is.
    pub open_until: Option<DateTime<Utc>>,
    /// What opened it last, in words.
    pub opened_after: Option<String>,
    pub failures_in_a_row: u32,
    /// Requests and failures within the breaker's window.
    pub recent_requests: u32,
    pub recent_failures: u32,
    /// Answers whose speed was observed.
    pub samples: u64,
    /// Median of the recent times to first token.
    pub first_token_ms_p50: Option<f64>,
    /// The time to first token routing uses, and whether it was observed (or is the
    /// catalogue's).
    pub first_token_ms: f64,
    pub observed: bool,
    pub tokens_per_second: Option<f64>,
}

impl Health {
    /// A closed circuit for each model of `catalogue`, under `defaults` and the model's own
    /// settings, and no answers seen yet; attempts and answers are counted in `metrics`.
    pub fn new(catalogue: &Catalogue, defaults: Policy, metrics: &Metrics) -> Self {
        let now = Instant::now();
        let models = catalogue
            .models()
            .iter()
            .map(|model| {
                let shared = Shared {
                    observed: model.provider != ProviderKind::Simulated,
                    state: Mutex::new(ModelHealth {
                        breaker: Breaker::new(model.breaker.over(defaults), now),
                        latency: Latency::default(),
                    }),
                    metrics: metrics.model(&model.id),
                    id: model.id.clone(),
                };
                (model.id.clone(), Arc::new(shared))
            })
            .collect();
        Health { models }
    }

    /// Lets a request try `model`, or says why not.
    pub fn admit(&self, model: &Model) -> Result<Attempt, Skipped> {
        let at = Instant::now();
        let Some(shared) = self.models.get(&model.id) else {
            // A model from another catalogue: nothing is known of it.
            return Ok(Attempt::new(None, Pass::Normal, at));
        };
        match shared.with(|health| health.breaker.admit(at)) {
            Ok(pass) => Ok(Attempt::new(Some(shared.clone()), pass, at)),
            Err(refusal) => {
                shared.metrics.skipped();
                Err(Skipped { refusal, at })
            }
        }
    }

    /// `model`'s metrics, if it is a model of this catalogue.
    pub fn metrics(&self, model: &Model) -> Option<&ModelMetrics> {
        self.models.get(&model.id).map(|shared| &shared.metrics)
    }

    /// Sets each model's circuit-state gauge to its state now (before a scrape).
    pub fn publish(&self) {
        let now = Instant::now();
        for shared in self.models.values() {
            let state = shared.with(|health| health.breaker.state(now));
            shared.metrics.circuit(match state {
                State::Closed => 0,
                State::Open => 1,
                State::HalfOpen => 2,
            });
        }
    }

    /// The time to first token to route `model` on, in ms, and over how many answers it was
    /// observed (`None`: the catalogue's `latency_ms`).
    pub fn first_token_ms(&self, model: &Model) -> (f64, Option<u64>) {
        match self.models.get(&model.id) {
            Some(shared) => shared.with(|health| health.first_token_ms(shared.observed, model)),
            None => (model.latency_ms as f64, None),
        }
    }

    /// `model`'s health now, if it is a model of this catalogue.
    pub fn view(&self, model: &Model) -> Option<View> {
        let shared = self.models.get(&model.id)?;
        Some(shared.with(|health| {
            let (first_token_ms, observed) = health.first_token_ms(shared.observed, model);
            let now = Instant::now();
            let breaker = &health.breaker;
            let (recent_failures, recent_requests) = breaker.recent(now);
            let open_until = breaker
                .open_until(now)
                .map(|until| Utc::now() + until.saturating_duration_since(now));
            View {
                state: breaker.state(now),
                open_until,
                opened_after: (!breaker.why().is_empty()).then(|| breaker.why().to_string()),
                failures_in_a_row: breaker.failures_in_a_row(),
                recent_requests,
                recent_failures,
                samples: health.latency.samples(),
                first_token_ms_p50: health.latency.median_first_token_ms(),
                first_token_ms,
                observed: observed.is_some(),
                tokens_per_second: health.latency.tokens_per_second(),
            }
        }))
    }
}

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
}

impl Attempt {
    fn new(shared: Option<Arc<Shared>>, pass: Pass, started: Instant) -> Self {
        Attempt {
            shared,
            pass,
            started,
            first: None,
            decided: false,
            counted: false,
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
    }

    /// A stream's first token came. A probe has shown what it had to (the circuit closes now,
    /// not when the stream ends); a cut later is still counted as a failure.
    pub fn answering(&mut self) {
        let now = Instant::now();
        self.first = Some(now);
        let took = now.duration_since(self.started);
        self.first_token(took);
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
    }

    /// The upstream failed; counted unless the failure was the client's own (a 4xx other than
    /// 408 and 429).
    pub fn failed(&mut self, failure: &Failure) {
        self.count(match self.first {
            Some(_) => Outcome::StreamCut,
            None => failure.outcome(),
        });
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
        if !self.decided {
            self.record(Verdict::None, |_| {});
        }
    }
}
