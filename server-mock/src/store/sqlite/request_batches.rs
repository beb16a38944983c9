//! How SQLite keeps the request log: in batches, one row per flush and workspace holding its
//! entries as one JSON array, each entry an array of its fields ([`Stored`], in the positions
//! the `request_log` view reads). A row per request cost a row and its index on every request
//! (about 10,000 instructions, as much as the ledger's own row); an entry in a batch costs its
//! encoding. Ids a client chose are kept beside the batches (`request_log_chosen`), so that one
//! is still found without reading every batch. Retention deletes whole batches, and cuts the
//! older entries out of a batch that straddles the cutoff.

use rusqlite::{Connection, params};
use serde::Serialize;

use super::rows::micros;
use crate::credits::Credits;
use crate::store::{RequestEntry, StoreResult};

/// Most entries one batch holds (a flush after an outage writes several).
const MOST: usize = 1024;

/// The longest time one batch spans, first entry to last, in microseconds: the batches that
/// may hold a time are those that started at most this long before it (the reads' SQL writes
/// it out, 60,000,000).
pub(super) const SPAN: i64 = 60_000_000;

/// An entry as a batch keeps it: its fields in order, by position (keys would be written again
/// in every entry). The `request_log` view names the positions; never reorder, only append.
#[derive(Serialize)]
struct Stored<'a>(
    &'a str,
    i64,
    Option<&'a str>,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    u16,
    Option<&'a str>,
    u8,
    Option<i64>,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
);

fn count(value: Option<u64>) -> Option<i64> {
    value.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

impl<'a> From<&'a RequestEntry> for Stored<'a> {
    fn from(e: &'a RequestEntry) -> Self {
        Stored(
            &e.id,
            micros(e.created_at),
            e.credential_id.as_deref(),
            &e.endpoint,
            e.model.as_deref(),
            e.routed_model.as_deref(),
            e.deployment.as_deref(),
            e.route_reason.as_deref(),
            e.status,
            e.error.as_deref(),
            u8::from(e.stream),
            e.first_token_us,
            e.total_us,
            count(e.prompt_tokens),
            count(e.completion_tokens),
            count(e.cached_tokens),
            e.credits.map(Credits::to_column),
            e.x402_settled.as_deref(),
            e.session_id.as_deref(),
            e.request_body.as_deref(),
            e.response_body.as_deref(),
        )
    }
}

/// Appends `entries` as one batch per workspace (of at most [`MOST`] entries each), and the ids
/// among them a client chose.
pub(super) fn insert(conn: &Connection, entries: &[RequestEntry]) -> StoreResult<()> {
    let mut batch = conn.prepare_cached(
        "INSERT INTO request_log_batches (workspace_id, first_at, last_at, entries, data)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut workspaces: Vec<&str> = Vec::new();
    for entry in entries {
        if !workspaces.contains(&entry.workspace_id.as_str()) {
            workspaces.push(&entry.workspace_id);
        }
    }
    for workspace in workspaces {
        let theirs: Vec<&RequestEntry> = entries
            .iter()
            .filter(|e| e.workspace_id == workspace)
            .collect();
        let mut rest = &theirs[..];
        while !rest.is_empty() {
            // As many as fit in one batch: at most MOST, spanning less than SPAN (entries
            // arrive nearly in order, not quite: the span is of the earliest and the latest).
            let (mut first, mut last) = (i64::MAX, i64::MIN);
            let mut len = 0;
            for entry in rest.iter().take(MOST) {
                let at = micros(entry.created_at);
                let (low, high) = (first.min(at), last.max(at));
                if high - low >= SPAN {
                    break;
                }
                (first, last, len) = (low, high, len + 1);
            }
            let (chunk, after) = rest.split_at(len);
            rest = after;
            let stored: Vec<Stored<'_>> = chunk.iter().map(|e| Stored::from(*e)).collect();
            let text = serde_json::to_string(&stored)
                .map_err(|err| crate::store::StoreError::Backend(err.to_string()))?;
            batch.execute(params![workspace, first, last, len as i64, text])?;
        }
    }
    let mut by_id = None;
    for entry in entries.iter().filter(|e| e.chosen) {
        let statement = match &mut by_id {
            Some(statement) => statement,
            None => by_id.insert(conn.prepare_cached(
                "INSERT INTO request_log_chosen (workspace_id, id, created_at) VALUES (?1, ?2, ?3)",
            )?),
        };
        statement.execute(params![
            entry.workspace_id,
            entry.id,
            micros(entry.created_at)
        ])?;
    }
    Ok(())
}

/// The batches whose every entry is older than `?1`, at most `?2`: through the index by their
/// first entry's time, workspace by workspace (every batch belongs to one; the `CROSS JOIN`
/// keeps the workspaces outside, so the planner never scans the batches instead). Those that
/// straddle `?1` come last in that index, and no more than a minute's of them.
pub(super) const EXPIRED: &str = "SELECT b.seq FROM workspaces w CROSS JOIN request_log_batches b
    ON b.workspace_id = w.id AND b.first_at < ?1 AND b.last_at < ?1 LIMIT ?2";

/// The batches left with entries older than `?1` once the expired ones are gone: those that
/// straddle it, through the index by their first entry's time.
pub(super) const STRADDLING: &str =
    "SELECT b.seq FROM workspaces w CROSS JOIN request_log_batches b
    ON b.workspace_id = w.id AND b.first_at < ?1";

/// The ids clients chose of entries older than `?1`, at most `?2`.
pub(super) const CHOSEN_EXPIRED: &str = "SELECT c.rowid FROM workspaces w
    CROSS JOIN request_log_chosen c ON c.workspace_id = w.id AND c.created_at < ?1 LIMIT ?2";

/// Deletes the entries older than `cutoff` (microseconds) in at most `limit` whole batches, and
/// once none is left whole, those in batches that straddle it; returns how many.
pub(super) fn delete_before(conn: &Connection, cutoff: i64, limit: i64) -> StoreResult<u64> {
    // One statement finds and deletes them, and says how many entries each held.
    let held: Vec<i64> = conn
        .prepare_cached(&format!(
            "DELETE FROM request_log_batches WHERE seq IN ({EXPIRED}) RETURNING entries"
        ))?
        .query_map(params![cutoff, limit], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let batches = held.len();
    let mut deleted: i64 = held.iter().sum();
    if (batches as i64) < limit {
        let straddling: Vec<(i64, i64)> = conn
            .prepare_cached(&format!(
                "SELECT seq, entries FROM request_log_batches WHERE seq IN ({STRADDLING})"
            ))?
            .query_map(params![cutoff], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (seq, before) in straddling {
            // The batch keeps its newer entries, in order.
            let after: i64 = conn
                .prepare_cached(
                    "UPDATE request_log_batches SET
                         data = (SELECT json_group_array(json(j.value)) FROM json_each(data) j
                                 WHERE j.value ->> 1 >= ?1),
                         entries = (SELECT COUNT(*) FROM json_each(data) j
                                    WHERE j.value ->> 1 >= ?1),
                         first_at = (SELECT MIN(j.value ->> 1) FROM json_each(data) j
                                     WHERE j.value ->> 1 >= ?1)
                     WHERE seq = ?2 RETURNING entries",
                )?
                .query_row(params![cutoff, seq], |r| r.get(0))?;
            deleted += (before - after).max(0);
        }
    }
    conn.prepare_cached(&format!(
        "DELETE FROM request_log_chosen WHERE rowid IN ({CHOSEN_EXPIRED})"
    ))?
    .execute(params![cutoff, limit])?;
    Ok(deleted.max(0) as u64)
}
