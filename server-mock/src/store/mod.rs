//! Storage behind a small trait, so handlers never see SQL and another backend (a server
//! database) can serve the same API. [`sqlite::SqliteStore`] is the embedded default.

mod cache;
mod engine;
mod rows;
mod schema;
pub mod sqlite;
mod usage;
mod webhooks;

pub use webhooks::{Attempt, Delivery, DeliveryOutcome, Endpoint, EventMaker, NewEvent};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::credits::Credits;
use crate::scopes::Scope;
use crate::secrets::{CredentialKind, SecretDigest};

/// The current time at the precision storage keeps (microseconds), so a value shown in a
/// response equals the value a later read shows.
pub fn now() -> DateTime<Utc> {
    use chrono::SubsecRound;
    Utc::now().trunc_subsecs(6)
}

/// A storage failure that is not the caller's fault.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A token with that name is already live in the workspace.
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
}

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        StoreError::Backend(err.to_string())
    }
}

/// `Result` with [`StoreError`].
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// A workspace: owner of tokens, keys and audit entries.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub id: String,
    pub name: String,
}

/// What authentication finds for a presented secret.
#[derive(Debug, Clone)]
pub struct Credential {
    /// `key_...` or `tok_...`.
    pub id: String,
    pub kind: CredentialKind,
    pub workspace_id: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked: bool,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A token as stored (never its secret).
#[derive(Debug, Clone)]
pub struct TokenRecord {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub created_by: String,
}

/// A token's state, computed from its record at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStatus {
    Active,
    Expired,
    Revoked,
}

impl TokenStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenStatus::Active => "active",
            TokenStatus::Expired => "expired",
            TokenStatus::Revoked => "revoked",
        }
    }
}

impl TokenRecord {
    /// The status at `now`: revoked wins, then expiry (no job needs to run for a token to expire).
    pub fn status(&self, now: DateTime<Utc>) -> TokenStatus {
        if self.revoked_at.is_some() {
            TokenStatus::Revoked
        } else if self.expires_at.is_some_and(|at| at <= now) {
            TokenStatus::Expired
        } else {
            TokenStatus::Active
        }
    }
}

/// A token to insert.
#[derive(Debug)]
pub struct NewToken {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub digest: SecretDigest,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub created_by: String,
}

/// An API key to insert.
#[derive(Debug)]
pub struct NewApiKey {
    pub id: String,
    pub workspace_id: String,
    pub scopes: Vec<Scope>,
    pub digest: SecretDigest,
    pub created_at: DateTime<Utc>,
}

/// One audit log entry.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    pub id: String,
    pub workspace_id: String,
    pub action: String,
    pub actor: String,
    pub token_id: Option<String>,
    pub request_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl AuditEntry {
    /// A new entry, stamped now, for `action` by `actor` in `workspace_id`.
    pub fn new(workspace_id: &str, action: &str, actor: &str) -> Self {
        AuditEntry {
            id: crate::secrets::new_id("aud_"),
            workspace_id: workspace_id.to_string(),
            action: action.to_string(),
            actor: actor.to_string(),
            token_id: None,
            request_id: None,
            created_at: now(),
        }
    }

    /// Names the token the entry is about.
    pub fn token(mut self, token_id: Option<String>) -> Self {
        self.token_id = token_id;
        self
    }

    /// Names the request that caused the entry.
    pub fn request(mut self, request_id: Option<String>) -> Self {
        self.request_id = request_id;
        self
    }
}

/// One completion in the credit ledger.
#[derive(Debug, Clone)]
pub struct UsageRecord {
    pub id: String,
    pub workspace_id: String,
    pub request_id: Option<String>,
    pub model: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub credits: Credits,
    pub wallet: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Ledger totals for one day (UTC) and model, or for everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageTotals {
    /// `YYYY-MM-DD`, empty for the grand total.
    pub day: String,
    /// Empty for the grand total.
    pub model: String,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub credits: Credits,
}

/// Which tokens a listing returns.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokenFilter {
    pub status: Option<TokenStatus>,
}

/// Which audit entries a listing returns.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub token_id: Option<String>,
    pub action: Option<String>,
}

/// A page to fetch: 1-based page number and size.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest {
    pub page: u64,
    pub per_page: u64,
}

impl PageRequest {
    /// Rows to skip, saturating for absurd page numbers (which then return no rows).
    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.per_page)
    }
}

/// One page of items and the total across all pages.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

/// What the token API needs from storage. Every mutation writes its audit entry in the same
/// transaction, and returns only once that transaction is durable.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Finds the credential whose secret has this digest.
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>>;

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

    /// Makes deliveries leased by a stopped process due at once (called when delivery starts).
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

    /// Inserts an API key.
    async fn create_api_key(&self, key: NewApiKey) -> StoreResult<()>;

    /// On an empty store, creates `workspace` and `key` in it, in one transaction.
    /// Returns `false` (and changes nothing) when the store already has a workspace.
    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool>;

    /// Finishes pending writes and closes the store.
    async fn close(&self);
}
