//! `tokctl settings`: the workspace's settings, shown and changed.

use serde::Serialize;
use tokctl_sdk::{Settings, UpdateSettings};

use super::Ctx;
use crate::cli::SettingsCommand;
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct SettingsRow(Settings);

impl Row for SettingsRow {
    fn headers() -> &'static [&'static str] {
        &["STORE BODIES", "UPDATED"]
    }

    fn cells(&self, time: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String) -> Vec<String> {
        let s = &self.0;
        let updated = match s.updated_at {
            Some(_) => time(s.updated_at),
            None => "never (the server's defaults)".into(),
        };
        vec![if s.store_bodies { "yes" } else { "no" }.into(), updated]
    }

    /// `--quiet` prints the value a script tests: `store_bodies=true` or `=false`.
    fn key(&self) -> &str {
        if self.0.store_bodies {
            "store_bodies=true"
        } else {
            "store_bodies=false"
        }
    }
}

/// Runs `tokctl settings ...`.
pub async fn run(ctx: &Ctx, command: SettingsCommand) -> Result<(), CliError> {
    let client = ctx.client()?;
    let settings = match command {
        SettingsCommand::Show => client.settings().get().await?,
        SettingsCommand::Set(args) => {
            let mut change = UpdateSettings::new();
            if let Some(on) = args.store_bodies {
                change = change.store_bodies(on);
            }
            client.settings().update(change).await?
        }
    };
    Ok(ctx.out.item(&SettingsRow(settings))?)
}
