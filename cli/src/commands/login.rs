//! `tokctl login`: verify a key with one call and save it in a profile.

use std::io::Read;

use super::{Ctx, interactive};
use crate::cli::LoginArgs;
use crate::config::{self, Source};
use crate::error::{CliError, exit};

/// Asks for (or reads) the base URL and key, verifies them, saves the profile.
pub async fn run(mut ctx: Ctx, args: LoginArgs) -> Result<(), CliError> {
    let (current_url, source) = ctx.settings.base_url.clone();
    let base_url = if matches!(source, Source::Default | Source::Profile(_))
        && interactive()
        && !args.with_token
    {
        dialoguer::Input::<String>::new()
            .with_prompt("Base URL")
            .default(current_url)
            .validate_with(|url: &String| config::base_url(url).map(|_| ()))
            .interact_text()
            .map_err(|err| CliError::new(format!("no base URL: {err}")))?
    } else {
        current_url
    };
    let base_url = config::base_url(&base_url)
        .map_err(|why| CliError::usage(format!("invalid base URL {base_url:?}: {why}")))?;
    let key = if args.with_token {
        let mut key = String::new();
        std::io::stdin().read_to_string(&mut key)?;
        key.trim().to_string()
    } else if interactive() {
        dialoguer::Password::new()
            .with_prompt("API key")
            .interact()
            .map_err(|err| CliError::new(format!("no API key: {err}")))?
            .trim()
            .to_string()
    } else {
        return Err(CliError::usage(
            "not on a terminal: pipe the key with `tokctl login --with-token`",
        ));
    };
    if key.is_empty() {
        return Err(CliError::usage("the API key is empty"));
    }
    // A mistyped or truncated key is told apart offline (the format carries a checksum), so
    // it never travels to the server.
    if tokctl_sdk::secrets::check(&key).is_none() {
        return Err(CliError::usage(
            "that is not a tokctl API key: keys are 40 characters, tka_ (or tkt_ for a token) \
             and 36 letters and digits; check for a missing or extra character",
        ));
    }

    let client = ctx.client_for(&base_url, &key)?;
    client.scopes().list().await.map_err(|err| {
        let unreachable = err.connect_cause().is_some();
        let err = CliError::from(err);
        CliError {
            // A connection failure already names the URL.
            message: if unreachable {
                err.message
            } else {
                format!("cannot verify the key with {base_url}: {}", err.message)
            },
            // "run `tokctl login`" is no help to someone doing just that.
            hint: err.hint.filter(|_| err.code != exit::UNAUTHORIZED),
            key_refused: None,
            ..err
        }
    })?;

    let profile_name = ctx.settings.profile.clone();
    let profile = ctx.config.profiles.entry(profile_name.clone()).or_default();
    profile.base_url = Some(base_url.clone());
    profile.api_key = Some(key);
    if ctx.config.current_profile.is_none() {
        ctx.config.current_profile = Some(profile_name.clone());
    }
    config::save(&ctx.config_path, &ctx.config)?;
    ctx.note(&format!(
        "Logged in to {base_url}; saved as profile {profile_name:?} in {}",
        ctx.config_path.display()
    ));
    Ok(())
}
