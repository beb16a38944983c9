//! Ask the gateway a few questions under a per-request budget and add up what they cost,
//! exactly: `cargo run --example chat_budget -- 0.05 "first question" "second question"`.
//!
//! Credits are `Decimal`s read from the answer's own digits, so the sum equals the ledger's
//! total to the last nano-credit. Needs `TOKCTL_API_KEY` with `chat:write`.

use tokctl_sdk::{ChatMessage, ChatRequest, Client, Decimal};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("chat_budget: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let budget: Decimal = args.next().unwrap_or_else(|| "0.05".into()).parse()?;
    let client = Client::from_env()?;
    let mut spent = Decimal::ZERO;
    for question in args {
        let request = ChatRequest::new("auto")
            .message(ChatMessage::user(&question))
            .max_tokens(64)
            .budget_limit(budget);
        match client.chat().create(&request).await {
            Ok(answer) => {
                let platform = answer.platform.as_ref();
                let cost = platform.map_or(Decimal::ZERO, |p| p.credits_consumed);
                spent += cost;
                println!("{question}: {} ({cost} credits)", answer.text());
            }
            Err(err) if err.code() == Some("budget_exceeded") => {
                println!("{question}: over the budget of {budget} credits");
            }
            Err(err) => return Err(err.into()),
        }
    }
    println!("spent {} credits", spent.normalize());
    Ok(())
}
