//! Health per upstream model, per instance: for each catalogue model a circuit breaker
//! ([`Breaker`]) and, for upstreams, how fast it answers lately ([`Latency`]), shared by this
//! instance's requests. A request asks [`Health::admit`] before it tries a model and says what
//! came of it through the [`Attempt`] it gets back; an attempt dropped without a verdict (the
//! client went away, the request was refused for its own sake) is no verdict, so a probe's slot
//! is never held by a request that is gone.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::breaker::{Breaker, Pass, Policy, Refusal, State};
use super::catalogue::{Catalogue, Model, ProviderKind};
use super::latency::Latency;
use super::spread::{self, Limits, Spread, Window};

mod attempt;
use crate::telemetry::{Metrics, ModelMetrics};
pub use attempt::Attempt;

/// Every model's health: each of its deployments', and how its requests are spread over them.
pub struct Health {
    models: Vec<Group>,
    /// Where the deployments' per-minute windows count from.
    start: Instant,
}

/// One model's deployments' health, in catalogue order, and its round robin over them.
struct Group {
    id: String,
    deployments: Vec<Arc<Shared>>,
    spread: Option<Spread>,
}

/// One deployment's health, behind a lock held only to read or change it.
struct Shared {
    /// Whether its speed is observed: upstreams are, simulated models keep their catalogue
    /// figure (they answer at once, whatever `latency_ms` they play).
    observed: bool,
    state: Mutex<ModelHealth>,
    metrics: ModelMetrics,
    /// The model's id, for the log line when its circuit opens or closes.
    id: String,
    /// The deployment's name, when the model lists deployments.
    deployment: Option<String>,
    limits: Limits,
}

struct ModelHealth {
    breaker: Breaker,
    latency: Latency,
    window: Window,
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

    /// The deployment as a route reason names it: `east`, or the model's id.
    fn name(&self) -> &str {
        self.deployment.as_deref().unwrap_or(&self.id)
    }
}

/// A model or deployment not tried now: its circuit is open, or it is at its own limit.
#[derive(Debug, Clone)]
pub struct Skipped {
    why: String,
    /// When it may be tried again (`None`: when its probe request ends).
    until: Option<Instant>,
    at: Instant,
}

impl Skipped {
    fn open(refusal: &Refusal, at: Instant) -> Self {
        let mut skipped = Skipped {
            why: String::new(),
            until: refusal.until,
            at,
        };
        skipped.why = match refusal.until {
            Some(_) => format!("open for {} s after {}", skipped.retry_after(), refusal.why),
            None => format!(
                "half-open, its probe request under way (opened after {})",
                refusal.why
            ),
        };
        skipped
    }

    /// At its own per-minute limit (`why`) for the `left` seconds of the minute.
    fn limited(why: String, at: Instant, left: u64) -> Self {
        let until = Some(at + std::time::Duration::from_secs(left));
        Skipped { why, until, at }
    }

    /// Whole seconds until the model may be tried again (at least 1): the `Retry-After`.
    pub fn retry_after(&self) -> u64 {
        match self.until {
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
        self.why.clone()
    }
}

/// What a model's health looks like now, for `GET /v1/models`.
#[derive(Debug, Clone)]
pub struct View {
    /// The deployment's name, when the model lists deployments.
    pub deployment: Option<String>,
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
    /// A closed circuit for each deployment of each model of `catalogue`, under `defaults` and
    /// its own settings, and no answers seen yet; attempts and answers are counted in
    /// `metrics`.
    pub fn new(catalogue: &Catalogue, defaults: Policy, metrics: &Metrics) -> Self {
        let now = Instant::now();
        let models = catalogue
            .models()
            .iter()
            .map(|model| {
                let deployments: Vec<Arc<Shared>> = model
                    .deployments
                    .iter()
                    .map(|deployment| {
                        Arc::new(Shared {
                            observed: deployment.provider != ProviderKind::Simulated,
                            state: Mutex::new(ModelHealth {
                                breaker: Breaker::new(deployment.breaker.over(defaults), now),
                                latency: Latency::default(),
                                window: Window::default(),
                            }),
                            metrics: metrics.model(
                                &model.id,
                                deployment.deployment.as_deref().unwrap_or(&model.id),
                            ),
                            id: model.id.clone(),
                            deployment: deployment.deployment.clone(),
                            limits: Limits {
                                rpm: deployment.rpm,
                                tpm: deployment.tpm,
                            },
                        })
                    })
                    .collect();
                let weights = model.deployments.iter();
                let weights = weights.map(|d| i64::from(d.weight.unwrap_or(1)));
                Group {
                    id: model.id.clone(),
                    spread: (deployments.len() > 1).then(|| Spread::new(weights.collect())),
                    deployments,
                }
            })
            .collect();
        Health { models, start: now }
    }

