//! SQL of webhook endpoints, the event outbox, deliveries and their attempts.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::rows::{from_micros, micros, page_bounds};
use super::{
    Attempt, Delivery, DeliveryOutcome, Endpoint, NewEvent, Page, PageRequest, StoreError,
    StoreResult,
};

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

pub(super) fn insert_endpoint(conn: &Connection, e: &Endpoint) -> StoreResult<()> {
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

pub(super) fn list_endpoints(
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

pub(super) fn get_endpoint(
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
pub(super) fn delete_endpoint(
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

/// Writes an event and a pending delivery for every live endpoint of the workspace that
/// subscribes to its type (or only for `only`), in the caller's transaction.
pub(super) fn enqueue(
    conn: &Connection,
    event: &NewEvent,
    only: Option<&str>,
) -> StoreResult<usize> {
    const RECEIVERS: &str = "FROM webhook_endpoints
         WHERE workspace_id = ?1 AND deleted_at IS NULL AND disabled_at IS NULL
           AND (?2 IS NULL OR id = ?2)
           AND (?2 IS NOT NULL OR (' ' || events || ' ') LIKE ('% ' || ?3 || ' %'))";
    let receivers: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) {RECEIVERS}"))?
        .query_row(params![event.workspace_id, only, event.kind], |r| r.get(0))?;
    // No endpoint would receive it: write nothing (most rotations in most workspaces).
    if receivers == 0 {
        return Ok(0);
    }
    conn.prepare_cached(
        "INSERT INTO webhook_events (id, workspace_id, type, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![event.id, event.workspace_id, event.kind, event.body, micros(event.created_at)])?;
    let queued = conn
        .prepare_cached(&format!(
            "INSERT INTO webhook_deliveries (event_id, endpoint_id, state, next_attempt_at)
             SELECT ?4, id, 'pending', ?5 {RECEIVERS}"
        ))?
        .execute(params![
            event.workspace_id,
            only,
            event.kind,
            event.id,
            micros(event.created_at)
        ])?;
    Ok(queued)
}

/// Due deliveries, leased until `lease_until` so a crash mid-attempt retries them later.
pub(super) fn claim_due(
    conn: &Connection,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
) -> StoreResult<Vec<Delivery>> {
    let due = conn
        .prepare_cached(
            "SELECT d.id, d.event_id, d.endpoint_id, d.attempts, e.url, e.secret_sealed, v.type, v.body, v.workspace_id
             FROM webhook_deliveries d
             JOIN webhook_endpoints e ON e.id = d.endpoint_id
             JOIN webhook_events v ON v.id = d.event_id
             WHERE d.state = 'pending' AND d.next_attempt_at <= ?1
             ORDER BY d.next_attempt_at LIMIT ?2",
        )?
        .query_map(params![micros(now), limit as i64], |row| {
            Ok(Delivery {
                id: row.get(0)?,
                event_id: row.get(1)?,
                endpoint_id: row.get(2)?,
                attempts: row.get::<_, i64>(3)? as u32,
                url: row.get(4)?,
                secret_sealed: row.get(5)?,
                event_type: row.get(6)?,
                body: row.get(7)?,
                workspace_id: row.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut lease = conn.prepare_cached(
        "UPDATE webhook_deliveries SET next_attempt_at = ?1, leased = 1 WHERE id = ?2",
    )?;
    for delivery in &due {
        lease.execute(params![micros(lease_until), delivery.id])?;
    }
    Ok(due)
}

/// Makes deliveries leased by a process that has stopped due now (only one server process
/// delivers from a data directory, so at its start every lease is stale).
pub(super) fn release_leases(conn: &Connection, now: DateTime<Utc>) -> StoreResult<()> {
    conn.execute(
        "UPDATE webhook_deliveries SET leased = 0, next_attempt_at = ?1 WHERE leased = 1 AND state = 'pending'",
        params![micros(now)],
    )?;
    Ok(())
}

/// Records an attempt and what follows from it.
pub(super) fn finish(
    conn: &Connection,
    attempt: &Attempt,
    delivery_id: i64,
    outcome: DeliveryOutcome,
) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, status_code, error,
             duration_ms, next_retry_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        attempt.endpoint_id,
        attempt.event_id,
        attempt.event_type,
        attempt.attempt,
        attempt.status_code,
        attempt.error,
        attempt.duration_ms as i64,
        attempt.next_retry_at.map(micros),
        micros(attempt.created_at)
    ])?;
    let (state, next) = match outcome {
        DeliveryOutcome::Delivered => ("delivered", None),
        DeliveryOutcome::Retry(at) => ("pending", Some(at)),
        DeliveryOutcome::Failed | DeliveryOutcome::EndpointGone => ("failed", None),
    };
    conn.prepare_cached(
        "UPDATE webhook_deliveries SET state = ?1, attempts = attempts + 1, leased = 0,
             next_attempt_at = COALESCE(?2, next_attempt_at) WHERE id = ?3",
    )?
    .execute(params![state, next.map(micros), delivery_id])?;
    if outcome == DeliveryOutcome::EndpointGone {
        conn.execute(
            "UPDATE webhook_endpoints SET disabled_at = ?1 WHERE id = ?2 AND disabled_at IS NULL",
            params![micros(attempt.created_at), attempt.endpoint_id],
        )?;
        conn.execute(
            "UPDATE webhook_deliveries SET state = 'abandoned' WHERE endpoint_id = ?1 AND state = 'pending'",
            params![attempt.endpoint_id],
        )?;
    }
    Ok(())
}

pub(super) fn list_attempts(
    conn: &Connection,
    endpoint_id: &str,
    page: PageRequest,
) -> StoreResult<Page<Attempt>> {
    let total: i64 = conn.query_row(
        "SELECT COUNT(*) FROM webhook_attempts WHERE endpoint_id = ?1",
        params![endpoint_id],
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
        .prepare_cached(
            "SELECT endpoint_id, event_id, event_type, attempt, status_code, error, duration_ms,
                    next_retry_at, created_at
             FROM webhook_attempts WHERE endpoint_id = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3",
        )?
        .query_map(params![endpoint_id, limit, offset], |row| {
            Ok(Attempt {
                endpoint_id: row.get(0)?,
                event_id: row.get(1)?,
                event_type: row.get(2)?,
                attempt: row.get::<_, i64>(3)? as u32,
                status_code: row.get::<_, Option<i64>>(4)?.map(|s| s as u16),
                error: row.get(5)?,
                duration_ms: row.get::<_, i64>(6)? as u64,
                next_retry_at: row.get::<_, Option<i64>>(7)?.map(from_micros),
                created_at: from_micros(row.get(8)?),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { items, total })
}

/// For each `(label, offset)`: every live token whose `expires_at - offset` has passed, lies
/// after its creation, and has no notice yet gets one: the notice row and its event (made by
/// `make_event`) are written together. Returns how many were written.
pub(super) fn expiring(
    conn: &Connection,
    now: DateTime<Utc>,
    offsets: &[(String, i64)],
    make_event: &(dyn Fn(&super::TokenRecord, &str) -> NewEvent + Send + Sync),
) -> StoreResult<usize> {
    let mut written = 0;
    for (label, offset) in offsets {
        let due = conn
            .prepare_cached(&format!(
                "SELECT {} FROM tokens t
                 WHERE t.revoked_at IS NULL AND t.expires_at IS NOT NULL AND t.expires_at > ?1
                   AND t.expires_at - ?2 <= ?1 AND t.expires_at - ?2 > t.created_at
                   AND NOT EXISTS (SELECT 1 FROM webhook_expiry_notices n
                                   WHERE n.token_id = t.id AND n.notice = ?3)",
                super::rows::TOKEN_COLUMNS
                    .split(", ")
                    .map(|c| format!("t.{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?
            .query_map(
                params![micros(now), offset, label],
                super::rows::token_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for token in due {
            conn.prepare_cached(
                "INSERT INTO webhook_expiry_notices (token_id, notice) VALUES (?1, ?2)",
            )?
            .execute(params![token.id, label])?;
            enqueue(conn, &make_event(&token, label), None)?;
            written += 1;
        }
    }
    Ok(written)
}
