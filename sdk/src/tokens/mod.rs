//! Tokens: create, list, get, rotate, revoke, and their spending limits (`limits.rs`).

mod limits;

pub use limits::{ChangeLimits, LimitReset, TokenLimits};

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::pagination::{ItemStream, MAX_PER_PAGE, Page, page_params, walk};
use crate::secret::Secret;

/// A token as the API returns it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Token {
    /// `tok_...`; stays the same across rotation.
    pub id: String,
    /// Unique among the workspace's tokens that are not revoked.
    pub name: String,
    /// The secret: present only in the answers to create and rotate.
    #[serde(rename = "token", default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<Secret>,
    /// Scope names, e.g. `tokens:read`.
    pub scopes: Vec<String>,
    /// Active, expired or revoked.
    pub status: TokenStatus,
    /// When the token was created.
    pub created_at: DateTime<Utc>,
    /// When the token stops working; `None` when it never expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    /// Last use; `None` until first used. Later uses may show up to a minute late.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
    /// The credential that created it (`key_...` or `tok_...`).
    pub created_by: String,
    /// Its spending limit and the current period's spend; `None` when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<TokenLimits>,
    /// While a rotation's overlap lasts: when the secret it replaced stops working.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
}

/// A token's or API key's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenStatus {
    /// Usable.
    Active,
    /// Past `expires_at`; cannot be used or rotated, only revoked.
    Expired,
    /// Revoked for good.
    Revoked,
    /// A status this SDK does not know yet (from a newer server).
    Unknown(String),
}

impl TokenStatus {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            TokenStatus::Active => "active",
            TokenStatus::Expired => "expired",
            TokenStatus::Revoked => "revoked",
            TokenStatus::Unknown(other) => other,
        }
    }
}

impl std::fmt::Display for TokenStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for TokenStatus {
    fn from(value: &str) -> Self {
        match value {
            "active" => TokenStatus::Active,
            "expired" => TokenStatus::Expired,
            "revoked" => TokenStatus::Revoked,
            other => TokenStatus::Unknown(other.to_string()),
        }
    }
}

impl Serialize for TokenStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TokenStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| TokenStatus::from(s.as_str()))
    }
}

/// Body of a create request: `CreateToken::new("ci").scope("tokens:read")`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateToken {
    name: String,
    scopes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<DateTime<Utc>>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::credits::option::serialize"
    )]
    credit_limit: Option<rust_decimal::Decimal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit_reset: Option<LimitReset>,
}

impl CreateToken {
    /// A token named `name`; add at least one scope.
    pub fn new(name: impl Into<String>) -> Self {
        CreateToken {
            name: name.into(),
            scopes: Vec::new(),
            expires_at: None,
            credit_limit: None,
            limit_reset: None,
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

    /// When the token expires (must be in the future); without it the token never expires.
    pub fn expires_at(mut self, at: DateTime<Utc>) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// The most the token may spend through the chat gateway per period, exact (more than 0,
    /// at most 9 decimal places); without it the token has no limit.
    pub fn credit_limit(mut self, credits: rust_decimal::Decimal) -> Self {
        self.credit_limit = Some(credits);
        self
    }

    /// When the limit's period starts again (default [`LimitReset::Never`]); needs
    /// [`CreateToken::credit_limit`].
    pub fn limit_reset(mut self, reset: LimitReset) -> Self {
        self.limit_reset = Some(reset);
        self
    }
}

/// Which page of tokens to list: `ListTokens::new().status(TokenStatus::Active)`.
#[derive(Debug, Clone, Default)]
pub struct ListTokens {
    page: Option<u64>,
    per_page: Option<u32>,
    status: Option<TokenStatus>,
}

impl ListTokens {
    /// Page 1, 25 a page, every status.
    pub fn new() -> Self {
        ListTokens::default()
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

    /// Only tokens in this state.
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

/// What a revocation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevokeOutcome {
    /// The token or key was active or expired and is now revoked.
    Revoked,
    /// The server answered 404: already revoked, unknown, or another workspace's. Either way
    /// it no longer works, which is what the caller wanted.
    AlreadyGone,
}

/// Token endpoints, from [`Client::tokens`].
pub struct Tokens<'c> {
    client: &'c Client,
}

impl<'c> Tokens<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Tokens { client }
    }

