//! How a model's requests are spread over its deployments: smooth weighted round robin over
//! the deployments that may take a request now, and each deployment's own per-minute limits.
//!
//! Smooth weighted round robin (nginx's) gives each deployment exactly its weight's share of
//! every run of `sum of weights` requests, interleaved (weights 5:1:1 give `a a b a c a a`,
//! not five `a` in a row), and a deployment that leaves (an open circuit, a limit reached)
//! simply stops accumulating: the others share its requests by their weights.

use std::sync::Mutex;
use std::time::Instant;

/// The round robin's state for one model.
pub struct Spread {
    weights: Vec<i64>,
    current: Mutex<Vec<i64>>,
}

impl Spread {
    /// A round robin over deployments of these weights.
    pub fn new(weights: Vec<i64>) -> Self {
        let current = Mutex::new(vec![0; weights.len()]);
        Spread { weights, current }
    }

    /// Deployment `i`'s weight.
    pub fn weight(&self, i: usize) -> i64 {
        self.weights.get(i).copied().unwrap_or(0)
    }

    /// The next deployment among those for which `eligible` holds, by weight; `None` when
    /// none is.
    pub fn next(&self, mut eligible: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let mut total = 0;
        let mut best: Option<usize> = None;
        for (i, weight) in self.weights.iter().enumerate() {
            if !eligible(i) {
                continue;
            }
            current[i] += weight;
            total += weight;
            if best.is_none_or(|b| current[i] > current[b]) {
                best = Some(i);
            }
        }
        if let Some(best) = best {
            current[best] -= total;
        }
        best
    }
}

/// A deployment's own limits: requests and tokens per minute.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
}

/// What a deployment has taken in the current minute.
#[derive(Debug, Default)]
pub struct Window {
    minute: u64,
    requests: u32,
    tokens: u64,
}

impl Window {
    /// Starts a new minute when `minute` is a later one.
    fn roll(&mut self, minute: u64) {
        if minute != self.minute {
            *self = Window {
                minute,
                ..Window::default()
            };
        }
    }

    /// Whether one more request of `tokens` fits `limits` in `minute`; `Err` says which limit
    /// it would pass.
    pub fn room(&mut self, minute: u64, limits: Limits, tokens: u64) -> Result<(), String> {
        self.roll(minute);
        if let Some(rpm) = limits.rpm
            && self.requests >= rpm
        {
            return Err(format!("at its limit of {rpm} requests a minute"));
        }
        if let Some(tpm) = limits.tpm
            && self.tokens.saturating_add(tokens) > tpm
            && self.requests > 0
        {
            return Err(format!("at its limit of {tpm} tokens a minute"));
        }
        Ok(())
    }

    /// Counts a request of `tokens` in `minute`.
    pub fn take(&mut self, minute: u64, tokens: u64) {
        self.roll(minute);
        self.requests += 1;
        self.tokens = self.tokens.saturating_add(tokens);
    }
}

/// Minutes since `start`, and the seconds left in the current one.
pub fn minute(start: Instant, now: Instant) -> (u64, u64) {
    let seconds = now.saturating_duration_since(start).as_secs();
    (seconds / 60, 60 - seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_follow_the_weights_interleaved() {
        let spread = Spread::new(vec![5, 1, 1]);
        let picks: Vec<usize> = (0..7).map(|_| spread.next(|_| true).unwrap()).collect();
        assert_eq!(picks, [0, 0, 1, 0, 2, 0, 0]);
        let spread = Spread::new(vec![1, 2, 7]);
        let mut counts = [0; 3];
        for _ in 0..1_000 {
            counts[spread.next(|_| true).unwrap()] += 1;
        }
        assert_eq!(counts, [100, 200, 700]);
    }

    #[test]
    fn a_deployment_that_leaves_gives_its_share_to_the_others_by_weight() {
        let spread = Spread::new(vec![2, 1, 1]);
        let mut counts = [0; 3];
        for _ in 0..900 {
            counts[spread.next(|i| i != 0).unwrap()] += 1;
        }
        assert_eq!(counts, [0, 450, 450]);
        assert_eq!(spread.next(|_| false), None);
    }

    #[test]
    fn a_window_holds_its_limits_for_the_minute() {
        let limits = Limits {
            rpm: Some(2),
            tpm: Some(100),
        };
        let mut window = Window::default();
        assert!(window.room(0, limits, 60).is_ok());
        window.take(0, 60);
        let why = window.room(0, limits, 60).unwrap_err();
        assert_eq!(why, "at its limit of 100 tokens a minute");
        window.take(0, 10);
        let why = window.room(0, limits, 1).unwrap_err();
        assert_eq!(why, "at its limit of 2 requests a minute");
        assert!(window.room(1, limits, 60).is_ok(), "a new minute");
        // A request larger than the whole limit still goes when the minute is fresh.
        assert!(Window::default().room(0, limits, 500).is_ok());
    }
}
