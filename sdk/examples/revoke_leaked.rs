//! Revoke every tokctl secret found in some text, with no API key of your own:
//! `cat build.log | cargo run --example revoke_leaked`, or
//! `cargo run --example revoke_leaked -- tkt_...` (the arguments are scanned instead of stdin).
//!
//! Talks to `TOKCTL_BASE_URL` (default http://127.0.0.1:8080/v1). Holding a leaked secret is all
//! it takes to kill it; the service answers the same whatever was live, so the output says only
//! how many secrets were found and reported. Providers' keys found beside them (OpenAI, AWS,
//! GitHub, ...) are listed with where to revoke them: only their provider can.

use std::collections::BTreeSet;
use std::io::Read;

use tokctl_sdk::Client;
use tokctl_sdk::secrets::{self, Credential};

/// Errors are printed as one line with `Display` (never `Debug`, which is for programmers).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("revoke_leaked: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), tokctl_sdk::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = if args.is_empty() {
        let mut input = Vec::new();
        if let Err(err) = std::io::stdin().read_to_end(&mut input) {
            eprintln!("cannot read stdin: {err}");
            std::process::exit(2);
        }
        input
    } else {
        args.join("\n").into_bytes()
    };

    // Each secret once, however often it appears.
    let mut found = BTreeSet::new();
    for leak in secrets::find_leaks(&text) {
        match leak.credential {
            Credential::Tokctl(_) => {
                if found.insert(leak.secret) {
                    eprintln!("found {}", secrets::mask(leak.secret));
                }
            }
            Credential::Provider(provider) => eprintln!(
                "found {} {}: revoke it at {}",
                provider.name,
                provider.mask(leak.secret),
                provider.revoke_at
            ),
        }
    }
    if found.is_empty() {
        eprintln!("no tokctl secret found");
        return Ok(());
    }

    let mut builder = Client::builder();
    if let Ok(url) = std::env::var("TOKCTL_BASE_URL") {
        builder = builder.base_url(url);
    }
    let received = builder.build()?.credentials().revoke(&found).await?;
    println!("reported {received} secret(s); every live one among them is revoked");
    Ok(())
}