    /// `model`'s group, if it is a model of this catalogue.
    fn group(&self, model: &Model) -> Option<&Group> {
        self.models.get(model.slot.0).filter(|g| g.id == model.id)
    }

    /// `deployment`'s health, if it is a deployment of this catalogue.
    fn shared(&self, deployment: &Model) -> Option<&Arc<Shared>> {
        let group = self.group(deployment)?;
        group.deployments.get(deployment.slot.1)
    }

    /// The deployment of `model` to try next, among those not in `tried` (one bit each), that are not open
    /// and are under their own limits for a request of `tokens`: by weight when there are
    /// several, with the others passed over and why; else why none may be tried now.
    pub fn pick(
        &self,
        model: &Model,
        tried: u64,
        tokens: u64,
    ) -> Result<(usize, Vec<String>), Skipped> {
        let Some(group) = self.group(model).filter(|g| g.spread.is_some()) else {
            // One deployment: its circuit and limits are asked when it is admitted.
            return Ok((0, Vec::new()));
        };
        let at = Instant::now();
        let (minute, _) = spread::minute(self.start, at);
        let mut passed = Vec::new();
        let free = |i: usize| {
            if tried & (1 << i) != 0 {
                return false;
            }
            let shared = &group.deployments[i];
            let free = shared.with(|health| {
                health.breaker.state(at) != State::Open
                    && health.window.room(minute, shared.limits, tokens).is_ok()
            });
            if !free {
                passed.push(i);
            }
            free
        };
        let free: Vec<bool> = (0..group.deployments.len()).map(free).collect();
        // A retry goes where an answer is likeliest, outside the round robin: a deployment
        // whose last verdict was a success first, then one with no failure in a row, then the
        // rest; the heavier first among equals.
        let class = |i: usize| {
            group.deployments[i].with(|health| {
                let breaker = &health.breaker;
                let (failed, requests) = breaker.recent(at);
                match (breaker.state(at), breaker.failures_in_a_row()) {
                    (State::Closed, 0) if requests > failed => 0,
                    (State::Closed, 0) => 1,
                    _ => 2,
                }
            })
        };
        let next = group.spread.as_ref().and_then(|spread| match tried == 0 {
            true => spread.next(|i| free[i]),
            false => (0..free.len())
                .filter(|&i| free[i])
                .min_by_key(|&i| (class(i), std::cmp::Reverse(spread.weight(i)), i)),
        });
        let described = |i: usize| {
            let shared = &group.deployments[i];
            shared.metrics.skipped();
            (
                shared.name().to_string(),
                self.unavailable(shared, at, tokens),
            )
        };
        if let Some(next) = next {
            let passed = passed.into_iter().map(described);
            return Ok((
                next,
                passed
                    .map(|(name, s)| format!("{name} {}", s.why))
                    .collect(),
            ));
        }
        let each: Vec<(String, Skipped)> = passed.into_iter().map(described).collect();
        let until = each
            .iter()
            .min_by_key(|(_, skipped)| skipped.retry_after())
            .and_then(|(_, skipped)| skipped.until);
        let each: Vec<String> = each
            .iter()
            .map(|(name, s)| format!("{name} {}", s.why))
            .collect();
        Err(Skipped {
            why: format!("no deployment may take it now ({})", each.join("; ")),
            until,
            at,
        })
    }

    /// Why `shared` may not take a request of `tokens` at `at`.
    fn unavailable(&self, shared: &Shared, at: Instant, tokens: u64) -> Skipped {
        let (minute, left) = spread::minute(self.start, at);
        shared.with(|health| {
            if let Err(why) = health.window.room(minute, shared.limits, tokens) {
                return Skipped::limited(why, at, left);
            }
            let refusal = Refusal {
                until: health.breaker.open_until(at),
                why: health.breaker.why().to_string(),
            };
            Skipped::open(&refusal, at)
        })
    }

