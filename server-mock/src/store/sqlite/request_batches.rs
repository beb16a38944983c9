//! How SQLite keeps the request log: in batches, one row per flush and workspace holding its
//! entries as one JSON array, each entry an array of its fields ([`encode`], in the positions
//! the `request_log` view reads). A row per request cost a row and its index on every request
//! (about 10,000 instructions, as much as the ledger's own row); an entry in a batch costs its
//! encoding. Ids a client chose are kept beside the batches (`request_log_chosen`), so that one
//! is still found without reading every batch. Retention deletes whole batches, and cuts the
//! older entries out of a batch that straddles the cutoff.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql, params};

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
/// set are left out: the view reads a missing position as NULL. Written by hand into bytes
/// rather than through serde, whose generic framing cost about 2,000 instructions an entry; a
/// string that needs escaping is still escaped by `serde_json`. The bytes are UTF-8: JSON's
/// framing around `&str`s.
fn encode(entries: &[&RequestEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + entries.len() * ENTRY_BYTES);
    out.push(b'[');
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        entry(&mut out, e);
    }
    out.push(b']');
    out
}

/// Most bytes a field takes besides its text: a comma, and quotes or a number (20 digits and
/// a sign).
const FIELD_BYTES: usize = 22;

/// Fields in an entry.
const FIELDS: usize = 21;

/// `e` as a JSON array of its fields, up to the last that is set, its room made at once.
fn entry(out: &mut Vec<u8>, e: &RequestEntry) {
    let len = |text: &Option<String>| text.as_ref().map_or(0, String::len);
    let texts = e.id.len()
        + e.endpoint.len()
        + len(&e.credential_id)
        + len(&e.model)
        + len(&e.routed_model)
        + len(&e.deployment)
        + len(&e.route_reason)
        + len(&e.error)
        + len(&e.x402_settled)
        + len(&e.session_id)
        + len(&e.request_body)
        + len(&e.response_body);
    out.reserve(2 + texts + FIELDS * FIELD_BYTES);
    out.push(b'[');
    string(out, &e.id);
    let mut fields = Fields {
        out: &mut *out,
        nulls: 0,
    };
    fields.int(Some(micros(e.created_at)));
    fields.text(e.credential_id.as_deref());
    fields.text(Some(&e.endpoint));
    fields.text(e.model.as_deref());
    fields.text(e.routed_model.as_deref());
    fields.text(e.deployment.as_deref());
    fields.text(e.route_reason.as_deref());
    fields.int(Some(i64::from(e.status)));
    fields.text(e.error.as_deref());
    fields.int(Some(i64::from(e.stream)));
    fields.int(e.first_token_us);
    fields.int(Some(e.total_us));
    fields.int(count_column(e.prompt_tokens));
    fields.int(count_column(e.completion_tokens));
    fields.int(count_column(e.cached_tokens));
    fields.int(e.credits.map(crate::credits::Credits::to_column));
    fields.text(e.x402_settled.as_deref());
    fields.text(e.session_id.as_deref());
    fields.text(e.request_body.as_deref());
    fields.text(e.response_body.as_deref());
    out.push(b']');
}

/// An entry's fields after its first, each after a comma; an unset one (null) is held back
/// until a set one follows, so the trailing ones are never written.
struct Fields<'a> {
    out: &'a mut Vec<u8>,
    nulls: usize,
}

impl Fields<'_> {
    fn next(&mut self) {
        for _ in 0..std::mem::take(&mut self.nulls) {
            self.out.extend_from_slice(b",null");
        }
        self.out.push(b',');
    }

    fn text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => {
                self.next();
                string(self.out, text);
            }
            None => self.nulls += 1,
        }
    }

    fn int(&mut self, n: Option<i64>) {
        match n {
            Some(n) => {
                self.next();
                self.out
                    .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            }
            None => self.nulls += 1,
        }
    }
}

/// `text` as a JSON string: as it is between quotes when nothing in it needs escaping (ids,
/// model names, codes: nearly always), else escaped by `serde_json`.
fn string(out: &mut Vec<u8>, text: &str) {
    if plain(text.as_bytes()) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else if serde_json::to_writer(&mut *out, text).is_err() {
        // A &str always serializes into memory; should it not, the field reads as NULL.
        out.extend_from_slice(b"null");
    }
}

/// Whether no byte of `text` needs escaping in a JSON string (a control character, `"` or
/// `\\`), looked at eight bytes at a time (the last eight overlapping the ones before, so no
/// byte is looked at alone unless the text is shorter): a byte below `n` shows in
/// `(w - n·ONES) & !w & HIGH`, a byte equal to `c` as a zero byte of `w ^ c·ONES` (exact as to
/// whether any byte does).
fn plain(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
    let equal = |w: u64, c: u8| below(w ^ (ONES * u64::from(c)), 1);
    let clean = |chunk: &[u8]| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        below(w, 0x20) | equal(w, b'"') | equal(w, b'\\') == 0
    };
    if text.len() < 8 {
        return text.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    }
    text.chunks_exact(8).all(clean) && clean(&text[text.len() - 8..])
}

/// A batch's JSON bound as text without checking it again ([`encode`] writes UTF-8).
struct Json<'a>(&'a [u8]);

impl ToSql for Json<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.0)))
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
            let data = encode(chunk);
            batch.execute(params![workspace, first, last, len as i64, Json(&data)])?;
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
        let batch: Value = serde_json::from_slice(&encode(&[&whole, &bare])).unwrap();
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
