//! An agent that pays for its own answers with x402: the gateway answers 402 with an offer, the
//! client's wallet signs it (the `upto` scheme: pay what the answer costs, at most the offer)
//! and asks again: `cargo run --example pay_with_wallet -- wallet.key 50000 "a question"`.
//!
//! `wallet.key` holds the wallet's private key (64 hexadecimal digits) and must not be readable
//! by others (`chmod 600`); 50000 is the most one answer may cost, in the token's atomic units
//! (0.05 USDC). Needs `TOKCTL_API_KEY` with `chat:write`, on a workspace with x402 terms.

use tokctl_sdk::x402::Wallet;
use tokctl_sdk::{ChatMessage, ChatRequest, Client};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pay_with_wallet: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let key_file = args.next().ok_or("give the wallet's key file")?;
    let most: u128 = args
        .next()
        .ok_or("give the most one answer may cost")?
        .parse()?;
    let question = args.next().unwrap_or_else(|| "Say hello".into());
    let wallet = Wallet::from_key_file(key_file, most)?;
    let client = Client::builder()
        .api_key(std::env::var("TOKCTL_API_KEY")?)
        .base_url(
            std::env::var("TOKCTL_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into()),
        )
        .wallet(wallet)
        .build()?;
    let request = ChatRequest::new("auto")
        .message(ChatMessage::user(question))
        .max_tokens(200);
    let answer = client.chat().create(&request).await?;
    println!("{}", answer.text());
    if let Some(paid) = answer.platform.and_then(|p| p.settlement) {
        let transaction = paid.transaction.as_deref().unwrap_or("no transaction");
        println!(
            "paid {} units ({}, {}) on {}: {transaction}",
            paid.amount, paid.scheme, paid.status, paid.network
        );
    }
    Ok(())
}
