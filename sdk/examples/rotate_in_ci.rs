//! Rotate a token in CI and print only the new secret:
//! `NEW=$(cargo run -q --example rotate_in_ci -- tok_...)`.
//!
//! Needs `TOKCTL_API_KEY` (a credential with `tokens:rotate`; a token may rotate itself) and
//! optionally `TOKCTL_BASE_URL`.

use std::process::ExitCode;

use tokctl_sdk::Client;

#[tokio::main]
async fn main() -> ExitCode {
    let Some(id) = std::env::args().nth(1) else {
        eprintln!("usage: rotate_in_ci TOKEN_ID");
        return ExitCode::from(2);
    };
    let rotated = match Client::from_env() {
        Ok(client) => client.tokens().rotate(&id).await,
        Err(err) => Err(err),
    };
    match rotated {
        Ok(token) => match token.secret {
            Some(secret) => {
                println!("{}", secret.expose());
                eprintln!(
                    "rotated {}: store the new secret now, it is not shown again",
                    token.id
                );
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("the server returned no secret");
                ExitCode::FAILURE
            }
        },
        Err(err) if err.is_token_expired() => {
            eprintln!("the credential has expired: create a new token");
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("rotate_in_ci: {err}");
            ExitCode::FAILURE
        }
    }
}
