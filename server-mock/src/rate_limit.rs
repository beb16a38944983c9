//! Fixed one-minute windows per workspace (or per client address for requests that carry no
//! valid credential). Counting happens under one lock, so concurrent requests can never be
//! accepted beyond the limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use axum::http::{HeaderMap, HeaderName, HeaderValue};

const WINDOW_SECS: i64 = 60;

/// Whose budget a request spends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Bucket {
    Workspace(String),
    Address(IpAddr),
}

/// The outcome of counting one request.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix time (seconds) at which the window ends.
    pub reset: i64,
    /// Seconds from now until `reset`, at least 1.
    pub retry_after: u64,
}

impl Decision {
    /// Writes the three `X-RateLimit-*` headers.
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        // Static names: a name given as text would be copied into a new allocation each time.
        const LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
        const REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
        const RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
        headers.insert(LIMIT, HeaderValue::from(self.limit));
        headers.insert(REMAINING, HeaderValue::from(self.remaining));
        headers.insert(RESET, HeaderValue::from(self.reset));
    }
}

/// Counts requests per bucket in fixed windows aligned to the minute.
pub struct RateLimiter {
    limit: u32,
    windows: Mutex<Windows>,
}

/// Each bucket's window and count, and the last window in which old entries were swept.
#[derive(Default)]
struct Windows {
    buckets: HashMap<Bucket, (i64, u32)>,
    swept: i64,
}

impl RateLimiter {
    /// A limiter accepting `limit` requests per bucket per minute.
    pub fn new(limit: u32) -> Self {
        RateLimiter {
            limit,
            windows: Mutex::default(),
        }
    }

    /// Counts one request at `now` (Unix seconds) against `bucket`.
    pub fn check(&self, bucket: Bucket, now: i64) -> Decision {
        let window = now.div_euclid(WINDOW_SECS);
        let reset = (window + 1) * WINDOW_SECS;
        let used = {
            let mut guard = self.windows.lock().unwrap_or_else(|e| e.into_inner());
            let Windows { buckets, swept } = &mut *guard;
            // Past windows are swept once per window, and only when there are many buckets.
            if buckets.len() > 10_000 && *swept != window {
                buckets.retain(|_, (w, _)| *w == window);
                *swept = window;
            }
            let windows = buckets;
            let entry = windows.entry(bucket).or_insert((window, 0));
            if entry.0 != window {
                *entry = (window, 0);
            }
            if entry.1 < self.limit {
                entry.1 += 1;
                Some(entry.1)
            } else {
                None
            }
        };
        Decision {
            allowed: used.is_some(),
            limit: self.limit,
            remaining: used.map_or(0, |used| self.limit - used),
            reset,
            retry_after: (reset - now).max(1) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_then_refuses_until_the_next_window() {
        let limiter = RateLimiter::new(2);
        let bucket = || Bucket::Workspace("ws".into());
        let first = limiter.check(bucket(), 120);
        assert!(first.allowed);
        assert_eq!((first.remaining, first.reset), (1, 180));
        assert!(limiter.check(bucket(), 130).allowed);
        let refused = limiter.check(bucket(), 179);
        assert!(!refused.allowed);
        assert_eq!((refused.remaining, refused.retry_after), (0, 1));
        assert!(limiter.check(bucket(), 180).allowed);
        assert!(
            limiter
                .check(Bucket::Workspace("other".into()), 179)
                .allowed
        );
    }
}
