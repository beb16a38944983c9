//! Health per upstream model, per instance: one [`Breaker`] for each catalogue model, shared by
//! this instance's requests. A request asks [`Health::admit`] before it tries a model and says
//! what came of it through the [`Attempt`] it gets back; an attempt dropped without a verdict
//! (the client went away, the request was refused for its own sake) is no verdict, so a probe's
//! slot is never held by a request that is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::answer::Failure;
use super::breaker::{Breaker, Pass, Policy, Refusal, Verdict};
use super::catalogue::{Catalogue, Model};

/// Every model's circuit.
pub struct Health {
    circuits: HashMap<String, Arc<Circuit>>,
}

/// One model's breaker, behind a lock held only to read or change it.
pub struct Circuit {
    breaker: Mutex<Breaker>,
}

impl Circuit {
    fn with<T>(&self, f: impl FnOnce(&mut Breaker) -> T) -> T {
        f(&mut self.breaker.lock().unwrap_or_else(|e| e.into_inner()))
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

impl Health {
    /// A closed circuit for each model of `catalogue`, under `defaults` and the model's own
    /// settings.
    pub fn new(catalogue: &Catalogue, defaults: Policy) -> Self {
        let now = Instant::now();
        let circuits = catalogue
            .models()
            .iter()
            .map(|model| {
                let circuit = Circuit {
                    breaker: Mutex::new(Breaker::new(model.breaker.over(defaults), now)),
                };
                (model.id.clone(), Arc::new(circuit))
            })
            .collect();
        Health { circuits }
    }

    /// Lets a request try `model`, or says why not.
    pub fn admit(&self, model: &Model) -> Result<Attempt, Skipped> {
        let Some(circuit) = self.circuits.get(&model.id) else {
            // A model from another catalogue: nothing is known of it.
            return Ok(Attempt {
                circuit: None,
                pass: Pass::Normal,
                decided: false,
            });
        };
        let at = Instant::now();
        match circuit.with(|breaker| breaker.admit(at)) {
            Ok(pass) => Ok(Attempt {
                circuit: Some(circuit.clone()),
                pass,
                decided: false,
            }),
            Err(refusal) => Err(Skipped { refusal, at }),
        }
    }
}

/// One try of one model, let through by its circuit.
pub struct Attempt {
    circuit: Option<Arc<Circuit>>,
    pass: Pass,
    /// Whether a verdict was given, so that dropping it gives none.
    decided: bool,
}

impl Attempt {
    fn record(&mut self, verdict: Verdict<'_>) {
        self.decided = true;
        if let Some(circuit) = &self.circuit {
            let pass = self.pass;
            circuit.with(|breaker| breaker.record(pass, verdict, Instant::now()));
        }
    }

    /// The upstream answered (a whole answer, or a stream to its end).
    pub fn succeeded(&mut self) {
        if !self.decided {
            self.record(Verdict::Success);
        }
    }

    /// The upstream started a stream. A probe has shown what it had to (the circuit closes
    /// now, not when the stream ends); a cut later is still counted as a failure.
    pub fn answering(&mut self) {
        if self.pass == Pass::Probe {
            self.succeeded();
            self.pass = Pass::Normal;
        }
    }

    /// The upstream failed; counted unless the failure was the client's own (a 4xx other than
    /// 408 and 429).
    pub fn failed(&mut self, failure: &Failure) {
        let cause = failure.cause();
        let verdict = if failure.counts() {
            Verdict::Failure {
                cause: &cause,
                retry_after: failure.retry_after,
            }
        } else {
            Verdict::None
        };
        self.record(verdict);
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.decided {
            self.record(Verdict::None);
        }
    }
}

/// How a `Retry-After` header reads: seconds, or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}
