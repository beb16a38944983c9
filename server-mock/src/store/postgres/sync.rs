//! Keeps each instance's cache of credentials and tokens exact while other instances change
//! the rows it holds.
//!
//! Every transaction that changes a cached row (rotate, revoke, a token's uses) also appends the
//! ids it changed to `cache_invalidations`, under the next epoch of `cache_epoch`. Taking the
//! epoch locks that one row until commit, so epochs commit in order: a reader that sees epoch
//! `n` sees every epoch before it.
//!
//! Each request's count (`counter.rs`) reads the log in the same round trip, and the instance
//! drops every cached row the log names before the count answers. That read starts after the
//! request arrived, so a change acknowledged by any instance before then is committed before
//! it, seen by it, and gone from the cache before the request's credential is confirmed
//! ([`crate::store::Store::confirm_credential`]) or its handler reads a token: a secret
//! rotated or revoked through instance A is refused by instance B on the next request. One
//! round trip serves every request that arrived while the previous one was in flight, and the
//! read returns no rows unless something changed.
//!
//! A cached row read from the database before a change and stored after the read that saw it
//! would undo that read; the cache refuses it, because dropping rows moved its generation.

use std::sync::{Arc, Mutex};

use deadpool_postgres::GenericClient;

use crate::store::StoreResult;
use crate::store::cache::Cache;

/// How long change-log entries are kept. An instance that has not read the log for longer
/// (idle) cannot tell what it missed, so it drops its whole cache on its next read.
pub const KEEP_CHANGES: &str = "10 minutes";

/// Appends `ids` to the change log, in the caller's transaction (after its other changes, so
/// row locks are always taken in the same order: changed rows first, the epoch last).
pub(super) async fn changed(c: &impl GenericClient, ids: &[String]) -> StoreResult<()> {
    let sql = "WITH epoch AS (UPDATE cache_epoch SET n = n + 1 RETURNING n)
               INSERT INTO cache_invalidations (epoch, ids) SELECT n, $1 FROM epoch";
    c.execute(&c.prepare_cached(sql).await?, &[&ids]).await?;
    Ok(())
}

/// This instance's cache and the newest epoch applied to it.
pub struct Changes {
    cache: Arc<Cache>,
    seen: Mutex<i64>,
}

impl Changes {
    /// `cache`, up to date with the log as of epoch `seen`.
    pub fn new(cache: Arc<Cache>, seen: i64) -> Self {
        Changes {
            cache,
            seen: Mutex::new(seen),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, i64> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the log past the newest epoch applied and drops what it names from the cache
    /// (everything, if entries were pruned meanwhile or the database went back in time). Safe
    /// to run from several round trips at once: dropping a row twice is harmless.
    pub async fn catch_up(&self, c: &impl GenericClient) -> StoreResult<()> {
        let from = *self.seen();
        let sql = "SELECT e.n, i.epoch, i.ids FROM cache_epoch e
                   LEFT JOIN cache_invalidations i ON i.epoch > $1 ORDER BY i.epoch";
        let rows = c.query(&c.prepare_cached(sql).await?, &[&from]).await?;
        let Some(newest) = rows.first().map(|row| row.get::<_, i64>(0)) else {
            return Ok(());
        };
        if newest == from {
            return Ok(());
        }
        let mut next = from + 1;
        let mut ids: Vec<String> = Vec::new();
        for row in &rows {
            if let Some(epoch) = row.get::<_, Option<i64>>(1) {
                if epoch != next {
                    break;
                }
                ids.extend(row.get::<_, Vec<String>>(2));
                next = epoch + 1;
            }
        }
        let mut seen = self.seen();
        if newest < from || next != newest + 1 {
            tracing::info!("the change log moved past what this instance last read; cache dropped");
            self.cache.clear();
            *seen = newest;
        } else if newest > *seen {
            self.cache.invalidate(&ids);
            *seen = newest;
        }
        Ok(())
    }
}

/// Deletes change-log entries older than [`KEEP_CHANGES`].
pub(super) async fn prune(c: &impl GenericClient) -> StoreResult<()> {
    c.execute(
        &format!(
            "DELETE FROM cache_invalidations WHERE created_at < now() - interval '{KEEP_CHANGES}'"
        ),
        &[],
    )
    .await?;
    Ok(())
}