    /// Creates a token; the answer holds its secret, shown only this once.
    /// Errors: 409 when the name is in use, 422 for an invalid value, 403 for a scope the caller
    /// lacks. Never retried on a server error.
    pub async fn create(&self, request: &CreateToken) -> Result<Token> {
        self.client
            .post(self.client.url(&["tokens"]), Some(request))
            .await
    }

    /// One page of tokens, newest first.
    pub async fn list(&self, request: &ListTokens) -> Result<Page<Token>> {
        self.client
            .get(self.client.url(&["tokens"]), &request.query())
            .await
    }

    /// Every token matching `request` (its page fields are ignored), walking pages lazily.
    pub fn list_all(&self, request: ListTokens) -> ItemStream<'c, Token> {
        let client = self.client;
        walk(move |page| {
            let query = request.clone().page(page).per_page(MAX_PER_PAGE).query();
            async move { client.get(client.url(&["tokens"]), &query).await }
        })
    }

    /// One token, whatever its status; never its secret. 404 when unknown.
    pub async fn get(&self, id: &str) -> Result<Token> {
        self.client.get(self.client.url(&["tokens", id]), &[]).await
    }

    /// Replaces an active token's secret; id, name, scopes, expiry and limits stay. The old
    /// secret stops working at once. 404 when revoked or unknown, 409 when expired. Never
    /// retried on a server error.
    pub async fn rotate(&self, id: &str) -> Result<Token> {
        self.client
            .post(self.client.url(&["tokens", id, "rotate"]), None::<&()>)
            .await
    }

    /// Replaces an active token's secret and lets the old one work for `overlap` more (at most
    /// 24 hours, whole seconds), so a fleet can pick up the new secret before the old one stops:
    /// [`Token::previous_secret_expires_at`] says when. A later rotation ends the overlap.
    pub async fn rotate_with_overlap(&self, id: &str, overlap: Duration) -> Result<Token> {
        let body = serde_json::json!({
            "previous_secret_expires_in": format!("{}s", overlap.as_secs())
        });
        self.client
            .post(self.client.url(&["tokens", id, "rotate"]), Some(&body))
            .await
    }

    /// Changes a token's spending limit (the only thing about a token that changes in place);
    /// the answer shows the new limit and the period's spend. 404 when revoked or unknown, 409
    /// when expired, 422 for a value out of bounds. Needs `tokens:write`.
    pub async fn change_limits(&self, id: &str, change: &ChangeLimits) -> Result<Token> {
        self.client
            .patch(self.client.url(&["tokens", id]), change)
            .await
    }

    /// Revokes a token for good. The API's own 404 (`not_found`: already revoked, or unknown)
    /// is [`RevokeOutcome::AlreadyGone`], not an error; a 404 without the API's error body
    /// (a proxy, a wrong URL) stays an error.
    pub async fn revoke(&self, id: &str) -> Result<RevokeOutcome> {
        revoke_at(self.client, self.client.url(&["tokens", id])).await
    }
}

/// `DELETE url` of a token or key: the API's own 404 (`not_found`) is
/// [`RevokeOutcome::AlreadyGone`]; any other error stays one.
pub(crate) async fn revoke_at(client: &Client, url: reqwest::Url) -> Result<RevokeOutcome> {
    match client.delete(url).await {
        Ok(()) => Ok(RevokeOutcome::Revoked),
        Err(Error::Api(api)) if api.status == 404 && api.code == "not_found" => {
            Ok(RevokeOutcome::AlreadyGone)
        }
        Err(err) => Err(err),
    }
}
