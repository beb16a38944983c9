//! `tokctl settings`' clap definitions: the workspace's settings.

use clap::{ArgGroup, Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// Show the workspace's settings (needs settings:read).
    Show,
    /// Change the workspace's settings; what is not named is kept (needs settings:write).
    Set(SetSettingsArgs),
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("change").required(true).multiple(true)))]
pub struct SetSettingsArgs {
    /// Keep each gateway request's body and a whole answer's message in the request log,
    /// secrets redacted and cut at the server's cap (true), or keep no body (false). Audited.
    #[arg(long, group = "change", value_name = "true|false")]
    pub store_bodies: Option<bool>,
}
