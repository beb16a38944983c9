//! The request log's writer: each gateway request (`POST /v1/chat/completions`, `/v1/messages`,
//! `/v1/responses`) gets one entry ([`Logged`]), filled in as the request goes (the edge opens
//! it, the caller's credential, the model that answered, tokens and credits, the status) and
//! written into its workspace's pending batch ([`RequestBatch`]) when the last hand on it lets
//! go: when a whole answer is sent, or when a stream ends. Each thread fills batches of its own
//! ([`PerThread`]: the request threads never write the same memory); a flush takes them all.
//! Batches are stored like the ledger's records, never on a request's path, and entries deleted
//! past their retention by a background task in bounded batches. Bodies are kept (redacted,
//! capped) only for a workspace whose settings say so ([`choices::Choices`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;

pub mod choices;
mod draft;

use self::choices::Choices;
pub use self::draft::{Logged, Spent};
use crate::per_thread::PerThread;
use crate::store::{EntryRef, RequestBatch, Store, StoreResult};
use crate::telemetry::Backoff;

/// How often pending entries are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Entries pending on one thread that trigger a write before the timer.
const FLUSH_AT: usize = 1024;
/// Most entries kept in memory while the store refuses them; past it the oldest batches are
/// dropped.
const MAX_PENDING: usize = 100_000;
/// Entries a workspace's first batch has room for (it grows as they come; the next has room
/// for as many as it held).
const BATCH_ROOM: usize = 16;
/// How long entries are kept unless configured (`--request-log-retention`).
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);
/// How often entries past their retention are looked for.
const PRUNE_EVERY: Duration = Duration::from_secs(600);
/// Most entries one delete removes; a prune repeats it until fewer remain.
const PRUNE_BATCH: u64 = 1000;
/// Deletes made before the server listens (the rest, if any, are left to the background).
pub const PRUNE_AT_START: usize = 10;

/// The gateway's paths whose requests are logged.
pub const LOGGED_PATHS: [&str; 3] = ["/v1/chat/completions", "/v1/messages", "/v1/responses"];

/// How the request log is kept.
#[derive(Debug, Clone, Copy)]
pub struct LogConfig {
    /// How long each entry is kept.
    pub retention: Duration,
    /// Whether a workspace that never chose (`PUT /v1/settings`) has its bodies kept
    /// (`--request-log-bodies`).
    pub bodies_by_default: bool,
    /// The most bytes of each body kept (`--request-log-body-cap`).
    pub body_cap: usize,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            retention: DEFAULT_RETENTION,
            bodies_by_default: false,
            body_cap: DEFAULT_BODY_CAP,
        }
    }
}

/// The most bytes of a body kept unless configured (`--request-log-body-cap`).
pub const DEFAULT_BODY_CAP: usize = 16 * 1024;

/// Entries not yet stored, and how long they are kept.
pub struct RequestLog {
    /// Each thread's batches being filled.
    threads: Arc<PerThread<Pending>>,
    /// Batches a refused write kept, oldest first: written again ahead of newer ones.
    kept: Mutex<Pending>,
    /// Held by a flush from taking its batch until it is written, so a flush that finds nothing
    /// queued still waits for one under way (a read after it sees every entry).
    writing: tokio::sync::Mutex<()>,
    full: tokio::sync::Notify,
    retention: Duration,
    /// The most bytes of each body kept.
    body_cap: usize,
    /// Which workspaces keep bodies.
    settings: Arc<Choices>,
}

impl RequestLog {
    /// A log keeping entries as `config` says, and for a workspace whose settings say so the
    /// request's and the answer's bodies, redacted, each up to `config.body_cap` bytes.
    pub fn new(config: LogConfig) -> Self {
        RequestLog {
            threads: Arc::new(PerThread::new(Pending::default)),
            kept: Mutex::default(),
            writing: tokio::sync::Mutex::default(),
            full: tokio::sync::Notify::new(),
            retention: config.retention,
            body_cap: config.body_cap,
            settings: Arc::new(Choices::new(config.bodies_by_default)),
        }
    }

    /// The workspaces' settings it follows (refreshed by `PUT /v1/settings` and a timer).
    pub fn settings(&self) -> &Arc<Choices> {
        &self.settings
    }

    /// The entry of a request to `endpoint` with id `id`, arriving now, or at `made` when the
    /// server made the id (it carries that time: the log finds the entry by it).
    pub fn open(
        self: &Arc<Self>,
        id: &str,
        made: Option<chrono::DateTime<Utc>>,
        endpoint: &str,
        session: Option<&str>,
    ) -> Logged {
        let created_at = made.unwrap_or_else(crate::store::now).timestamp_micros();
        Logged::new(
            self.clone(),
            id,
            created_at,
            made.is_none(),
            endpoint,
            session,
        )
    }

