//! The `AuditLog` part of the sqlite store.

use async_trait::async_trait;

use super::SqliteStore;
use super::rows::{self, insert_audit};
use crate::store::{AuditEntry, AuditFilter, AuditLog, Page, PageRequest, StoreResult};

#[async_trait]
impl AuditLog for SqliteStore {
    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert_audit(conn, &entry))
            .await
    }

    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| rows::list_audit(conn, workspace_id, filter, page))
            .await
    }
}
