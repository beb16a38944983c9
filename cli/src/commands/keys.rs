//! `tokctl keys create | list | revoke`: the workspace's API keys.

use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use serde::Serialize;
use tokctl_sdk::{ApiKey, Client, CreateKey, ListKeys, RevokeOutcome, TokenStatus};

use super::names::{Found, KEY, Names};
use super::tokens::{expiry, in_cli_words, mark, print_with_secret, status_cell};
use super::{Ctx, confirm};
use crate::cli::{CreateKeyArgs, KeysCommand, ListKeysArgs, RevokeKeyArgs};
use crate::error::{CliError, exit};
use crate::output::{Mark, Row};

#[derive(Serialize)]
#[serde(transparent)]
struct KeyRow(ApiKey);

impl Row for KeyRow {
    fn headers() -> &'static [&'static str] {
        &[
            "ID",
            "NAME",
            "STATUS",
            "SCOPES",
            "EXPIRES",
            "LAST USED",
            "CREATED",
        ]
    }

    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        let k = &self.0;
        vec![
            k.id.clone(),
            k.name.clone(),
            status_cell(&k.status, self.mark()),
            k.scopes.join(","),
            k.expires_at.map_or("never".into(), |at| time(Some(at))),
            k.last_used_at.map_or("never".into(), |at| time(Some(at))),
            time(Some(k.created_at)),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }

    fn mark(&self) -> Mark {
        mark(&self.0.status, self.0.expires_at)
    }
}

/// What `keys revoke` did.
#[derive(Serialize)]
struct Revoked {
    id: String,
    /// `revoked` or `already_gone`.
    outcome: &'static str,
}

impl Row for Revoked {
    fn headers() -> &'static [&'static str] {
        &["ID", "OUTCOME"]
    }

    fn cells(&self, _: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        vec![self.id.clone(), self.outcome.replace('_', " ")]
    }

    fn key(&self) -> &str {
        &self.id
    }
}

/// Runs a keys subcommand.
pub async fn run(ctx: &Ctx, command: KeysCommand) -> Result<(), CliError> {
    let client = ctx.client()?;
    match command {
        KeysCommand::Create(args) => create(ctx, &client, args).await,
        KeysCommand::List(args) => list(ctx, &client, args).await,
        KeysCommand::Revoke(args) => revoke(ctx, &client, args).await,
    }
}

async fn create(ctx: &Ctx, client: &Client, args: CreateKeyArgs) -> Result<(), CliError> {
    let mut request = CreateKey::new(args.name).scopes(args.scopes);
    if let Some(at) = expiry(args.expires_in, args.expires_at)? {
        request = request.expires_at(at);
    }
    let created = client.keys().create(&request).await;
    let key = KeyRow(created.map_err(|err| in_cli_words(err, args.expires_in.is_some()))?);
    print_with_secret(ctx, &key, key.0.secret.as_ref())
}

async fn list(ctx: &Ctx, client: &Client, args: ListKeysArgs) -> Result<(), CliError> {
    let mut request = ListKeys::new();
    if let Some(status) = &args.status {
        request = request.status(TokenStatus::from(status.as_str()));
    }
    let keys: Vec<KeyRow> = client
        .keys()
        .list_all(request)
        .map_ok(KeyRow)
        .try_collect()
        .await?;
    Ok(ctx.out.list(&keys)?)
}

/// Revokes one key by id or name. Like `tokens revoke`, a 404 (or a name only revoked keys
/// carry) counts as already gone (exit 0); the key this run authenticates with cannot go (409,
/// exit 6).
async fn revoke(ctx: &Ctx, client: &Client, args: RevokeKeyArgs) -> Result<(), CliError> {
    let found = if KEY.is_id(&args.key) {
        Found::Id(args.key.clone())
    } else {
        Names::fetch(client, KEY).await?.find(&args.key)?
    };
    let id = match found {
        Found::Id(id) => id,
        Found::Revoked(id) => return summary(ctx, id, "already_gone"),
    };
    let shown = if id == args.key {
        id.clone()
    } else {
        format!("{id} ({})", args.key)
    };
    confirm(args.yes, || format!("Revoke API key {shown} for good?"))?;
    let outcome = match client.keys().revoke(&id).await {
        Ok(RevokeOutcome::Revoked) => "revoked",
        Ok(RevokeOutcome::AlreadyGone) => "already_gone",
        Err(err) if err.is_conflict() => {
            return Err(CliError::new(format!(
                "{id} is the key this command is using, and a key cannot revoke itself: \
                 revoke it with another key"
            ))
            .with_code(exit::CONFLICT));
        }
        Err(err) => return Err(err.into()),
    };
    summary(ctx, id, outcome)
}

/// What `keys revoke` did: the row (its id with `-q`), and the count on stderr.
fn summary(ctx: &Ctx, id: String, outcome: &'static str) -> Result<(), CliError> {
    let shown = ctx.out.item(&Revoked { id, outcome });
    let (revoked, gone) = if outcome == "revoked" { (1, 0) } else { (0, 1) };
    ctx.note(&format!(
        "Revoked {revoked}, already gone {gone}, failed 0."
    ));
    Ok(shown?)
}
