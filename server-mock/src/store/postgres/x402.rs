//! The `X402Store` part of the postgres store. A nonce is claimed by an insert that one
//! instance wins; due payments are leased with `FOR UPDATE SKIP LOCKED`, so one instance
//! settles each.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio_postgres::Row;

use super::PostgresStore;
use super::audit::insert_audit;
use crate::store::{
    AuditEntry, PaymentNonce, PaymentRecord, PaymentStatus, StoreResult, X402Settings, X402Store,
};

const PAYMENT_COLUMNS: &str = "id, workspace_id, request_id, usage_id, model, scheme, network, \
     asset, payer, authorized, amount, status, tx_hash, error, payment, requirements, facilitator_url, \
     attempts, next_attempt_at, expires_at, created_at, settled_at";

fn payment_from_row(row: &Row) -> PaymentRecord {
    PaymentRecord {
        id: row.get(0),
        workspace_id: row.get(1),
        request_id: row.get(2),
        usage_id: row.get(3),
        model: row.get(4),
        scheme: row.get(5),
        network: row.get(6),
        asset: row.get(7),
        payer: row.get(8),
        authorized: row.get(9),
        amount: row.get(10),
        status: PaymentStatus::parse(row.get(11)),
        transaction: row.get(12),
        error: row.get(13),
        payment: row.get(14),
        requirements: row.get(15),
        facilitator_url: row.get(16),
        attempts: row.get::<_, i32>(17).max(0) as u32,
        next_attempt_at: row.get(18),
        expires_at: row.get(19),
        created_at: row.get(20),
        settled_at: row.get(21),
    }
}

#[async_trait]
impl X402Store for PostgresStore {
    async fn x402_settings(&self, workspace_id: &str) -> StoreResult<Option<X402Settings>> {
        with_client!(self, |c| {
            let sql = "SELECT pay_to, network, asset, asset_name, asset_version, asset_decimals, \
                       credit_price, facilitator_url, updated_at \
                       FROM x402_settings WHERE workspace_id = $1";
            let row = c
                .query_opt(&c.prepare_cached(sql).await?, &[&workspace_id])
                .await?;
            Ok(row.map(|row| X402Settings {
                pay_to: row.get(0),
                network: row.get(1),
                asset: row.get(2),
                asset_name: row.get(3),
                asset_version: row.get(4),
                asset_decimals: row.get::<_, i32>(5).clamp(0, 255) as u8,
                credit_price: row.get(6),
                facilitator_url: row.get(7),
                updated_at: row.get(8),
            }))
        })
    }

    async fn set_x402_settings(
        &self,
        workspace_id: &str,
        settings: Option<X402Settings>,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            match &settings {
                None => {
                    tx.execute(
                        "DELETE FROM x402_settings WHERE workspace_id = $1",
                        &[&workspace_id],
                    )
                    .await?;
                }
                Some(s) => {
                    tx.execute(
                        "INSERT INTO x402_settings (workspace_id, pay_to, network, asset, \
                         asset_name, asset_version, asset_decimals, credit_price, \
                         facilitator_url, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                         ON CONFLICT (workspace_id) DO UPDATE SET pay_to = EXCLUDED.pay_to, \
                         network = EXCLUDED.network, asset = EXCLUDED.asset, \
                         asset_name = EXCLUDED.asset_name, asset_version = EXCLUDED.asset_version, \
                         asset_decimals = EXCLUDED.asset_decimals, \
                         credit_price = EXCLUDED.credit_price, \
                         facilitator_url = EXCLUDED.facilitator_url, \
                         updated_at = EXCLUDED.updated_at",
                        &[
                            &workspace_id,
                            &s.pay_to,
                            &s.network,
                            &s.asset,
                            &s.asset_name,
                            &s.asset_version,
                            &i32::from(s.asset_decimals),
                            &s.credit_price,
                            &s.facilitator_url,
                            &s.updated_at,
                        ],
                    )
                    .await?;
                }
            }
            insert_audit(&tx, &audit).await?
        })
    }

    async fn claim_nonce(&self, nonce: PaymentNonce) -> StoreResult<bool> {
        with_client!(self, |c| {
            let sql = "INSERT INTO x402_nonces (network, contract, payer, nonce, created_at) \
                       VALUES ($1, $2, $3, $4, now()) ON CONFLICT DO NOTHING";
            let inserted = c
                .execute(
                    &c.prepare_cached(sql).await?,
                    &[&nonce.network, &nonce.contract, &nonce.payer, &nonce.nonce],
                )
                .await?;
            Ok(inserted == 1)
        })
    }

    async fn save_payment(&self, p: PaymentRecord) -> StoreResult<()> {
        with_client!(self, |c| {
            let sql = format!(
                "INSERT INTO x402_payments ({PAYMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, \
                 $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) \
                 ON CONFLICT (id) DO UPDATE SET usage_id = EXCLUDED.usage_id, \
                 model = EXCLUDED.model, \
                 amount = EXCLUDED.amount, status = EXCLUDED.status, tx_hash = EXCLUDED.tx_hash, \
                 error = EXCLUDED.error, requirements = EXCLUDED.requirements, \
                 attempts = EXCLUDED.attempts, next_attempt_at = EXCLUDED.next_attempt_at, \
                 settled_at = EXCLUDED.settled_at"
            );
            let attempts = i32::try_from(p.attempts).unwrap_or(i32::MAX);
            c.execute(
                &c.prepare_cached(&sql).await?,
                &[
                    &p.id,
                    &p.workspace_id,
                    &p.request_id,
                    &p.usage_id,
                    &p.model,
                    &p.scheme,
                    &p.network,
                    &p.asset,
                    &p.payer,
                    &p.authorized,
                    &p.amount,
                    &p.status.as_str(),
                    &p.transaction,
                    &p.error,
                    &p.payment,
                    &p.requirements,
                    &p.facilitator_url,
                    &attempts,
                    &p.next_attempt_at,
                    &p.expires_at,
                    &p.created_at,
                    &p.settled_at,
                ],
            )
            .await?;
            Ok(())
        })
    }

    async fn due_payments(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<PaymentRecord>> {
        with_client!(self, |c| {
            let sql = format!(
                "UPDATE x402_payments SET next_attempt_at = $1 WHERE id IN (SELECT id FROM \
                 x402_payments WHERE status = 'pending' AND next_attempt_at <= $2 \
                 ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) \
                 RETURNING {PAYMENT_COLUMNS}"
            );
            let limit = limit as i64;
            let rows = c
                .query(
                    &c.prepare_cached(&sql).await?,
                    &[&lease_until, &now, &limit],
                )
                .await?;
            Ok(rows.iter().map(payment_from_row).collect())
        })
    }
}
