//! SQL of `token.expiring` notices.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

use super::super::rows::{TOKEN_COLUMNS, TOKENS, micros, token_from_row};
use super::enqueue;
use crate::store::{NewEvent, StoreResult, TokenRecord};

/// Live tokens whose notice moment `expires_at - offset` (`?2`) has come and lies after their
/// creation, that have not yet expired (`?1` is now, `?3` is now + offset) and have no notice
/// `?4` yet. The range on `expires_at` is read from the `tokens_expiring` index, so a scan
/// touches only tokens expiring within the offset, never the whole table.
pub(super) fn due_sql() -> String {
    format!(
        "SELECT {TOKEN_COLUMNS} FROM {TOKENS}
         WHERE revoked_at IS NULL AND expires_at IS NOT NULL
           AND expires_at > ?1 AND expires_at <= ?3
           AND expires_at - ?2 > created_at
           AND NOT EXISTS (SELECT 1 FROM webhook_expiry_notices n
                           WHERE n.token_id = tokens.id AND n.notice = ?4)"
    )
}

/// For each `(label, offset)` in microseconds: every live token whose `expires_at - offset`
/// has passed, lies after its creation, and has no notice yet gets one: the notice row and its
/// event (made by `make_event`) are written together. Returns how many were written.
pub(in crate::store::sqlite) fn expiring(
    conn: &Connection,
    now: DateTime<Utc>,
    offsets: &[(String, i64)],
    make_event: &(dyn Fn(&TokenRecord, &str) -> NewEvent + Send + Sync),
) -> StoreResult<usize> {
    let mut written = 0;
    let now = micros(now);
    for (label, offset) in offsets {
        let due = conn
            .prepare_cached(&due_sql())?
            .query_map(
                params![now, offset, now.saturating_add(*offset), label],
                token_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for token in due {
            conn.prepare_cached(
                "INSERT INTO webhook_expiry_notices (token_id, notice) VALUES (?1, ?2)",
            )?
            .execute(params![token.id, label])?;
            enqueue(conn, &make_event(&token, label), None)?;
            written += 1;
        }
    }
    Ok(written)
}
