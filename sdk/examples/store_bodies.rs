//! Turns the request log's bodies on or off for the workspace and shows the settings:
//! `cargo run --example store_bodies -- on` (or `off`; no argument only shows them).
//!
//! Needs `TOKCTL_API_KEY` with `settings:read`, and `settings:write` to change them.

use tokctl_sdk::{Client, UpdateSettings};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store_bodies: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::from_env()?;
    let settings = match std::env::args().nth(1).as_deref() {
        None => client.settings().get().await?,
        Some("on") => {
            let change = UpdateSettings::new().store_bodies(true);
            client.settings().update(change).await?
        }
        Some("off") => {
            let change = UpdateSettings::new().store_bodies(false);
            client.settings().update(change).await?
        }
        Some(other) => return Err(format!("expected on or off, not {other:?}").into()),
    };
    let since = settings.updated_at.map_or_else(
        || "the server's default".to_string(),
        |at| format!("since {at}"),
    );
    let state = if settings.store_bodies {
        "kept"
    } else {
        "not kept"
    };
    println!("request bodies: {state} ({since})");
    Ok(())
}
