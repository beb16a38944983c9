//! The SQL of webhook endpoints: added, listed, read and deleted.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::super::rows::{from_micros, micros, page_bounds};
use crate::store::{Endpoint, Page, PageRequest, StoreError, StoreResult};
use chrono::{DateTime, Utc};

const ENDPOINT_COLUMNS: &str =
    "id, workspace_id, url, events, secret_sealed, created_at, disabled_at";

fn endpoint(row: &Row<'_>) -> rusqlite::Result<Endpoint> {
    Ok(Endpoint {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        url: row.get(2)?,
        events: row
            .get::<_, String>(3)?
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        secret_sealed: row.get(4)?,
        created_at: from_micros(row.get(5)?),
        disabled: row.get::<_, Option<i64>>(6)?.is_some(),
    })
}

pub(in crate::store) fn insert_endpoint(conn: &Connection, e: &Endpoint) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO webhook_endpoints (id, workspace_id, url, events, secret_sealed, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            e.id,
            e.workspace_id,
            e.url,
            e.events.join(" "),
            e.secret_sealed,
            micros(e.created_at)
        ],
    )?;
    Ok(())
}

pub(in crate::store) fn list_endpoints(
    conn: &Connection,
    workspace_id: &str,
    page: PageRequest,
) -> StoreResult<Page<Endpoint>> {
    let total: i64 = conn.query_row(
        "SELECT COUNT(*) FROM webhook_endpoints WHERE workspace_id = ?1 AND deleted_at IS NULL",
        params![workspace_id],
        |r| r.get(0),
    )?;
    let total = total as u64;
    let Some((limit, offset)) = page_bounds(page, total) else {
        return Ok(Page {
            items: Vec::new(),
            total,
        });
    };
    let items = conn
        .prepare_cached(&format!(
            "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = ?1 AND deleted_at IS NULL
             ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
        ))?
        .query_map(params![workspace_id, limit, offset], endpoint)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { items, total })
}

pub(in crate::store) fn get_endpoint(
    conn: &Connection,
    workspace_id: &str,
    id: &str,
) -> StoreResult<Option<Endpoint>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints
             WHERE id = ?1 AND workspace_id = ?2 AND deleted_at IS NULL"
        ))?
        .query_row(params![id, workspace_id], endpoint)
        .optional()?)
}

/// Soft-deletes an endpoint and abandons its pending deliveries.
pub(in crate::store) fn delete_endpoint(
    conn: &Connection,
    workspace_id: &str,
    id: &str,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let changed = conn.execute(
        "UPDATE webhook_endpoints SET deleted_at = ?1 WHERE id = ?2 AND workspace_id = ?3 AND deleted_at IS NULL",
        params![micros(now), id, workspace_id],
    )?;
    if changed == 0 {
        return Err(StoreError::NotFound);
    }
    conn.execute(
        "UPDATE webhook_deliveries SET state = 'abandoned' WHERE endpoint_id = ?1 AND state = 'pending'",
        params![id],
    )?;
    Ok(())
}
