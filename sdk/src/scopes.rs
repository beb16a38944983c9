//! The scopes a credential can hold.

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;
use crate::pagination::Page;

/// Every scope the service knows, as of this SDK's version: what a credential may hold.
/// [`Scopes::list`] asks the server, with descriptions.
pub const ALL: [&str; 16] = [
    "tokens:read",
    "tokens:write",
    "tokens:rotate",
    "tokens:revoke",
    "audit:read",
    "webhooks:read",
    "webhooks:write",
    "chat:write",
    "usage:read",
    "keys:read",
    "keys:write",
    "x402:read",
    "x402:write",
    "requests:read",
    "settings:read",
    "settings:write",
];

/// A scope and what it allows.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeInfo {
    /// Wire name, e.g. `tokens:rotate`.
    pub name: String,
    /// What it allows.
    pub description: String,
}

/// Scope endpoints, from [`Client::scopes`].
pub struct Scopes<'c> {
    client: &'c Client,
}

impl<'c> Scopes<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Scopes { client }
    }

    /// Every scope, with descriptions (any valid credential may ask).
    pub async fn list(&self) -> Result<Vec<ScopeInfo>> {
        let page: Page<ScopeInfo> = self.client.get(self.client.url(&["scopes"]), &[]).await?;
        Ok(page.data)
    }
}
