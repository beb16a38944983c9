//! The PostgreSQL SQL of webhook endpoints, the event outbox, deliveries and their attempts.
//!
//! Several instances deliver from one outbox. A claim locks the endpoint rows it takes from
//! (`FOR UPDATE SKIP LOCKED`), so one instance at a time leases an endpoint's deliveries and
//! the per-endpoint cap holds across instances; a lease names the instance holding it, and a
//! lease whose instance is no longer alive (its presence lock is gone, see `presence.rs`) is
//! due again at once, so the attempts of an instance that died are taken over.

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use super::PostgresStore;
use crate::store::EventMaker;
use crate::store::WEBHOOK_KEY_CHECK;
use crate::store::WebhookOutbox;
use async_trait::async_trait;

mod endpoints;
mod expiring;

pub(super) use endpoints::{delete_endpoint, get_endpoint, insert_endpoint, list_endpoints};
pub(super) use expiring::expiring;

use super::db::limits;
use super::schema::INSTANCE_SPACE;
use crate::store::{
    Attempt, Delivery, DeliveryOutcome, Endpoint, NewEvent, Page, PageRequest, StoreResult,
};

/// The numbers of the instances alive now: each holds its presence lock.
fn alive() -> String {
    format!(
        "SELECT objid::int4 FROM pg_locks
         WHERE locktype = 'advisory' AND classid = {INSTANCE_SPACE} AND objsubid = 2 AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    )
}

/// Writes an event and a pending delivery for every live endpoint of the workspace that
/// subscribes to its type (or only for `only`), in one statement; nothing when no endpoint
/// would receive it. Returns how many deliveries were queued.
pub(super) async fn enqueue(
    c: &impl GenericClient,
    event: &NewEvent,
    only: Option<&str>,
) -> StoreResult<u64> {
    let sql = "WITH receivers AS (
                   SELECT id FROM webhook_endpoints
                   WHERE workspace_id = $1 AND deleted_at IS NULL AND disabled_at IS NULL
                     AND ($2::text IS NULL OR id = $2)
                     AND ($2::text IS NOT NULL OR $3 = ANY(string_to_array(events, ' ')))),
               event AS (
                   INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
                   SELECT $4, $1, $3, $5, $6 WHERE EXISTS (SELECT 1 FROM receivers)
                   RETURNING id)
               INSERT INTO webhook_deliveries (event_id, endpoint_id, state, next_attempt_at)
               SELECT event.id, receivers.id, 'pending', $6 FROM event, receivers";
    Ok(c.execute(
        &c.prepare_cached(sql).await?,
        &[
            &event.workspace_id,
            &only,
            &event.kind,
            &event.id,
            &event.body,
            &event.created_at,
        ],
    )
    .await?)
}

