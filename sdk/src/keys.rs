//! API keys: the workspace's own credentials for this API. Create, list and revoke.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;
use crate::pagination::{ItemStream, MAX_PER_PAGE, Page, page_params, walk};
use crate::secret::Secret;
use crate::tokens::{RevokeOutcome, TokenStatus};

/// An API key as the API returns it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApiKey {
    /// `key_...`.
    pub id: String,
    /// Unique among the workspace's keys that are not revoked.
    pub name: String,
    /// The secret (`tka_...`): present only in the answer to create.
    #[serde(rename = "key", default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<Secret>,
    /// Scope names, e.g. `tokens:read`.
    pub scopes: Vec<String>,
    /// Active, expired or revoked (the same states as a token's).
    pub status: TokenStatus,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key stops working; `None` when it never expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    /// Last use; `None` until first used. Later uses may show up to a minute late.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
    /// The credential that created it (`key_...` or `tok_...`), or `admin` for a key made by
    /// the server itself (its first start, or its admin command).
    pub created_by: String,
}

/// Body of a create request: `CreateKey::new("ci").scope("tokens:read")`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateKey {
    name: String,
    scopes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<DateTime<Utc>>,
}

impl CreateKey {
    /// A key named `name`; add at least one scope.
    pub fn new(name: impl Into<String>) -> Self {
        CreateKey {
            name: name.into(),
            scopes: Vec::new(),
            expires_at: None,
        }
    }

    /// Adds a scope (the caller must hold it).
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// Adds several scopes.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// When the key expires (must be in the future); without it the key never expires.
    pub fn expires_at(mut self, at: DateTime<Utc>) -> Self {
        self.expires_at = Some(at);
        self
    }
}

/// Which page of keys to list: `ListKeys::new().status(TokenStatus::Active)`.
#[derive(Debug, Clone, Default)]
pub struct ListKeys {
    page: Option<u64>,
    per_page: Option<u32>,
    status: Option<TokenStatus>,
}

impl ListKeys {
    /// Page 1, 25 a page, every status.
    pub fn new() -> Self {
        ListKeys::default()
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

    /// Only keys in this state.
    pub fn status(mut self, status: TokenStatus) -> Self {
        self.status = Some(status);
        self
    }

    fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = page_params(self.page, self.per_page);
        if let Some(status) = &self.status {
            query.push(("status", status.as_str().to_string()));
        }
        query
    }
}

/// API key endpoints, from [`Client::keys`]. Reading needs `keys:read`, the rest `keys:write`.
pub struct Keys<'c> {
    client: &'c Client,
}

impl<'c> Keys<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Keys { client }
    }

    /// Creates a key; the answer holds its secret, shown only this once.
    /// Errors: 409 when the name is in use, 422 for an invalid value, 403 for a scope the caller
    /// lacks. Never retried on a server error.
    pub async fn create(&self, request: &CreateKey) -> Result<ApiKey> {
        self.client
            .post(self.client.url(&["keys"]), Some(request))
            .await
    }

    /// One page of keys, newest first; never a secret.
    pub async fn list(&self, request: &ListKeys) -> Result<Page<ApiKey>> {
        self.client
            .get(self.client.url(&["keys"]), &request.query())
            .await
    }

    /// Every key matching `request` (its page fields are ignored), walking pages lazily.
    pub fn list_all(&self, request: ListKeys) -> ItemStream<'c, ApiKey> {
        let client = self.client;
        walk(move |page| {
            let query = request.clone().page(page).per_page(MAX_PER_PAGE).query();
            async move { client.get(client.url(&["keys"]), &query).await }
        })
    }

    /// Revokes a key for good; its secret stops working at once. The API's own 404
    /// (`not_found`: already revoked, or unknown) is [`RevokeOutcome::AlreadyGone`]. A key
    /// cannot revoke itself: revoking the key this client uses is a 409 error
    /// ([`crate::Error::is_conflict`]), so a workspace always keeps the key in use.
    pub async fn revoke(&self, id: &str) -> Result<RevokeOutcome> {
        crate::tokens::revoke_at(self.client, self.client.url(&["keys", id])).await
    }
}
