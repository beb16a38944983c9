//! The outbox's rules at the SQL level: leases, the per-endpoint cap, deleted and disabled
//! endpoints, and the expiry scan's use of its index.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, params};

use super::expiring::{due_sql, expiring};
use super::{claim_due, delete_endpoint, enqueue, finish, insert_endpoint};
use crate::store::sqlite::{rows::micros, schema};
use crate::store::{Attempt, DeliveryOutcome, Endpoint, NewEvent, TokenRecord};
use crate::webhooks::delivery::PER_ENDPOINT;

fn db() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    schema::migrate(&mut conn).unwrap();
    conn
}

fn endpoint(conn: &Connection, id: &str) {
    insert_endpoint(
        conn,
        &Endpoint {
            id: id.into(),
            workspace_id: "wsp_1".into(),
            url: format!("http://127.0.0.1:9/{id}"),
            events: vec!["token.rotated".into()],
            secret_sealed: vec![1, 2, 3],
            created_at: Utc::now() - Duration::hours(1),
            disabled: false,
        },
    )
    .unwrap();
}

/// Queues `n` test events for `endpoint_id`, due at `at` plus one microsecond each.
fn queue(conn: &Connection, endpoint_id: &str, n: usize, at: DateTime<Utc>) {
    for i in 0..n {
        let event = NewEvent {
            id: crate::secrets::new_id("evt_"),
            workspace_id: "wsp_1".into(),
            kind: "webhook.test".into(),
            body: "{}".into(),
            created_at: at + Duration::microseconds(i as i64),
        };
        assert_eq!(enqueue(conn, &event, Some(endpoint_id)).unwrap(), 1);
    }
}

fn claim(conn: &Connection, now: DateTime<Utc>, limit: usize) -> Vec<(i64, String)> {
    claim_due(conn, now, now + Duration::minutes(2), limit, PER_ENDPOINT)
        .unwrap()
        .into_iter()
        .map(|d| (d.id, d.endpoint_id))
        .collect()
}

fn attempt(endpoint_id: &str, next_retry_at: Option<DateTime<Utc>>) -> Attempt {
    Attempt {
        endpoint_id: endpoint_id.into(),
        event_id: "evt_x".into(),
        event_type: "webhook.test".into(),
        attempt: 1,
        status_code: Some(500),
        error: None,
        duration_ms: 3,
        next_retry_at,
        created_at: Utc::now(),
    }
}

