//! The circuit breaker of one upstream model, as a pure state machine: every call takes the
//! moment it happens (`now`), so tests drive it with made-up instants and no sleeps.
//!
//! *Closed* lets every request through and counts outcomes. It opens after
//! [`Policy::failures`] failures in a row, or when at least [`Policy::min_requests`] requests
//! of the last [`Policy::window`] failed at [`Policy::failure_rate`] or more, or at once when
//! the upstream answered 429 with `Retry-After` (that long exactly). *Open* refuses every
//! request until its deadline: [`Policy::cooldown`] at first, doubling on each re-open up to
//! [`Policy::max_cooldown`]. Then *half-open* lets the next request through as the probe, one
//! at a time: its success closes the circuit (and resets the cooldown), its failure re-opens
//! it, and a probe that ends without a verdict (the client went away) frees the slot at once.
//! A failure never brings an open deadline closer.

use std::time::{Duration, Instant};

/// When a circuit opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// Failures in a row that open the circuit.
    pub failures: u32,
    /// Share of failed requests in the window that opens it (0 to 1).
    pub failure_rate: f64,
    /// Fewest requests in the window before the rate counts.
    pub min_requests: u32,
    /// How far back the rate looks.
    pub window: Duration,
    /// How long the first opening lasts.
    pub cooldown: Duration,
    /// The longest opening, however many re-opens or whatever `Retry-After` says.
    pub max_cooldown: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            failures: 3,
            failure_rate: 0.5,
            min_requests: 10,
            window: Duration::from_secs(60),
            cooldown: Duration::from_secs(10),
            max_cooldown: Duration::from_secs(300),
        }
    }
}

impl Policy {
    /// Whether the settings make sense together, or what is wrong.
    pub fn check(&self) -> Result<(), String> {
        if self.failures == 0 || self.min_requests == 0 {
            return Err("failures and min_requests must be at least 1".into());
        }
        if !(self.failure_rate > 0.0 && self.failure_rate <= 1.0) {
            return Err("failure_rate must be over 0 and at most 1".into());
        }
        if self.window < Duration::from_secs(1) {
            return Err("window must be at least 1s".into());
        }
        if self.cooldown.is_zero() || self.max_cooldown < self.cooldown {
            return Err("cooldown must be over 0 and max_cooldown at least cooldown".into());
        }
        Ok(())
    }
}

/// How a request was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// The circuit is closed.
    Normal,
    /// The one request that decides whether a half-open circuit closes.
    Probe,
}

/// What an attempt on the upstream came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// It answered (a stream: to its end).
    Success,
    /// A stream's first token came: a probe has shown the upstream answers again, so the
    /// circuit closes (other requests need not wait for a long stream to end), but the stream
    /// still gives its verdict at its end: a cut re-opens the circuit at once, and the doubling
    /// of the cooldown is kept until an answer ends whole (an upstream that cuts every stream
    /// would otherwise reopen at the shortest cooldown each time).
    Answering,
    /// It failed in a way that counts against it; `retry_after` when it said (429).
    Failure {
        /// The failure in a few words ("timed out", "HTTP 500").
        cause: &'a str,
        retry_after: Option<Duration>,
    },
    /// Nothing is known of the upstream: the client went away, or the request was refused
    /// for its own sake.
    None,
}

/// The circuit's state, as shown to operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Closed,
    Open,
    HalfOpen,
}

/// Why a request was not let through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// When the next request may be let through as a probe; `None` while a probe is out.
    pub until: Option<Instant>,
    /// What opened the circuit, e.g. "3 timeouts in a row".
    pub why: String,
}

/// How many buckets the failure-rate window is cut into.
const BUCKETS: usize = 60;

/// Requests and failures within one slice of the window.
#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    /// Which slice (counted from the breaker's origin) these counts are for.
    slice: u64,
    requests: u32,
    failures: u32,
}

/// One upstream's breaker.
#[derive(Debug, Clone)]
pub struct Breaker {
    policy: Policy,
    phase: Phase,
    /// Failures since the last success.
    in_a_row: u32,
    /// Openings since the last whole answer while closed (for the doubling).
    opens: u32,
    /// What opened the circuit last, in words.
    why: String,
    origin: Instant,
    buckets: [Bucket; BUCKETS],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Closed,
    Open { until: Instant },
    HalfOpen { probing: bool },
}

impl Breaker {
    /// A closed breaker under `policy`, its window starting at `now`.
    pub fn new(policy: Policy, now: Instant) -> Self {
        Breaker {
            policy,
            phase: Phase::Closed,
            in_a_row: 0,
            opens: 0,
            why: String::new(),
            origin: now,
            buckets: [Bucket::default(); BUCKETS],
        }
    }

    /// The policy it follows.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Lets a request through (as the probe once an open deadline has passed), or says why not.
    pub fn admit(&mut self, now: Instant) -> Result<Pass, Refusal> {
        match self.phase {
            Phase::Closed => Ok(Pass::Normal),
            Phase::Open { until } if now < until => Err(self.refusal(Some(until))),
            Phase::Open { .. } | Phase::HalfOpen { probing: false } => {
                self.phase = Phase::HalfOpen { probing: true };
                Ok(Pass::Probe)
            }
            Phase::HalfOpen { probing: true } => Err(self.refusal(None)),
        }
    }

    fn refusal(&self, until: Option<Instant>) -> Refusal {
        Refusal {
            until,
            why: self.why.clone(),
        }
    }

