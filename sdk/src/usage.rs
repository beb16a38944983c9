//! The workspace's credit ledger.

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;
use crate::pagination::PageMeta;

/// Ledger totals for one UTC day and model, or for everything.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageTotals {
    /// `YYYY-MM-DD`; `None` in the grand total.
    #[serde(default)]
    pub date: Option<String>,
    /// The model; `None` in the grand total.
    #[serde(default)]
    pub model: Option<String>,
    /// Completions.
    pub requests: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Credits consumed.
    pub credits: f64,
}

/// One page of totals by day and model (newest day first) and the grand total.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageReport {
    /// Totals by day and model.
    pub data: Vec<UsageTotals>,
    /// Where this page sits.
    pub meta: PageMeta,
    /// Everything.
    pub totals: UsageTotals,
}

/// Usage endpoints, from [`Client::usage`].
pub struct UsageApi<'c> {
    client: &'c Client,
}

impl<'c> UsageApi<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        UsageApi { client }
    }

    /// The first 100 day-and-model rows and the grand total. Needs `usage:read`.
    pub async fn get(&self) -> Result<UsageReport> {
        let query = [("per_page", "100".to_string())];
        self.client.get(self.client.url(&["usage"]), &query).await
    }
}
