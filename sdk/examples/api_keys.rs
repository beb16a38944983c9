//! Give a CI job its own short-lived API key, list the workspace's keys, then revoke the job's
//! key: `cargo run --example api_keys -- [HOURS]` (default 1).
//!
//! Needs `TOKCTL_API_KEY` with `keys:read` and `keys:write` (and `tokens:read`, the scope the
//! job's key gets: a key can only hand out scopes it holds).

use chrono::{Duration, Utc};
use futures::TryStreamExt;
use tokctl_sdk::{Client, CreateKey, ListKeys, RevokeOutcome, TokenStatus};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("api_keys: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), tokctl_sdk::Error> {
    let hours: i64 = match std::env::args().nth(1) {
        None => 1,
        Some(arg) => match arg.parse() {
            Ok(hours @ 1..=720) => hours,
            _ => {
                eprintln!("usage: api_keys [HOURS]  (a whole number of hours, 1 to 720)");
                std::process::exit(2);
            }
        },
    };
    let client = Client::from_env()?;

    // Names are unique among live keys, so each run names its own.
    let name = format!("ci-job-{}", Utc::now().format("%Y%m%d%H%M%S"));
    let request = CreateKey::new(&name)
        .scope("tokens:read")
        .expires_at(Utc::now() + Duration::hours(hours));
    let key = client.keys().create(&request).await?;
    match &key.secret {
        // A real pipeline would store the secret in its secret store here: it is shown once.
        Some(_) => println!("created {} ({name}), expires in {hours} h", key.id),
        None => eprintln!("the server returned no secret"),
    }

    let active: Vec<_> = client
        .keys()
        .list_all(ListKeys::new().status(TokenStatus::Active))
        .try_collect()
        .await?;
    for listed in &active {
        let expires = listed
            .expires_at
            .map_or("never".to_string(), |at| at.to_rfc3339());
        println!("{}  {:<24} expires {expires}", listed.id, listed.name);
    }

    // The job is done: its key goes, whatever expiry it had left.
    match client.keys().revoke(&key.id).await? {
        RevokeOutcome::Revoked => println!("revoked {}", key.id),
        RevokeOutcome::AlreadyGone => println!("already gone {}", key.id),
    }
    Ok(())
}
