//! SQL of the request log.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, ToSql, params};

use super::SqliteStore;
use super::rows::{from_micros, micros, page_bounds};
use crate::credits::Credits;
use crate::secrets::request_id_time;
use crate::store::{
    Page, PageRequest, RequestEntry, RequestFilter, RequestLog, StoreError, StoreResult,
};

/// Rows written between two offers of the writer thread's core (as the ledger's).
const ROWS_PER_YIELD: usize = 16;

/// The columns read, in [`entry`]'s order but the bodies: the credential's name from its token
/// or key. A listing reads `NULL` for the bodies; one request's read, [`BODIES`].
const FIELDS: &str = "r.id, r.workspace_id, r.created_at, r.credential_id,
    COALESCE(t.name, k.name), r.endpoint, r.model, r.routed_model, r.deployment, r.route_reason,
    r.status, r.error, r.stream, r.first_token_us, r.total_us, r.prompt_tokens,
    r.completion_tokens, r.cached_tokens, r.nanocredits, r.x402_settled, r.session_id";

/// The bodies, last of the columns one request's read takes.
const BODIES: &str = "r.request_body, r.response_body";

/// The rows read, each with its credential.
const FROM: &str = "FROM request_log r LEFT JOIN tokens t ON t.id = r.credential_id
    LEFT JOIN api_keys k ON k.id = r.credential_id";

/// The rows a filter keeps (`?1` the workspace; a NULL filter keeps everything).
const KEPT: &str = "r.workspace_id = ?1 AND (?2 IS NULL OR r.credential_id = ?2)
    AND (?3 IS NULL OR r.model = ?3 OR r.routed_model = ?3)
    AND (?4 IS NULL OR r.status BETWEEN ?4 AND ?5)
    AND (?6 IS NULL OR r.created_at >= ?6) AND (?7 IS NULL OR r.created_at < ?7)
    AND (?8 IS NULL OR r.session_id = ?8)";

/// An entry whose id the server made, where its id says it arrived (`?3`): one index seek.
const MADE: &str = "r.workspace_id = ?1 AND r.created_at = ?3 AND r.id = ?2";

/// An entry whose id a client chose, through the partial index of those.
const CHOSEN: &str = "r.workspace_id = ?1 AND r.id = ?2 AND r.chosen = 1";

/// The entries older than `?1`, at most `?2`: through the index by time, workspace by workspace
/// (every entry belongs to one; the `CROSS JOIN` keeps the workspaces outside, so the planner
/// never scans the log instead).
const EXPIRED: &str = "SELECT r.seq FROM workspaces w CROSS JOIN request_log r
    ON r.workspace_id = w.id AND r.created_at < ?1 LIMIT ?2";

fn count(value: Option<u64>) -> Option<i64> {
    value.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

fn insert(conn: &Connection, entries: &[RequestEntry]) -> StoreResult<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO request_log (id, workspace_id, created_at, credential_id, endpoint, model,
             routed_model, deployment, route_reason, status, error, stream, first_token_us,
             total_us, prompt_tokens, completion_tokens, cached_tokens, nanocredits,
             x402_settled, session_id, chosen, request_body, response_body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20, ?21, ?22, ?23)",
    )?;
    for (i, e) in entries.iter().enumerate() {
        if i > 0 && i % ROWS_PER_YIELD == 0 {
            std::thread::yield_now();
        }
        stmt.execute(params![
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
            count(e.prompt_tokens),
            count(e.completion_tokens),
            count(e.cached_tokens),
            e.credits.map(Credits::to_column),
            e.x402_settled,
            e.session_id,
            chosen(e),
            e.request_body,
            e.response_body,
        ])?;
    }
    Ok(())
}

/// Whether the entry's id is one a client chose, found through `request_log_chosen_ids`; an id
/// the server made carries the entry's time and is found through the index by time.
fn chosen(entry: &RequestEntry) -> bool {
    request_id_time(&entry.id) != Some(entry.created_at)
}

fn entry(row: &Row<'_>) -> rusqlite::Result<RequestEntry> {
    let count = |i| -> rusqlite::Result<Option<u64>> {
        Ok(row.get::<_, Option<i64>>(i)?.map(|n| n.max(0) as u64))
    };
    Ok(RequestEntry {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        created_at: from_micros(row.get(2)?),
        credential_id: row.get(3)?,
        credential_name: row.get(4)?,
        endpoint: row.get(5)?,
        model: row.get(6)?,
        routed_model: row.get(7)?,
        deployment: row.get(8)?,
        route_reason: row.get(9)?,
        status: row.get(10)?,
        error: row.get(11)?,
        stream: row.get(12)?,
        first_token_us: row.get(13)?,
        total_us: row.get(14)?,
        prompt_tokens: count(15)?,
        completion_tokens: count(16)?,
        cached_tokens: count(17)?,
        credits: row.get::<_, Option<i64>>(18)?.map(Credits::from_column),
        x402_settled: row.get(19)?,
        session_id: row.get(20)?,
        request_body: row.get(21)?,
        response_body: row.get(22)?,
    })
}

