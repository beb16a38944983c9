//! The request log's SQL on SQLite, against a database in memory.

use super::*;

fn plan(conn: &Connection, sql: &str) -> String {
    conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap()
        .query_map(params![1, 2, 3], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect::<Vec<_>>()
        .join("; ")
}

fn migrated() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    super::super::schema::migrate(&mut conn).unwrap();
    conn.execute(
        "INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'w', 0)",
        [],
    )
    .unwrap();
    conn
}

fn logged(id: &str, at: DateTime<Utc>, n: u64) -> RequestEntry {
    RequestEntry {
        id: id.to_string(),
        workspace_id: "w".into(),
        created_at: at,
        credential_id: Some("tok_1".into()),
        endpoint: "/v1/chat/completions".into(),
        model: Some("auto".into()),
        routed_model: Some("gpt \"x\"".into()),
        deployment: None,
        route_reason: Some("cheapest".into()),
        status: 200,
        error: None,
        stream: n.is_multiple_of(2),
        first_token_us: Some(7),
        total_us: 900 + n as i64,
        prompt_tokens: Some(n),
        completion_tokens: Some(2),
        cached_tokens: Some(0),
        credits: Some(Credits::from_column(123_456_789)),
        x402_settled: None,
        session_id: Some("s é ✓".into()),
        request_body: Some("{\"a\":1}".into()),
        response_body: None,
        credential_name: None,
        // Read back as false: it is only written.
        chosen: false,
    }
}

/// A request's entry writes no row of its own: a flush writes one batch per workspace,
/// and every field reads back as it was written, in order.
#[test]
fn a_flush_writes_one_row_and_every_field_reads_back() {
    let conn = migrated();
    let at = crate::store::now();
    let entries: Vec<RequestEntry> = (0..100)
        .map(|n| {
            let at = at + chrono::Duration::microseconds(n as i64);
            logged(&crate::secrets::new_request_id(at), at, n)
        })
        .collect();
    request_batches::insert(&conn, &RequestBatch::of(&entries)).unwrap();
    let batches: i64 = conn
        .query_row("SELECT COUNT(*) FROM request_log_batches", [], |r| r.get(0))
        .unwrap();
    assert_eq!(batches, 1);
    let page = PageRequest {
        page: 1,
        per_page: 100,
    };
    let listed = list(&conn, "w", &RequestFilter::default(), page).unwrap();
    assert_eq!(listed.total, 100);
    let mut expected: Vec<RequestEntry> = entries.iter().rev().cloned().collect();
    for e in &mut expected {
        e.request_body = None;
    }
    assert_eq!(listed.items, expected);
    let one = get(&conn, "w", &entries[42].id).unwrap();
    assert_eq!(one, entries[42]);
}

/// No batch spans more than a minute, so an entry minutes after its batch's first is
/// still found by the time its id carries.
#[test]
fn entries_minutes_apart_are_found_by_their_ids() {
    let conn = migrated();
    let at = crate::store::now();
    let entries: Vec<RequestEntry> = [0, 90, 200]
        .into_iter()
        .map(|s| {
            let at = at + chrono::Duration::seconds(s);
            logged(&crate::secrets::new_request_id(at), at, 1)
        })
        .collect();
    request_batches::insert(&conn, &RequestBatch::of(&entries)).unwrap();
    for e in &entries {
        assert_eq!(get(&conn, "w", &e.id).unwrap().id, e.id);
    }
}

/// Retention deletes exactly the older entries, also out of a batch that straddles the
/// cutoff, and the chosen ids with them.
#[test]
fn retention_cuts_a_straddling_batch_at_the_cutoff() {
    let conn = migrated();
    let at = crate::store::now();
    let entries: Vec<RequestEntry> = (0..10)
        .map(|n| RequestEntry {
            chosen: true,
            ..logged(
                &format!("mine-{n}"),
                at + chrono::Duration::seconds(n as i64),
                n,
            )
        })
        .collect();
    request_batches::insert(&conn, &RequestBatch::of(&entries)).unwrap();
    let cutoff = micros(at + chrono::Duration::seconds(4));
    assert_eq!(
        request_batches::delete_before(&conn, cutoff, 1000).unwrap(),
        4
    );
    assert_eq!(
        request_batches::delete_before(&conn, cutoff, 1000).unwrap(),
        0
    );
    let page = PageRequest {
        page: 1,
        per_page: 100,
    };
    let left = list(&conn, "w", &RequestFilter::default(), page).unwrap();
    let ids: Vec<&str> = left.items.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["mine-9", "mine-8", "mine-7", "mine-6", "mine-5", "mine-4"]
    );
    assert!(matches!(
        get(&conn, "w", "mine-3"),
        Err(StoreError::NotFound)
    ));
    assert_eq!(get(&conn, "w", "mine-4").unwrap().id, "mine-4");
    let chosen: i64 = conn
        .query_row("SELECT COUNT(*) FROM request_log_chosen", [], |r| r.get(0))
        .unwrap();
    assert_eq!(chosen, 6);
}

