//! The `X402Store` part of storage: workspaces' x402 terms, the nonces of payments used, and
//! each payment's settlement (the outbox of those still to settle), and their records.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{AuditEntry, StoreResult};

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

/// A workspace's x402 terms: where agents' payments go and what a credit costs.
#[derive(Debug, Clone, PartialEq)]
pub struct X402Settings {
    /// The address paid.
    pub pay_to: String,
    /// CAIP-2, e.g. `eip155:84532`.
    pub network: String,
    /// The token contract.
    pub asset: String,
    /// The token's EIP-712 domain `name` and `version`.
    pub asset_name: String,
    pub asset_version: String,
    /// Decimals of the token (6 for USDC), for showing amounts.
    pub asset_decimals: u8,
    /// Atomic units of the token one credit costs: an integer, decimal text.
    pub credit_price: String,
    /// The facilitator that verifies and settles payments (`/verify`, `/settle`).
    pub facilitator_url: String,
    pub updated_at: DateTime<Utc>,
}

/// A payment authorization's nonce: usable once for its payer on a contract and network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentNonce {
    pub network: String,
    /// The token (`exact`) or Permit2 (`upto`): whose nonce space it is.
    pub contract: String,
    pub payer: String,
    pub nonce: String,
}

/// Where a payment's settlement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentStatus {
    /// Not settled yet: retried from the outbox until settled or expired.
    Pending,
    Settled,
    /// Refused by the facilitator for good (nothing will change that).
    Failed,
    /// Its authorization ran out before it could be settled.
    Expired,
}

impl PaymentStatus {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "pending",
            PaymentStatus::Settled => "settled",
            PaymentStatus::Failed => "failed",
            PaymentStatus::Expired => "expired",
        }
    }

    /// From its stored text.
    pub fn parse(text: &str) -> PaymentStatus {
        match text {
            "settled" => PaymentStatus::Settled,
            "failed" => PaymentStatus::Failed,
            "expired" => PaymentStatus::Expired,
            _ => PaymentStatus::Pending,
        }
    }
}

/// One x402 payment for one completion: what was authorized, what is (or was) settled.
#[derive(Debug, Clone)]
pub struct PaymentRecord {
    pub id: String,
    pub workspace_id: String,
    pub request_id: Option<String>,
    /// The completion's ledger entry and the model that answered, once there is one.
    pub usage_id: Option<String>,
    pub model: Option<String>,
    /// `exact` or `upto`.
    pub scheme: String,
    pub network: String,
    pub asset: String,
    pub payer: String,
    /// Atomic units authorized: what `exact` moves, the most `upto` may.
    pub authorized: String,
    /// Atomic units settled, or to settle.
    pub amount: String,
    pub status: PaymentStatus,
    pub transaction: Option<String>,
    pub error: Option<String>,
    /// The client's payment (JSON), to settle with.
    pub payment: String,
    /// The requirements to settle with (JSON), `amount` the amount to settle.
    pub requirements: String,
    pub facilitator_url: String,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    /// When its authorization runs out.
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub settled_at: Option<DateTime<Utc>>,
}
