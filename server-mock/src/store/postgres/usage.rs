//! The PostgreSQL SQL of the credit ledger.

use std::collections::HashMap;

use alloy_primitives::U256;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::PostgresStore;
use super::db::limits;
use crate::credits::Credits;
use crate::store::UsageLedger;
use crate::store::{DeploymentTotals, Page, PageRequest, StoreResult, UsageRecord, UsageTotals};
use crate::store::{oldest_day, with_deployments, with_settled};
#[allow(unused_imports)]
use async_trait::async_trait;
use std::sync::Arc;

/// Appends ledger records, all in one statement.
pub(super) async fn insert(c: &impl GenericClient, records: &[UsageRecord]) -> StoreResult<()> {
    let column = |f: fn(&UsageRecord) -> Option<String>| records.iter().map(f).collect::<Vec<_>>();
    let ids = column(|r| Some(r.id.clone()));
    let workspaces = column(|r| Some(r.workspace_id.clone()));
    let requests = column(|r| r.request_id.clone());
    let models = column(|r| Some(r.model.clone()));
    let wallets = column(|r| r.wallet.clone());
    let tokens = column(|r| r.token_id.clone());
    let deployments = column(|r| r.deployment.clone());
    let prompt: Vec<i64> = records.iter().map(|r| r.prompt_tokens as i64).collect();
    let completion: Vec<i64> = records.iter().map(|r| r.completion_tokens as i64).collect();
    let nanos: Vec<i64> = records.iter().map(|r| r.credits.to_column()).collect();
    let created: Vec<_> = records.iter().map(|r| r.created_at).collect();
    let sql = "INSERT INTO usage_ledger (id, workspace_id, request_id, model, prompt_tokens,
                   completion_tokens, nanocredits, wallet, created_at, token_id, deployment)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[],
                   $6::int8[], $7::int8[], $8::text[], $9::timestamptz[], $10::text[],
                   $11::text[])";
    c.execute(
        &c.prepare_cached(sql).await?,
        &[
            &ids,
            &workspaces,
            &requests,
            &models,
            &prompt,
            &completion,
            &nanos,
            &wallets,
            &created,
            &tokens,
            &deployments,
        ],
    )
    .await?;
    Ok(())
}

fn totals(row: &Row) -> UsageTotals {
    UsageTotals {
        day: row.get(0),
        model: row.get(1),
        requests: row.get::<_, i64>(2) as u64,
        prompt_tokens: row.get::<_, i64>(3) as u64,
        completion_tokens: row.get::<_, i64>(4) as u64,
        credits: Credits::from_column(row.get(5)),
        x402_settled: U256::ZERO,
        deployments: Vec::new(),
    }
}

/// The UTC day of a ledger row, as `YYYY-MM-DD`.
const DAY: &str = "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')";

/// The ledger rows of a workspace, or (`$2` not null) of one of its tokens.
const ROWS: &str =
    "FROM usage_ledger WHERE workspace_id = $1 AND ($2::text IS NULL OR token_id = $2)";

/// One page of totals by UTC day and model, newest day first, and the grand total, of the
/// workspace or of one of its tokens, read in one repeatable-read transaction so that the
/// three reads agree.
pub(super) async fn by_day(
    mut client: deadpool_postgres::Object,
    workspace_id: &str,
    token_id: Option<&str>,
    page: PageRequest,
) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
    let c = client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let grand = c
        .query_one(
            &format!(
                "SELECT '', '', COUNT(*), COALESCE(SUM(prompt_tokens), 0)::int8,
                        COALESCE(SUM(completion_tokens), 0)::int8,
                        COALESCE(SUM(nanocredits), 0)::int8 {ROWS}"
            ),
            &[&workspace_id, &token_id],
        )
        .await?;
    let groups: i64 = c
        .query_one(
            &format!("SELECT COUNT(*) FROM (SELECT 1 {ROWS} GROUP BY {DAY}, model) g"),
            &[&workspace_id, &token_id],
        )
        .await?
        .get(0);
    let settled = c
        .query(
            "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), model,
                    SUM(amount::numeric)::text
             FROM x402_payments WHERE workspace_id = $1 AND status = 'settled'
                 AND model IS NOT NULL
                 AND ($2::text IS NULL
                      OR usage_id IN (SELECT id FROM usage_ledger WHERE token_id = $2))
             GROUP BY 1, 2",
            &[&workspace_id, &token_id],
        )
        .await?;
    let paid: HashMap<(String, String), U256> = settled
        .iter()
        .map(|row| {
            let sum = U256::from_str_radix(row.get(2), 10).unwrap_or(U256::MAX);
            ((row.get(0), row.get(1)), sum)
        })
        .collect();
    let (limit, offset) = limits(page);
    let rows = c
        .query(
            &format!(
                "SELECT {DAY} AS day, model, COUNT(*), SUM(prompt_tokens)::int8,
                        SUM(completion_tokens)::int8, SUM(nanocredits)::int8 {ROWS}
                 GROUP BY day, model ORDER BY day DESC, model LIMIT $3 OFFSET $4"
            ),
            &[&workspace_id, &token_id, &limit, &offset],
        )
        .await?;
    let mut items = with_settled(rows.iter().map(totals).collect(), &paid);
    if let Some(since) = oldest_day(&items) {
        let split = c
            .query(
                &format!(
                    "SELECT {DAY}, model, deployment, COUNT(*), SUM(prompt_tokens)::int8,
                            SUM(completion_tokens)::int8, SUM(nanocredits)::int8
                     {ROWS} AND deployment IS NOT NULL AND created_at >= $3 GROUP BY 1, 2, 3"
                ),
                &[&workspace_id, &token_id, &since],
            )
            .await?;
        let split = split.iter().map(|row| {
            let totals = DeploymentTotals {
                name: row.get(2),
                requests: row.get::<_, i64>(3) as u64,
                prompt_tokens: row.get::<_, i64>(4) as u64,
                completion_tokens: row.get::<_, i64>(5) as u64,
                credits: Credits::from_column(row.get(6)),
            };
            (row.get(0), row.get(1), totals)
        });
        with_deployments(&mut items, split.collect());
    }
    c.commit().await?;
    let mut grand = totals(&grand);
    grand.x402_settled = paid
        .values()
        .fold(U256::ZERO, |sum, each| sum.saturating_add(*each));
    Ok((
        Page {
            items,
            total: groups as u64,
        },
        grand,
    ))
}

#[async_trait]
impl UsageLedger for PostgresStore {
    async fn record_usage(&self, records: Arc<Vec<UsageRecord>>) -> StoreResult<()> {
        with_client!(self, |c| insert(&c, &records).await)
    }

    async fn usage_by_day(
        &self,
        workspace_id: &str,
        token_id: Option<&str>,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
        with_client!(self, |c| by_day(c, workspace_id, token_id, page).await)
    }
}