/// Due deliveries of live endpoints, oldest due first, at most `limit`, leased by instance
/// `me` until `lease_until`; an endpoint never has more than `per_endpoint` deliveries leased
/// by live instances at once. `c` is a transaction: the endpoint rows stay locked until it ends.
pub(super) async fn claim_due(
    c: &impl GenericClient,
    me: i32,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
    per_endpoint: usize,
) -> StoreResult<Vec<Delivery>> {
    let alive = alive();
    // (`NOT IN` an empty set holds even for NULL: unleased rows are ruled out first.)
    let due = format!(
        "d.state = 'pending' AND (d.next_attempt_at <= $2
                                  OR (d.leased_by IS NOT NULL AND d.leased_by NOT IN ({alive})))"
    );
    let endpoints = c
        .query(
            &format!(
                "SELECT e.id, e.url, e.secret_sealed FROM webhook_endpoints e
                 WHERE e.deleted_at IS NULL AND e.disabled_at IS NULL
                   AND EXISTS (SELECT 1 FROM webhook_deliveries d
                               WHERE d.endpoint_id = e.id AND {})
                 ORDER BY e.id FOR UPDATE OF e SKIP LOCKED",
                due.replace("$2", "$1")
            ),
            &[&now],
        )
        .await?;
    let busy_sql = format!(
        "SELECT COUNT(*) FROM webhook_deliveries
         WHERE endpoint_id = $1 AND state = 'pending' AND next_attempt_at > $2
           AND leased_by IN ({alive})"
    );
    let pick_sql = format!(
        "SELECT d.id, d.event_id, d.attempts, d.next_attempt_at, v.type, v.body, v.workspace_id
         FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
         WHERE d.endpoint_id = $1 AND {due}
         ORDER BY d.next_attempt_at, d.id LIMIT $3"
    );
    let mut picked: Vec<(DateTime<Utc>, Delivery)> = Vec::new();
    for e in &endpoints {
        let endpoint_id: String = e.get(0);
        let busy: i64 = c.query_one(&busy_sql, &[&endpoint_id, &now]).await?.get(0);
        let room = per_endpoint
            .saturating_sub(usize::try_from(busy).unwrap_or(usize::MAX))
            .min(limit);
        if room == 0 {
            continue;
        }
        let rows = c
            .query(&pick_sql, &[&endpoint_id, &now, &(room as i64)])
            .await?;
        for row in rows {
            picked.push((
                row.get(3),
                Delivery {
                    id: row.get(0),
                    event_id: row.get(1),
                    endpoint_id: endpoint_id.clone(),
                    attempts: row.get::<_, i32>(2) as u32,
                    url: e.get(1),
                    secret_sealed: e.get(2),
                    event_type: row.get(4),
                    body: row.get(5),
                    workspace_id: row.get(6),
                },
            ));
        }
    }
    picked.sort_by_key(|(at, delivery)| (*at, delivery.id));
    picked.truncate(limit);
    let ids: Vec<i64> = picked.iter().map(|(_, d)| d.id).collect();
    if !ids.is_empty() {
        c.execute(
            "UPDATE webhook_deliveries SET leased_by = $1, next_attempt_at = $2 WHERE id = ANY($3)",
            &[&me, &lease_until, &ids],
        )
        .await?;
    }
    Ok(picked.into_iter().map(|(_, delivery)| delivery).collect())
}

/// Makes deliveries leased by instances that are no longer alive due now.
pub(super) async fn release_leases(c: &impl GenericClient, now: DateTime<Utc>) -> StoreResult<()> {
    c.execute(
        &format!(
            "UPDATE webhook_deliveries SET leased_by = NULL, next_attempt_at = $1
             WHERE state = 'pending' AND leased_by IS NOT NULL AND leased_by NOT IN ({})",
            alive()
        ),
        &[&now],
    )
    .await?;
    Ok(())
}

/// Records an attempt and what follows from it (in the caller's transaction). A delivery that
/// stopped being pending while its attempt was in flight stays stopped.
pub(super) async fn finish(
    c: &impl GenericClient,
    attempt: &Attempt,
    delivery_id: i64,
    outcome: DeliveryOutcome,
) -> StoreResult<()> {
    let (state, next) = match outcome {
        DeliveryOutcome::Delivered => ("delivered", None),
        DeliveryOutcome::Retry(at) => ("pending", Some(at)),
        DeliveryOutcome::Failed | DeliveryOutcome::EndpointGone => ("failed", None),
    };
    let still_pending = c
        .execute(
            "UPDATE webhook_deliveries SET state = $1, attempts = attempts + 1, leased_by = NULL,
                 next_attempt_at = COALESCE($2, next_attempt_at)
             WHERE id = $3 AND state = 'pending'",
            &[&state, &next, &delivery_id],
        )
        .await?
        > 0;
    c.execute(
        "INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, status_code,
             error, duration_ms, next_retry_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &attempt.endpoint_id,
            &attempt.event_id,
            &attempt.event_type,
            &(attempt.attempt as i32),
            &attempt.status_code.map(i32::from),
            &attempt.error,
            &(attempt.duration_ms as i64),
            &attempt.next_retry_at.filter(|_| still_pending),
            &attempt.created_at,
        ],
    )
    .await?;
    if outcome == DeliveryOutcome::EndpointGone {
        c.execute(
            "UPDATE webhook_endpoints SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL",
            &[&attempt.created_at, &attempt.endpoint_id],
        )
        .await?;
        c.execute(
            "UPDATE webhook_deliveries SET state = 'abandoned', leased_by = NULL
             WHERE endpoint_id = $1 AND state = 'pending'",
            &[&attempt.endpoint_id],
        )
        .await?;
    }
    Ok(())
}

