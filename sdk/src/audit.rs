//! The workspace audit log.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;
use crate::pagination::{ItemStream, MAX_PER_PAGE, Page, page_params, walk};

/// Every action the service writes to the audit log, as of this SDK's version.
pub const ACTIONS: [&str; 14] = [
    "token.created",
    "token.rotated",
    "token.revoked",
    "token.limit_changed",
    "key.created",
    "key.revoked",
    "session.started",
    "session.ended",
    "webhook.created",
    "webhook.deleted",
    "x402.updated",
    "x402.disabled",
    "settings.updated",
    "auth.denied",
];

/// One audit entry: a mutation or a denied request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditEntry {
    /// `aud_...`.
    pub id: String,
    /// `token.created`, `token.rotated`, `token.revoked`, `auth.denied`, ...
    pub action: String,
    /// The credential that made the request.
    pub actor: String,
    /// The token concerned, if any.
    #[serde(default)]
    pub token_id: Option<String>,
    /// The API key concerned (`key.created`, `key.revoked`, `session.*`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The request's `x-request-id`.
    #[serde(default)]
    pub request_id: Option<String>,
    /// When it happened.
    pub created_at: DateTime<Utc>,
    /// What changed, when the action says more (`token.limit_changed`: the limit `before` and
    /// `after`), as the API wrote it (amounts exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<serde_json::value::RawValue>>,
}

/// Which audit entries to list: `ListAudit::new().token_id("tok_...")`.
#[derive(Debug, Clone, Default)]
pub struct ListAudit {
    page: Option<u64>,
    per_page: Option<u32>,
    token_id: Option<String>,
    key_id: Option<String>,
    action: Option<String>,
}

impl ListAudit {
    /// Page 1, 25 a page, every entry.
    pub fn new() -> Self {
        ListAudit::default()
    }

    /// Page number, from 1.
    pub fn page(mut self, page: u64) -> Self {
        self.page = Some(page);
        self
    }

    /// Items per page, 1 to 100.
    pub fn per_page(mut self, per_page: u32) -> Self {
        self.per_page = Some(per_page);
        self
    }

    /// Only entries about this token.
    pub fn token_id(mut self, id: impl Into<String>) -> Self {
        self.token_id = Some(id.into());
        self
    }

    /// Only entries about this API key.
    pub fn key_id(mut self, id: impl Into<String>) -> Self {
        self.key_id = Some(id.into());
        self
    }

    /// Only entries with this action.
    pub fn action(mut self, action: impl Into<String>) -> Self {
        self.action = Some(action.into());
        self
    }

    fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = page_params(self.page, self.per_page);
        if let Some(token_id) = &self.token_id {
            query.push(("token_id", token_id.clone()));
        }
        if let Some(key_id) = &self.key_id {
            query.push(("key_id", key_id.clone()));
        }
        if let Some(action) = &self.action {
            query.push(("action", action.clone()));
        }
        query
    }
}

/// Audit endpoints, from [`Client::audit`].
pub struct Audit<'c> {
    client: &'c Client,
}

impl<'c> Audit<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Audit { client }
    }

    /// One page of entries, newest first. Needs `audit:read`.
    pub async fn list(&self, request: &ListAudit) -> Result<Page<AuditEntry>> {
        self.client
            .get(self.client.url(&["audit"]), &request.query())
            .await
    }

    /// Every entry matching `request` (its page fields are ignored), walking pages lazily.
    pub fn list_all(&self, request: ListAudit) -> ItemStream<'c, AuditEntry> {
        let client = self.client;
        walk(move |page| {
            let query = request.clone().page(page).per_page(MAX_PER_PAGE).query();
            async move { client.get(client.url(&["audit"]), &query).await }
        })
    }
}
