//! The credit ledger: every completion is recorded per workspace, written in batches (at most
//! [`FLUSH_EVERY`] of records can be lost in a crash, never a request's latency to a disk sync),
//! and read back by `GET /v1/usage` as totals by day and model.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::credits::Credits;
use crate::error::{ErrorBody, Result};
use crate::extract::Query;
use crate::pagination::Meta;
use crate::routes::Routes;
use crate::state::AppState;
use crate::store::{Store, UsageRecord, UsageTotals};

/// How often pending ledger records are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Pending records that trigger a write before the timer.
const FLUSH_AT: usize = 1024;
/// Most records kept in memory while the store refuses them.
const MAX_PENDING: usize = 1_000_000;

/// Records not yet written.
#[derive(Default)]
pub struct Ledger {
    pending: Mutex<Vec<UsageRecord>>,
    full: tokio::sync::Notify,
}

impl Ledger {
    /// Queues a record; it is written within [`FLUSH_EVERY`].
    pub fn record(&self, record: UsageRecord) {
        let mut pending = self.lock();
        pending.push(record);
        if pending.len() >= FLUSH_AT {
            self.full.notify_one();
        }
    }

    /// Writes every queued record. Records a failed write could not store stay queued for the
    /// next flush (up to a million; past that the oldest are dropped, and the log says so).
    pub async fn flush(&self, store: &Arc<dyn Store>) {
        let batch = {
            let mut pending = self.lock();
            if pending.is_empty() {
                return;
            }
            // The next batch starts with room for a full one: growing a vector of records one
            // push at a time would copy it again and again on the requests' path.
            std::mem::replace(&mut *pending, Vec::with_capacity(FLUSH_AT))
        };
        let batch = Arc::new(batch);
        if let Err(err) = store.record_usage(batch.clone()).await {
            let batch = Arc::try_unwrap(batch).unwrap_or_else(|shared| (*shared).clone());
            let mut pending = self.lock();
            let dropped = (batch.len() + pending.len()).saturating_sub(MAX_PENDING);
            tracing::error!(error = %err, records = batch.len(), dropped, "could not write the credit ledger; will retry");
            let newer = std::mem::replace(&mut *pending, batch);
            pending.extend(newer);
            let dropped = dropped.min(pending.len());
            pending.drain(..dropped);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<UsageRecord>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Flushes every [`FLUSH_EVERY`], or sooner when many records wait; runs until aborted.
    pub async fn run(self: Arc<Self>, store: Arc<dyn Store>) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(FLUSH_EVERY) => {}
                _ = self.full.notified() => {}
            }
            self.flush(&store).await;
        }
    }
}

/// Routes of this resource.
pub fn routes() -> Routes {
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

/// Credit ledger totals by day and model, newest day first, and the grand total.
#[utoipa::path(get, path = "/v1/usage", tag = "usage",
    params(crate::pagination::PageParams),
    responses((status = 200, body = UsageList),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: Authenticated<require::UsageRead>,
    query: Query,
) -> Result<Json<UsageList>> {
    let page = query.page_request()?;
    // What this server has queued is part of the answer.
    state.gateway.ledger.flush(&state.store).await;
    let (rows, totals) = state
        .store
        .usage_by_day(&auth.principal.workspace_id, page)
        .await?;
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
