//! x402: the workspace's terms (what agents naming an `agent_wallet` pay, over HTTP 402, for
//! chat completions, with the `exact` and `upto` schemes settled by the workspace's
//! facilitator), and a [`Wallet`] with which a client pays those offers itself.

mod wallet;

pub use wallet::Wallet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::Result;

/// The workspace's x402 terms. Besides `enabled`, each field is `None` while it is off.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct X402Terms {
    /// Whether chat requests naming an `agent_wallet` must be paid.
    pub enabled: bool,
    /// The address paid.
    #[serde(default)]
    pub pay_to: Option<String>,
    /// CAIP-2 network, e.g. `eip155:84532`.
    #[serde(default)]
    pub network: Option<String>,
    /// The token contract.
    #[serde(default)]
    pub asset: Option<String>,
    /// The token's EIP-712 domain name and version.
    #[serde(default)]
    pub asset_name: Option<String>,
    /// See `asset_name`.
    #[serde(default)]
    pub asset_version: Option<String>,
    /// The token's decimals.
    #[serde(default)]
    pub asset_decimals: Option<u8>,
    /// Atomic units of the token one credit costs (a whole number, as text).
    #[serde(default)]
    pub credit_price: Option<String>,
    /// The facilitator that verifies and settles.
    #[serde(default)]
    pub facilitator_url: Option<String>,
    /// When they were last set.
    #[serde(default)]
    pub updated_at: Option<DateTime<Utc>>,
}

/// A token agents pay in: its contract, EIP-712 domain (`name`, `version`, as the contract has
/// them) and decimals.
#[derive(Debug, Clone)]
pub struct PaymentToken {
    address: String,
    name: String,
    version: String,
    decimals: u8,
}

impl PaymentToken {
    /// The token at `address`, whose EIP-712 domain is `name` and `version` (USDC on Base
    /// Sepolia: `USDC`, `2`; on Base: `USD Coin`, `2`), with `decimals` (6 for USDC).
    pub fn new(
        address: impl Into<String>,
        name: impl Into<String>,
        version: impl Into<String>,
        decimals: u8,
    ) -> Self {
        PaymentToken {
            address: address.into(),
            name: name.into(),
            version: version.into(),
            decimals,
        }
    }
}

/// The body of [`X402::set`].
#[derive(Debug, Clone, Serialize)]
pub struct SetX402 {
    pay_to: String,
    network: String,
    asset: String,
    asset_name: String,
    asset_version: String,
    asset_decimals: u8,
    credit_price: String,
    facilitator_url: String,
}

impl SetX402 {
    /// Agents pay `pay_to` in `token` on `network` (CAIP-2, `eip155:<chain id>`),
    /// `credit_price` atomic units of the token a credit (`"10000"` with 6 decimals is 0.01
    /// token), verified and settled by the facilitator at `facilitator_url`.
    pub fn new(
        pay_to: impl Into<String>,
        network: impl Into<String>,
        token: PaymentToken,
        credit_price: impl Into<String>,
        facilitator_url: impl Into<String>,
    ) -> Self {
        SetX402 {
            pay_to: pay_to.into(),
            network: network.into(),
            asset: token.address,
            asset_name: token.name,
            asset_version: token.version,
            asset_decimals: token.decimals,
            credit_price: credit_price.into(),
            facilitator_url: facilitator_url.into(),
        }
    }
}

/// x402 endpoints, from [`Client::x402`].
pub struct X402<'c> {
    client: &'c Client,
}

impl<'c> X402<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        X402 { client }
    }

    /// The workspace's terms. Needs `x402:read`.
    pub async fn get(&self) -> Result<X402Terms> {
        self.client.get(self.client.url(&["x402"]), &[]).await
    }

    /// Sets the workspace's terms (replacing any); every value is checked by the server, which
    /// names the first wrong field in a 422. Needs `x402:write`.
    pub async fn set(&self, terms: &SetX402) -> Result<X402Terms> {
        self.client.put(self.client.url(&["x402"]), terms).await
    }

    /// Stops taking x402 payments (payments still to settle are settled). A 404 means it was
    /// not on. Needs `x402:write`.
    pub async fn disable(&self) -> Result<()> {
        self.client.delete(self.client.url(&["x402"])).await
    }
}
