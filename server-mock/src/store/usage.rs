//! The `UsageLedger` part of storage.

use std::collections::HashMap;

use alloy_primitives::U256;
use async_trait::async_trait;

use super::{Page, PageRequest, StoreResult, UsageRecord, UsageTotals};

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
