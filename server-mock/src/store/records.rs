//! The records storage keeps and returns, the same for every backend.

use chrono::{DateTime, Utc};

use super::now;
use crate::credits::Credits;
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::Scope;

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
    /// When the presented secret stops working: set when it is the secret a rotation replaced
    /// with an overlap (refused from that instant on).
    pub secret_expires_at: Option<DateTime<Utc>>,
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
    /// Until when the secret the last rotation replaced still works (tokens only; in the past
    /// once it has stopped).
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    /// Its spending limit (tokens only), read with the row: a token without one needs no
    /// further read to be shown.
    pub limit: Option<super::Limit>,
}

/// What a list reads: tokens, or API keys (the same columns; keys have no limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Tokens,
    Keys,
}

impl Listing {
    /// The table listed.
    pub fn table(self) -> &'static str {
        match self {
            Listing::Tokens => "tokens",
            Listing::Keys => "api_keys",
        }
    }
}

/// A token on a page of a list: its record and, when it has a limit, what the limit's current
/// period has spent and reserved, read in the same snapshot as the page.
#[derive(Debug, Clone)]
pub struct ListedToken {
    pub token: TokenRecord,
    pub spend: Option<super::Spend>,
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
    /// The token, if it is active at `at` (to change it): else
    /// [`StoreError::NotFound`](super::StoreError::NotFound) when revoked,
    /// [`StoreError::Expired`](super::StoreError::Expired) when expired.
    pub fn active_at(self, at: DateTime<Utc>) -> super::StoreResult<TokenRecord> {
        match self.status(at) {
            TokenStatus::Revoked => Err(super::StoreError::NotFound),
            TokenStatus::Expired => Err(super::StoreError::Expired),
            TokenStatus::Active => Ok(self),
        }
    }

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
    /// Its spending limit (tokens only).
    pub limit: Option<super::Limit>,
}

impl NewToken {
    /// The token as stored once inserted (never used, never revoked).
    pub fn into_record(self) -> TokenRecord {
        TokenRecord {
            id: self.id,
            workspace_id: self.workspace_id,
            name: self.name,
            scopes: self.scopes,
            created_at: self.created_at,
            expires_at: self.expires_at,
            revoked_at: None,
            last_used_at: None,
            created_by: self.created_by,
            previous_secret_expires_at: None,
            limit: self.limit,
        }
    }
}

/// An API key to insert: the same fields as a token (name, scopes, expiry, creator).
pub type NewApiKey = NewToken;

/// An API key as stored (never its secret): the same fields as a token, and the same statuses.
pub type KeyRecord = TokenRecord;

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
    /// What changed, as JSON text (a limit's old and new values), when the action says more.
    pub details: Option<String>,
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
            details: None,
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
    /// The token that made the request (`None` for an API key or a dashboard session).
    pub token_id: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The deployment of `model` that answered, when the model lists deployments.
    pub deployment: Option<String>,
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
    /// Atomic units of the workspace's x402 token settled for these completions.
    pub x402_settled: alloy_primitives::U256,
    /// The same totals for each deployment of `model` that answered some of them (none for a
    /// model that lists no deployments, and in the grand total).
    pub deployments: Vec<DeploymentTotals>,
}

/// Ledger totals of one deployment within a day and model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeploymentTotals {
    pub name: String,
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

impl<T> Page<T> {
    /// The same page with each item turned into another, stopping at the first error.
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Page<U>, E> {
        Ok(Page {
            items: self.items.into_iter().map(f).collect::<Result<_, _>>()?,
            total: self.total,
        })
    }
}

/// A webhook endpoint (its signing secret sealed with the data directory's key).
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub id: String,
    pub workspace_id: String,
    pub url: String,
    pub events: Vec<String>,
    pub secret_sealed: Vec<u8>,
    pub created_at: DateTime<Utc>,
    /// Disabled after the receiver answered 410 Gone.
    pub disabled: bool,
}

/// An event to deliver: its exact body bytes are stored once and signed per endpoint.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub id: String,
    pub workspace_id: String,
    pub kind: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
}

impl NewEvent {
    /// An event of `kind` about `data`, stamped now, in the body every delivery carries:
    /// `{"id", "type", "created_at", "data"}`.
    pub fn new(workspace_id: &str, kind: &str, data: serde_json::Value) -> NewEvent {
        let id = crate::secrets::new_id("evt_");
        let created_at = now();
        let body = serde_json::json!({"id": id, "type": kind,
            "created_at": crate::format::timestamp(created_at), "data": data});
        NewEvent {
            id,
            workspace_id: workspace_id.to_string(),
            kind: kind.to_string(),
            body: body.to_string(),
            created_at,
        }
    }
}

/// A delivery that is due, with what is needed to attempt it.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub id: i64,
    pub event_id: String,
    pub endpoint_id: String,
    /// Attempts made so far.
    pub attempts: u32,
    pub url: String,
    pub secret_sealed: Vec<u8>,
    pub event_type: String,
    pub body: String,
    pub workspace_id: String,
}

/// One delivery attempt, as `GET /webhooks/:id/deliveries` shows it.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
    pub next_retry_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Builds the event for a token and a notice label.
pub type EventMaker = std::sync::Arc<dyn Fn(&TokenRecord, &str) -> NewEvent + Send + Sync>;

/// What an attempt leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    Retry(DateTime<Utc>),
    /// The retry schedule is exhausted.
    Failed,
    /// The receiver answered 410: disable the endpoint.
    EndpointGone,
}
