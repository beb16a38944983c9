//! The `WorkspaceSettings` part of the postgres store. An update locks the workspace's row, so
//! two instances changing it at once write one audit entry each, each with the right "before".

use async_trait::async_trait;
use tokio_postgres::Row;

use super::PostgresStore;
use super::audit::insert_audit;
use crate::store::{AuditEntry, SettingsChange, SettingsRecord, StoreResult, WorkspaceSettings};

const COLUMNS: &str = "workspace_id, store_bodies, updated_at";

fn from_row(row: &Row) -> SettingsRecord {
    SettingsRecord {
        workspace_id: row.get(0),
        store_bodies: row.get(1),
        updated_at: row.get(2),
    }
}

#[async_trait]
impl WorkspaceSettings for PostgresStore {
    async fn workspace_settings(&self, workspace_id: &str) -> StoreResult<Option<SettingsRecord>> {
        with_client!(self, |c| {
            let sql = format!("SELECT {COLUMNS} FROM workspace_settings WHERE workspace_id = $1");
            let row = c
                .query_opt(&c.prepare_cached(&sql).await?, &[&workspace_id])
                .await?;
            Ok(row.as_ref().map(from_row))
        })
    }

    async fn all_workspace_settings(&self) -> StoreResult<Vec<SettingsRecord>> {
        with_client!(self, |c| {
            let sql = format!("SELECT {COLUMNS} FROM workspace_settings");
            let rows = c.query(&c.prepare_cached(&sql).await?, &[]).await?;
            Ok(rows.iter().map(from_row).collect())
        })
    }

    async fn update_workspace_settings(
        &self,
        change: SettingsChange,
        audit: AuditEntry,
    ) -> StoreResult<(Option<SettingsRecord>, bool)> {
        in_transaction!(self, |tx| {
            // The workspace locked (without blocking rows that merely refer to it), so
            // concurrent updates queue behind each other and each sees the one before.
            tx.execute(
                "SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE",
                &[&change.workspace_id],
            )
            .await?;
            let sql = format!("SELECT {COLUMNS} FROM workspace_settings WHERE workspace_id = $1");
            let before = tx
                .query_opt(&sql, &[&change.workspace_id])
                .await?
                .as_ref()
                .map(from_row);
            match change.apply(before.as_ref()) {
                None => (before, false),
                Some(after) => {
                    tx.execute(
                        "INSERT INTO workspace_settings (workspace_id, store_bodies, updated_at) \
                         VALUES ($1, $2, $3) ON CONFLICT (workspace_id) DO UPDATE SET \
                         store_bodies = EXCLUDED.store_bodies, updated_at = EXCLUDED.updated_at",
                        &[&after.workspace_id, &after.store_bodies, &after.updated_at],
                    )
                    .await?;
                    let mut audit = audit;
                    audit.details = Some(change.details(before.as_ref(), &after));
                    insert_audit(&tx, &audit).await?;
                    (Some(after), true)
                }
            }
        })
    }
}
