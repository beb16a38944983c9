//! Revoke every active token unused for N days (default 90): `cargo run --example revoke_stale -- 30`.
//!
//! A token never used counts from its creation; expired tokens are left alone (they no longer
//! work). Needs `TOKCTL_API_KEY` with `tokens:read` and
//! `tokens:revoke`.

use chrono::{Duration, Utc};
use futures::TryStreamExt;
use tokctl_sdk::{Client, ListTokens, RevokeOutcome, TokenStatus};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("revoke_stale: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), tokctl_sdk::Error> {
    // A mistyped N must not revoke anything: only a whole number of days from 1 to 36500.
    let days: i64 = match std::env::args().nth(1) {
        None => 90,
        Some(arg) => match arg.parse() {
            Ok(days @ 1..=36_500) => days,
            _ => {
                eprintln!("usage: revoke_stale [DAYS]  (a whole number of days, 1 to 36500)");
                std::process::exit(2);
            }
        },
    };
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
