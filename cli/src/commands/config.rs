//! `tokctl config show | set | profiles | use`.

use serde::Serialize;

use super::Ctx;
use crate::cli::ConfigCommand;
use crate::config;
use crate::error::CliError;

#[derive(Serialize)]
struct Shown<'a> {
    config_file: String,
    profile: &'a str,
    /// As used (`/v1` added when missing), or as given when it cannot be used.
    base_url: String,
    base_url_source: String,
    /// Why the base URL cannot be used, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    base_url_error: Option<String>,
    chat_base_url: &'a str,
    api_key: Option<String>,
    api_key_source: Option<String>,
}

/// Runs a config subcommand.
pub fn run(mut ctx: Ctx, command: ConfigCommand) -> Result<(), CliError> {
    match command {
        ConfigCommand::Show => {
            let s = &ctx.settings;
            let (base_url, base_url_error) = match config::base_url(&s.base_url.0) {
                Ok(url) => (url, None),
                Err(why) => (s.base_url.0.clone(), Some(why)),
            };
            let shown = Shown {
                config_file: ctx.config_path.display().to_string(),
                profile: &s.profile,
                base_url,
                base_url_source: s.base_url.1.to_string(),
                base_url_error,
                chat_base_url: s
                    .chat_base_url
                    .as_ref()
                    .map_or("(the base URL's server)", |(url, _)| url.as_str()),
                api_key: s.api_key.as_ref().map(|(key, _)| redact(key)),
                api_key_source: s.api_key.as_ref().map(|(_, source)| source.to_string()),
            };
            if ctx.out.json() {
                return Ok(ctx.out.print_json(&shown)?);
            }
            ctx.out
                .line(&format!("config file    {}", shown.config_file))?;
            ctx.out.line(&format!("profile        {}", shown.profile))?;
            let invalid = shown
                .base_url_error
                .as_ref()
                .map_or(String::new(), |why| format!("; invalid: {why}"));
            ctx.out.line(&format!(
                "base_url       {} ({}{invalid})",
                shown.base_url, shown.base_url_source
            ))?;
            ctx.out
                .line(&format!("chat_base_url  {}", shown.chat_base_url))?;
            let key = match (&shown.api_key, &shown.api_key_source) {
                (Some(key), Some(source)) => format!("{key} ({source})"),
                _ => "not set (run `tokctl login`)".into(),
            };
            Ok(ctx.out.line(&format!("api_key        {key}"))?)
        }
        ConfigCommand::Set { key, value } => {
            let name = ctx.settings.profile.clone();
            let profile = ctx.config.profiles.entry(name.clone()).or_default();
            let slot = match key.as_str() {
                "base_url" => &mut profile.base_url,
                "chat_base_url" => &mut profile.chat_base_url,
                "api_key" => &mut profile.api_key,
                other => {
                    return Err(CliError::usage(format!(
                        "unknown setting {other:?}: use base_url, chat_base_url or api_key"
                    )));
                }
            };
            let value = match key.as_str() {
                "base_url" => config::base_url(&value)
                    .map_err(|why| CliError::usage(format!("invalid base URL {value:?}: {why}")))?,
                _ => value,
            };
            *slot = Some(value);
            if ctx.config.current_profile.is_none() {
                ctx.config.current_profile = Some(name.clone());
            }
            config::save(&ctx.config_path, &ctx.config)?;
            ctx.note(&format!("Set {key} in profile {name:?}."));
            Ok(())
        }
        ConfigCommand::Profiles => {
            let current = ctx.settings.profile.as_str();
            let names: Vec<&String> = ctx.config.profiles.keys().collect();
            if ctx.out.json() {
                return Ok(ctx.out.print_json(&serde_json::json!({
                    "current": current, "profiles": names
                }))?);
            }
            for name in names {
                let marker = if name == current { "*" } else { " " };
                ctx.out.line(&format!("{marker} {name}"))?;
            }
            Ok(())
        }
        ConfigCommand::Use { profile } => {
            if !ctx.config.profiles.contains_key(&profile) {
                return Err(config::unknown_profile(
                    &profile,
                    None,
                    &ctx.config,
                    &ctx.config_path,
                ));
            }
            ctx.config.current_profile = Some(profile.clone());
            config::save(&ctx.config_path, &ctx.config)?;
            ctx.note(&format!("Now using profile {profile:?}."));
            Ok(())
        }
    }
}

/// Shows a key's prefix only: `tka_abcd…`.
fn redact(key: &str) -> String {
    let shown: String = key.chars().take(8).collect();
    format!("{shown}… (redacted)")
}
