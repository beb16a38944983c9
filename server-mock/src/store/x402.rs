//! The `X402Store` part of storage: workspaces' x402 terms, the nonces of payments used, and
//! each payment's settlement (the outbox of those still to settle).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{AuditEntry, PaymentNonce, PaymentRecord, StoreResult, X402Settings};

/// x402 payments. Every instance sharing a database sees the same nonces: a payment is
/// accepted once, across all of them.
#[async_trait]
pub trait X402Store: Send + Sync + 'static {
    /// The workspace's x402 terms; `None` when it does not take x402 payments.
    async fn x402_settings(&self, workspace_id: &str) -> StoreResult<Option<X402Settings>>;

    /// Sets (or with `None`, removes) the workspace's terms, with `audit` in the same
    /// transaction.
    async fn set_x402_settings(
        &self,
        workspace_id: &str,
        settings: Option<X402Settings>,
        audit: AuditEntry,
    ) -> StoreResult<()>;

    /// Takes `nonce` for a payment: `true` the first time, `false` when it was used before.
    async fn claim_nonce(&self, nonce: PaymentNonce) -> StoreResult<bool>;

    /// Stores a payment, or its new state (by id).
    async fn save_payment(&self, payment: PaymentRecord) -> StoreResult<()>;

    /// Pending payments due at `now`, up to `limit`, leased until `lease_until` (no other
    /// instance takes them meanwhile).
    async fn due_payments(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<PaymentRecord>>;
}
