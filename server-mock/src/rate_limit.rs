//! Fixed one-minute windows per workspace (or per client address for requests that carry no
//! valid credential, and apart from that for leak reports). One instance counts under one lock;
//! instances sharing a database count there together ([`WindowCounter`]). Either way concurrent
//! requests can never be accepted beyond the limit.

use foldhash::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use chrono::Utc;

use crate::http::error::ApiError;
use crate::store::{StoreResult, WindowCounter};

const WINDOW_SECS: i64 = 60;

/// Whose budget a request spends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Bucket {
    Workspace(String),
    Address(IpAddr),
    /// Leak reports (`POST /v1/credentials/revoke`) from one address: a budget of their own.
    LeakReports(IpAddr),
}

impl Bucket {
    /// The bucket's name where instances count together.
    fn key(&self) -> String {
        match self {
            Bucket::Workspace(id) => format!("ws:{id}"),
            Bucket::Address(ip) => format!("ip:{ip}"),
            Bucket::LeakReports(ip) => format!("leak:{ip}"),
        }
    }
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

/// The server's budgets.
pub struct Limits {
    /// Requests per workspace, or per client address without a valid credential.
    pub api: RateLimiter,
    /// Leak reports per client address, apart from `api`'s budgets.
    pub leak_reports: RateLimiter,
}

/// Counts requests per bucket in fixed windows aligned to the minute.
pub struct RateLimiter {
    limit: u32,
    windows: Mutex<Windows>,
    /// Where every instance counts, when several share the database.
    shared: Option<Arc<dyn WindowCounter>>,
}

/// Each bucket's window and count, and the last window in which old entries were swept.
#[derive(Default)]
struct Windows {
    buckets: HashMap<Bucket, (i64, u32)>,
    swept: i64,
}

impl RateLimiter {
    /// A limiter accepting `limit` requests per bucket per minute, counting in this process or,
    /// with `shared`, together with every instance that shares it.
    pub fn new(limit: u32, shared: Option<Arc<dyn WindowCounter>>) -> Self {
        RateLimiter {
            limit,
            windows: Mutex::default(),
            shared,
        }
    }

    /// Counts one request at `now` (Unix seconds) against `bucket`. Fails only when the shared
    /// count cannot be reached.
    pub async fn check(&self, bucket: Bucket, now: i64) -> StoreResult<Decision> {
        let window = now.div_euclid(WINDOW_SECS);
        let used = match &self.shared {
            None => self.count_here(bucket, window),
            // Its place in the window, counted by every instance: past the limit, refused.
            Some(shared) => {
                let place = shared.add(bucket.key(), window).await?;
                u32::try_from(place)
                    .ok()
                    .filter(|place| *place <= self.limit)
            }
        };
        let reset = (window + 1) * WINDOW_SECS;
        Ok(Decision {
            allowed: used.is_some(),
            limit: self.limit,
            remaining: used.map_or(0, |used| self.limit - used),
            reset,
            retry_after: (reset - now).max(1) as u64,
        })
    }

    /// Counts one request against `bucket` now and runs `work` only if the limit allows it
    /// (else 429 with `Retry-After`); the answer carries the rate-limit headers either way. For
    /// routes outside the auth layer, which counts every other request.
    pub async fn counted(
        &self,
        bucket: Bucket,
        work: impl Future<Output = Result<Response, ApiError>>,
    ) -> Response {
        let decision = match self.check(bucket, Utc::now().timestamp()).await {
            Ok(decision) => decision,
            Err(err) => return ApiError::from(err).into_response(),
        };
        let mut response = if decision.allowed {
            work.await.unwrap_or_else(IntoResponse::into_response)
        } else {
            ApiError::RateLimited {
                retry_after: decision.retry_after,
            }
            .into_response()
        };
        decision.write_headers(response.headers_mut());
        response
    }

    /// Counts in this process; the request's place in the window, or `None` past the limit.
    fn count_here(&self, bucket: Bucket, window: i64) -> Option<u32> {
        let mut guard = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let Windows { buckets, swept } = &mut *guard;
        // Past windows are swept once per window, and only when there are many buckets.
        if buckets.len() > 10_000 && *swept != window {
            buckets.retain(|_, (w, _)| *w == window);
            *swept = window;
        }
        let entry = buckets.entry(bucket).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1 < self.limit {
            entry.1 += 1;
            Some(entry.1)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counts_down_then_refuses_until_the_next_window() {
        let limiter = RateLimiter::new(2, None);
        let bucket = || Bucket::Workspace("ws".into());
        let check = |bucket, now| {
            let limiter = &limiter;
            async move { limiter.check(bucket, now).await.unwrap() }
        };
        let first = check(bucket(), 120).await;
        assert!(first.allowed);
        assert_eq!((first.remaining, first.reset), (1, 180));
        assert!(check(bucket(), 130).await.allowed);
        let refused = check(bucket(), 179).await;
        assert!(!refused.allowed);
        assert_eq!((refused.remaining, refused.retry_after), (0, 1));
        assert!(check(bucket(), 180).await.allowed);
        assert!(check(Bucket::Workspace("other".into()), 179).await.allowed);
    }
}
