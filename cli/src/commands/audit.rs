//! `tokctl audit list`.

use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use serde::Serialize;
use tokctl_sdk::{AuditEntry, ListAudit};

use super::Ctx;
use super::names::{KEY, TOKEN, resolve};
use crate::cli::AuditCommand;
use crate::error::CliError;
use crate::output::Row;

#[derive(Serialize)]
#[serde(transparent)]
struct AuditRow(AuditEntry);

impl Row for AuditRow {
    fn headers() -> &'static [&'static str] {
        &["TIME", "ACTION", "ACTOR", "ABOUT", "REQUEST", "ID"]
    }

    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        let e = &self.0;
        vec![
            time(Some(e.created_at)),
            e.action.clone(),
            e.actor.clone(),
            e.token_id
                .clone()
                .or_else(|| e.key_id.clone())
                .unwrap_or_else(|| "-".into()),
            e.request_id.clone().unwrap_or_else(|| "-".into()),
            e.id.clone(),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }
}

/// Runs an audit subcommand. `--token` and `--key` take an id or a name, resolved as the
/// tokens and keys commands do (a revoked one's name too: its history is what audit is for).
pub async fn run(ctx: &Ctx, command: AuditCommand) -> Result<(), CliError> {
    let AuditCommand::List { token, key, action } = command;
    let client = ctx.client()?;
    let mut request = ListAudit::new();
    if let Some(token) = token {
        request = request.token_id(resolve(&client, TOKEN, &token, true).await?);
    }
    if let Some(key) = key {
        request = request.key_id(resolve(&client, KEY, &key, true).await?);
    }
    if let Some(action) = action {
        request = request.action(action);
    }
    let entries: Vec<AuditRow> = client
        .audit()
        .list_all(request)
        .map_ok(AuditRow)
        .try_collect()
        .await?;
    Ok(ctx.out.list(&entries)?)
}
