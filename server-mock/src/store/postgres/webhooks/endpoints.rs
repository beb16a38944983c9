//! The SQL of webhook endpoints: added, listed, read and deleted.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::super::db::limits;
use crate::store::{Endpoint, Page, PageRequest, StoreError, StoreResult};
use chrono::{DateTime, Utc};

const ENDPOINT_COLUMNS: &str =
    "id, workspace_id, url, events, secret_sealed, created_at, disabled_at IS NOT NULL";

fn endpoint(row: &Row) -> Endpoint {
    Endpoint {
        id: row.get(0),
        workspace_id: row.get(1),
        url: row.get(2),
        events: row
            .get::<_, &str>(3)
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        secret_sealed: row.get(4),
        created_at: row.get(5),
        disabled: row.get(6),
    }
}

pub(in crate::store) async fn insert_endpoint(
    c: &impl GenericClient,
    e: &Endpoint,
) -> StoreResult<()> {
    c.execute(
        "INSERT INTO webhook_endpoints (id, workspace_id, url, events, secret_sealed, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &e.id,
            &e.workspace_id,
            &e.url,
            &e.events.join(" "),
            &e.secret_sealed,
            &e.created_at,
        ],
    )
    .await?;
    Ok(())
}

pub(in crate::store) async fn list_endpoints(
    c: &impl GenericClient,
    workspace_id: &str,
    page: PageRequest,
) -> StoreResult<Page<Endpoint>> {
    let (limit, offset) = limits(page);
    let sql = format!(
        "SELECT {ENDPOINT_COLUMNS}, COUNT(*) OVER () FROM webhook_endpoints
         WHERE workspace_id = $1 AND deleted_at IS NULL
         ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    let rows = c
        .query(
            &c.prepare_cached(&sql).await?,
            &[&workspace_id, &limit, &offset],
        )
        .await?;
    let total = match rows.first() {
        Some(row) => row.get::<_, i64>(7),
        None => c
            .query_one(
                "SELECT COUNT(*) FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL",
                &[&workspace_id],
            )
            .await?
            .get(0),
    };
    Ok(Page {
        items: rows.iter().map(endpoint).collect(),
        total: total as u64,
    })
}

pub(in crate::store) async fn get_endpoint(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
) -> StoreResult<Option<Endpoint>> {
    let sql = format!(
        "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints
         WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL"
    );
    let row = c
        .query_opt(&c.prepare_cached(&sql).await?, &[&id, &workspace_id])
        .await?;
    Ok(row.as_ref().map(endpoint))
}

/// Soft-deletes an endpoint and abandons its pending deliveries (in the caller's transaction).
pub(in crate::store) async fn delete_endpoint(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let changed = c
        .execute(
            "UPDATE webhook_endpoints SET deleted_at = $1
             WHERE id = $2 AND workspace_id = $3 AND deleted_at IS NULL",
            &[&now, &id, &workspace_id],
        )
        .await?;
    if changed == 0 {
        return Err(StoreError::NotFound);
    }
    c.execute(
        "UPDATE webhook_deliveries SET state = 'abandoned', leased_by = NULL
         WHERE endpoint_id = $1 AND state = 'pending'",
        &[&id],
    )
    .await?;
    Ok(())
}
