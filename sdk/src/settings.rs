//! The workspace's settings: today whether the request log keeps request and answer bodies
//! (`store_bodies`, redacted and capped by the server).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;

/// The workspace's settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Settings {
    /// Whether the request log keeps this workspace's request and answer bodies (secrets
    /// redacted, each cut at the server's cap). Until the workspace chooses, the server's
    /// default (`--request-log-bodies`).
    pub store_bodies: bool,
    /// When the workspace last changed its settings; `None` while it never chose and the
    /// server's defaults apply.
    #[serde(default)]
    pub updated_at: Option<DateTime<Utc>>,
}

/// Body of [`SettingsApi::update`]: `UpdateSettings::new().store_bodies(true)`. A field left
/// `None` keeps its value.
#[derive(Debug, Clone, Default, Serialize)]
pub struct UpdateSettings {
    /// Keep request and answer bodies in the request log (`Some(true)`), keep none
    /// (`Some(false)`), or leave as is (`None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_bodies: Option<bool>,
}

impl UpdateSettings {
    /// A change that changes nothing; add the fields to set.
    pub fn new() -> Self {
        UpdateSettings::default()
    }

    /// Sets whether the request log keeps bodies.
    pub fn store_bodies(mut self, on: bool) -> Self {
        self.store_bodies = Some(on);
        self
    }
}

/// Settings endpoints, from [`Client::settings`].
pub struct SettingsApi<'c> {
    client: &'c Client,
}

impl<'c> SettingsApi<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        SettingsApi { client }
    }

    /// The workspace's settings. Needs `settings:read`.
    pub async fn get(&self) -> Result<Settings> {
        self.client.get(self.client.url(&["settings"]), &[]).await
    }

    /// Changes the fields `change` sets and answers the settings now in place; a change is
    /// audited as `settings.updated`. The server applies it at once on the instance that
    /// answered, within a few seconds on others sharing its database. Needs `settings:write`.
    pub async fn update(&self, change: UpdateSettings) -> Result<Settings> {
        self.client
            .put(self.client.url(&["settings"]), &change)
            .await
    }
}