/// Rows logged before the batches become batches of a minute each, every field kept, and
/// an id a client chose is still found by it.
#[test]
fn rows_logged_before_the_batches_read_back_the_same() {
    let conn = Connection::open_in_memory().unwrap();
    let batches = super::super::migrations::MIGRATIONS
        .iter()
        .position(|sql| sql.contains("CREATE TABLE request_log_batches"))
        .unwrap();
    for sql in &super::super::migrations::MIGRATIONS[..batches] {
        conn.execute_batch(sql).unwrap();
    }
    let at = crate::store::now();
    let old: Vec<RequestEntry> = (0..5)
        .map(|n| {
            logged(
                &format!("old-{n}"),
                at + chrono::Duration::seconds(n * 40),
                n as u64,
            )
        })
        .collect();
    for e in &old {
        conn.execute(
            "INSERT INTO request_log (id, workspace_id, created_at, credential_id, endpoint,
                 model, routed_model, deployment, route_reason, status, error, stream,
                 first_token_us, total_us, prompt_tokens, completion_tokens, cached_tokens,
                 nanocredits, x402_settled, session_id, chosen, request_body, response_body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?18, ?19, ?20, 1, ?21, ?22)",
            params![
                e.id,
                e.workspace_id,
                micros(e.created_at),
                e.credential_id,
                e.endpoint,
                e.model,
                e.routed_model,
                e.deployment,
                e.route_reason,
                e.status,
                e.error,
                e.stream,
                e.first_token_us,
                e.total_us,
                e.prompt_tokens.map(|n| n as i64),
                e.completion_tokens.map(|n| n as i64),
                e.cached_tokens.map(|n| n as i64),
                e.credits.map(Credits::to_column),
                e.x402_settled,
                e.session_id,
                e.request_body,
                e.response_body
            ],
        )
        .unwrap();
    }
    for sql in &super::super::migrations::MIGRATIONS[batches..] {
        conn.execute_batch(sql).unwrap();
    }
    let spans: Vec<(i64, i64)> = conn
        .prepare("SELECT first_at, last_at FROM request_log_batches")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(spans.len() >= 3, "{spans:?}");
    assert!(
        spans
            .iter()
            .all(|(first, last)| last - first < crate::store::request_batch::SPAN)
    );
    let page = PageRequest {
        page: 1,
        per_page: 10,
    };
    let listed = list(&conn, "w", &RequestFilter::default(), page).unwrap();
    let mut expected: Vec<RequestEntry> = old.iter().rev().cloned().collect();
    for e in &mut expected {
        e.request_body = None;
    }
    assert_eq!(listed.items, expected);
    assert_eq!(get(&conn, "w", "old-3").unwrap(), old[3]);
}

/// Lookups and deletes search the batches' indexes rather than scan them.
#[test]
fn every_lookup_and_delete_searches_an_index() {
    let conn = migrated();
    let made = plan(&conn, &format!("SELECT {FIELDS} {FROM} WHERE {MADE}"));
    let seek = "INDEX request_log_batches_by_start (workspace_id=? AND first_at>? AND first_at<?)";
    assert!(made.contains(seek), "{made}");
    let chosen = plan(
        &conn,
        &format!("SELECT {FIELDS} {FROM} WHERE {CHOSEN} AND ?3"),
    );
    assert!(
        chosen.contains("INDEX request_log_chosen_by_id"),
        "{chosen}"
    );
    for (sql, index) in [
        (request_batches::EXPIRED, "request_log_batches_by_start"),
        (request_batches::STRADDLING, "request_log_batches_by_start"),
        (
            request_batches::CHOSEN_EXPIRED,
            "request_log_chosen_by_time",
        ),
    ] {
        // Every statement takes three parameters here.
        let sql = match sql.contains("?2") {
            true => format!("{sql} + ?3"),
            false => format!("{sql} AND ?2 AND ?3"),
        };
        let found = plan(&conn, &sql);
        assert!(
            found.contains(index) && !found.contains("SCAN b"),
            "{found}"
        );
    }
}
