//! The PostgreSQL SQL of `token.expiring` notices.

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use super::enqueue;
use crate::store::postgres::schema::{EXPIRY_LOCK, LOCK_SPACE};
use crate::store::postgres::tokens::{TOKEN_COLUMNS, TOKENS, token};
use crate::store::{NewEvent, StoreResult, TokenRecord};

/// For each `(label, offset)`: every live token whose `expires_at - offset` has passed, lies
/// after its creation, and has no notice yet gets one, with its event. One instance scans at a
/// time (the others skip their turn), and a notice row is written once whatever happens, so
/// each notice fires once across instances. `c` is a transaction.
pub(in crate::store::postgres) async fn expiring(
    c: &impl GenericClient,
    now: DateTime<Utc>,
    offsets: &[(String, chrono::Duration)],
    make_event: &(dyn Fn(&TokenRecord, &str) -> NewEvent + Send + Sync),
) -> StoreResult<usize> {
    let ours: bool = c
        .query_one(
            "SELECT pg_try_advisory_xact_lock($1, $2)",
            &[&LOCK_SPACE, &EXPIRY_LOCK],
        )
        .await?
        .get(0);
    if !ours {
        return Ok(0);
    }
    let due_sql = format!(
        "SELECT {TOKEN_COLUMNS} FROM {TOKENS}
         WHERE revoked_at IS NULL AND expires_at IS NOT NULL
           AND expires_at > $1 AND expires_at <= $2
           AND expires_at - $3::int8 * interval '1 microsecond' > created_at
           AND NOT EXISTS (SELECT 1 FROM webhook_expiry_notices n
                           WHERE n.token_id = tokens.id AND n.notice = $4)"
    );
    let mut written = 0;
    for (label, offset) in offsets {
        let micros = offset.num_microseconds().unwrap_or(i64::MAX);
        let until = now
            .checked_add_signed(*offset)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let due = c
            .query(
                &c.prepare_cached(&due_sql).await?,
                &[&now, &until, &micros, label],
            )
            .await?;
        for row in &due {
            let token = token(row);
            let inserted = c
                .execute(
                    "INSERT INTO webhook_expiry_notices (token_id, notice) VALUES ($1, $2)
                     ON CONFLICT DO NOTHING",
                    &[&token.id, label],
                )
                .await?;
            if inserted == 1 {
                enqueue(c, &make_event(&token, label), None).await?;
                written += 1;
            }
        }
    }
    Ok(written)
}
