//! The request log's writer: each gateway request (`POST /v1/chat/completions`, `/v1/messages`,
//! `/v1/responses`) becomes one [`RequestEntry`], filled in as the request goes (the edge opens
//! it, the caller's credential, the model that answered, tokens and credits, the status) and
//! queued when the last hand on it lets go: when a whole answer is sent, or when a stream ends.
//! Entries are written in batches like the ledger's, never on a request's path, and deleted
//! past their retention by a background task in bounded batches. Bodies are kept (redacted,
//! capped) only for a workspace whose settings say so ([`choices::Choices`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;

pub mod choices;

use self::choices::Choices;
use crate::store::{RequestEntry, Store, StoreResult};
use crate::telemetry::Backoff;

/// How often pending entries are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Pending entries that trigger a write before the timer.
const FLUSH_AT: usize = 1024;
/// Most entries kept in memory while the store refuses them; past it the oldest are dropped.
const MAX_PENDING: usize = 100_000;
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

/// Entries not yet written, and how long they are kept.
pub struct RequestLog {
    pending: Mutex<Vec<RequestEntry>>,
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
            pending: Mutex::default(),
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
        let created_at = made.unwrap_or_else(crate::store::now);
        let entry = RequestEntry {
            id: id.to_string(),
            created_at,
            endpoint: endpoint.to_string(),
            session_id: session.map(str::to_string),
            chosen: made.is_none(),
            ..RequestEntry::default()
        };
        Logged(Arc::new(Draft {
            log: self.clone(),
            started: Instant::now(),
            entry: Mutex::new(entry),
            bodies: Mutex::default(),
        }))
    }

    fn push(&self, entry: RequestEntry) {
        let mut pending = self.lock();
        pending.push(entry);
        if pending.len() >= FLUSH_AT {
            self.full.notify_one();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<RequestEntry>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes every queued entry; when it returns, every entry queued before the call is
    /// written (or, after a failed write, queued again). Returns whether the write found the
    /// database away.
    pub async fn flush(&self, store: &Arc<dyn Store>) -> bool {
        let _writing = self.writing.lock().await;
        let batch = {
            let mut pending = self.lock();
            if pending.is_empty() {
                return false;
            }
            // The next batch starts with room for a full one (no regrowing on the requests' path).
            std::mem::replace(&mut *pending, Vec::with_capacity(FLUSH_AT))
        };
        let batch = Arc::new(batch);
        let Err(err) = store.record_requests(batch.clone()).await else {
            return false;
        };
        let batch = Arc::try_unwrap(batch).unwrap_or_else(|shared| (*shared).clone());
        let mut pending = self.lock();
        let newer = std::mem::replace(&mut *pending, batch);
        pending.extend(newer);
        let dropped = pending.len().saturating_sub(MAX_PENDING);
        pending.drain(..dropped);
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

/// A request's entry while it is served; every clone fills the same entry, and the last one
/// dropped queues it (an entry without a workspace, a request no credential authenticated, is
/// not kept: the audit log has denials).
#[derive(Clone)]
pub struct Logged(Arc<Draft>);

struct Draft {
    log: Arc<RequestLog>,
    started: Instant,
    entry: Mutex<RequestEntry>,
    bodies: Mutex<Bodies>,
}

/// Whether a request's bodies are kept: unknown until its workspace is (a body read before
/// then waits, unredacted, in memory only, and is dropped with the entry if never decided).
#[derive(Default)]
struct Bodies {
    /// `Some(cap)`: kept up to `cap` bytes; `None`: not kept. Unset until the caller is known.
    keep: Option<Option<usize>>,
    /// The request's body, read before its workspace was known.
    waiting: Option<String>,
}

/// What an answer used and cost, for its entry.
pub struct Spent {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    pub credits: crate::credits::Credits,
}

impl Logged {
    fn with(&self, f: impl FnOnce(&mut RequestEntry)) {
        f(&mut self.0.entry.lock().unwrap_or_else(|e| e.into_inner()));
    }

    fn bodies(&self) -> std::sync::MutexGuard<'_, Bodies> {
        self.0.bodies.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The credential that authenticated it; its workspace's settings decide whether bodies
    /// are kept.
    pub fn caller(&self, workspace_id: &str, credential_id: &str) {
        let log = &self.0.log;
        let keep = log
            .settings
            .store_bodies(workspace_id)
            .then_some(log.body_cap);
        let waiting = {
            let mut bodies = self.bodies();
            bodies.keep = Some(keep);
            bodies.waiting.take()
        };
        let body = waiting.zip(keep).map(|(text, cap)| kept(&text, cap));
        self.with(|e| {
            e.workspace_id = workspace_id.to_string();
            e.credential_id = Some(credential_id.to_string());
            if body.is_some() {
                e.request_body = body;
            }
        });
    }

    /// The most bytes of a body kept, when its workspace keeps bodies.
    fn cap(&self) -> Option<usize> {
        self.bodies().keep.flatten()
    }

    /// The model it named, and whether it streams.
    pub fn asked(&self, model: &str, stream: bool) {
        self.with(|e| {
            e.model = Some(model.to_string());
            e.stream = stream;
        });
    }

    /// The model (and deployment) that answered, why, and what it used and cost.
    pub fn answered_by(&self, model: &str, deployment: Option<&str>, reason: &str, spent: Spent) {
        self.with(|e| {
            e.routed_model = Some(model.to_string());
            e.deployment = deployment.map(str::to_string);
            e.route_reason = Some(reason.to_string());
            e.prompt_tokens = Some(spent.prompt_tokens);
            e.completion_tokens = Some(spent.completion_tokens);
            e.cached_tokens = Some(spent.cached_tokens);
            e.credits = Some(spent.credits);
        });
    }

    /// The request's body (kept redacted and capped, when its workspace keeps bodies).
    pub fn request_body(&self, text: &str) {
        let cap = {
            let mut bodies = self.bodies();
            match bodies.keep {
                Some(keep) => keep,
                None => {
                    // Decided once the caller is known.
                    bodies.waiting = Some(text.to_string());
                    None
                }
            }
        };
        if let Some(cap) = cap {
            let body = kept(text, cap);
            self.with(|e| e.request_body = Some(body));
        }
    }

    /// Whether its workspace keeps bodies (so the answer's is worth making).
    pub fn keeps_bodies(&self) -> bool {
        self.cap().is_some()
    }

    /// The answer's body (kept redacted and capped, when its workspace keeps bodies).
    pub fn response_body(&self, text: &str) {
        if let Some(cap) = self.cap() {
            let body = kept(text, cap);
            self.with(|e| e.response_body = Some(body));
        }
    }

    /// A stream's first token came now.
    pub fn first_token(&self) {
        let took = micros(self.0.started.elapsed());
        self.with(|e| e.first_token_us = Some(took));
    }

    /// Atomic units an x402 payment settled for it.
    pub fn paid(&self, amount: &str) {
        self.with(|e| e.x402_settled = Some(amount.to_string()));
    }

    /// It failed with `code` (the first failure is kept: a stream cut after its status).
    pub fn failed(&self, code: &str) {
        self.with(|e| {
            e.error.get_or_insert_with(|| code.to_string());
        });
    }

    /// The status it was answered with (and the error code of a refusal).
    pub fn status(&self, status: u16, error: Option<&str>) {
        self.with(|e| {
            e.status = status;
            if let Some(code) = error {
                e.error.get_or_insert_with(|| code.to_string());
            }
        });
    }
}

/// What is kept of a body: redacted, then cut at `cap` bytes (on a character boundary), the cut
/// said at the end.
fn kept(text: &str, cap: usize) -> String {
    let redacted = tokctl_secrets::redact(text);
    if redacted.len() <= cap {
        return redacted.into_owned();
    }
    let mut end = cap;
    while !redacted.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}…[{} more bytes not kept]",
        &redacted[..end],
        redacted.len() - end
    )
}

fn micros(took: Duration) -> i64 {
    i64::try_from(took.as_micros()).unwrap_or(i64::MAX)
}

impl Drop for Draft {
    fn drop(&mut self) {
        let mut entry = std::mem::take(self.entry.get_mut().unwrap_or_else(|e| e.into_inner()));
        if entry.workspace_id.is_empty() {
            return;
        }
        entry.total_us = micros(self.started.elapsed());
        self.log.push(entry);
    }
}
