//! The `AuditLog` part of storage.

use async_trait::async_trait;

use super::{AuditEntry, AuditFilter, Page, PageRequest, StoreResult};

/// The audit log: entries written on their own (refusals, webhook changes, sessions) and read back.
#[async_trait]
pub trait AuditLog: Send + Sync + 'static {
    /// Appends an audit entry (for requests that changed nothing, such as denials).
    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()>;

    /// One page of the workspace's audit log, newest first.
    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>>;
}
