//! When and how long the client waits before sending a request again.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// How the client retries.
///
/// - A 429 is retried for every method (the server did not act on it), after `Retry-After` or
///   until `X-RateLimit-Reset`, unless that is longer than [`max_rate_limit_wait`](Self::max_rate_limit_wait).
/// - 5xx answers and connection failures are retried with jittered exponential backoff, only for
///   GET and DELETE: a create or a rotation is never sent twice behind the caller's back.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    max_retries: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
    max_rate_limit_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            max_rate_limit_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Most retries of one request (default 3).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// First backoff before jitter (default 250 ms); doubles on each retry.
    pub fn initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// Longest backoff before jitter (default 8 s).
    pub fn max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// Longest wait for a rate-limit window to reset (default 60 s); a longer one returns the 429.
    pub fn max_rate_limit_wait(mut self, wait: Duration) -> Self {
        self.max_rate_limit_wait = wait;
        self
    }

    /// The wait before retry number `attempt + 1` after a failure, or `None` when out of retries.
    pub(crate) fn backoff(&self, attempt: u32) -> Option<Duration> {
        if attempt >= self.max_retries {
            return None;
        }
        let full = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.max_backoff);
        // Jitter: somewhere between half and all of the backoff.
        Some(full / 2 + full.mul_f64(random_fraction() / 2.0))
    }

    /// The wait before retrying a 429, or `None` to give up.
    pub(crate) fn rate_limit_wait(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        reset: Option<DateTime<Utc>>,
    ) -> Option<Duration> {
        if attempt >= self.max_retries {
            return None;
        }
        // Rounded up to the millisecond, with a margin: the wait is timed on the monotonic
        // clock, the reset is wall-clock time, and waking a hair early lands in the second
        // before the reset, where the window is still spent.
        let until_reset = reset.map(|reset| {
            let micros = (reset - Utc::now()).num_microseconds().unwrap_or(i64::MAX);
            Duration::from_millis((micros.max(0) as u64).div_ceil(1000)) + RESET_MARGIN
        });
        let wait = retry_after
            .or(until_reset)
            .or_else(|| self.backoff(attempt))?;
        (wait <= self.max_rate_limit_wait).then_some(wait)
    }
}

/// Added to a wait until `X-RateLimit-Reset` (see [`RetryPolicy::rate_limit_wait`]).
const RESET_MARGIN: Duration = Duration::from_millis(20);

fn random_fraction() -> f64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 1.0;
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_stays_jittered_and_stops() {
        let policy = RetryPolicy::default()
            .max_retries(5)
            .initial_backoff(Duration::from_millis(100))
            .max_backoff(Duration::from_millis(300));
        let waits: Vec<Duration> = (0..5).filter_map(|n| policy.backoff(n)).collect();
        assert_eq!(waits.len(), 5);
        assert!((50..=100).contains(&waits[0].as_millis()));
        assert!((100..=200).contains(&waits[1].as_millis()));
        assert!((150..=300).contains(&waits[4].as_millis()), "capped");
        assert_eq!(policy.backoff(5), None);
    }

    #[test]
    fn rate_limit_wait_prefers_retry_after_and_respects_the_maximum() {
        let policy = RetryPolicy::default().max_rate_limit_wait(Duration::from_secs(10));
        let wait = policy.rate_limit_wait(0, Some(Duration::from_secs(3)), None);
        assert_eq!(wait, Some(Duration::from_secs(3)));
        assert_eq!(
            policy.rate_limit_wait(0, Some(Duration::from_secs(30)), None),
            None
        );
        let reset = Utc::now() + chrono::Duration::seconds(5);
        let wait = policy.rate_limit_wait(0, None, Some(reset)).unwrap();
        assert!(wait <= Duration::from_secs(5) + RESET_MARGIN && wait >= Duration::from_secs(4));
        assert_eq!(
            RetryPolicy::none().rate_limit_wait(0, Some(Duration::ZERO), None),
            None
        );
    }
}