    /// Lets a request of `tokens` try `deployment`, or says why not (its circuit is open, or
    /// it is at its own limit); counts it in the deployment's minute when it may.
    pub fn admit(&self, deployment: &Model, tokens: u64) -> Result<Attempt, Skipped> {
        let at = Instant::now();
        let Some(shared) = self.shared(deployment) else {
            // A model from another catalogue: nothing is known of it.
            return Ok(Attempt::new(None, Pass::Normal, at));
        };
        let limited = shared.limits.rpm.is_some() || shared.limits.tpm.is_some();
        let (minute, left) = match limited {
            true => spread::minute(self.start, at),
            false => (0, 0),
        };
        let admitted = shared.with(|health| {
            if limited && let Err(why) = health.window.room(minute, shared.limits, tokens) {
                return Err(Skipped::limited(why, at, left));
            }
            let pass = health
                .breaker
                .admit(at)
                .map_err(|refusal| Skipped::open(&refusal, at))?;
            if limited {
                health.window.take(minute, tokens);
            }
            Ok(pass)
        });
        match admitted {
            Ok(pass) => Ok(Attempt::new(Some(shared.clone()), pass, at)),
            Err(skipped) => {
                shared.metrics.skipped();
                Err(skipped)
            }
        }
    }

    /// `deployment`'s metrics, if it is a deployment of this catalogue.
    pub fn metrics(&self, deployment: &Model) -> Option<&ModelMetrics> {
        self.shared(deployment).map(|shared| &shared.metrics)
    }

    /// Sets each model's circuit-state gauge to its state now (before a scrape).
    pub fn publish(&self) {
        let now = Instant::now();
        for shared in self.models.iter().flat_map(|group| &group.deployments) {
            let state = shared.with(|health| health.breaker.state(now));
            shared.metrics.circuit(match state {
                State::Closed => 0,
                State::Open => 1,
                State::HalfOpen => 2,
            });
        }
    }

    /// The time to first token to route `model` on, in ms (its fastest deployment's), and
    /// over how many answers it was observed (`None`: the catalogue's `latency_ms`).
    pub fn first_token_ms(&self, model: &Model) -> (f64, Option<u64>) {
        let Some(group) = self.group(model) else {
            return (model.latency_ms as f64, None);
        };
        let each = group.deployments.iter().zip(&model.deployments);
        each.map(|(shared, deployment)| {
            shared.with(|health| health.first_token_ms(shared.observed, deployment))
        })
        .min_by(|(a, _), (b, _)| a.total_cmp(b))
        .unwrap_or((model.latency_ms as f64, None))
    }

    /// `model`'s health now, its best deployment's, if it is a model of this catalogue.
    pub fn view(&self, model: &Model) -> Option<View> {
        let views = self.views(model);
        views.into_iter().min_by(|a, b| {
            (rank(a.state), a.first_token_ms)
                .partial_cmp(&(rank(b.state), b.first_token_ms))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    }

    /// Each of `model`'s deployments' health now, in catalogue order.
    pub fn views(&self, model: &Model) -> Vec<View> {
        let Some(group) = self.group(model) else {
            return Vec::new();
        };
        let each = group.deployments.iter().zip(&model.deployments);
        each.map(|(shared, deployment)| view(shared, deployment))
            .collect()
    }
}

/// How well a circuit state lets requests through, best first.
fn rank(state: State) -> u8 {
    match state {
        State::Closed => 0,
        State::HalfOpen => 1,
        State::Open => 2,
    }
}

/// One deployment's health now.
fn view(shared: &Shared, model: &Model) -> View {
    shared.with(|health| {
        let (first_token_ms, observed) = health.first_token_ms(shared.observed, model);
        let now = Instant::now();
        let breaker = &health.breaker;
        let (recent_failures, recent_requests) = breaker.recent(now);
        let open_until = breaker
            .open_until(now)
            .map(|until| Utc::now() + until.saturating_duration_since(now));
        View {
            deployment: shared.deployment.clone(),
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
    })
}