fn list(
    conn: &Connection,
    workspace_id: &str,
    filter: &RequestFilter,
    page: PageRequest,
) -> StoreResult<Page<RequestEntry>> {
    let (low, high) = filter.status.map(|s| s.range()).unzip();
    let (since, until) = (filter.since.map(micros), filter.until.map(micros));
    let kept = params![
        workspace_id,
        filter.credential_id,
        filter.model,
        low,
        high,
        since,
        until,
        filter.session_id
    ];
    let total: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM request_log r WHERE {KEPT}"))?
        .query_row(kept, |r| r.get(0))?;
    let total = total as u64;
    let Some((limit, offset)) = page_bounds(page, total) else {
        return Ok(Page {
            items: Vec::new(),
            total,
        });
    };
    let sql = format!(
        "SELECT {FIELDS}, NULL, NULL {FROM} WHERE {KEPT} ORDER BY r.created_at DESC, r.seq DESC LIMIT ?9 OFFSET ?10"
    );
    let items = conn
        .prepare_cached(&sql)?
        .query_map(
            params![
                workspace_id,
                filter.credential_id,
                filter.model,
                low,
                high,
                since,
                until,
                filter.session_id,
                limit,
                offset
            ],
            entry,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { items, total })
}

fn get(conn: &Connection, workspace_id: &str, id: &str) -> StoreResult<RequestEntry> {
    // Where an id the server made says it arrived (one index seek), and among the ids clients
    // chose (a partial index): the newer of the two, when both.
    let made = match request_id_time(id) {
        Some(at) => one(
            conn,
            &format!("SELECT {FIELDS}, {BODIES} {FROM} WHERE {MADE} ORDER BY r.seq DESC LIMIT 1"),
            params![workspace_id, id, micros(at)],
        )?,
        None => None,
    };
    let chosen = one(
        conn,
        &format!(
            "SELECT {FIELDS}, {BODIES} {FROM} WHERE {CHOSEN}
             ORDER BY r.created_at DESC, r.seq DESC LIMIT 1"
        ),
        params![workspace_id, id],
    )?;
    match (made, chosen) {
        (Some(made), Some(chosen)) if chosen.created_at > made.created_at => Ok(chosen),
        (Some(made), _) => Ok(made),
        (None, Some(chosen)) => Ok(chosen),
        (None, None) => Err(StoreError::NotFound),
    }
}

fn one(conn: &Connection, sql: &str, params: &[&dyn ToSql]) -> StoreResult<Option<RequestEntry>> {
    Ok(conn
        .prepare_cached(sql)?
        .query_row(params, entry)
        .optional()?)
}

fn delete_before(conn: &Connection, cutoff: i64, limit: i64) -> StoreResult<u64> {
    let deleted = conn
        .prepare_cached(&format!("DELETE FROM request_log WHERE seq IN ({EXPIRED})"))?
        .execute(params![cutoff, limit])?;
    Ok(deleted as u64)
}

#[async_trait]
impl RequestLog for SqliteStore {
    async fn record_requests(&self, entries: Arc<Vec<RequestEntry>>) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert(conn, &entries))
            .await
    }

    async fn list_requests(
        &self,
        workspace_id: &str,
        filter: RequestFilter,
        page: PageRequest,
    ) -> StoreResult<Page<RequestEntry>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| list(conn, &workspace_id, &filter, page))
            .await
    }

    async fn get_request(&self, workspace_id: &str, id: &str) -> StoreResult<RequestEntry> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .read(move |conn| get(conn, &workspace_id, &id))
            .await
    }

    async fn delete_requests_before(&self, cutoff: DateTime<Utc>, limit: u64) -> StoreResult<u64> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let cutoff = micros(cutoff);
        self.engine
            .write(Vec::new(), move |conn| delete_before(conn, cutoff, limit))
            .await
    }
}

#[cfg(test)]
mod tests {
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

    /// What a write costs is its indexes: one kept on every row, and lookups and deletes
    /// that still search rather than scan.
    #[test]
    fn the_log_keeps_one_index_on_every_write_and_every_read_searches_one() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap();
        let indexes: Vec<(String, Option<String>)> = conn
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_log'")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let every_row: Vec<&str> = indexes
            .iter()
            .filter(|(_, sql)| sql.as_deref().is_some_and(|sql| !sql.contains(" WHERE ")))
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(every_row, ["request_log_by_workspace"], "{indexes:?}");

        let made = plan(&conn, &format!("SELECT {FIELDS} {FROM} WHERE {MADE}"));
        let seek = "INDEX request_log_by_workspace (workspace_id=? AND created_at=?)";
        assert!(made.contains(seek), "{made}");
        let chosen = plan(
            &conn,
            &format!("SELECT {FIELDS} {FROM} WHERE {CHOSEN} AND ?3"),
        );
        let seek = "INDEX request_log_chosen_ids (workspace_id=? AND id=?)";
        assert!(chosen.contains(seek), "{chosen}");
        let expired = plan(&conn, &format!("{EXPIRED} + ?3"));
        let seek = "INDEX request_log_by_workspace (workspace_id=? AND created_at<?)";
        assert!(
            expired.contains(seek) && !expired.contains("SCAN r"),
            "{expired}"
        );
    }

    #[test]
    fn an_id_is_chosen_unless_it_carries_its_entrys_time() {
        let at = crate::store::now();
        let made = RequestEntry {
            id: crate::secrets::new_request_id(at),
            created_at: at,
            ..RequestEntry::default()
        };
        assert!(!chosen(&made));
        let later = RequestEntry {
            created_at: at + chrono::Duration::seconds(5),
            ..made.clone()
        };
        assert!(chosen(&later), "a server's id sent again by a client");
        let client = RequestEntry {
            id: "my-trace-1".into(),
            ..made
        };
        assert!(chosen(&client));
    }
}
