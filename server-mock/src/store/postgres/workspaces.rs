//! The `Workspaces` part of the postgres store.

use super::error::violates;
use super::keys::insert_api_key;
use super::schema::{LOCK_SPACE, SETUP_LOCK};
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::Utc;
use deadpool_postgres::GenericClient;

use super::PostgresStore;
use crate::store::{NewApiKey, StoreResult, Workspace, Workspaces};

pub(super) async fn insert_workspace(
    c: &impl GenericClient,
    workspace: &Workspace,
) -> StoreResult<()> {
    let sql = "INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)";
    let now = Utc::now();
    match c
        .execute(sql, &[&workspace.id, &workspace.name, &now])
        .await
    {
        Err(err) if violates(&err, "workspaces_name_key") => Err(StoreError::WorkspaceExists),
        other => other.map(|_| ()).map_err(Into::into),
    }
}

pub(super) async fn workspace_by_name(
    c: &impl GenericClient,
    name: &str,
) -> StoreResult<Option<Workspace>> {
    let row = c
        .query_opt("SELECT id, name FROM workspaces WHERE name = $1", &[&name])
        .await?;
    Ok(row.map(|row| Workspace {
        id: row.get(0),
        name: row.get(1),
    }))
}

/// On an empty database, creates `workspace` and `key` (in the caller's transaction); `false`
/// when there is a workspace already. Instances starting together wait for each other here: one
/// creates, the others see it.
pub(super) async fn bootstrap(
    c: &impl GenericClient,
    workspace: &Workspace,
    key: &NewApiKey,
) -> StoreResult<bool> {
    c.execute(
        "SELECT pg_advisory_xact_lock($1, $2)",
        &[&LOCK_SPACE, &SETUP_LOCK],
    )
    .await?;
    let existing: i64 = c
        .query_one("SELECT COUNT(*) FROM workspaces", &[])
        .await?
        .get(0);
    if existing > 0 {
        return Ok(false);
    }
    insert_workspace(c, workspace).await?;
    insert_api_key(c, key).await?;
    Ok(true)
}

#[async_trait]
impl Workspaces for PostgresStore {
    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()> {
        with_client!(self, |c| insert_workspace(&c, &workspace).await)
    }

    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        with_client!(self, |c| workspace_by_name(&c, name).await)
    }

    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool> {
        in_transaction!(self, |tx| bootstrap(&tx, &workspace, &key).await?)
    }
}
