//! The PostgreSQL SQL of the request log.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use super::db::limits;
use crate::credits::Credits;
use crate::store::{
    Page, PageRequest, RequestBatch, RequestEntry, RequestFilter, RequestLog, StoreError,
    StoreResult, count_column,
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

/// The rows a filter keeps (`$1` the workspace; a NULL filter keeps everything).
const KEPT: &str = "r.workspace_id = $1 AND ($2::text IS NULL OR r.credential_id = $2)
    AND ($3::text IS NULL OR r.model = $3 OR r.routed_model = $3)
    AND ($4::int8 IS NULL OR r.status BETWEEN $4 AND $5)
    AND ($6::timestamptz IS NULL OR r.created_at >= $6)
    AND ($7::timestamptz IS NULL OR r.created_at < $7)
    AND ($8::text IS NULL OR r.session_id = $8)";

/// Appends entries, all in one statement.
async fn insert(c: &impl GenericClient, entries: &[RequestEntry]) -> StoreResult<()> {
    let text = |f: fn(&RequestEntry) -> Option<String>| entries.iter().map(f).collect::<Vec<_>>();
    let int = |f: fn(&RequestEntry) -> Option<i64>| entries.iter().map(f).collect::<Vec<_>>();
    let ids = text(|e| Some(e.id.clone()));
    let workspaces = text(|e| Some(e.workspace_id.clone()));
    let created: Vec<_> = entries.iter().map(|e| e.created_at).collect();
    let credentials = text(|e| e.credential_id.clone());
    let endpoints = text(|e| Some(e.endpoint.clone()));
    let models = text(|e| e.model.clone());
    let routed = text(|e| e.routed_model.clone());
    let deployments = text(|e| e.deployment.clone());
    let reasons = text(|e| e.route_reason.clone());
    let statuses = int(|e| Some(i64::from(e.status)));
    let errors = text(|e| e.error.clone());
    let streams: Vec<bool> = entries.iter().map(|e| e.stream).collect();
    let first = int(|e| e.first_token_us);
    let total = int(|e| Some(e.total_us));
    let prompt = int(|e| count_column(e.prompt_tokens));
    let completion = int(|e| count_column(e.completion_tokens));
    let cached = int(|e| count_column(e.cached_tokens));
    let nanos = int(|e| e.credits.map(Credits::to_column));
    let settled = text(|e| e.x402_settled.clone());
    let sessions = text(|e| e.session_id.clone());
    let requests = text(|e| e.request_body.clone());
    let responses = text(|e| e.response_body.clone());
    let sql = "INSERT INTO request_log (id, workspace_id, created_at, credential_id, endpoint,
                   model, routed_model, deployment, route_reason, status, error, stream,
                   first_token_us, total_us, prompt_tokens, completion_tokens, cached_tokens,
                   nanocredits, x402_settled, session_id, request_body, response_body)
               SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[],
                   $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int8[],
                   $11::text[], $12::bool[], $13::int8[], $14::int8[], $15::int8[], $16::int8[],
                   $17::int8[], $18::int8[], $19::text[], $20::text[], $21::text[], $22::text[])";
    let params: [&(dyn ToSql + Sync); 22] = [
        &ids,
        &workspaces,
        &created,
        &credentials,
        &endpoints,
        &models,
        &routed,
        &deployments,
        &reasons,
        &statuses,
        &errors,
        &streams,
        &first,
        &total,
        &prompt,
        &completion,
        &cached,
        &nanos,
        &settled,
        &sessions,
        &requests,
        &responses,
    ];
    c.execute(&c.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

fn entry(row: &Row) -> RequestEntry {
    let count = |i| row.get::<_, Option<i64>>(i).map(|n| n.max(0) as u64);
    RequestEntry {
        id: row.get(0),
        workspace_id: row.get(1),
        created_at: row.get(2),
        credential_id: row.get(3),
        credential_name: row.get(4),
        endpoint: row.get(5),
        model: row.get(6),
        routed_model: row.get(7),
        deployment: row.get(8),
        route_reason: row.get(9),
        status: u16::try_from(row.get::<_, i64>(10)).unwrap_or_default(),
        error: row.get(11),
        stream: row.get(12),
        first_token_us: row.get(13),
        total_us: row.get(14),
        prompt_tokens: count(15),
        completion_tokens: count(16),
        cached_tokens: count(17),
        credits: row.get::<_, Option<i64>>(18).map(Credits::from_column),
        x402_settled: row.get(19),
        session_id: row.get(20),
        request_body: row.get(21),
        response_body: row.get(22),
        chosen: false,
    }
}

async fn list(
    c: &impl GenericClient,
    workspace_id: &str,
    filter: &RequestFilter,
    page: PageRequest,
) -> StoreResult<Page<RequestEntry>> {
    let (low, high) = filter.status.map(|s| s.range()).unzip();
    let (limit, offset) = limits(page);
    let params: [&(dyn ToSql + Sync); 10] = [
        &workspace_id,
        &filter.credential_id,
        &filter.model,
        &low,
        &high,
        &filter.since,
        &filter.until,
        &filter.session_id,
        &limit,
        &offset,
    ];
    let sql = format!("SELECT COUNT(*) FROM request_log r WHERE {KEPT}");
    let total: i64 = c
        .query_one(&c.prepare_cached(&sql).await?, &params[..8])
        .await?
        .get(0);
    let sql = format!(
        "SELECT {FIELDS}, NULL, NULL {FROM} WHERE {KEPT} ORDER BY r.created_at DESC, r.seq DESC LIMIT $9 OFFSET $10"
    );
    let rows = c.query(&c.prepare_cached(&sql).await?, &params).await?;
    Ok(Page {
        items: rows.iter().map(entry).collect(),
        total: total as u64,
    })
}

async fn get(c: &impl GenericClient, workspace_id: &str, id: &str) -> StoreResult<RequestEntry> {
    let sql = format!(
        "SELECT {FIELDS}, {BODIES} {FROM} WHERE r.workspace_id = $1 AND r.id = $2
         ORDER BY r.created_at DESC, r.seq DESC LIMIT 1"
    );
    let row = c
        .query_opt(&c.prepare_cached(&sql).await?, &[&workspace_id, &id])
        .await?;
    row.as_ref().map(entry).ok_or(StoreError::NotFound)
}

async fn delete_before(
    c: &impl GenericClient,
    cutoff: DateTime<Utc>,
    limit: i64,
) -> StoreResult<u64> {
    let sql = "DELETE FROM request_log WHERE seq IN
                   (SELECT seq FROM request_log WHERE created_at < $1 LIMIT $2)";
    Ok(c.execute(&c.prepare_cached(sql).await?, &[&cutoff, &limit])
        .await?)
}

#[async_trait]
impl RequestLog for PostgresStore {
    async fn record_requests(&self, batches: Arc<Vec<RequestBatch>>) -> StoreResult<()> {
        // A row each: the entries read back out of their batches.
        let entries: Vec<RequestEntry> = batches.iter().flat_map(RequestBatch::entries).collect();
        with_client!(self, |c| insert(&c, &entries).await)
    }

    async fn list_requests(
        &self,
        workspace_id: &str,
        filter: RequestFilter,
        page: PageRequest,
    ) -> StoreResult<Page<RequestEntry>> {
        with_client!(self, |c| list(&c, workspace_id, &filter, page).await)
    }

    async fn get_request(&self, workspace_id: &str, id: &str) -> StoreResult<RequestEntry> {
        with_client!(self, |c| get(&c, workspace_id, id).await)
    }

    async fn delete_requests_before(&self, cutoff: DateTime<Utc>, limit: u64) -> StoreResult<u64> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        with_client!(self, |c| delete_before(&c, cutoff, limit).await)
    }
}
