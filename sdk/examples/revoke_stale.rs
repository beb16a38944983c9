//! Revoke every active token unused for N days (default 90): `cargo run --example revoke_stale -- 30`.
//!
//! A token never used counts from its creation. Needs `TOKCTL_API_KEY` with `tokens:read` and
//! `tokens:revoke`.

use chrono::{Duration, Utc};
use futures::TryStreamExt;
use tokctl_sdk::{Client, ListTokens, RevokeOutcome, TokenStatus};

#[tokio::main]
async fn main() -> Result<(), tokctl_sdk::Error> {
    let days: i64 = std::env::args()
        .nth(1)
        .and_then(|d| d.parse().ok())
        .unwrap_or(90);
    let cutoff = Utc::now() - Duration::days(days);
    let client = Client::from_env()?;

    // Collect first: revoking while walking pages would shift them.
    let stale: Vec<_> = client
        .tokens()
        .list_all(ListTokens::new().status(TokenStatus::Active))
        .try_filter(|t| std::future::ready(t.last_used_at.unwrap_or(t.created_at) < cutoff))
        .try_collect()
        .await?;

    for token in &stale {
        match client.tokens().revoke(&token.id).await? {
            RevokeOutcome::Revoked => println!("revoked {} ({})", token.id, token.name),
            RevokeOutcome::AlreadyGone => println!("already gone {} ({})", token.id, token.name),
        }
    }
    eprintln!("{} token(s) unused for {days} days", stale.len());
    Ok(())
}
