//! The `UsageLedger` part of storage.

use async_trait::async_trait;

use super::{Page, PageRequest, StoreResult, UsageRecord, UsageTotals};

/// The gateway's credit ledger.
#[async_trait]
pub trait UsageLedger: Send + Sync + 'static {
    /// Appends completions to the credit ledger (batched by the caller).
    async fn record_usage(&self, records: std::sync::Arc<Vec<UsageRecord>>) -> StoreResult<()>;

    /// One page of ledger totals by day and model (newest day first), and the grand total.
    async fn usage_by_day(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)>;
}
