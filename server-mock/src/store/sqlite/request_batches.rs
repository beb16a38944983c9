//! How SQLite keeps the request log: in batches, one row per flush and workspace holding its
//! entries as one JSON array, each entry an array of its fields ([`encode`], in the positions
//! the `request_log` view reads). A row per request cost a row and its index on every request
//! (about 10,000 instructions, as much as the ledger's own row); an entry in a batch costs its
//! encoding. Ids a client chose are kept beside the batches (`request_log_chosen`), so that one
//! is still found without reading every batch. Retention deletes whole batches, and cuts the
//! older entries out of a batch that straddles the cutoff.

use rusqlite::{Connection, params};

use super::rows::micros;
use crate::store::{RequestEntry, StoreResult, count_column};

/// Most entries one batch holds (a flush after an outage writes several).
const MOST: usize = 1024;

/// The longest time one batch spans, first entry to last, in microseconds: the batches that
/// may hold a time are those that started at most this long before it (the reads' SQL writes
/// it out, 60,000,000).
pub(super) const SPAN: i64 = 60_000_000;

/// Bytes an entry takes in a batch, about (its room is kept before writing).
const ENTRY_BYTES: usize = 192;

/// Writes `entries` as a batch: a JSON array of arrays, each entry's fields in the positions
/// the `request_log` view reads (never reorder, only append). Fields after the last that is
/// set are left out: the view reads a missing position as NULL. Written by hand rather than
/// through serde, whose generic framing cost about 2,000 instructions an entry; a string that
/// needs escaping is still escaped by `serde_json`.
fn encode(entries: &[&RequestEntry]) -> String {
    let mut out = String::with_capacity(2 + entries.len() * ENTRY_BYTES);
    out.push('[');
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let start = out.len();
        string(&mut out, '[', Some(&e.id));
        int(&mut out, ',', Some(micros(e.created_at)));
        string(&mut out, ',', e.credential_id.as_deref());
        string(&mut out, ',', Some(&e.endpoint));
        string(&mut out, ',', e.model.as_deref());
        string(&mut out, ',', e.routed_model.as_deref());
        string(&mut out, ',', e.deployment.as_deref());
        string(&mut out, ',', e.route_reason.as_deref());
        int(&mut out, ',', Some(i64::from(e.status)));
        string(&mut out, ',', e.error.as_deref());
        int(&mut out, ',', Some(i64::from(e.stream)));
        int(&mut out, ',', e.first_token_us);
        int(&mut out, ',', Some(e.total_us));
        int(&mut out, ',', count_column(e.prompt_tokens));
        int(&mut out, ',', count_column(e.completion_tokens));
        int(&mut out, ',', count_column(e.cached_tokens));
        int(
            &mut out,
            ',',
            e.credits.map(crate::credits::Credits::to_column),
        );
        string(&mut out, ',', e.x402_settled.as_deref());
        string(&mut out, ',', e.session_id.as_deref());
        string(&mut out, ',', e.request_body.as_deref());
        string(&mut out, ',', e.response_body.as_deref());
        while out.len() > start && out.ends_with(",null") {
            out.truncate(out.len() - ",null".len());
        }
        out.push(']');
    }
    out.push(']');
    out
}

/// `before` (the array's opening or a comma), then `text` as a JSON string: as it is between
/// quotes when nothing in it needs escaping (ids, model names, codes: nearly always), else
/// escaped by `serde_json`.
fn string(out: &mut String, before: char, text: Option<&str>) {
    out.push(before);
    let Some(text) = text else {
        out.push_str("null");
        return;
    };
    match plain(text.as_bytes()) {
        true => {
            out.push('"');
            out.push_str(text);
            out.push('"');
        }
        false => match serde_json::to_string(text) {
            Ok(escaped) => out.push_str(&escaped),
            // A &str always serializes; should it not, the field reads as NULL.
            Err(_) => out.push_str("null"),
        },
    }
}

/// `before` (a comma), then `n` as a JSON number.
fn int(out: &mut String, before: char, n: Option<i64>) {
    out.push(before);
    match n {
        Some(n) => out.push_str(itoa::Buffer::new().format(n)),
        None => out.push_str("null"),
    }
}

/// Whether no byte of `text` needs escaping in a JSON string (a control character, `"` or
/// `\\`), looked at eight bytes at a time: a byte below `n` shows in `(w - n·ONES) & !w & HIGH`,
/// a byte equal to `c` as a zero byte of `w ^ c·ONES` (exact as to whether any byte does).
fn plain(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
    let equal = |w: u64, c: u8| below(w ^ (ONES * u64::from(c)), 1);
    let mut chunks = text.chunks_exact(8);
    for chunk in &mut chunks {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        if below(w, 0x20) | equal(w, b'"') | equal(w, b'\\') != 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
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
            batch.execute(params![workspace, first, last, len as i64, encode(chunk)])?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn a_batch_is_json_with_each_field_at_its_position_and_trailing_unset_ones_left_out() {
        let whole = RequestEntry {
            id: "req_1".into(),
            created_at: chrono::DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
            credential_id: Some("tok_1".into()),
            endpoint: "/v1/chat/completions".into(),
            model: Some("a \"quoted\" model\\ with\ttab and é".into()),
            routed_model: Some("mock".into()),
            route_reason: Some("requested".into()),
            status: 200,
            total_us: 1234,
            prompt_tokens: Some(u64::MAX),
            credits: Some(crate::credits::Credits::from_column(42)),
            session_id: Some("s\u{1}".into()),
            ..RequestEntry::default()
        };
        let bare = RequestEntry {
            id: "req_2".into(),
            stream: true,
            ..RequestEntry::default()
        };
        let batch: Value = serde_json::from_str(&encode(&[&whole, &bare])).unwrap();
        assert_eq!(
            batch,
            json!([
                [
                    "req_1",
                    1_700_000_000_123_456_i64,
                    "tok_1",
                    "/v1/chat/completions",
                    "a \"quoted\" model\\ with\ttab and é",
                    "mock",
                    null,
                    "requested",
                    200,
                    null,
                    0,
                    null,
                    1234,
                    i64::MAX,
                    null,
                    null,
                    42,
                    null,
                    "s\u{1}"
                ],
                [
                    "req_2", 0, null, "", null, null, null, null, 0, null, 1, null, 0
                ]
            ])
        );
    }

    #[test]
    fn a_string_is_plain_exactly_when_no_byte_needs_escaping_wherever_the_byte_sits() {
        let simple = |text: &[u8]| text.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
        for len in 0..20 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    assert_eq!(plain(&text), simple(&text), "{text:?}");
                }
            }
        }
    }
}
