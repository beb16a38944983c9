//! The credit ledger: every completion is recorded per workspace and read back by
//! `GET /v1/usage` as totals by day and model. One instance writes records in batches (at most
//! [`FLUSH_EVERY`] of records can be lost in a crash, never a request's latency to a disk
//! sync). Instances sharing a database write each record before its answer ends, so every
//! instance's `GET /v1/usage` shows it; records that arrive together share one write.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::{FromRef, State};
use serde::Serialize;
use tokio::sync::oneshot;
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::credits::Credits;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::Query;
use crate::http::pagination::Meta;
use crate::http::routes::Routes;
use crate::store::{Store, UsageRecord, UsageTotals};
use crate::telemetry::{Backoff, Metrics, registry};

/// How often pending ledger records are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Pending records that trigger a write before the timer.
const FLUSH_AT: usize = 1024;
/// Most records kept in memory while the store refuses them.
const MAX_PENDING: usize = 1_000_000;

/// Records not yet written.
pub struct Ledger {
    pending: Mutex<Pending>,
    /// Held by a flush from taking its batch until the batch is written, so a flush that finds
    /// nothing queued still waits for one under way (a read after it sees every record).
    writing: tokio::sync::Mutex<()>,
    full: tokio::sync::Notify,
    /// Each record is written before its answer ends (several instances share the ledger).
    write_through: bool,
    /// How long each batch took to write.
    flush_time: metrics::Histogram,
}

/// Records waiting for a write, and who waits for them.
#[derive(Default)]
struct Pending {
    records: Vec<UsageRecord>,
    waiters: Vec<oneshot::Sender<()>>,
}

/// Resolves once a record is written (at once when records are written in batches).
pub struct Recorded(Option<oneshot::Receiver<()>>);

impl Recorded {
    /// Resolves when `written` does (a record written some other way).
    pub fn when(written: oneshot::Receiver<()>) -> Recorded {
        Recorded(Some(written))
    }

    /// Waits for the write. A write that fails leaves the record queued for the next one, and
    /// the answer goes on without waiting for that.
    pub async fn written(self) {
        if let Some(written) = self.0 {
            let _ = written.await;
        }
    }
}

impl Ledger {
    /// A ledger that writes in batches, or (`write_through`) each record before its answer
    /// ends; the time each batch takes goes to `metrics`.
    pub fn new(write_through: bool, metrics: &Metrics) -> Self {
        Ledger {
            pending: Mutex::default(),
            writing: tokio::sync::Mutex::default(),
            full: tokio::sync::Notify::new(),
            write_through,
            flush_time: metrics.histogram(registry::LEDGER_FLUSH, &[]),
        }
    }

    /// Queues a record; it is written within [`FLUSH_EVERY`], or at once when written through.
    pub fn record(&self, record: UsageRecord) -> Recorded {
        let mut pending = self.lock();
        pending.records.push(record);
        if self.write_through {
            let (tx, rx) = oneshot::channel();
            pending.waiters.push(tx);
            self.full.notify_one();
            return Recorded(Some(rx));
        }
        if pending.records.len() >= FLUSH_AT {
            self.full.notify_one();
        }
        Recorded(None)
    }

