//! A database outage as operators read it in the log: one warning when the database becomes
//! unreachable, with the cause, and one when it answers again, with how long it was away and
//! how many requests were refused meanwhile. Between the two, refused requests are counted,
//! not logged one by one, and the workers that found it away wait longer each time
//! ([`Backoff`]) and log at `debug`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Whether the database is away, since when, and the requests refused meanwhile.
#[derive(Debug, Default)]
pub struct Outage {
    /// Read on every database operation: one atomic load while all is well.
    down: AtomicBool,
    since: Mutex<Option<Instant>>,
    refused: AtomicU64,
}

impl Outage {
    /// An operation could not reach `database` (host, port and name), for `cause`: the first
    /// since it last answered logs the warning.
    pub fn unreachable(&self, database: &str, cause: &str) {
        if self.down.load(Ordering::Relaxed) {
            return;
        }
        let mut since = self.lock();
        if since.is_some() {
            return;
        }
        *since = Some(Instant::now());
        self.refused.store(0, Ordering::Relaxed);
        self.down.store(true, Ordering::Relaxed);
        tracing::warn!(
            database,
            error = cause,
            "database unreachable: requests are answered 503 until it is back"
        );
    }

    /// An operation that began at `began` got the database's answer: the first to begin after
    /// the outage was noticed logs its end (one begun before may have had its answer before
    /// the database went away).
    pub fn answered(&self, began: Instant) {
        if !self.down.load(Ordering::Relaxed) {
            return;
        }
        let mut state = self.lock();
        let Some(since) = *state else {
            return;
        };
        if began < since {
            return;
        }
        *state = None;
        drop(state);
        self.down.store(false, Ordering::Relaxed);
        let away = since.elapsed();
        let refused = self.refused.swap(0, Ordering::Relaxed);
        tracing::warn!(
            away_ms = away.as_millis() as u64,
            refused,
            "database reachable again after {:.1} s; {refused} requests were refused meanwhile",
            away.as_secs_f64()
        );
    }

    /// A request was answered 503 for want of the database. Counted, and `true`, during an
    /// outage; `false` otherwise (the pool was busy, say), for the caller to log it.
    pub fn refused(&self) -> bool {
        if !self.down.load(Ordering::Relaxed) {
            return false;
        }
        self.refused.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Whether an outage is in progress.
    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.since.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How long a worker waits before asking an unavailable database again: its usual pause,
/// doubled after each attempt that found the database away (up to [`Backoff::MAX`]), and its
/// usual pause again once the database answers.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    usual: Duration,
    next: Duration,
}

impl Backoff {
    /// The longest wait.
    pub const MAX: Duration = Duration::from_secs(30);

    /// Waits of `usual` while the database answers.
    pub fn new(usual: Duration) -> Self {
        Backoff { usual, next: usual }
    }

    /// The wait after an attempt that found the database `away` or not.
    pub fn after(&mut self, away: bool) -> Duration {
        let wait = match away {
            true => self.next,
            false => self.usual,
        };
        self.next = match away {
            true => (self.next * 2).min(Self::MAX.max(self.usual)),
            false => self.usual,
        };
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_counted_only_during_an_outage() {
        let outage = Outage::default();
        assert!(!outage.refused(), "no outage yet");
        outage.unreachable("db:5432/x", "connection refused");
        outage.unreachable("db:5432/x", "connection refused");
        assert!(outage.refused() && outage.refused());
        assert_eq!(outage.refused.load(Ordering::Relaxed), 2);
        // An answer to an operation begun before the outage was noticed does not end it.
        let before = Instant::now() - Duration::from_secs(1);
        outage.answered(before);
        assert!(outage.is_down());
        outage.answered(Instant::now());
        assert!(!outage.refused(), "over");
        assert_eq!(outage.refused.load(Ordering::Relaxed), 0);
        // A second outage starts its own count.
        outage.unreachable("db:5432/x", "timed out");
        assert!(outage.refused());
        assert_eq!(outage.refused.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn backoff_doubles_while_away_up_to_the_maximum_and_resets() {
        let mut backoff = Backoff::new(Duration::from_millis(500));
        assert_eq!(backoff.after(false), Duration::from_millis(500));
        let waits: Vec<u64> = (0..9)
            .map(|_| backoff.after(true).as_millis() as u64)
            .collect();
        assert_eq!(
            waits,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        assert_eq!(backoff.after(false), Duration::from_millis(500));
        assert_eq!(backoff.after(true), Duration::from_millis(500));
    }
}
