//! The SQL of webhook endpoints, the event outbox, deliveries and their attempts.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

use super::SqliteStore;
use crate::store::WebhookOutbox;
use async_trait::async_trait;

mod endpoints;
mod expiring;
#[cfg(test)]
mod tests;

use super::rows::{from_micros, micros, page_bounds};
use crate::store::{
    Attempt, Delivery, DeliveryOutcome, Endpoint, NewEvent, Page, PageRequest, StoreResult,
};

pub(super) use endpoints::{delete_endpoint, get_endpoint, insert_endpoint, list_endpoints};
pub(super) use expiring::expiring;

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

/// Due deliveries of live endpoints (neither deleted nor disabled), oldest due first, at most
/// `limit`, each leased until `lease_until` so a crash mid-attempt retries it later. An
/// endpoint never has more than `per_endpoint` deliveries leased at once, so one slow
/// endpoint's backlog cannot take every slot.
pub(super) fn claim_due(
    conn: &Connection,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
    per_endpoint: usize,
) -> StoreResult<Vec<Delivery>> {
    // Live endpoints with something due, and how many of their deliveries are in flight (a
    // lease not yet run out: only one process delivers from a data directory).
    let endpoints = conn
        .prepare_cached(
            "SELECT e.id, e.url, e.secret_sealed,
                    (SELECT COUNT(*) FROM webhook_deliveries f
                     WHERE f.endpoint_id = e.id AND f.leased = 1 AND f.state = 'pending'
                       AND f.next_attempt_at > ?1)
             FROM webhook_endpoints e
             WHERE e.deleted_at IS NULL AND e.disabled_at IS NULL
               AND EXISTS (SELECT 1 FROM webhook_deliveries d
                           WHERE d.endpoint_id = e.id AND d.state = 'pending'
                             AND d.next_attempt_at <= ?1)",
        )?
        .query_map(params![micros(now)], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Vec<u8>>(2)?,
                row.get::<_, i64>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut pick = conn.prepare_cached(
        "SELECT d.id, d.event_id, d.attempts, d.next_attempt_at, v.type, v.body, v.workspace_id
         FROM webhook_deliveries d
         JOIN webhook_events v ON v.id = d.event_id
         WHERE d.endpoint_id = ?1 AND d.state = 'pending' AND d.next_attempt_at <= ?2
         ORDER BY d.next_attempt_at, d.id LIMIT ?3",
    )?;
    let mut due: Vec<(i64, Delivery)> = Vec::new();
    for (endpoint_id, url, secret_sealed, busy) in endpoints {
        let room = per_endpoint
            .saturating_sub(usize::try_from(busy).unwrap_or(usize::MAX))
            .min(limit);
        if room == 0 {
            continue;
        }
        let rows = pick.query_map(params![endpoint_id, micros(now), room as i64], |row| {
            Ok((
                row.get::<_, i64>(3)?,
                Delivery {
                    id: row.get(0)?,
                    event_id: row.get(1)?,
                    endpoint_id: endpoint_id.clone(),
                    attempts: row.get::<_, i64>(2)? as u32,
                    url: url.clone(),
                    secret_sealed: secret_sealed.clone(),
                    event_type: row.get(4)?,
                    body: row.get(5)?,
                    workspace_id: row.get(6)?,
                },
            ))
        })?;
        for row in rows {
            due.push(row?);
        }
    }
    due.sort_by_key(|(at, delivery)| (*at, delivery.id));
    due.truncate(limit);
    let mut lease = conn.prepare_cached(
        "UPDATE webhook_deliveries SET next_attempt_at = ?1, leased = 1 WHERE id = ?2",
    )?;
    for (_, delivery) in &due {
        lease.execute(params![micros(lease_until), delivery.id])?;
    }
    Ok(due.into_iter().map(|(_, delivery)| delivery).collect())
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

/// Records an attempt and what follows from it. A delivery that stopped being pending while
/// its attempt was in flight (the endpoint was deleted or disabled meanwhile) stays stopped:
/// the attempt is recorded without a next retry.
pub(super) fn finish(
    conn: &Connection,
    attempt: &Attempt,
    delivery_id: i64,
    outcome: DeliveryOutcome,
) -> StoreResult<()> {
    let (state, next) = match outcome {
        DeliveryOutcome::Delivered => ("delivered", None),
        DeliveryOutcome::Retry(at) => ("pending", Some(at)),
        DeliveryOutcome::Failed | DeliveryOutcome::EndpointGone => ("failed", None),
    };
    let still_pending = conn
        .prepare_cached(
            "UPDATE webhook_deliveries SET state = ?1, attempts = attempts + 1, leased = 0,
                 next_attempt_at = COALESCE(?2, next_attempt_at)
             WHERE id = ?3 AND state = 'pending'",
        )?
        .execute(params![state, next.map(micros), delivery_id])?
        > 0;
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
        attempt.next_retry_at.filter(|_| still_pending).map(micros),
        micros(attempt.created_at)
    ])?;
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
             FROM webhook_attempts WHERE endpoint_id = ?1
             ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3",
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

#[async_trait]
impl WebhookOutbox for SqliteStore {
    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert_endpoint(conn, &endpoint))
            .await
    }

    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| list_endpoints(conn, &workspace_id, page))
            .await
    }

    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .read(move |conn| get_endpoint(conn, &workspace_id, &id))
            .await
    }

    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(Vec::new(), move |conn| {
                delete_endpoint(conn, &workspace_id, &id, crate::store::now())
            })
            .await
    }

    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()> {
        let endpoint_id = endpoint_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                enqueue(conn, &event, Some(&endpoint_id)).map(|_| ())
            })
            .await
    }

    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: crate::store::EventMaker,
    ) -> StoreResult<usize> {
        let offsets: Vec<(String, i64)> = offsets
            .into_iter()
            .map(|(label, d)| (label, d.num_microseconds().unwrap_or(i64::MAX)))
            .collect();
        self.engine
            .write(Vec::new(), move |conn| {
                expiring(conn, crate::store::now(), &offsets, make_event.as_ref())
            })
            .await
    }

    async fn release_leases(&self) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                release_leases(conn, crate::store::now())
            })
            .await
    }

    async fn outbox_depth(&self) -> StoreResult<u64> {
        self.engine
            .read(|conn| {
                let sql = "SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'";
                Ok(conn.query_row(sql, [], |row| row.get::<_, i64>(0))? as u64)
            })
            .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
        per_endpoint: usize,
    ) -> StoreResult<Vec<Delivery>> {
        self.engine
            .write(Vec::new(), move |conn| {
                claim_due(conn, now, lease_until, limit, per_endpoint)
            })
            .await
    }

    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                finish(conn, &attempt, delivery_id, outcome)
            })
            .await
    }

    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>> {
        let endpoint_id = endpoint_id.to_string();
        self.engine
            .read(move |conn| list_attempts(conn, &endpoint_id, page))
            .await
    }

    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>> {
        self.engine
            .write(Vec::new(), move |conn| {
                conn.execute(
                    "INSERT INTO settings (name, value) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                    params![crate::store::WEBHOOK_KEY_CHECK, proposed],
                )?;
                Ok(conn.query_row(
                    "SELECT value FROM settings WHERE name = ?1",
                    params![crate::store::WEBHOOK_KEY_CHECK],
                    |row| row.get(0),
                )?)
            })
            .await
    }
}
