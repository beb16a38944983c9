//! How SQLite keeps the request log: a row per batch ([`RequestBatch`]: one workspace's entries
//! as one JSON array, each entry an array of its fields in the positions the `request_log` view
//! reads). A row per request cost a row and its index on every request (about 10,000
//! instructions, as much as the ledger's own row); an entry in a batch costs its encoding, made
//! on the request's thread as it ends. Ids a client chose are kept beside the batches
//! (`request_log_chosen`), so that one is still found without reading every batch. Retention
//! deletes whole batches, and cuts the older entries out of a batch that straddles the cutoff.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql, params};

use crate::store::{RequestBatch, StoreResult};

/// A batch's JSON bound as text without checking it again ([`encode`] writes UTF-8).
struct Json<'a>(&'a [u8]);

impl ToSql for Json<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.0)))
    }
}

/// Appends each batch as a row, and the ids among them a client chose.
pub(super) fn insert(conn: &Connection, batches: &[RequestBatch]) -> StoreResult<()> {
    let mut row = conn.prepare_cached(
        "INSERT INTO request_log_batches (workspace_id, first_at, last_at, entries, data)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for batch in batches.iter().filter(|b| !b.is_empty()) {
        let (first, last) = batch.span();
        let workspace = batch.workspace_id();
        row.execute(params![
            workspace,
            first,
            last,
            batch.len() as i64,
            Json(batch.data())
        ])?;
        if batch.chosen().is_empty() {
            continue;
        }
        let mut by_id = conn.prepare_cached(
            "INSERT INTO request_log_chosen (workspace_id, id, created_at) VALUES (?1, ?2, ?3)",
        )?;
        for (id, at) in batch.chosen() {
            by_id.execute(params![workspace, id, at])?;
        }
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
