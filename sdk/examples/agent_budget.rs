//! Give an agent a token it cannot overspend, and rotate a fleet's token without cutting it off:
//! `cargo run -q --example agent_budget -- NAME CREDITS`.
//!
//! Creates a token named NAME holding `chat:write` with a monthly limit of CREDITS (exact), prints
//! its secret on stdout and its period on stderr, then rotates it with a 10-minute overlap and
//! prints the new secret: the first one keeps working until the overlap ends.
//! Needs `TOKCTL_API_KEY` (with `tokens:write` and `tokens:rotate`) and optionally
//! `TOKCTL_BASE_URL`.

use std::process::ExitCode;
use std::time::Duration;

use tokctl_sdk::{Client, CreateToken, Decimal, LimitReset};

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(limit)) = (args.next(), args.next()) else {
        eprintln!("usage: agent_budget NAME CREDITS");
        return ExitCode::from(2);
    };
    let Ok(limit) = limit.parse::<Decimal>() else {
        eprintln!("agent_budget: CREDITS must be a decimal number, e.g. 25 or 0.5");
        return ExitCode::from(2);
    };
    match run(&name, limit).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("agent_budget: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(name: &str, limit: Decimal) -> tokctl_sdk::Result<()> {
    let client = Client::from_env()?;
    let request = CreateToken::new(name)
        .scope("chat:write")
        .credit_limit(limit)
        .limit_reset(LimitReset::Monthly);
    let token = client.tokens().create(&request).await?;
    if let (Some(secret), Some(limits)) = (&token.secret, &token.limits) {
        println!("{}", secret.expose());
        eprintln!(
            "{}: {} credits a month, {} spent, resets at {}",
            token.id,
            limits.credit_limit,
            limits.spent,
            limits
                .resets_at
                .map(|at| at.to_rfc3339())
                .unwrap_or_default()
        );
    }
    let rotated = client
        .tokens()
        .rotate_with_overlap(&token.id, Duration::from_secs(600))
        .await?;
    if let Some(secret) = &rotated.secret {
        println!("{}", secret.expose());
    }
    if let Some(until) = rotated.previous_secret_expires_at {
        eprintln!("the first secret works until {}", until.to_rfc3339());
    }
    Ok(())
}
