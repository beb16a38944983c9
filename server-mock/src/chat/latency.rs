//! How fast one upstream model answers lately, from its real answers: moving averages (EWMA) of
//! its time to first token and of its output tokens per second, and the median of its recent
//! times to first token. `auto-fast` routes on the average once there are
//! [`MIN_SAMPLES`]; until then the catalogue's `latency_ms` stands in for it.

use std::time::Duration;

/// Answers needed before the observed figure replaces the catalogue's.
pub const MIN_SAMPLES: u64 = 3;
/// Weight of the newest sample in the moving averages.
const ALPHA: f64 = 0.2;
/// Recent times to first token kept for the median.
const RECENT: usize = 64;

/// One model's observed speed.
#[derive(Debug, Clone)]
pub struct Latency {
    first_token_ms: Option<f64>,
    tokens_per_second: Option<f64>,
    samples: u64,
    /// The last [`RECENT`] times to first token, in ms, oldest overwritten first.
    recent: Vec<f64>,
    next: usize,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            first_token_ms: None,
            tokens_per_second: None,
            samples: 0,
            recent: Vec::with_capacity(RECENT),
            next: 0,
        }
    }
}

fn average(current: Option<f64>, sample: f64) -> f64 {
    current.map_or(sample, |avg| avg + ALPHA * (sample - avg))
}

impl Latency {
    /// An answer's first token came `after` the request went out (a whole answer's, with it).
    pub fn first_token(&mut self, after: Duration) {
        let ms = after.as_secs_f64() * 1000.0;
        self.first_token_ms = Some(average(self.first_token_ms, ms));
        self.samples += 1;
        if self.recent.len() < RECENT {
            self.recent.push(ms);
        } else {
            self.recent[self.next] = ms;
        }
        self.next = (self.next + 1) % RECENT;
    }

    /// A stream gave `tokens` more tokens in the `over` after its first.
    pub fn output(&mut self, tokens: u64, over: Duration) {
        if tokens == 0 || over.is_zero() {
            return;
        }
        let rate = tokens as f64 / over.as_secs_f64();
        self.tokens_per_second = Some(average(self.tokens_per_second, rate));
    }

    /// Answers observed so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The time to first token to route on, in ms: the moving average once there are enough
    /// answers (`Some` count), else `prior_ms` (`None`).
    pub fn estimate(&self, prior_ms: u64) -> (f64, Option<u64>) {
        match self.first_token_ms {
            Some(ms) if self.samples >= MIN_SAMPLES => (ms, Some(self.samples)),
            _ => (prior_ms as f64, None),
        }
    }

    /// The median of the recent times to first token, in ms.
    pub fn median_first_token_ms(&self) -> Option<f64> {
        if self.recent.is_empty() {
            return None;
        }
        let mut sorted = self.recent.clone();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        Some(match sorted.len() % 2 {
            1 => sorted[mid],
            _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
        })
    }

    /// The moving average of output tokens per second, once a stream has shown it.
    pub fn tokens_per_second(&self) -> Option<f64> {
        self.tokens_per_second
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_catalogue_figure_stands_until_enough_answers_are_seen() {
        let mut latency = Latency::default();
        assert_eq!(latency.estimate(400), (400.0, None));
        latency.first_token(ms(100));
        latency.first_token(ms(100));
        assert_eq!(latency.estimate(400), (400.0, None));
        latency.first_token(ms(100));
        assert_eq!(latency.estimate(400), (100.0, Some(3)));
    }

    #[test]
    fn the_average_follows_a_change_and_the_median_ignores_one_outlier() {
        let mut latency = Latency::default();
        for _ in 0..10 {
            latency.first_token(ms(100));
        }
        latency.first_token(ms(1100));
        // One slow answer moves the average a fifth of the way; the median not at all.
        assert_eq!(latency.estimate(0).0, 300.0);
        assert_eq!(latency.median_first_token_ms(), Some(100.0));
        for _ in 0..60 {
            latency.first_token(ms(50));
        }
        let (now, _) = latency.estimate(0);
        assert!((50.0..50.1).contains(&now), "{now}");
        assert_eq!(latency.median_first_token_ms(), Some(50.0));
    }

    #[test]
    fn the_median_is_of_the_recent_answers_only() {
        let mut latency = Latency::default();
        for _ in 0..RECENT {
            latency.first_token(ms(500));
        }
        for _ in 0..=RECENT / 2 {
            latency.first_token(ms(20));
        }
        assert_eq!(latency.median_first_token_ms(), Some(20.0));
        assert_eq!(latency.samples(), (RECENT + RECENT / 2 + 1) as u64);
    }

    #[test]
    fn output_speed_is_tokens_over_time_after_the_first() {
        let mut latency = Latency::default();
        assert_eq!(latency.tokens_per_second(), None);
        latency.output(0, ms(100));
        latency.output(10, Duration::ZERO);
        assert_eq!(latency.tokens_per_second(), None);
        latency.output(50, ms(1000));
        assert_eq!(latency.tokens_per_second(), Some(50.0));
        latency.output(100, ms(1000));
        assert_eq!(latency.tokens_per_second(), Some(60.0));
    }
}
