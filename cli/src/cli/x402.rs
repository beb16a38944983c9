//! `tokctl x402`'s clap definitions: the workspace's x402 terms.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum X402Command {
    /// Show the workspace's x402 terms ("off" when it takes no x402 payments).
    Show,
    /// Set the workspace's x402 terms (replacing any): chat requests naming an agent_wallet
    /// must then carry a payment.
    Set(SetX402Args),
    /// Stop taking x402 payments (asks first on a terminal; --yes otherwise).
    Disable {
        /// Do not ask for confirmation (needed when not on a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

#[derive(Debug, Args)]
pub struct SetX402Args {
    /// The address agents pay (0x and 40 hexadecimal digits).
    #[arg(long)]
    pub pay_to: String,
    /// CAIP-2 network of the token, e.g. eip155:84532 (Base Sepolia) or eip155:8453 (Base).
    #[arg(long)]
    pub network: String,
    /// The token contract (USDC on Base Sepolia: 0x036CbD53842c5426634e7929541eC2318f3dCF7e).
    #[arg(long)]
    pub asset: String,
    /// The token's EIP-712 domain name, as its contract has it (USDC, USD Coin).
    #[arg(long)]
    pub asset_name: String,
    /// The token's EIP-712 domain version (2 for USDC).
    #[arg(long)]
    pub asset_version: String,
    /// The token's decimals (6 for USDC).
    #[arg(long)]
    pub decimals: u8,
    /// What one credit costs, in the token's atomic units: 10000 with 6 decimals is 0.01.
    #[arg(long)]
    pub credit_price: String,
    /// The facilitator that verifies and settles payments.
    #[arg(long)]
    pub facilitator: String,
}
