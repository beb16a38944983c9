//! The rate limit's request counts, shared by every instance: one row per bucket and window in
//! `rate_windows`. Requests are coalesced ([`Batcher`]): one upsert adds each bucket's requests
//! of a round trip and returns the new count, from which every request learns its own place in
//! the window. The count is exact across instances: the row's lock orders the upserts, so no
//! two requests anywhere get the same place.
//!
//! The same round trip reads the change log (`sync.rs`, sent with the upsert, answered with
//! it), and the cache is brought up to date before any request of the round trip is answered.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio::sync::oneshot;

use super::batch::Batcher;
use super::db::Db;
use super::sync::Changes;
use crate::store::{StoreResult, WindowCounter};

/// A bucket and a window.
type Key = (String, i64);

/// [`WindowCounter`] over `rate_windows`.
pub struct Counter {
    pub(super) batcher: Arc<Batcher<Key, u64>>,
    /// How long a request waits for its count to be sent (the acquire timeout): past it, while
    /// PostgreSQL is still busy with the round trip before, the request is answered 503 and
    /// its count is never sent, so the window counts exactly the requests it let through or
    /// refused for the limit.
    pub(super) patience: Duration,
}

#[async_trait]
impl WindowCounter for Counter {
    async fn add(&self, bucket: String, window: i64) -> StoreResult<u64> {
        self.batcher.call((bucket, window), self.patience).await
    }
}

/// Counts queued requests and brings `changes` up to date; runs until aborted.
pub(super) async fn run(db: Arc<Db>, batcher: Arc<Batcher<Key, u64>>, changes: Arc<Changes>) {
    loop {
        let waiters = batcher.next().await;
        // By key, in key order (rows are locked in one order everywhere, so two instances'
        // upserts never deadlock), each key's callers in the order they came.
        let mut groups: BTreeMap<Key, Vec<oneshot::Sender<StoreResult<u64>>>> = BTreeMap::new();
        for (key, tx) in waiters {
            groups.entry(key).or_default().push(tx);
        }
        let result = db
            .limit(async {
                let c = db.get_fast().await?;
                // Both statements go out together: one round trip.
                let (counts, ()) = tokio::try_join!(add(&c, &groups), changes.catch_up(&c))?;
                Ok(counts)
            })
            .await;
        match result {
            Ok(counts) => {
                for ((_, waiting), after) in groups.into_iter().zip(counts) {
                    let before = after.saturating_sub(waiting.len() as u64);
                    for (place, tx) in (before + 1..).zip(waiting) {
                        let _ = tx.send(Ok(place));
                    }
                }
            }
            Err(err) => {
                for tx in groups.into_values().flatten() {
                    let _ = tx.send(Err(err.clone()));
                }
            }
        }
    }
}

/// Adds each key's callers to its window; returns the new counts in key order.
async fn add(
    c: &impl GenericClient,
    groups: &BTreeMap<Key, Vec<oneshot::Sender<StoreResult<u64>>>>,
) -> StoreResult<Vec<u64>> {
    let buckets: Vec<&str> = groups.keys().map(|(bucket, _)| bucket.as_str()).collect();
    let windows: Vec<i64> = groups.keys().map(|(_, window)| *window).collect();
    let adds: Vec<i64> = groups.values().map(|w| w.len() as i64).collect();
    let sql = "INSERT INTO rate_windows AS r (bucket, window_start, used)
               SELECT * FROM unnest($1::text[], $2::int8[], $3::int8[])
               ON CONFLICT (bucket, window_start) DO UPDATE SET used = r.used + EXCLUDED.used
               RETURNING bucket, window_start, used";
    let rows = c
        .query(&c.prepare_cached(sql).await?, &[&buckets, &windows, &adds])
        .await?;
    let mut counts: BTreeMap<(&str, i64), i64> = BTreeMap::new();
    for row in &rows {
        counts.insert((row.get(0), row.get(1)), row.get(2));
    }
    Ok(groups
        .keys()
        .map(|(bucket, window)| {
            counts
                .get(&(bucket.as_str(), *window))
                .map_or(0, |used| *used as u64)
        })
        .collect())
}

/// Deletes the counts of windows before `window - 1`.
pub(super) async fn prune(c: &impl GenericClient, window: i64) -> StoreResult<()> {
    c.execute(
        "DELETE FROM rate_windows WHERE window_start < $1",
        &[&(window - 1)],
    )
    .await?;
    Ok(())
}
