//! The `SpendLimits` part of the SQLite store. Reservations and charges run on the one writer
//! thread, in order, so each sees every one before it: the check and the hold are one step.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use super::rows::{fetch_token, insert_audit, limit_at, micros};
use crate::credits::Credits;
use crate::store::{
    AuditEntry, Hold, Limit, LimitChange, Reserved, Spend, SpendLimits, StoreError, StoreResult,
    TokenRecord, TokenStore, UsageRecord, change_details, notice,
};

/// The token's limit.
fn load(conn: &Connection, token_id: &str) -> StoreResult<Option<Limit>> {
    Ok(conn
        .prepare_cached("SELECT credit_limit, reset, since FROM token_limits WHERE token_id = ?1")?
        .query_row(params![token_id], |row| limit_at(row, 0))
        .optional()?
        .flatten())
}

/// Sets (or with `None` removes) the token's limit.
pub(super) fn store_limit(
    conn: &Connection,
    token_id: &str,
    limit: Option<Limit>,
) -> StoreResult<()> {
    match limit {
        Some(limit) => conn
            .prepare_cached(
                "INSERT INTO token_limits (token_id, credit_limit, reset, since)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (token_id) DO UPDATE
                 SET credit_limit = excluded.credit_limit, reset = excluded.reset,
                     since = excluded.since",
            )?
            .execute(params![
                token_id,
                limit.credit_limit.to_column(),
                limit.reset.as_str(),
                micros(limit.since)
            ])?,
        None => conn
            .prepare_cached("DELETE FROM token_limits WHERE token_id = ?1")?
            .execute(params![token_id])?,
    };
    Ok(())
}

/// What the period of `limit` that holds `now` has spent and reserved, in one statement.
pub(super) fn spend_of(
    conn: &Connection,
    token_id: &str,
    limit: Limit,
    now: DateTime<Utc>,
) -> StoreResult<Spend> {
    let period = limit.period(now);
    let (spent, reserved): (i64, i64) = conn
        .prepare_cached(
            "SELECT
                 (SELECT COALESCE(SUM(nanocredits), 0) FROM usage_ledger
                  WHERE token_id = ?1 AND created_at >= ?2),
                 (SELECT COALESCE(SUM(nanocredits), 0) FROM spend_holds
                  WHERE token_id = ?1 AND expires_at > ?3)",
        )?
        .query_row(
            params![token_id, micros(period.start), micros(now)],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
    Ok(Spend {
        limit,
        period,
        spent: Credits::from_column(spent),
        reserved: Credits::from_column(reserved),
    })
}

/// Queues the events of the marks `spend` reached (`refused`: only `token.limit_reached`), each
/// once per token and period.
fn queue_notices(
    conn: &Connection,
    workspace_id: &str,
    token_id: &str,
    spend: &Spend,
    refused: bool,
) -> StoreResult<()> {
    let marks: Vec<u8> = match refused {
        true => vec![100],
        false => spend.thresholds_reached().collect(),
    };
    for mark in marks {
        let new = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO limit_notices (token_id, period_start, threshold, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                token_id,
                micros(spend.period.start),
                mark,
                micros(crate::store::now())
            ])?;
        if new == 1 {
            let name = fetch_token(conn, workspace_id, token_id)?
                .map(|token| token.name)
                .unwrap_or_default();
            let event = notice(workspace_id, token_id, &name, spend, mark, refused);
            super::webhooks::enqueue(conn, &event, None)?;
        }
    }
    Ok(())
}

#[async_trait]
impl SpendLimits for SqliteStore {
    async fn spend(
        &self,
        limits: Vec<(String, Limit)>,
        now: DateTime<Utc>,
    ) -> StoreResult<HashMap<String, Spend>> {
        self.engine
            .read(move |conn| {
                limits
                    .into_iter()
                    .map(|(id, limit)| Ok((id.clone(), spend_of(conn, &id, limit, now)?)))
                    .collect()
            })
            .await
    }

    async fn change_limit(
        &self,
        workspace_id: &str,
        id: &str,
        change: LimitChange,
        mut audit: AuditEntry,
    ) -> StoreResult<TokenRecord> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(vec![id.clone()], move |conn| {
                let token = fetch_token(conn, &workspace_id, &id)?
                    .ok_or(StoreError::NotFound)?
                    .active_at(audit.created_at)?;
                let before = load(conn, &id)?;
                let after = change
                    .apply(before, audit.created_at)
                    .map_err(StoreError::Invalid)?;
                store_limit(conn, &id, after)?;
                audit.details = Some(change_details(before, after));
                insert_audit(conn, &audit)?;
                Ok(TokenRecord {
                    limit: after,
                    ..token
                })
            })
            .await
    }

    async fn reserve(&self, workspace_id: &str, hold: Hold) -> StoreResult<Reserved> {
        // The token as of now (the cache drops a token before its change is answered): one
        // without a limit needs no write.
        let token = self.get_token(workspace_id, &hold.token_id).await?;
        if token.is_none_or(|token| token.limit.is_none()) {
            return Ok(Reserved::Unlimited);
        }
        let workspace_id = workspace_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                let Some(limit) = load(conn, &hold.token_id)? else {
                    return Ok(Reserved::Unlimited);
                };
                conn.prepare_cached(
                    "DELETE FROM spend_holds WHERE token_id = ?1 AND expires_at <= ?2",
                )?
                .execute(params![hold.token_id, micros(hold.created_at)])?;
                if let Some(old) = &hold.replaces {
                    conn.prepare_cached("DELETE FROM spend_holds WHERE id = ?1")?
                        .execute(params![old])?;
                }
                let spend = spend_of(conn, &hold.token_id, limit, hold.created_at)?;
                let Some((choice, amount)) = hold.pick(&spend) else {
                    queue_notices(conn, &workspace_id, &hold.token_id, &spend, true)?;
                    return Ok(Reserved::Refused(spend));
                };
                conn.prepare_cached(
                    "INSERT INTO spend_holds (id, token_id, nanocredits, created_at, expires_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    hold.id,
                    hold.token_id,
                    amount.to_column(),
                    micros(hold.created_at),
                    micros(hold.expires_at)
                ])?;
                Ok(Reserved::Held {
                    choice,
                    left: spend.remaining(),
                })
            })
            .await
    }

    async fn charge(&self, hold_id: &str, record: UsageRecord) -> StoreResult<()> {
        let hold_id = hold_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                conn.prepare_cached("DELETE FROM spend_holds WHERE id = ?1")?
                    .execute(params![hold_id])?;
                super::usage::insert(conn, std::slice::from_ref(&record))?;
                let Some(token_id) = record.token_id.as_deref() else {
                    return Ok(());
                };
                if let Some(limit) = load(conn, token_id)? {
                    let spend = spend_of(conn, token_id, limit, record.created_at)?;
                    queue_notices(conn, &record.workspace_id, token_id, &spend, false)?;
                }
                Ok(())
            })
            .await
    }

    async fn extend(&self, hold_id: &str, expires_at: DateTime<Utc>) -> StoreResult<()> {
        let hold_id = hold_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                conn.prepare_cached("UPDATE spend_holds SET expires_at = ?2 WHERE id = ?1")?
                    .execute(params![hold_id, micros(expires_at)])?;
                Ok(())
            })
            .await
    }

    async fn release(&self, hold_id: &str) -> StoreResult<()> {
        let hold_id = hold_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                conn.prepare_cached("DELETE FROM spend_holds WHERE id = ?1")?
                    .execute(params![hold_id])?;
                Ok(())
            })
            .await
    }
}