    /// Records what a request let through as `pass` came to.
    pub fn record(&mut self, pass: Pass, verdict: Verdict<'_>, now: Instant) {
        match verdict {
            Verdict::None => {
                if pass == Pass::Probe && self.phase == (Phase::HalfOpen { probing: true }) {
                    self.phase = Phase::HalfOpen { probing: false };
                }
            }
            Verdict::Success | Verdict::Answering => {
                self.in_a_row = 0;
                if pass == Pass::Probe && matches!(self.phase, Phase::HalfOpen { .. }) {
                    self.phase = Phase::Closed;
                    // The failures that opened it are history: the rate starts afresh.
                    self.buckets = [Bucket::default(); BUCKETS];
                }
                // A whole answer while closed resets the doubling; a stream's first token
                // counts once it ends.
                if verdict == Verdict::Success {
                    if self.phase == Phase::Closed {
                        self.opens = 0;
                    }
                    self.count(now, false);
                }
            }
            Verdict::Failure { cause, retry_after } => {
                self.count(now, true);
                self.in_a_row = self.in_a_row.saturating_add(1);
                match self.phase {
                    // A streamed probe closed the circuit at its first token; its own stream
                    // failing re-opens it at once, as a failed probe does.
                    Phase::Closed if pass == Pass::Probe => {
                        let why = format!("its probe failed mid-stream: {cause}");
                        self.open(now, retry_after, why);
                    }
                    Phase::Closed => {
                        if let Some(wait) = retry_after {
                            let why = format!(
                                "the upstream asked for {} s (429 Retry-After)",
                                wait.as_secs()
                            );
                            self.open(now, Some(wait), why);
                        } else if self.in_a_row >= self.policy.failures.max(1) {
                            let why = format!("{} failures in a row, last: {cause}", self.in_a_row);
                            self.open(now, None, why);
                        } else if let Some((failed, requests)) = self.rate_exceeded(now) {
                            let why = format!(
                                "{failed} of {requests} requests failed in {} s, last: {cause}",
                                self.policy.window.as_secs()
                            );
                            self.open(now, None, why);
                        }
                    }
                    Phase::HalfOpen { probing: true } if pass == Pass::Probe => {
                        let why = format!("its probe failed: {cause}");
                        self.open(now, retry_after, why);
                    }
                    // A request let through before the circuit opened may still fail; it only
                    // ever pushes the deadline out, as far as the upstream asked.
                    Phase::Open { until } => {
                        if let Some(wait) = retry_after {
                            let asked = now + wait.min(self.policy.max_cooldown);
                            self.phase = Phase::Open {
                                until: until.max(asked),
                            };
                        }
                    }
                    Phase::HalfOpen { .. } => {}
                }
            }
        }
    }

    /// Opens the circuit: for `retry_after` (capped) when the upstream asked, else for the
    /// cooldown doubled once per opening since the last success (capped).
    fn open(&mut self, now: Instant, retry_after: Option<Duration>, why: String) {
        self.opens = self.opens.saturating_add(1);
        let wait = match retry_after {
            Some(wait) => wait,
            None => {
                let doublings = (self.opens - 1).min(32);
                self.policy.cooldown.saturating_mul(1 << doublings)
            }
        };
        self.phase = Phase::Open {
            until: now + wait.min(self.policy.max_cooldown),
        };
        self.why = why;
    }

    /// Width of one bucket of the window.
    fn slice_width(&self) -> Duration {
        (self.policy.window / BUCKETS as u32).max(Duration::from_millis(1))
    }

    fn slice(&self, now: Instant) -> u64 {
        let elapsed = now.saturating_duration_since(self.origin);
        (elapsed.as_nanos() / self.slice_width().as_nanos()) as u64
    }

    fn count(&mut self, now: Instant, failed: bool) {
        let slice = self.slice(now);
        let bucket = &mut self.buckets[(slice % BUCKETS as u64) as usize];
        if bucket.slice != slice {
            *bucket = Bucket {
                slice,
                ..Bucket::default()
            };
        }
        bucket.requests = bucket.requests.saturating_add(1);
        bucket.failures = bucket.failures.saturating_add(u32::from(failed));
    }

    /// Failures and requests within the window ending at `now`.
    pub fn recent(&self, now: Instant) -> (u32, u32) {
        let current = self.slice(now);
        let oldest = current.saturating_sub(BUCKETS as u64 - 1);
        self.buckets
            .iter()
            .filter(|b| b.requests > 0 && (oldest..=current).contains(&b.slice))
            .fold((0, 0), |(failures, requests), b| {
                (failures + b.failures, requests + b.requests)
            })
    }

    fn rate_exceeded(&self, now: Instant) -> Option<(u32, u32)> {
        let (failures, requests) = self.recent(now);
        let enough = requests >= self.policy.min_requests.max(1);
        let rate = f64::from(failures) / f64::from(requests.max(1));
        (enough && rate >= self.policy.failure_rate).then_some((failures, requests))
    }

    /// The state at `now` (an open circuit whose deadline passed shows as half-open).
    pub fn state(&self, now: Instant) -> State {
        match self.phase {
            Phase::Closed => State::Closed,
            Phase::Open { until } if now < until => State::Open,
            Phase::Open { .. } | Phase::HalfOpen { .. } => State::HalfOpen,
        }
    }

    /// Until when it stays open, while it is.
    pub fn open_until(&self, now: Instant) -> Option<Instant> {
        match self.phase {
            Phase::Open { until } if now < until => Some(until),
            _ => None,
        }
    }

    /// Failures since the last success.
    pub fn failures_in_a_row(&self) -> u32 {
        self.in_a_row
    }

    /// What opened the circuit last, in words (empty if it never opened).
    pub fn why(&self) -> &str {
        &self.why
    }
}

#[cfg(test)]
mod tests;
