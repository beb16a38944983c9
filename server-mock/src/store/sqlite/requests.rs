//! SQL of the request log.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, ToSql, params};

use super::SqliteStore;
use super::request_batches;
use super::rows::{from_micros, micros, page_bounds};
use crate::credits::Credits;
use crate::secrets::request_id_time;
use crate::store::{
    Page, PageRequest, RequestBatch, RequestEntry, RequestFilter, RequestLog, StoreError,
    StoreResult,
};

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
    AND (?6 IS NULL OR (r.batch_first > ?6 - 60000000 AND r.created_at >= ?6))
    AND (?7 IS NULL OR (r.batch_first < ?7 AND r.created_at < ?7))
    AND (?8 IS NULL OR r.session_id = ?8)";

/// An entry whose id the server made, where its id says it arrived (`?3`): in the batches
/// that may hold that time (none spans more than a minute, [`SPAN`](crate::store::request_batch::SPAN)), found
/// by a bounded seek on the index by their first entry's time. 60,000,000 us is that span in
/// the SQL below.
const MADE: &str = "r.workspace_id = ?1 AND r.batch_first <= ?3
    AND r.batch_first > ?3 - 60000000 AND r.created_at = ?3 AND r.id = ?2";

/// An entry whose id a client chose: when it arrived from the index of those, then as
/// [`MADE`].
const CHOSEN: &str = "r.workspace_id = ?1 AND r.id = ?2 AND r.batch IN (SELECT b.seq
    FROM request_log_chosen c JOIN request_log_batches b ON b.workspace_id = c.workspace_id
        AND b.first_at <= c.created_at AND b.first_at > c.created_at - 60000000
    WHERE c.workspace_id = ?1 AND c.id = ?2)
    AND r.created_at IN (SELECT created_at FROM request_log_chosen
        WHERE workspace_id = ?1 AND id = ?2)";

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
        chosen: false,
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

#[async_trait]
impl RequestLog for SqliteStore {
    async fn record_requests(&self, batches: Arc<Vec<RequestBatch>>) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                request_batches::insert(conn, &batches)
            })
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
            .write(Vec::new(), move |conn| {
                request_batches::delete_before(conn, cutoff, limit)
            })
            .await
    }
}

#[cfg(test)]
mod tests;
