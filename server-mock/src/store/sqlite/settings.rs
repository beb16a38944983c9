//! The `WorkspaceSettings` part of the sqlite store.

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::SqliteStore;
use super::rows::{from_micros, insert_audit, micros};
use crate::store::{AuditEntry, SettingsChange, SettingsRecord, StoreResult, WorkspaceSettings};

const COLUMNS: &str = "workspace_id, store_bodies, updated_at";

fn from_row(row: &Row<'_>) -> rusqlite::Result<SettingsRecord> {
    Ok(SettingsRecord {
        workspace_id: row.get(0)?,
        store_bodies: row.get(1)?,
        updated_at: from_micros(row.get(2)?),
    })
}

fn load(conn: &Connection, workspace_id: &str) -> StoreResult<Option<SettingsRecord>> {
    let sql = format!("SELECT {COLUMNS} FROM workspace_settings WHERE workspace_id = ?1");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![workspace_id], from_row)
        .optional()?)
}

#[async_trait]
impl WorkspaceSettings for SqliteStore {
    async fn workspace_settings(&self, workspace_id: &str) -> StoreResult<Option<SettingsRecord>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| load(conn, &workspace_id))
            .await
    }

    async fn all_workspace_settings(&self) -> StoreResult<Vec<SettingsRecord>> {
        self.engine
            .read(|conn| {
                let sql = format!("SELECT {COLUMNS} FROM workspace_settings");
                let rows = conn
                    .prepare_cached(&sql)?
                    .query_map([], from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })
            .await
    }

    async fn update_workspace_settings(
        &self,
        change: SettingsChange,
        mut audit: AuditEntry,
    ) -> StoreResult<(Option<SettingsRecord>, bool)> {
        self.engine
            .write(Vec::new(), move |conn| {
                let before = load(conn, &change.workspace_id)?;
                let Some(after) = change.apply(before.as_ref()) else {
                    return Ok((before, false));
                };
                conn.execute(
                    "INSERT INTO workspace_settings (workspace_id, store_bodies, updated_at) \
                     VALUES (?1, ?2, ?3) ON CONFLICT (workspace_id) DO UPDATE SET \
                     store_bodies = excluded.store_bodies, updated_at = excluded.updated_at",
                    params![
                        after.workspace_id,
                        after.store_bodies,
                        micros(after.updated_at)
                    ],
                )?;
                audit.details = Some(change.details(before.as_ref(), &after));
                insert_audit(conn, &audit)?;
                Ok((Some(after), true))
            })
            .await
    }
}
