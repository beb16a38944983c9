//! The `RequestLog` part of storage: one row per gateway request (who asked, which model
//! answered, how long it took, what it cost), written in batches and read back newest first.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{Page, PageRequest, StoreResult};
use crate::credits::Credits;

/// One gateway request as the log keeps it. Never a secret: credentials by id, bodies only when
/// the workspace stores them (redacted before they get here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestEntry {
    /// The request id its answer carried (`x-request-id`, `x-tokctl-request-id`); a client
    /// may choose it, so it is not unique: a lookup finds the newest.
    pub id: String,
    pub workspace_id: String,
    /// When it arrived.
    pub created_at: DateTime<Utc>,
    /// The token (`tok_...`) or API key (`key_...`) that made it.
    pub credential_id: Option<String>,
    /// That credential's name, filled in when read.
    pub credential_name: Option<String>,
    /// The path asked (`/v1/chat/completions`, `/v1/messages`, `/v1/responses`).
    pub endpoint: String,
    /// The model the request named.
    pub model: Option<String>,
    /// The catalogue model that answered.
    pub routed_model: Option<String>,
    /// The deployment of `routed_model` that answered, when it lists deployments.
    pub deployment: Option<String>,
    pub route_reason: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// The error code, when it failed (before answering, or a stream cut after).
    pub error: Option<String>,
    pub stream: bool,
    /// Microseconds from arrival to the first token of a stream.
    pub first_token_us: Option<i64>,
    /// Microseconds from arrival to the answer's end.
    pub total_us: i64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache (part of `prompt_tokens`).
    pub cached_tokens: Option<u64>,
    pub credits: Option<Credits>,
    /// Atomic units an x402 payment settled for it.
    pub x402_settled: Option<String>,
    /// The agent's session it belongs to (`X-Claude-Code-Session-Id`, `x-tokctl-session-id`).
    pub session_id: Option<String>,
    /// The request's body, redacted and capped, when the log keeps bodies (read by
    /// [`RequestLog::get_request`] only).
    pub request_body: Option<String>,
    /// A whole answer's message, redacted and capped, likewise.
    pub response_body: Option<String>,
    /// Whether a client chose `id` (written, not read: an id the server made carries the
    /// entry's time, and the log finds it by that).
    pub chosen: bool,
}

/// A token count as a database's signed 64-bit column (past `i64::MAX`, capped): how both
/// backends write `prompt_tokens`, `completion_tokens` and `cached_tokens`.
pub fn count_column(value: Option<u64>) -> Option<i64> {
    value.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

/// What a status filter keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// One class: `2` for 2xx, `4` for 4xx, `5` for 5xx.
    Class(u16),
    /// One exact status.
    Exact(u16),
}

impl StatusFilter {
    /// The statuses kept, from `low` to `high` inclusive.
    pub fn range(self) -> (i64, i64) {
        match self {
            StatusFilter::Class(class) => (i64::from(class) * 100, i64::from(class) * 100 + 99),
            StatusFilter::Exact(status) => (i64::from(status), i64::from(status)),
        }
    }
}

/// Which requests a listing returns; `None` keeps everything.
#[derive(Debug, Clone, Default)]
pub struct RequestFilter {
    /// The token or key that made them.
    pub credential_id: Option<String>,
    /// The model asked for or the one that answered.
    pub model: Option<String>,
    pub status: Option<StatusFilter>,
    /// Arrived at or after.
    pub since: Option<DateTime<Utc>>,
    /// Arrived before.
    pub until: Option<DateTime<Utc>>,
    pub session_id: Option<String>,
}

/// The request log.
#[async_trait]
pub trait RequestLog: Send + Sync + 'static {
    /// Appends the batches' entries.
    async fn record_requests(
        &self,
        batches: std::sync::Arc<Vec<super::RequestBatch>>,
    ) -> StoreResult<()>;

    /// One page of the workspace's requests, newest first, each with its credential's name.
    async fn list_requests(
        &self,
        workspace_id: &str,
        filter: RequestFilter,
        page: PageRequest,
    ) -> StoreResult<Page<RequestEntry>>;

    /// The newest request of the workspace with that id.
    async fn get_request(&self, workspace_id: &str, id: &str) -> StoreResult<RequestEntry>;

    /// Deletes at most `limit` entries (of any workspace) that arrived before `cutoff`; returns
    /// how many it deleted.
    async fn delete_requests_before(&self, cutoff: DateTime<Utc>, limit: u64) -> StoreResult<u64>;
}
