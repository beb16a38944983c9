//! List every token as a JSON array on stdout: `cargo run --example list_json > tokens.json`.
//!
//! Needs `TOKCTL_API_KEY` with `tokens:read`.

use futures::TryStreamExt;
use tokctl_sdk::{Client, ListTokens};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::from_env()?;
    let tokens: Vec<_> = client
        .tokens()
        .list_all(ListTokens::new())
        .try_collect()
        .await?;
    println!("{}", serde_json::to_string_pretty(&tokens)?);
    Ok(())
}