    /// Writes a finished entry into its workspace's newest pending batch on this thread (a new
    /// one when that one is full or would span too long).
    fn push(&self, workspace_id: &str, entry: &EntryRef<'_>) {
        let full = self.threads.with_mine(|pending| {
            let newest = pending
                .batches
                .iter_mut()
                .rev()
                .find(|b| b.workspace_id() == workspace_id);
            match newest.filter(|b| b.takes(entry.created_at)) {
                Some(batch) => batch.push(entry),
                None => {
                    let mut batch = RequestBatch::new(workspace_id, BATCH_ROOM);
                    batch.push(entry);
                    pending.batches.push(batch);
                }
            }
            pending.entries += 1;
            pending.entries == FLUSH_AT
        });
        if full {
            self.full.notify_one();
        }
    }

    /// The batches a refused write kept.
    fn kept(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every batch waiting: those a refused write kept, then each thread's. Each thread that
    /// wrote starts its next batch for a workspace with room for as many entries as its last
    /// held (no regrowing on the requests' path); one that did not gets none.
    fn take(&self) -> Vec<RequestBatch> {
        let mut batches = std::mem::take(&mut *self.kept()).batches;
        self.threads.each(|pending| {
            if pending.entries == 0 {
                return;
            }
            let taken = std::mem::take(pending).batches;
            for last in taken.iter().rev().filter(|b| !b.is_empty()) {
                let workspace = last.workspace_id();
                if !pending
                    .batches
                    .iter()
                    .any(|b| b.workspace_id() == workspace)
                {
                    let room = last.len().max(BATCH_ROOM);
                    pending.batches.push(RequestBatch::new(workspace, room));
                }
            }
            batches.extend(taken.into_iter().filter(|b| !b.is_empty()));
        });
        batches
    }

    /// Writes every queued entry; when it returns, every entry queued before the call is
    /// written (or, after a failed write, kept to be written again). Returns whether the write
    /// found the database away.
    pub async fn flush(&self, store: &Arc<dyn Store>) -> bool {
        let _writing = self.writing.lock().await;
        let batches = self.take();
        if batches.is_empty() {
            return false;
        }
        let batches = Arc::new(batches);
        let Err(err) = store.record_requests(batches.clone()).await else {
            return false;
        };
        let mut batches = Arc::try_unwrap(batches).unwrap_or_else(|shared| (*shared).clone());
        let dropped = keep_newest(&mut batches, MAX_PENDING);
        let mut kept = self.kept();
        kept.entries = batches.iter().map(RequestBatch::len).sum();
        kept.batches = batches;
        drop(kept);
        if dropped > 0 {
            tracing::error!(error = %err, dropped, "could not write the request log; dropped its oldest entries");
        } else {
            err.log("could not write the request log; will retry");
        }
        err.is_unavailable()
    }

    /// Flushes every [`FLUSH_EVERY`], or sooner when many entries wait; runs until aborted.
    pub async fn run(self: Arc<Self>, store: Arc<dyn Store>) {
        let mut backoff = Backoff::new(FLUSH_EVERY);
        let mut pause = FLUSH_EVERY;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = self.full.notified() => {}
            }
            pause = backoff.after(self.flush(&store).await);
        }
    }

    /// Deletes entries older than the retention, `PRUNE_BATCH` at a time (each delete is
    /// short, so writes are never held up behind it), in at most `batches` deletes; returns how
    /// many it deleted.
    pub async fn prune(&self, store: &Arc<dyn Store>, batches: usize) -> StoreResult<u64> {
        let retention = chrono::Duration::from_std(self.retention).unwrap_or(chrono::Duration::MAX);
        let cutoff = crate::store::now()
            .checked_sub_signed(retention)
            .unwrap_or(chrono::DateTime::<Utc>::MIN_UTC);
        let mut deleted = 0;
        for _ in 0..batches {
            let now = store.delete_requests_before(cutoff, PRUNE_BATCH).await?;
            deleted += now;
            if now < PRUNE_BATCH {
                break;
            }
            tokio::task::yield_now().await;
        }
        if deleted > 0 {
            tracing::info!(deleted, "request log entries past their retention deleted");
        }
        Ok(deleted)
    }

    /// Prunes now and every `PRUNE_EVERY`; runs until aborted.
    pub async fn run_retention(self: Arc<Self>, store: Arc<dyn Store>) {
        loop {
            if let Err(err) = self.prune(&store, usize::MAX).await {
                err.log("could not delete old request log entries");
            }
            tokio::time::sleep(PRUNE_EVERY).await;
        }
    }
}

/// Batches not yet stored (a thread's, or those a refused write kept), and how many entries
/// they hold.
#[derive(Default)]
struct Pending {
    batches: Vec<RequestBatch>,
    entries: usize,
}

/// Drops whole batches, oldest first, until at most `most` entries are left; returns how many
/// entries it dropped.
fn keep_newest(batches: &mut Vec<RequestBatch>, most: usize) -> usize {
    let mut left: usize = batches.iter().map(RequestBatch::len).sum();
    let mut dropped = 0;
    let mut first_kept = 0;
    for batch in batches.iter() {
        if left <= most {
            break;
        }
        left -= batch.len();
        dropped += batch.len();
        first_kept += 1;
    }
    batches.drain(..first_kept);
    dropped
}

#[cfg(test)]
mod tests;
