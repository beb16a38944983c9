//! The `SpendLimits` part of the PostgreSQL store. A reservation, a charge and a change of limit
//! each lock the token's limit row first, so on every instance they take turns per token: a
//! reservation's check sees every charge and reservation committed before it.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use super::PostgresStore;
use super::audit::insert_audit;
use super::spend::{limit_of, spends};
use super::tokens::fetch_token;
use super::{sync, webhooks};
use crate::credits::Credits;
use crate::store::{
    AuditEntry, Hold, Limit, LimitChange, Reserved, Spend, SpendLimits, StoreError, StoreResult,
    TokenRecord, UsageRecord, change_details, notice,
};

/// The token's limit, its row locked until the transaction ends (`lock`).
async fn load(c: &impl GenericClient, token_id: &str, lock: bool) -> StoreResult<Option<Limit>> {
    let sql = match lock {
        true => {
            "SELECT credit_limit, reset, since FROM token_limits WHERE token_id = $1 FOR UPDATE"
        }
        false => "SELECT credit_limit, reset, since FROM token_limits WHERE token_id = $1",
    };
    let row = c
        .query_opt(&c.prepare_cached(sql).await?, &[&token_id])
        .await?;
    Ok(row.and_then(|row| limit_of(&row, 0)))
}

/// Sets (or with `None` removes) the token's limit, in the caller's transaction.
async fn store_limit(
    c: &impl GenericClient,
    token_id: &str,
    limit: Option<Limit>,
) -> StoreResult<()> {
    match limit {
        Some(limit) => {
            let sql = "INSERT INTO token_limits (token_id, credit_limit, reset, since)
                       VALUES ($1, $2, $3, $4)
                       ON CONFLICT (token_id) DO UPDATE
                       SET credit_limit = excluded.credit_limit, reset = excluded.reset,
                           since = excluded.since";
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [
                &token_id,
                &limit.credit_limit.to_column(),
                &limit.reset.as_str(),
                &limit.since,
            ];
            c.execute(&c.prepare_cached(sql).await?, &params).await?
        }
        None => {
            let sql = "DELETE FROM token_limits WHERE token_id = $1";
            c.execute(&c.prepare_cached(sql).await?, &[&token_id])
                .await?
        }
    };
    Ok(())
}

/// What the period of `limit` that holds `now` has spent and reserved, read in one statement
/// (one snapshot: a charge is seen whole or not at all).
async fn spend_of(
    c: &impl GenericClient,
    token_id: &str,
    limit: Limit,
    now: DateTime<Utc>,
) -> StoreResult<Spend> {
    let period = limit.period(now);
    let sql = "SELECT
        (SELECT COALESCE(SUM(nanocredits), 0)::int8 FROM usage_ledger
         WHERE token_id = $1 AND created_at >= $2),
        (SELECT COALESCE(SUM(nanocredits), 0)::int8 FROM spend_holds
         WHERE token_id = $1 AND expires_at > $3)";
    let row = c
        .query_one(
            &c.prepare_cached(sql).await?,
            &[&token_id, &period.start, &now],
        )
        .await?;
    Ok(Spend {
        limit,
        period,
        spent: Credits::from_column(row.get(0)),
        reserved: Credits::from_column(row.get(1)),
    })
}

/// Queues the events of the marks `spend` reached (`refused`: only `token.limit_reached`), each
/// once per token and period whichever instance gets there first.
async fn queue_notices(
    c: &impl GenericClient,
    workspace_id: &str,
    token_id: &str,
    spend: &Spend,
    refused: bool,
) -> StoreResult<()> {
    let marks: Vec<u8> = match refused {
        true => vec![100],
        false => spend.thresholds_reached().collect(),
    };
    let sql = "INSERT INTO limit_notices (token_id, period_start, threshold, created_at)
               VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";
    for mark in marks {
        let new = c
            .execute(
                &c.prepare_cached(sql).await?,
                &[
                    &token_id,
                    &spend.period.start,
                    &i32::from(mark),
                    &crate::store::now(),
                ],
            )
            .await?;
        if new == 1 {
            let name = fetch_token(c, workspace_id, token_id)
                .await?
                .map(|token| token.name)
                .unwrap_or_default();
            let event = notice(workspace_id, token_id, &name, spend, mark, refused);
            webhooks::enqueue(c, &event, None).await?;
        }
    }
    Ok(())
}