pub(super) async fn list_attempts(
    c: &impl GenericClient,
    endpoint_id: &str,
    page: PageRequest,
) -> StoreResult<Page<Attempt>> {
    let (limit, offset) = limits(page);
    let rows = c
        .query(
            "SELECT endpoint_id, event_id, event_type, attempt, status_code, error, duration_ms,
                    next_retry_at, created_at, COUNT(*) OVER ()
             FROM webhook_attempts WHERE endpoint_id = $1
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
            &[&endpoint_id, &limit, &offset],
        )
        .await?;
    let total = match rows.first() {
        Some(row) => row.get::<_, i64>(9),
        None => c
            .query_one(
                "SELECT COUNT(*) FROM webhook_attempts WHERE endpoint_id = $1",
                &[&endpoint_id],
            )
            .await?
            .get(0),
    };
    let items = rows
        .iter()
        .map(|row| Attempt {
            endpoint_id: row.get(0),
            event_id: row.get(1),
            event_type: row.get(2),
            attempt: row.get::<_, i32>(3) as u32,
            status_code: row.get::<_, Option<i32>>(4).map(|s| s as u16),
            error: row.get(5),
            duration_ms: row.get::<_, i64>(6) as u64,
            next_retry_at: row.get(7),
            created_at: row.get(8),
        })
        .collect();
    Ok(Page {
        items,
        total: total as u64,
    })
}

#[async_trait]
impl WebhookOutbox for PostgresStore {
    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()> {
        with_client!(self, |c| insert_endpoint(&c, &endpoint).await)
    }

    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>> {
        with_client!(self, |c| list_endpoints(&c, workspace_id, page).await)
    }

    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>> {
        with_client!(self, |c| get_endpoint(&c, workspace_id, id).await)
    }

    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            delete_endpoint(&tx, workspace_id, id, crate::store::now()).await?
        })
    }

    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()> {
        with_client!(self, |c| enqueue(&c, &event, Some(endpoint_id)).await)?;
        Ok(())
    }

    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: EventMaker,
    ) -> StoreResult<usize> {
        in_transaction!(self, |tx| {
            expiring(&tx, crate::store::now(), &offsets, make_event.as_ref()).await?
        })
    }

    async fn release_leases(&self) -> StoreResult<()> {
        with_client!(self, |c| release_leases(&c, crate::store::now()).await)?;
        // Alive from now on, before this instance leases anything.
        self.me().await?;
        Ok(())
    }

    async fn outbox_depth(&self) -> StoreResult<u64> {
        with_client!(self, |c| {
            let sql = "SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'";
            Ok(c.query_one(sql, &[]).await?.get::<_, i64>(0) as u64)
        })
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
        per_endpoint: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let me = self.me().await?;
        in_transaction!(self, |tx| {
            claim_due(&tx, me, now, lease_until, limit, per_endpoint).await?
        })
    }

    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            finish(&tx, &attempt, delivery_id, outcome).await?
        })
    }

    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>> {
        with_client!(self, |c| list_attempts(&c, endpoint_id, page).await)
    }

    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>> {
        with_client!(self, |c| {
            c.execute(
                "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&WEBHOOK_KEY_CHECK, &proposed],
            )
            .await?;
            let row = c
                .query_one(
                    "SELECT value FROM settings WHERE name = $1",
                    &[&WEBHOOK_KEY_CHECK],
                )
                .await?;
            Ok(row.get(0))
        })
    }
}
