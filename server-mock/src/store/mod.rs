//! Storage behind a small trait, so handlers never see SQL. Two backends serve it:
//! [`sqlite::SqliteStore`], the embedded default (one process, one data directory), and
//! [`postgres::PostgresStore`], one database shared by any number of server instances.

mod cache;
pub mod copy;
mod keys;
pub mod postgres;
mod records;
pub mod sqlite;

pub use keys::*;
pub use records::*;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::secrets::{CredentialKind, SecretDigest};

/// The current time at the precision storage keeps (microseconds), so a value shown in a
/// response equals the value a later read shows.
pub fn now() -> DateTime<Utc> {
    use chrono::SubsecRound;
    Utc::now().trunc_subsecs(6)
}

/// Name of the stored webhook key check (see [`Store::webhook_key_check`]).
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
}

/// `Result` with [`StoreError`].
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// What the token API needs from storage. Every mutation writes its audit entry in the same
/// transaction, and returns only once that transaction is durable. API keys and dashboard
/// sessions are in [`KeyStore`].
#[async_trait]
pub trait Store: KeyStore + Send + Sync + 'static {
    /// Finds the credential whose secret has this digest. A shared backend ([`Store::shared`])
    /// may answer from a cache that is brought up to date only when the request is counted
    /// ([`WindowCounter::add`]): whoever counts a request there calls
    /// [`Store::confirm_credential`] after counting, and only then trusts the credential (or
    /// reads tokens).
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>>;

    /// The credential `find_credential` found, as it stands once the request was counted:
    /// unchanged, changed (revoked), or gone (its secret replaced: `None`).
    async fn confirm_credential(
        &self,
        _kind: CredentialKind,
        _digest: SecretDigest,
        found: Credential,
    ) -> StoreResult<Option<Credential>> {
        Ok(Some(found))
    }

    /// Inserts a token; [`StoreError::NameTaken`] when a live token has its name.
    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord>;

    /// One page of the workspace's tokens, newest first, with status evaluated at `now`.
    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<TokenRecord>>;

    /// A token of the workspace, whatever its status.
    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>>;

    /// Replaces the secret of an active token atomically, and queues `event` for the
    /// workspace's webhook endpoints in the same transaction.
    /// [`StoreError::NotFound`] when unknown or revoked, [`StoreError::Expired`] when expired.
    async fn rotate_token(
        &self,
        workspace_id: &str,
        id: &str,
        digest: SecretDigest,
        audit: AuditEntry,
        event: NewEvent,
    ) -> StoreResult<TokenRecord>;

    /// Revokes an active or expired token; [`StoreError::NotFound`] when unknown or revoked.
    async fn revoke_token(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()>;

    /// Appends an audit entry (for requests that changed nothing, such as denials).
    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()>;

    /// One page of the workspace's audit log, newest first.
    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>>;

    /// Appends completions to the credit ledger (batched by the caller).
    async fn record_usage(&self, records: std::sync::Arc<Vec<UsageRecord>>) -> StoreResult<()>;

    /// One page of ledger totals by day and model (newest day first), and the grand total.
    async fn usage_by_day(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)>;

    /// Records when tokens were last used (batched by the caller).
    async fn record_last_used(&self, uses: Vec<(String, DateTime<Utc>)>) -> StoreResult<()>;

    /// Adds a webhook endpoint.
    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()>;

    /// One page of the workspace's live endpoints, newest first.
    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>>;

    /// A live endpoint of the workspace.
    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>>;

    /// Deletes an endpoint and abandons its pending deliveries; [`StoreError::NotFound`] if none.
    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()>;

    /// Queues `event` for one endpoint only (a test event).
    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()>;

    /// Writes due `token.expiring` notices (see the webhooks module); returns how many.
    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: EventMaker,
    ) -> StoreResult<usize>;

    /// Makes deliveries leased by a process that has stopped due at once (called when delivery
    /// starts; with a shared backend, attempts of an instance that died are also taken over by
    /// [`Store::claim_due`] without waiting for their lease to run out).
    async fn release_leases(&self) -> StoreResult<()>;

    /// At most `limit` deliveries due at `now` to endpoints neither deleted nor disabled,
    /// leased until `lease_until`; never more than `webhooks::delivery::PER_ENDPOINT` leased at
    /// once for one endpoint.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>>;

    /// Records an attempt of delivery `delivery_id` and its outcome; a delivery abandoned
    /// meanwhile (its endpoint deleted or disabled) stays abandoned.
    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()>;

    /// One page of an endpoint's attempts, newest first.
    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>>;

    /// Creates a workspace; [`StoreError::WorkspaceExists`] when the name is taken.
    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()>;

    /// Looks a workspace up by name.
    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>>;

    /// On an empty store, creates `workspace` and `key` in it, in one transaction.
    /// Returns `false` (and changes nothing) when the store already has a workspace.
    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool>;

    /// The webhook key check stored with the data (a value sealed with the key that seals the
    /// endpoints' secrets): stores `proposed` when there is none yet, and returns what is stored.
    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>>;

    /// Whether the database answers now (`GET /healthz`).
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

    /// Finishes pending writes and closes the store.
    async fn close(&self);
}

/// Counts requests per bucket and fixed window for every instance of a shared backend.
#[async_trait]
pub trait WindowCounter: Send + Sync + 'static {
    /// Adds one request to `bucket` in window `window` (minutes since the epoch); returns the
    /// window's count including it. Before answering, the store has caught up with every
    /// change acknowledged (by any instance) before the call.
    async fn add(&self, bucket: String, window: i64) -> StoreResult<u64>;
}
