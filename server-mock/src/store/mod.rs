//! Storage behind small traits, one per part, so handlers never see SQL. Two backends serve it:
//! [`sqlite::SqliteStore`], the embedded default (one process, one data directory), and
//! [`postgres::PostgresStore`], one database shared by any number of server instances.

pub mod actions;
mod audit;
mod cache;
pub mod copy;
mod keys;
mod limits;
pub mod postgres;
mod records;
pub mod request_batch;
mod requests;
mod scope;
mod settings;
pub mod sqlite;
mod tokens;
mod usage;
mod webhooks;
mod workspaces;
mod x402;

pub use audit::AuditLog;
pub use keys::*;
pub use limits::*;
pub use records::*;
pub use request_batch::{EntryRef, RequestBatch};
pub use requests::{RequestEntry, RequestFilter, RequestLog, StatusFilter, count_column};
pub use scope::*;
pub use settings::{SettingsChange, SettingsRecord, WorkspaceSettings};
pub use tokens::TokenStore;
pub use usage::{UsageLedger, oldest_day, with_deployments, with_settled};
pub use webhooks::WebhookOutbox;
pub use workspaces::Workspaces;
pub use x402::{PaymentNonce, PaymentRecord, PaymentStatus, X402Settings, X402Store};

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::telemetry::Outage;

/// The current time at the precision storage keeps (microseconds), so a value shown in a
/// response equals the value a later read shows.
pub fn now() -> DateTime<Utc> {
    use chrono::SubsecRound;
    let now = Utc::now();
    match crate::clock::offset() {
        Some(offset) => now + offset,
        None => now,
    }
    .trunc_subsecs(6)
}

/// Name of the stored webhook key check (see [`WebhookOutbox::webhook_key_check`]).
pub const WEBHOOK_KEY_CHECK: &str = "webhook_key_check";

/// A storage failure that is not the caller's fault.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// A token (or API key) with that name is already live in the workspace.
    #[error("name already in use")]
    NameTaken,
    /// No such live record in the workspace.
    #[error("not found")]
    NotFound,
    /// The token exists but has expired.
    #[error("token has expired")]
    Expired,
    /// The change asked for is not possible given what is stored (the message says why): 409.
    #[error("{0}")]
    Invalid(String),
    /// The workspace name is taken.
    #[error("workspace already exists")]
    WorkspaceExists,
    /// The backend failed (I/O, corruption, a stopped writer).
    #[error("backend: {0}")]
    Backend(String),
    /// The database cannot be reached now (connection lost or refused, or it did not answer in
    /// time); the same request may succeed once it is back.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// Every connection of the pool stayed busy for the acquire timeout: the database answers,
    /// this instance has more work than connections (503 all the same).
    #[error("database busy: {0}")]
    Busy(String),
    /// The database was migrated by a newer server than this one, to a schema it does not know.
    #[error(
        "the database was migrated by a newer tokctl-server (schema version {found}; this one \
         knows {known}): upgrade this server"
    )]
    NewerSchema { found: i64, known: usize },
}

impl StoreError {
    /// Whether the database could not be reached (an outage, not a fault).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// Logs a background task's failure to do `what`: at `error`, or at `debug` while the
    /// database is away (the outage is logged once, where it is noticed).
    pub fn log(&self, what: &str) {
        match self.is_unavailable() {
            true => tracing::debug!(error = %self, "{what}"),
            false => tracing::error!(error = %self, "{what}"),
        }
    }
}

/// `Result` with [`StoreError`].
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// What the server holds: every part of storage, from one backend. Handlers name the part
/// they use ([`TokenStore`], [`AuditLog`], [`UsageLedger`], [`WebhookOutbox`], [`Workspaces`],
/// [`KeyStore`]); this bundle adds what concerns the backend as a whole.
#[async_trait]
pub trait Store:
    TokenStore
    + AuditLog
    + UsageLedger
    + WebhookOutbox
    + Workspaces
    + KeyStore
    + X402Store
    + SpendLimits
    + RequestLog
    + WorkspaceSettings
    + Send
    + Sync
    + 'static
{
    /// Whether the database answers now, with a schema this server knows (`GET /readyz`).
    async fn health(&self) -> StoreResult<()> {
        Ok(())
    }

    /// Whether other server instances may serve the same data. Then what one instance holds
    /// only in memory (ledger records not yet written, request counts) is invisible to the
    /// others, so it is written or counted in the database instead.
    fn shared(&self) -> bool {
        false
    }

    /// The request counter every instance shares, for a shared backend.
    fn window_counter(&self) -> Option<Arc<dyn WindowCounter>> {
        None
    }

    /// Its connection pools now, for the metrics (none on SQLite: one writer thread, and
    /// readers opened as needed).
    fn pools(&self) -> Vec<PoolStatus> {
        Vec::new()
    }

    /// How the server reaches its database, in words (`TLS 1.3, certificate verified for
    /// db.example.com`, `not encrypted`), for the readiness answer; `None` when it is a file.
    fn connection(&self) -> Option<String> {
        None
    }

    /// Whether its database is reachable, as its operations find it: the outage's log lines
    /// and the count of requests refused meanwhile; `None` when it is a file.
    fn outage(&self) -> Option<Arc<Outage>> {
        None
    }

    /// Finishes pending writes and closes the store.
    async fn close(&self);
}

/// A connection pool's figures.
#[derive(Debug, Clone, Copy)]
pub struct PoolStatus {
    /// `requests` (request work) or `fast` (the round trips many requests share).
    pub name: &'static str,
    /// Connections it may open.
    pub max: usize,
    /// Open and handed out.
    pub used: usize,
    /// Open and waiting to be handed out.
    pub idle: usize,
    /// Requests waiting for a connection.
    pub waiting: usize,
}

/// Counts requests per bucket and fixed window for every instance of a shared backend.
#[async_trait]
pub trait WindowCounter: Send + Sync + 'static {
    /// Adds one request to `bucket` in window `window` (minutes since the epoch); returns the
    /// window's count including it. Before answering, the store has caught up with every
    /// change acknowledged (by any instance) before the call.
    async fn add(&self, bucket: String, window: i64) -> StoreResult<u64>;
}
