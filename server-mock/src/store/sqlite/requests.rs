//! SQL of the request log.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, Row, params};

use super::SqliteStore;
use super::rows::{from_micros, micros, page_bounds};
use crate::credits::Credits;
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

fn count(value: Option<u64>) -> Option<i64> {
    value.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

fn insert(conn: &Connection, entries: &[RequestEntry]) -> StoreResult<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO request_log (id, workspace_id, created_at, credential_id, endpoint, model,
             routed_model, deployment, route_reason, status, error, stream, first_token_us,
             total_us, prompt_tokens, completion_tokens, cached_tokens, nanocredits,
             x402_settled, session_id, request_body, response_body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20, ?21, ?22)",
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
            e.request_body,
            e.response_body,
        ])?;
    }
    Ok(())
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
    let sql = format!(
        "SELECT {FIELDS}, {BODIES} {FROM} WHERE r.workspace_id = ?1 AND r.id = ?2
         ORDER BY r.created_at DESC, r.seq DESC LIMIT 1"
    );
    match conn
        .prepare_cached(&sql)?
        .query_row(params![workspace_id, id], entry)
    {
        Ok(entry) => Ok(entry),
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(StoreError::NotFound),
        Err(err) => Err(err.into()),
    }
}

fn delete_before(conn: &Connection, cutoff: i64, limit: i64) -> StoreResult<u64> {
    let deleted = conn
        .prepare_cached(
            "DELETE FROM request_log WHERE seq IN
                 (SELECT seq FROM request_log WHERE created_at < ?1 LIMIT ?2)",
        )?
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
