//! The scopes a credential can hold.

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;
use crate::pagination::Page;

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
