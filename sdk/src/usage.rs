//! The workspace's credit ledger.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::credits;
use crate::error::Result;
use crate::pagination::{MAX_PER_PAGE, Page, PageMeta, page_params};

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
    /// Credits consumed, exact: sums of these do not drift.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub credits: Decimal,
    /// Atomic units of the workspace's x402 token that agents' payments settled for these
    /// completions; `None` when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x402_settled: Option<String>,
    /// The same totals for each deployment of `model` that answered some of them; empty for a
    /// model that lists no deployments, and in the grand total.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deployments: Vec<DeploymentUsage>,
}

/// Ledger totals of one deployment within a day and model.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeploymentUsage {
    /// The deployment's name.
    pub deployment: String,
    /// Completions.
    pub requests: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Credits consumed, exact.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub credits: Decimal,
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

/// Every row of the ledger by day and model (newest day first) and the grand total.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageSummary {
    /// Totals by day and model, from every page.
    pub data: Vec<UsageTotals>,
    /// Everything, as the last page read reported it.
    pub totals: UsageTotals,
}

/// Usage endpoints, from [`Client::usage`]: the workspace's ledger, or with
/// [`UsageApi::token`] the requests one token made.
pub struct UsageApi<'c> {
    client: &'c Client,
    token_id: Option<String>,
}

impl<'c> UsageApi<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        UsageApi {
            client,
            token_id: None,
        }
    }

    /// Only the requests made with the token `id` (`tok_...`); a token the workspace does not
    /// have is a 404.
    pub fn token(mut self, id: impl Into<String>) -> Self {
        self.token_id = Some(id.into());
        self
    }

    /// The first 100 day-and-model rows and the grand total. Needs `usage:read`.
    /// [`UsageApi::all`] reads every row.
    pub async fn get(&self) -> Result<UsageReport> {
        self.page(1, MAX_PER_PAGE).await
    }

    /// One page of day-and-model rows (`page` from 1, `per_page` 1 to 100) and the grand total.
    pub async fn page(&self, page: u64, per_page: u32) -> Result<UsageReport> {
        let mut query = page_params(Some(page), Some(per_page));
        if let Some(id) = &self.token_id {
            query.push(("token_id", id.clone()));
        }
        self.client.get(self.client.url(&["usage"]), &query).await
    }

    /// Every day-and-model row, walking all pages, and the grand total. Needs `usage:read`.
    pub async fn all(&self) -> Result<UsageSummary> {
        let mut data = Vec::new();
        let mut number = 1;
        loop {
            let report = self.page(number, MAX_PER_PAGE).await?;
            let page = Page {
                data: report.data,
                meta: report.meta,
            };
            let more = page.has_next();
            data.extend(page.data);
            if !more {
                return Ok(UsageSummary {
                    data,
                    totals: report.totals,
                });
            }
            number += 1;
        }
    }
}
