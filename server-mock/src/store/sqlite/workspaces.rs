//! The `Workspaces` part of the sqlite store.

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use super::rows::{insert_api_key, insert_workspace};
use crate::store::{NewApiKey, StoreResult, Workspace, Workspaces};

#[async_trait]
impl Workspaces for SqliteStore {
    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert_workspace(conn, &workspace))
            .await
    }

    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        let name = name.to_string();
        self.engine
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        "SELECT id, name FROM workspaces WHERE name = ?1",
                        params![name],
                        |row| {
                            Ok(Workspace {
                                id: row.get(0)?,
                                name: row.get(1)?,
                            })
                        },
                    )
                    .optional()?)
            })
            .await
    }

    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool> {
        self.engine
            .write(Vec::new(), move |conn| {
                let existing: i64 =
                    conn.query_row("SELECT COUNT(*) FROM workspaces", [], |r| r.get(0))?;
                if existing > 0 {
                    return Ok(false);
                }
                insert_workspace(conn, &workspace)?;
                insert_api_key(conn, &key)?;
                Ok(true)
            })
            .await
    }
}
