//! SQL of the credit ledger.

use rusqlite::{Connection, Row, params};

use super::rows::page_bounds;
use super::{Page, PageRequest, StoreResult, UsageRecord, UsageTotals};

/// Appends ledger records.
pub(super) fn insert(conn: &Connection, records: &[UsageRecord]) -> StoreResult<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO usage_ledger (id, workspace_id, request_id, model, prompt_tokens,
             completion_tokens, credits, wallet, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for r in records {
        stmt.execute(params![
            r.id,
            r.workspace_id,
            r.request_id,
            r.model,
            r.prompt_tokens as i64,
            r.completion_tokens as i64,
            r.credits,
            r.wallet,
            r.created_at.timestamp_micros()
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
        credits: row.get(5)?,
    })
}

/// One page of totals by UTC day and model, newest day first, and the grand total.
pub(super) fn by_day(
    conn: &Connection,
    workspace_id: &str,
    page: PageRequest,
) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
    let grand = conn.query_row(
        "SELECT '', '', COUNT(*), COALESCE(SUM(prompt_tokens), 0),
                COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(credits), 0.0)
         FROM usage_ledger WHERE workspace_id = ?1",
        params![workspace_id],
        totals,
    )?;
    let groups: i64 = conn.query_row(
        "SELECT COUNT(*) FROM (SELECT 1 FROM usage_ledger WHERE workspace_id = ?1
         GROUP BY date(created_at / 1000000, 'unixepoch'), model)",
        params![workspace_id],
        |r| r.get(0),
    )?;
    let total = groups as u64;
    let items = match page_bounds(page, total) {
        None => Vec::new(),
        Some((limit, offset)) => conn
            .prepare_cached(
                "SELECT date(created_at / 1000000, 'unixepoch') AS day, model, COUNT(*),
                        SUM(prompt_tokens), SUM(completion_tokens), SUM(credits)
                 FROM usage_ledger WHERE workspace_id = ?1
                 GROUP BY day, model ORDER BY day DESC, model LIMIT ?2 OFFSET ?3",
            )?
            .query_map(params![workspace_id, limit, offset], totals)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    Ok((Page { items, total }, grand))
}
