//! `tokctl tokens`' clap definitions.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{parse_duration, parse_lifetime};

#[derive(Debug, Subcommand)]
pub enum TokensCommand {
    /// Create a token and print its secret (shown once).
    Create(CreateArgs),
    /// List tokens (every page).
    List(ListArgs),
    /// Show one token by id or name (a revoked token too).
    #[command(visible_alias = "show")]
    Get {
        /// Token id (tok_...) or name; a name only revoked tokens carry shows the newest.
        token: String,
    },
    /// Replace a token's secret and print the new one; the old one stops working at once, or
    /// after --overlap.
    Rotate {
        /// Token id (tok_...) or name.
        token: String,
        /// Let the old secret work this much longer (at most 24h), e.g. 10m, so machines can
        /// switch first; a later rotation ends it.
        #[arg(long, value_parser = parse_overlap)]
        overlap: Option<std::time::Duration>,
    },
    /// Set, change or remove a token's spending limit (the only change a token takes in place).
    #[command(visible_alias = "set-limit")]
    Limit(LimitArgs),
    /// Revoke tokens for good (asks first on a terminal; --yes otherwise).
    Revoke(RevokeArgs),
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Token name, unique among the workspace's live tokens.
    pub name: String,
    /// Scope to grant (repeat, or a comma list); see `tokctl scopes`.
    #[arg(long = "scope", short = 's', value_name = "SCOPE", required = true,
          value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(tokctl_sdk::scopes::ALL))]
    pub scopes: Vec<String>,
    /// Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not
    /// taken, as their length varies: 365d).
    #[arg(long, value_parser = parse_lifetime, conflicts_with = "expires_at", allow_hyphen_values = true)]
    pub expires_in: Option<std::time::Duration>,
    /// Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z.
    #[arg(long)]
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The most it may spend through the chat gateway per period, in credits (exact, e.g. 25
    /// or 0.5).
    #[arg(long, value_name = "CREDITS", value_parser = parse_credits)]
    pub credit_limit: Option<tokctl_sdk::Decimal>,
    /// When the limit's period starts again, on the UTC calendar [default: never].
    #[arg(long, value_name = "PERIOD", value_parser = RESETS, requires = "credit_limit")]
    pub limit_reset: Option<String>,
}

/// The periods a limit may have: days from 00:00 UTC, weeks from Monday, months from the 1st.
const RESETS: [&str; 4] = ["daily", "weekly", "monthly", "never"];

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("change").required(true).multiple(true)
    .args(["credit_limit", "reset", "remove"])))]
pub struct LimitArgs {
    /// Token id (tok_...) or name.
    pub token: String,
    /// The most it may spend per period, in credits (exact).
    #[arg(long, value_name = "CREDITS", value_parser = parse_credits)]
    pub credit_limit: Option<tokctl_sdk::Decimal>,
    /// When the period starts again (the spend is always what the new period holds).
    #[arg(long, value_name = "PERIOD", value_parser = RESETS)]
    pub reset: Option<String>,
    /// Remove the limit.
    #[arg(long, conflicts_with_all = ["credit_limit", "reset"])]
    pub remove: bool,
}

/// A rotation's overlap: a length of time of at most 24 hours.
fn parse_overlap(raw: &str) -> Result<std::time::Duration, String> {
    match parse_duration(raw)? {
        length if length > std::time::Duration::from_secs(24 * 3600) => {
            Err("must be at most 24h".into())
        }
        length => Ok(length),
    }
}

/// An amount of credits: an exact decimal above 0.
fn parse_credits(raw: &str) -> Result<tokctl_sdk::Decimal, String> {
    match raw.trim().parse::<tokctl_sdk::Decimal>() {
        Ok(amount) if amount > tokctl_sdk::Decimal::ZERO => Ok(amount),
        _ => Err("must be a number of credits above 0, e.g. 25 or 0.5".into()),
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only tokens with this status.
    #[arg(long, value_parser = ["active", "expired", "revoked"])]
    pub status: Option<String>,
    /// Only tokens expiring within this long, e.g. 7d.
    #[arg(long, value_parser = parse_duration)]
    pub expiring_within: Option<std::time::Duration>,
    /// Only tokens unused for this long (never-used tokens count from creation), e.g. 90d.
    #[arg(long, value_parser = parse_duration)]
    pub stale: Option<std::time::Duration>,
}

#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// Token ids (tok_...) or names.
    pub tokens: Vec<String>,
    /// Also revoke every expired token.
    #[arg(long)]
    pub expired: bool,
    /// Also revoke every active token unused for this long, e.g. 90d.
    #[arg(long, value_parser = parse_duration)]
    pub stale: Option<std::time::Duration>,
    /// Also revoke the ids or names in FILE, one a line (`-` for stdin).
    #[arg(long)]
    pub from_file: Option<PathBuf>,
    /// Do not ask for confirmation (needed when not on a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}
