//! The `AuditLog` part of the postgres store.

use super::db::limits;
use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use crate::store::{AuditEntry, AuditFilter, AuditLog, Page, PageRequest, StoreResult};

pub(super) fn audit_params(entry: &AuditEntry) -> [&(dyn ToSql + Sync); 8] {
    [
        &entry.id,
        &entry.workspace_id,
        &entry.action,
        &entry.actor,
        &entry.token_id,
        &entry.request_id,
        &entry.created_at,
        &entry.details,
    ]
}

pub(super) async fn insert_audit(c: &impl GenericClient, entry: &AuditEntry) -> StoreResult<()> {
    let sql = "INSERT INTO audit_log (id, workspace_id, action, actor, token_id, request_id,
                                      created_at, details)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
    c.execute(&c.prepare_cached(sql).await?, &audit_params(entry))
        .await?;
    Ok(())
}

/// One page of the workspace's audit log, newest first.
pub(super) async fn list_audit(
    c: &impl GenericClient,
    workspace_id: &str,
    filter: &AuditFilter,
    page: PageRequest,
) -> StoreResult<Page<AuditEntry>> {
    // NULL filters match everything.
    let condition = "workspace_id = $1 AND ($2::text IS NULL OR token_id = $2)
                     AND ($3::text IS NULL OR action = $3)";
    let (limit, offset) = limits(page);
    let sql = format!(
        "SELECT id, workspace_id, action, actor, token_id, request_id, created_at, COUNT(*) OVER (),
                details
         FROM audit_log WHERE {condition} ORDER BY seq DESC LIMIT $4 OFFSET $5"
    );
    let params: [&(dyn ToSql + Sync); 5] = [
        &workspace_id,
        &filter.token_id,
        &filter.action,
        &limit,
        &offset,
    ];
    let rows = c.query(&c.prepare_cached(&sql).await?, &params).await?;
    let total = match rows.first() {
        Some(row) => row.get::<_, i64>(7),
        None => {
            let sql = format!("SELECT COUNT(*) FROM audit_log WHERE {condition}");
            c.query_one(&c.prepare_cached(&sql).await?, &params[..3])
                .await?
                .get(0)
        }
    };
    let items = rows
        .iter()
        .map(|row| AuditEntry {
            id: row.get(0),
            workspace_id: row.get(1),
            action: row.get(2),
            actor: row.get(3),
            token_id: row.get(4),
            request_id: row.get(5),
            created_at: row.get(6),
            details: row.get(8),
        })
        .collect();
    Ok(Page {
        items,
        total: total as u64,
    })
}

#[async_trait]
impl AuditLog for PostgresStore {
    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        with_client!(self, |c| insert_audit(&c, &entry).await)
    }

    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        with_client!(self, |c| list_audit(&c, workspace_id, &filter, page).await)
    }
}
