//! The gateway's slowest answers of the last hour, and then each failed request as it is
//! logged: `cargo run --example slow_requests`.
//!
//! Needs `TOKCTL_API_KEY` with `requests:read`.

use futures::{StreamExt, TryStreamExt};
use tokctl_sdk::{Client, ListRequests};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("slow_requests: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::from_env()?;
    let hour_ago = chrono::Utc::now() - chrono::Duration::hours(1);
    let mut answered: Vec<_> = client
        .requests()
        .list_all(ListRequests::new().status("2xx").since(hour_ago))
        .try_collect()
        .await?;
    answered.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    for entry in answered.iter().take(5) {
        let model = entry.routed_model.as_deref().unwrap_or("-");
        println!("{:>9.1} ms  {model:<16} {}", entry.duration_ms, entry.id);
    }
    // Then tail the failures (5xx) until interrupted.
    let failures = client.requests().follow(
        ListRequests::new().status("5xx"),
        std::time::Duration::from_secs(2),
    );
    let mut failures = std::pin::pin!(failures);
    while let Some(entry) = failures.next().await {
        let entry = entry?;
        let error = entry.error.as_deref().unwrap_or("-");
        println!("{} {} {error} {}", entry.created_at, entry.status, entry.id);
    }
    Ok(())
}