#[async_trait]
impl SpendLimits for PostgresStore {
    async fn spend(
        &self,
        limits: Vec<(String, Limit)>,
        now: DateTime<Utc>,
    ) -> StoreResult<HashMap<String, Spend>> {
        with_client!(self, |c| {
            let asked: Vec<(&str, Limit)> =
                limits.iter().map(|(id, l)| (id.as_str(), *l)).collect();
            let found = spends(&c, &asked, now).await?;
            Ok(limits.into_iter().map(|(id, _)| id).zip(found).collect())
        })
    }

    async fn change_limit(
        &self,
        workspace_id: &str,
        id: &str,
        change: LimitChange,
        mut audit: AuditEntry,
    ) -> StoreResult<TokenRecord> {
        in_transaction!(self, |tx| {
            let sql = "SELECT 1 FROM tokens WHERE id = $1 AND workspace_id = $2 FOR UPDATE";
            tx.query_opt(sql, &[&id, &workspace_id]).await?;
            let token = fetch_token(&tx, workspace_id, id)
                .await?
                .ok_or(StoreError::NotFound)?
                .active_at(audit.created_at)?;
            let before = load(&tx, id, true).await?;
            let after = change
                .apply(before, audit.created_at)
                .map_err(StoreError::Invalid)?;
            store_limit(&tx, id, after).await?;
            audit.details = Some(change_details(before, after));
            insert_audit(&tx, &audit).await?;
            sync::changed(&tx, &[id.to_string()]).await?;
            TokenRecord {
                limit: after,
                ..token
            }
        })
    }

    async fn reserve(&self, workspace_id: &str, hold: Hold) -> StoreResult<Reserved> {
        // The limit as of now, in one read (a token without one needs no transaction); a change
        // answered before this read is seen by it, on whichever instance it was made.
        if with_client!(self, |c| load(&c, &hold.token_id, false).await)?.is_none() {
            return Ok(Reserved::Unlimited);
        }
        in_transaction!(self, |tx| {
            match load(&tx, &hold.token_id, true).await? {
                None => Reserved::Unlimited,
                Some(limit) => {
                    let sql = "DELETE FROM spend_holds WHERE token_id = $1 AND expires_at <= $2";
                    tx.execute(
                        &tx.prepare_cached(sql).await?,
                        &[&hold.token_id, &hold.created_at],
                    )
                    .await?;
                    if let Some(old) = &hold.replaces {
                        let sql = "DELETE FROM spend_holds WHERE id = $1";
                        tx.execute(&tx.prepare_cached(sql).await?, &[old]).await?;
                    }
                    let spend = spend_of(&tx, &hold.token_id, limit, hold.created_at).await?;
                    if let Some((choice, amount)) = hold.pick(&spend) {
                        let sql = "INSERT INTO spend_holds
                                       (id, token_id, nanocredits, created_at, expires_at)
                                   VALUES ($1, $2, $3, $4, $5)";
                        tx.execute(
                            &tx.prepare_cached(sql).await?,
                            &[
                                &hold.id,
                                &hold.token_id,
                                &amount.to_column(),
                                &hold.created_at,
                                &hold.expires_at,
                            ],
                        )
                        .await?;
                        Reserved::Held {
                            choice,
                            left: spend.remaining(),
                        }
                    } else {
                        queue_notices(&tx, workspace_id, &hold.token_id, &spend, true).await?;
                        Reserved::Refused(spend)
                    }
                }
            }
        })
    }

    async fn charge(&self, hold_id: &str, record: UsageRecord) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            let token_id = record.token_id.as_deref().unwrap_or_default();
            let limit = load(&tx, token_id, true).await?;
            let sql = "DELETE FROM spend_holds WHERE id = $1";
            tx.execute(&tx.prepare_cached(sql).await?, &[&hold_id])
                .await?;
            super::usage::insert(&tx, std::slice::from_ref(&record)).await?;
            if let Some(limit) = limit {
                let spend = spend_of(&tx, token_id, limit, record.created_at).await?;
                queue_notices(&tx, &record.workspace_id, token_id, &spend, false).await?;
            }
        })
    }

    async fn extend(&self, hold_id: &str, expires_at: DateTime<Utc>) -> StoreResult<()> {
        with_client!(self, |c| {
            let sql = "UPDATE spend_holds SET expires_at = $2 WHERE id = $1";
            c.execute(&c.prepare_cached(sql).await?, &[&hold_id, &expires_at])
                .await?;
            Ok(())
        })
    }

    async fn release(&self, hold_id: &str) -> StoreResult<()> {
        with_client!(self, |c| {
            let sql = "DELETE FROM spend_holds WHERE id = $1";
            c.execute(&c.prepare_cached(sql).await?, &[&hold_id])
                .await?;
            Ok(())
        })
    }
}
