//! Keeps each instance's cache of credentials and tokens exact while other instances change
//! the rows it holds.
//!
//! Every transaction that changes a cached row (rotate, revoke, a token's uses) also appends the
//! ids it changed to `cache_invalidations`, under the next epoch of `cache_epoch`. Taking the
//! epoch locks that one row until commit, so epochs commit in order: a reader that sees epoch
//! `n` sees every epoch before it.
//!
//! Before a request authenticates, the instance *syncs*: it waits for one read of the log that
//! started after the request arrived, and drops every cached row changed since its last read.
//! A change acknowledged by any instance before the request arrived is therefore committed
//! before that read, seen by it, and gone from the cache before the request looks: a secret
//! rotated or revoked through instance A is refused by instance B on the next request. Reads
//! are coalesced ([`Batcher`]): one round trip serves every request that arrived while the
//! previous one was in flight, and it returns no rows unless something changed.
//!
//! A cached row read from the database before a change and stored after the sync that saw it
//! would undo that sync; the cache refuses it, because the sync moved its generation.

use std::sync::Arc;

use deadpool_postgres::GenericClient;

use super::batch::{Batcher, answer_all};
use super::db::Db;
use crate::store::StoreResult;
use crate::store::cache::Cache;

/// How long change-log entries are kept. An instance that has not synced for longer (idle)
/// cannot tell what it missed, so it drops its whole cache on its next sync.
pub const KEEP_CHANGES: &str = "10 minutes";

/// Appends `ids` to the change log, in the caller's transaction (after its other changes, so
/// row locks are always taken in the same order: changed rows first, the epoch last).
pub(super) async fn changed(c: &impl GenericClient, ids: &[String]) -> StoreResult<()> {
    let sql = "WITH epoch AS (UPDATE cache_epoch SET n = n + 1 RETURNING n)
               INSERT INTO cache_invalidations (epoch, ids) SELECT n, $1 FROM epoch";
    c.execute(&c.prepare_cached(sql).await?, &[&ids]).await?;
    Ok(())
}

/// Syncs callers with the change log (see the module docs); runs until aborted.
pub(super) async fn run(
    db: Arc<Db>,
    cache: Arc<Cache>,
    batcher: Arc<Batcher<(), ()>>,
    mut seen: i64,
) {
    loop {
        let waiters = batcher.next().await;
        let result = db
            .limit(async {
                let c = db.get_fast().await?;
                catch_up(&c, &cache, &mut seen).await
            })
            .await;
        answer_all(waiters, result);
    }
}

/// Reads the log past `seen` and drops what it names from `cache` (everything, if entries
/// were pruned meanwhile or the database went back in time).
async fn catch_up(c: &impl GenericClient, cache: &Cache, seen: &mut i64) -> StoreResult<()> {
    let sql = "SELECT e.n, i.epoch, i.ids FROM cache_epoch e
               LEFT JOIN cache_invalidations i ON i.epoch > $1 ORDER BY i.epoch";
    let rows = c.query(&c.prepare_cached(sql).await?, &[&*seen]).await?;
    let Some(newest) = rows.first().map(|row| row.get::<_, i64>(0)) else {
        return Ok(());
    };
    if newest == *seen {
        return Ok(());
    }
    let mut next = *seen + 1;
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
    if newest < *seen || next != newest + 1 {
        tracing::info!("the change log moved past what this instance last read; cache dropped");
        cache.clear();
    } else {
        cache.invalidate(&ids);
    }
    *seen = newest;
    Ok(())
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
