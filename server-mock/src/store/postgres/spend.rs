//! A token's limit as PostgreSQL rows hold it, and what its current period has spent: read
//! with tokens (`tokens.rs`) and by the limits' part (`limits.rs`).

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use crate::credits::Credits;
use crate::store::{Limit, Reset, Spend, StoreResult};

/// The limit in a row's columns `credit_limit, reset, since` from `at` on (all NULL: none).
pub(super) fn limit_of(row: &tokio_postgres::Row, at: usize) -> Option<Limit> {
    Some(Limit {
        credit_limit: Credits::from_column(row.get::<_, Option<i64>>(at)?),
        reset: Reset::parse(row.get::<_, Option<&str>>(at + 1)?)?,
        since: row.get::<_, Option<DateTime<Utc>>>(at + 2)?,
    })
}

/// What the period of each of these limits that holds `now` has spent and reserved, in their
/// order, read in one statement (one round trip for a page of tokens).
pub(super) async fn spends(
    c: &impl GenericClient,
    limits: &[(&str, Limit)],
    now: DateTime<Utc>,
) -> StoreResult<Vec<Spend>> {
    if limits.is_empty() {
        return Ok(Vec::new());
    }
    let periods: Vec<_> = limits.iter().map(|(_, limit)| limit.period(now)).collect();
    let ids: Vec<&str> = limits.iter().map(|(id, _)| *id).collect();
    let starts: Vec<DateTime<Utc>> = periods.iter().map(|period| period.start).collect();
    let sql = "SELECT
        (SELECT COALESCE(SUM(nanocredits), 0)::int8 FROM usage_ledger
         WHERE token_id = t.id AND created_at >= t.start),
        (SELECT COALESCE(SUM(nanocredits), 0)::int8 FROM spend_holds
         WHERE token_id = t.id AND expires_at > $3)
        FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS t(id, start, n)
        ORDER BY t.n";
    let rows = c
        .query(&c.prepare_cached(sql).await?, &[&ids, &starts, &now])
        .await?;
    Ok(rows
        .iter()
        .zip(limits.iter().zip(periods))
        .map(|(row, ((_, limit), period))| Spend {
            limit: *limit,
            period,
            spent: Credits::from_column(row.get(0)),
            reserved: Credits::from_column(row.get(1)),
        })
        .collect())
}
