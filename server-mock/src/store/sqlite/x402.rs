//! The `X402Store` part of the sqlite store.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, Row, params};

use super::SqliteStore;
use super::rows::{from_micros, insert_audit, micros};
use crate::store::{
    AuditEntry, PaymentNonce, PaymentRecord, PaymentStatus, StoreResult, X402Settings, X402Store,
};

const PAYMENT_COLUMNS: &str = "id, workspace_id, request_id, usage_id, model, scheme, network, \
     asset, payer, authorized, amount, status, tx_hash, error, payment, requirements, facilitator_url, \
     attempts, next_attempt_at, expires_at, created_at, settled_at";

fn payment_from_row(row: &Row<'_>) -> rusqlite::Result<PaymentRecord> {
    Ok(PaymentRecord {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        request_id: row.get(2)?,
        usage_id: row.get(3)?,
        model: row.get(4)?,
        scheme: row.get(5)?,
        network: row.get(6)?,
        asset: row.get(7)?,
        payer: row.get(8)?,
        authorized: row.get(9)?,
        amount: row.get(10)?,
        status: PaymentStatus::parse(&row.get::<_, String>(11)?),
        transaction: row.get(12)?,
        error: row.get(13)?,
        payment: row.get(14)?,
        requirements: row.get(15)?,
        facilitator_url: row.get(16)?,
        attempts: row.get(17)?,
        next_attempt_at: from_micros(row.get(18)?),
        expires_at: from_micros(row.get(19)?),
        created_at: from_micros(row.get(20)?),
        settled_at: row.get::<_, Option<i64>>(21)?.map(from_micros),
    })
}

#[async_trait]
impl X402Store for SqliteStore {
    async fn x402_settings(&self, workspace_id: &str) -> StoreResult<Option<X402Settings>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| {
                let sql = "SELECT pay_to, network, asset, asset_name, asset_version, \
                           asset_decimals, credit_price, facilitator_url, updated_at \
                           FROM x402_settings WHERE workspace_id = ?1";
                Ok(conn
                    .prepare_cached(sql)?
                    .query_row(params![workspace_id], |row| {
                        Ok(X402Settings {
                            pay_to: row.get(0)?,
                            network: row.get(1)?,
                            asset: row.get(2)?,
                            asset_name: row.get(3)?,
                            asset_version: row.get(4)?,
                            asset_decimals: row.get(5)?,
                            credit_price: row.get(6)?,
                            facilitator_url: row.get(7)?,
                            updated_at: from_micros(row.get(8)?),
                        })
                    })
                    .optional()?)
            })
            .await
    }

    async fn set_x402_settings(
        &self,
        workspace_id: &str,
        settings: Option<X402Settings>,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                match settings {
                    None => {
                        conn.execute(
                            "DELETE FROM x402_settings WHERE workspace_id = ?1",
                            params![workspace_id],
                        )?;
                    }
                    Some(s) => {
                        conn.execute(
                            "INSERT INTO x402_settings (workspace_id, pay_to, network, asset, \
                             asset_name, asset_version, asset_decimals, credit_price, \
                             facilitator_url, updated_at) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
                             ON CONFLICT (workspace_id) DO UPDATE SET pay_to = excluded.pay_to, \
                             network = excluded.network, asset = excluded.asset, \
                             asset_name = excluded.asset_name, \
                             asset_version = excluded.asset_version, \
                             asset_decimals = excluded.asset_decimals, \
                             credit_price = excluded.credit_price, \
                             facilitator_url = excluded.facilitator_url, \
                             updated_at = excluded.updated_at",
                            params![
                                workspace_id,
                                s.pay_to,
                                s.network,
                                s.asset,
                                s.asset_name,
                                s.asset_version,
                                s.asset_decimals,
                                s.credit_price,
                                s.facilitator_url,
                                micros(s.updated_at)
                            ],
                        )?;
                    }
                }
                insert_audit(conn, &audit)
            })
            .await
    }

    async fn claim_nonce(&self, nonce: PaymentNonce) -> StoreResult<bool> {
        self.engine
            .write(Vec::new(), move |conn| {
                let inserted = conn
                    .prepare_cached(
                        "INSERT INTO x402_nonces (network, contract, payer, nonce, created_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                    )?
                    .execute(params![
                        nonce.network,
                        nonce.contract,
                        nonce.payer,
                        nonce.nonce,
                        micros(crate::store::now())
                    ])?;
                Ok(inserted == 1)
            })
            .await
    }

    async fn save_payment(&self, p: PaymentRecord) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                let sql = format!(
                    "INSERT OR REPLACE INTO x402_payments ({PAYMENT_COLUMNS}) VALUES \
                     (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                     ?17, ?18, ?19, ?20, ?21, ?22)"
                );
                conn.prepare_cached(&sql)?.execute(params![
                    p.id,
                    p.workspace_id,
                    p.request_id,
                    p.usage_id,
                    p.model,
                    p.scheme,
                    p.network,
                    p.asset,
                    p.payer,
                    p.authorized,
                    p.amount,
                    p.status.as_str(),
                    p.transaction,
                    p.error,
                    p.payment,
                    p.requirements,
                    p.facilitator_url,
                    p.attempts,
                    micros(p.next_attempt_at),
                    micros(p.expires_at),
                    micros(p.created_at),
                    p.settled_at.map(micros)
                ])?;
                Ok(())
            })
            .await
    }

    async fn due_payments(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<PaymentRecord>> {
        self.engine
            .write(Vec::new(), move |conn| {
                let sql = format!(
                    "UPDATE x402_payments SET next_attempt_at = ?1 WHERE id IN (SELECT id FROM \
                     x402_payments WHERE status = 'pending' AND next_attempt_at <= ?2 \
                     ORDER BY next_attempt_at LIMIT ?3) RETURNING {PAYMENT_COLUMNS}"
                );
                let mut statement = conn.prepare_cached(&sql)?;
                let rows = statement.query_map(
                    params![micros(lease_until), micros(now), limit as i64],
                    payment_from_row,
                )?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await
    }
}