    /// Writes every queued record; when it returns, every record queued before the call is
    /// written (or, after a failed write, queued again). Records a failed write could not store
    /// stay queued for the next flush (up to a million; past that the oldest are dropped, and
    /// the log says so). Returns whether the write found the database away.
    pub async fn flush(&self, store: &Arc<dyn Store>) -> bool {
        let _writing = self.writing.lock().await;
        let (batch, waiters) = {
            let mut pending = self.lock();
            if pending.records.is_empty() {
                return false;
            }
            // The next batch starts with room for a full one: growing a vector of records one
            // push at a time would copy it again and again on the requests' path.
            let batch = std::mem::replace(&mut pending.records, Vec::with_capacity(FLUSH_AT));
            (batch, std::mem::take(&mut pending.waiters))
        };
        let batch = Arc::new(batch);
        let started = std::time::Instant::now();
        let written = store.record_usage(batch.clone()).await;
        self.flush_time.record(started.elapsed().as_secs_f64());
        match written {
            Ok(()) => {
                for waiter in waiters {
                    let _ = waiter.send(());
                }
                false
            }
            Err(err) => {
                let batch = Arc::try_unwrap(batch).unwrap_or_else(|shared| (*shared).clone());
                let mut pending = self.lock();
                let dropped = (batch.len() + pending.records.len()).saturating_sub(MAX_PENDING);
                if dropped > 0 || !err.is_unavailable() {
                    tracing::error!(error = %err, records = batch.len(), dropped, "could not write the credit ledger; will retry");
                } else {
                    tracing::debug!(error = %err, records = batch.len(), "could not write the credit ledger; will retry");
                }
                let newer = std::mem::replace(&mut pending.records, batch);
                pending.records.extend(newer);
                let dropped = dropped.min(pending.records.len());
                pending.records.drain(..dropped);
                err.is_unavailable()
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Flushes every [`FLUSH_EVERY`], or sooner when many records wait (or any, when written
    /// through); runs until aborted.
    /// While the database is away, the waits grow ([`Backoff`]).
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
}

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Ledger>: FromRef<S>,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new().get("/v1/usage", list)
}

/// Ledger totals for one UTC day and model, or (in `totals`) for everything.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageView {
    /// `YYYY-MM-DD` (absent in `totals`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The model that answered (absent in `totals`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Credits consumed, exact (decimal text on the wire, nano-credit precision).
    #[schema(value_type = f64)]
    pub credits: Credits,
    /// Atomic units of the workspace's x402 token that agents' payments settled for these
    /// completions (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9]+$")]
    pub x402_settled: Option<String>,
    /// The same totals for each deployment of `model` that answered some of them (absent for a
    /// model that lists no deployments).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deployments: Vec<DeploymentUsage>,
}

/// Ledger totals of one deployment within a day and model.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeploymentUsage {
    pub deployment: String,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Credits consumed, exact.
    #[schema(value_type = f64)]
    pub credits: Credits,
}

impl From<UsageTotals> for UsageView {
    fn from(t: UsageTotals) -> Self {
        UsageView {
            date: (!t.day.is_empty()).then_some(t.day),
            model: (!t.model.is_empty()).then_some(t.model),
            requests: t.requests,
            prompt_tokens: t.prompt_tokens,
            completion_tokens: t.completion_tokens,
            credits: t.credits,
            x402_settled: (!t.x402_settled.is_zero()).then(|| t.x402_settled.to_string()),
            deployments: t
                .deployments
                .into_iter()
                .map(|d| DeploymentUsage {
                    deployment: d.name,
                    requests: d.requests,
                    prompt_tokens: d.prompt_tokens,
                    completion_tokens: d.completion_tokens,
                    credits: d.credits,
                })
                .collect(),
        }
    }
}

/// The list envelope plus the workspace's grand totals.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageList {
    pub data: Vec<UsageView>,
    pub meta: Meta,
    pub totals: UsageView,
}

/// Credit ledger totals by day and model, newest day first, and the grand total, of the
/// workspace or of one of its tokens.
#[utoipa::path(get, path = "/v1/usage", tag = "usage",
    params(crate::http::pagination::PageParams,
        ("token_id" = Option<String>, Query, description = "Only the requests made with this token")),
    responses((status = 200, body = UsageList),
        (status = 404, description = "token_id names no token of the workspace", body = ErrorBody),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    State(ledger): State<Arc<Ledger>>,
    auth: Authenticated<require::UsageRead>,
    query: Query,
) -> Result<Json<UsageList>> {
    let page = query.page_request()?;
    let workspace_id = &auth.principal.workspace_id;
    let token_id = query.get("token_id");
    if let Some(id) = token_id
        && store.get_token(workspace_id, id).await?.is_none()
    {
        return Err(ApiError::token_not_found(id));
    }
    // What this server has queued is part of the answer.
    ledger.flush(&store).await;
    let (rows, totals) = store.usage_by_day(workspace_id, token_id, page).await?;
    Ok(Json(UsageList {
        data: rows.items.into_iter().map(UsageView::from).collect(),
        meta: Meta {
            page: page.page,
            per_page: page.per_page,
            total: rows.total,
        },
        totals: totals.into(),
    }))
}
