//! SQL of the credit ledger.

use std::collections::HashMap;

use alloy_primitives::U256;
use rusqlite::{Connection, Row, params};

use super::SqliteStore;
use super::rows::page_bounds;
use crate::credits::Credits;
use crate::store::UsageLedger;
use crate::store::{DeploymentTotals, Page, PageRequest, StoreResult, UsageRecord, UsageTotals};
use crate::store::{oldest_day, with_deployments, with_settled};
#[allow(unused_imports)]
use async_trait::async_trait;
use std::sync::Arc;

/// Rows written between two offers of the writer thread's core to other threads (about 20 us
/// of work here). Written in one go, a batch of a thousand rows held a core for over a
/// millisecond: whatever woke on that core meanwhile (a worker with requests) waited for it,
/// and the gateway's p99 at 8 connections was twice what it is with the batch cut so
/// (BENCHMARKS.md, "the stall").
const ROWS_PER_YIELD: usize = 16;

/// Appends ledger records.
pub(super) fn insert(conn: &Connection, records: &[UsageRecord]) -> StoreResult<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO usage_ledger (id, workspace_id, request_id, model, prompt_tokens,
             completion_tokens, nanocredits, wallet, created_at, token_id, deployment)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for (i, r) in records.iter().enumerate() {
        if i > 0 && i % ROWS_PER_YIELD == 0 {
            // Returns at once when no other thread waits for this core.
            std::thread::yield_now();
        }
        stmt.execute(params![
            r.id,
            r.workspace_id,
            r.request_id,
            r.model,
            r.prompt_tokens as i64,
            r.completion_tokens as i64,
            r.credits.to_column(),
            r.wallet,
            r.created_at.timestamp_micros(),
            r.token_id,
            r.deployment
        ])?;
    }
    Ok(())
}

fn totals(row: &Row<'_>) -> rusqlite::Result<UsageTotals> {
    Ok(UsageTotals {
        day: row.get(0)?,
        model: row.get(1)?,
        requests: row.get::<_, i64>(2)? as u64,
        prompt_tokens: row.get::<_, i64>(3)? as u64,
        completion_tokens: row.get::<_, i64>(4)? as u64,
        credits: Credits::from_column(row.get(5)?),
        x402_settled: U256::ZERO,
        deployments: Vec::new(),
    })
}

/// Totals by day, model and deployment, of the rows of models that list deployments, from
/// `since` (microseconds) on.
fn by_deployment(
    conn: &Connection,
    workspace_id: &str,
    token_id: Option<&str>,
    since: i64,
) -> StoreResult<Vec<(String, String, DeploymentTotals)>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT date(created_at / 1000000, 'unixepoch'), model, deployment, COUNT(*),
                SUM(prompt_tokens), SUM(completion_tokens), SUM(nanocredits)
         {ROWS} AND deployment IS NOT NULL AND created_at >= ?3 GROUP BY 1, 2, 3"
    ))?;
    let rows = statement.query_map(params![workspace_id, token_id, since], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            DeploymentTotals {
                name: row.get(2)?,
                requests: row.get::<_, i64>(3)? as u64,
                prompt_tokens: row.get::<_, i64>(4)? as u64,
                completion_tokens: row.get::<_, i64>(5)? as u64,
                credits: Credits::from_column(row.get(6)?),
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Atomic units settled by x402 payments, by UTC day and model: summed here, exactly (SQLite's
/// integers would overflow on an 18-decimal token), from each group's amounts.
fn settled(
    conn: &Connection,
    workspace_id: &str,
    token_id: Option<&str>,
) -> StoreResult<HashMap<(String, String), U256>> {
    let mut statement = conn.prepare_cached(
        "SELECT date(created_at / 1000000, 'unixepoch'), model, group_concat(amount)
         FROM x402_payments WHERE workspace_id = ?1 AND status = 'settled' AND model IS NOT NULL
             AND (?2 IS NULL OR usage_id IN (SELECT id FROM usage_ledger WHERE token_id = ?2))
         GROUP BY 1, 2",
    )?;
    let rows = statement.query_map(params![workspace_id, token_id], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
        ))
    })?;
    let mut by_group = HashMap::new();
    for row in rows {
        let (day, model, amounts) = row?;
        let sum = amounts
            .split(',')
            .filter_map(|amount| U256::from_str_radix(amount, 10).ok())
            .fold(U256::ZERO, U256::saturating_add);
        by_group.insert((day, model), sum);
    }
    Ok(by_group)
}

/// The ledger rows of a workspace, or (`?2` not null) of one of its tokens.
const ROWS: &str = "FROM usage_ledger WHERE workspace_id = ?1 AND (?2 IS NULL OR token_id = ?2)";

/// One page of totals by UTC day and model, newest day first, and the grand total, of the
/// workspace or of one of its tokens.
pub(super) fn by_day(
    conn: &Connection,
    workspace_id: &str,
    token_id: Option<&str>,
    page: PageRequest,
) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
    let paid = settled(conn, workspace_id, token_id)?;
    let mut grand = conn.query_row(
        &format!(
            "SELECT '', '', COUNT(*), COALESCE(SUM(prompt_tokens), 0),
                    COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(nanocredits), 0) {ROWS}"
        ),
        params![workspace_id, token_id],
        totals,
    )?;
    let groups: i64 = conn.query_row(
        &format!(
            "SELECT COUNT(*) FROM (SELECT 1 {ROWS}
             GROUP BY date(created_at / 1000000, 'unixepoch'), model)"
        ),
        params![workspace_id, token_id],
        |r| r.get(0),
    )?;
    let total = groups as u64;
    let items = match page_bounds(page, total) {
        None => Vec::new(),
        Some((limit, offset)) => conn
            .prepare_cached(&format!(
                "SELECT date(created_at / 1000000, 'unixepoch') AS day, model, COUNT(*),
                        SUM(prompt_tokens), SUM(completion_tokens), SUM(nanocredits) {ROWS}
                 GROUP BY day, model ORDER BY day DESC, model LIMIT ?3 OFFSET ?4"
            ))?
            .query_map(params![workspace_id, token_id, limit, offset], totals)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    let mut items = with_settled(items, &paid);
    if let Some(since) = oldest_day(&items) {
        let split = by_deployment(conn, workspace_id, token_id, since.timestamp_micros())?;
        with_deployments(&mut items, split);
    }
    grand.x402_settled = paid
        .values()
        .fold(U256::ZERO, |sum, each| sum.saturating_add(*each));
    Ok((Page { items, total }, grand))
}

#[async_trait]
impl UsageLedger for SqliteStore {
    async fn record_usage(&self, records: Arc<Vec<UsageRecord>>) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert(conn, &records))
            .await
    }

    async fn usage_by_day(
        &self,
        workspace_id: &str,
        token_id: Option<&str>,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
        let workspace_id = workspace_id.to_string();
        let token_id = token_id.map(str::to_string);
        self.engine
            .read(move |conn| by_day(conn, &workspace_id, token_id.as_deref(), page))
            .await
    }
}
