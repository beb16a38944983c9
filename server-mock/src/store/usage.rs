//! The `UsageLedger` part of storage.

use std::collections::HashMap;

use alloy_primitives::U256;
use async_trait::async_trait;

use super::{DeploymentTotals, Page, PageRequest, StoreResult, UsageRecord, UsageTotals};

/// `rows` with the atomic units x402 payments settled for each (`paid`, by UTC day and model).
pub fn with_settled(
    rows: Vec<UsageTotals>,
    paid: &HashMap<(String, String), U256>,
) -> Vec<UsageTotals> {
    rows.into_iter()
        .map(|mut row| {
            let key = (row.day.clone(), row.model.clone());
            row.x402_settled = paid.get(&key).copied().unwrap_or_default();
            row
        })
        .collect()
}

/// The first moment (UTC) of the oldest day among `rows`.
pub fn oldest_day(rows: &[UsageTotals]) -> Option<chrono::DateTime<chrono::Utc>> {
    let day = rows.iter().map(|row| row.day.as_str()).min()?;
    let day = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// `rows` with each one's deployments' totals from `split` (day, model, a deployment's
/// totals), by name.
pub fn with_deployments(rows: &mut [UsageTotals], split: Vec<(String, String, DeploymentTotals)>) {
    let mut split = split;
    split.sort_by(|a, b| a.2.name.cmp(&b.2.name));
    for (day, model, totals) in split {
        if let Some(row) = rows.iter_mut().find(|r| r.day == day && r.model == model) {
            row.deployments.push(totals);
        }
    }
}

/// The gateway's credit ledger.
#[async_trait]
pub trait UsageLedger: Send + Sync + 'static {
    /// Appends completions to the credit ledger (batched by the caller).
    async fn record_usage(&self, records: std::sync::Arc<Vec<UsageRecord>>) -> StoreResult<()>;

    /// One page of ledger totals by day and model (newest day first), and the grand total, of
    /// the workspace or (`token_id`) of the requests one of its tokens made.
    async fn usage_by_day(
        &self,
        workspace_id: &str,
        token_id: Option<&str>,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)>;
}
