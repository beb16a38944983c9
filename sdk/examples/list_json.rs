//! List every token as a JSON array on stdout: `cargo run --example list_json > tokens.json`.
//!
//! Needs `TOKCTL_API_KEY` with `tokens:read`.

use futures::TryStreamExt;
use tokctl_sdk::{Client, ListTokens};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("list_json: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::from_env()?;
    let tokens: Vec<_> = client
        .tokens()
        .list_all(ListTokens::new())
        .try_collect()
        .await?;
    println!("{}", serde_json::to_string_pretty(&tokens)?);
    Ok(())
}