fn state(conn: &Connection, delivery_id: i64) -> String {
    conn.query_row(
        "SELECT state FROM webhook_deliveries WHERE id = ?1",
        params![delivery_id],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn an_attempt_finishing_after_its_endpoint_was_deleted_does_not_revive_the_delivery() {
    let conn = db();
    endpoint(&conn, "whk_a");
    let now = Utc::now();
    queue(&conn, "whk_a", 1, now - Duration::seconds(1));
    let claimed = claim(&conn, now, 64);
    assert_eq!(claimed.len(), 1);
    delete_endpoint(&conn, "wsp_1", "whk_a", now).unwrap();
    assert_eq!(state(&conn, claimed[0].0), "abandoned");

    let retry_at = now + Duration::seconds(1);
    finish(
        &conn,
        &attempt("whk_a", Some(retry_at)),
        claimed[0].0,
        DeliveryOutcome::Retry(retry_at),
    )
    .unwrap();
    assert_eq!(state(&conn, claimed[0].0), "abandoned");
    let (count, next): (i64, Option<i64>) = conn
        .query_row(
            "SELECT COUNT(*), MAX(next_retry_at) FROM webhook_attempts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((count, next), (1, None), "recorded, with no next retry");
    assert!(claim(&conn, now + Duration::hours(1), 64).is_empty());
}

#[test]
fn a_failed_attempt_of_a_live_endpoint_is_retried_when_due() {
    let conn = db();
    endpoint(&conn, "whk_a");
    let now = Utc::now();
    queue(&conn, "whk_a", 1, now);
    let claimed = claim(&conn, now, 64);
    let retry_at = now + Duration::seconds(1);
    finish(
        &conn,
        &attempt("whk_a", Some(retry_at)),
        claimed[0].0,
        DeliveryOutcome::Retry(retry_at),
    )
    .unwrap();
    assert_eq!(state(&conn, claimed[0].0), "pending");
    assert!(claim(&conn, now, 64).is_empty(), "not before it is due");
    assert_eq!(claim(&conn, retry_at, 64), claimed);
}

#[test]
fn deliveries_of_deleted_or_disabled_endpoints_are_never_claimed() {
    let conn = db();
    endpoint(&conn, "whk_deleted");
    endpoint(&conn, "whk_disabled");
    endpoint(&conn, "whk_live");
    let now = Utc::now();
    for id in ["whk_deleted", "whk_disabled", "whk_live"] {
        queue(&conn, id, 1, now - Duration::seconds(1));
    }
    // Pending rows left behind, as a delivery revived by a late attempt would be.
    conn.execute(
        "UPDATE webhook_endpoints SET deleted_at = ?1 WHERE id = 'whk_deleted'",
        params![micros(now)],
    )
    .unwrap();
    conn.execute(
        "UPDATE webhook_endpoints SET disabled_at = ?1 WHERE id = 'whk_disabled'",
        params![micros(now)],
    )
    .unwrap();
    let claimed = claim(&conn, now, 64);
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].1, "whk_live");
}

#[test]
fn one_endpoint_never_has_more_than_its_share_in_flight() {
    let conn = db();
    endpoint(&conn, "whk_slow");
    endpoint(&conn, "whk_fast");
    let now = Utc::now();
    // The slow endpoint's backlog is older than the fast endpoint's one event.
    queue(&conn, "whk_slow", 100, now - Duration::seconds(10));
    queue(&conn, "whk_fast", 1, now - Duration::seconds(1));

    let first = claim(&conn, now, 64);
    let slow: Vec<_> = first.iter().filter(|(_, e)| e == "whk_slow").collect();
    assert_eq!(slow.len(), PER_ENDPOINT, "{first:?}");
    assert!(first.iter().any(|(_, e)| e == "whk_fast"), "{first:?}");
    assert!(
        claim(&conn, now, 64).is_empty(),
        "the slow endpoint is at its cap"
    );

    // One attempt ends: exactly one more of the backlog may go.
    finish(
        &conn,
        &attempt("whk_slow", None),
        slow[0].0,
        DeliveryOutcome::Delivered,
    )
    .unwrap();
    assert_eq!(claim(&conn, now, 64).len(), 1);
    // A lease that ran out (its process died) no longer counts as in flight.
    let after_leases = claim(&conn, now + Duration::minutes(3), 64);
    let slow = after_leases.iter().filter(|(_, e)| e == "whk_slow").count();
    assert_eq!(slow, PER_ENDPOINT, "{after_leases:?}");
}

#[test]
fn claims_respect_the_limit_oldest_first() {
    let conn = db();
    endpoint(&conn, "whk_a");
    endpoint(&conn, "whk_b");
    let now = Utc::now();
    queue(&conn, "whk_b", 2, now - Duration::seconds(5));
    queue(&conn, "whk_a", 2, now - Duration::seconds(9));
    let claimed = claim(&conn, now, 3);
    let endpoints: Vec<&str> = claimed.iter().map(|(_, e)| e.as_str()).collect();
    assert_eq!(endpoints, ["whk_a", "whk_a", "whk_b"]);
}

fn token(conn: &Connection, id: &str, created: DateTime<Utc>, expires: DateTime<Utc>) {
    conn.execute(
        "INSERT OR IGNORE INTO workspaces (id, name, created_at) VALUES ('wsp_1', 'one', 0)",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO tokens (id, workspace_id, name, secret_digest, scopes, created_at, expires_at, created_by)
         VALUES (?1, 'wsp_1', ?1, ?1, 'tokens:read', ?2, ?3, 'key_1')",
        params![id, micros(created), micros(expires)],
    )
    .unwrap();
}

#[test]
fn the_expiry_scan_reads_only_due_tokens_through_its_index() {
    let conn = db();
    let plan: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", due_sql()))
        .unwrap()
        .query_map(params![0, 0, 0, "1d"], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        plan.iter().any(
            |step| step.contains("USING INDEX tokens_expiring (expires_at>? AND expires_at<?)")
        ),
        "{plan:?}"
    );

    let now = Utc::now();
    let day = Duration::days(1);
    token(&conn, "tok_due", now - day * 10, now + Duration::hours(12));
    token(&conn, "tok_later", now - day * 10, now + day * 3);
    token(
        &conn,
        "tok_expired",
        now - day * 10,
        now - Duration::hours(1),
    );
    token(
        &conn,
        "tok_young",
        now - Duration::hours(1),
        now + Duration::hours(12),
    );
    endpoint(&conn, "whk_a");
    let fired = std::sync::Mutex::new(Vec::new());
    let make = |t: &TokenRecord, notice: &str| {
        fired.lock().unwrap().push(format!("{} {notice}", t.id));
        NewEvent {
            id: crate::secrets::new_id("evt_"),
            workspace_id: t.workspace_id.clone(),
            kind: "token.expiring".into(),
            body: "{}".into(),
            created_at: now,
        }
    };
    let offsets = [("1d".to_string(), day.num_microseconds().unwrap())];
    assert_eq!(expiring(&conn, now, &offsets, &make).unwrap(), 1);
    assert_eq!(*fired.lock().unwrap(), ["tok_due 1d"]);
    assert_eq!(expiring(&conn, now, &offsets, &make).unwrap(), 0, "once");
}
