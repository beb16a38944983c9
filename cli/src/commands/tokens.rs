//! `tokctl tokens create | list | get | rotate | limit | revoke`.

use chrono::{DateTime, Duration, Utc};
use futures::TryStreamExt;
use serde::Serialize;
use tokctl_sdk::{Client, CreateToken, ListTokens, Secret, Token, TokenStatus};

use super::Ctx;
use super::names::{TOKEN, resolve};
use crate::cli::{CreateArgs, ListArgs, TokensCommand};
use crate::error::CliError;
use crate::output::{Mark, Row};

mod limits;
mod revoke;

/// How soon an expiry is marked on a terminal.
const EXPIRING_SOON: Duration = Duration::days(7);

#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct TokenRow(pub Token);

impl Row for TokenRow {
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
        let t = &self.0;
        vec![
            t.id.clone(),
            t.name.clone(),
            status_cell(&t.status, self.mark()),
            t.scopes.join(","),
            t.expires_at.map_or("never".into(), |at| time(Some(at))),
            t.last_used_at.map_or("never".into(), |at| time(Some(at))),
            time(Some(t.created_at)),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }

    fn mark(&self) -> Mark {
        mark(&self.0.status, self.0.expires_at)
    }
}

/// How a token or key stands out: expiring soon, usable, or no longer usable.
pub(crate) fn mark(status: &TokenStatus, expires_at: Option<DateTime<Utc>>) -> Mark {
    match status {
        TokenStatus::Active if expires_at.is_some_and(|at| at - Utc::now() < EXPIRING_SOON) => {
            Mark::Warn
        }
        TokenStatus::Active => Mark::Normal,
        _ => Mark::Dim,
    }
}

/// The status as a cell, `active (expiring)` when marked so.
pub(crate) fn status_cell(status: &TokenStatus, mark: Mark) -> String {
    match mark {
        Mark::Warn => format!("{status} (expiring)"),
        _ => status.to_string(),
    }
}

/// Runs a tokens subcommand.
pub async fn run(ctx: &Ctx, command: TokensCommand) -> Result<(), CliError> {
    let client = ctx.client()?;
    match command {
        TokensCommand::Create(args) => create(ctx, &client, args).await,
        TokensCommand::List(args) => list(ctx, &client, args).await,
        TokensCommand::Get { token } => {
            let id = resolve(&client, TOKEN, &token, true).await?;
            let token = client.tokens().get(&id).await?;
            limits::show(ctx, token)
        }
        TokensCommand::Limit(args) => limits::run(ctx, &client, args).await,
        TokensCommand::Rotate { token, overlap } => {
            let id = resolve(&client, TOKEN, &token, false).await?;
            let rotated = match overlap.filter(|length| !length.is_zero()) {
                Some(length) => client.tokens().rotate_with_overlap(&id, length).await?,
                None => client.tokens().rotate(&id).await?,
            };
            let until = rotated.previous_secret_expires_at;
            let rotated = TokenRow(rotated);
            print_with_secret(ctx, &rotated, rotated.0.secret.as_ref())?;
            if let Some(until) = until {
                ctx.note(&format!(
                    "The old secret works until {}.",
                    until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ));
            }
            Ok(())
        }
        TokensCommand::Revoke(args) => revoke::run(ctx, &client, args).await,
    }
}

async fn create(ctx: &Ctx, client: &Client, args: CreateArgs) -> Result<(), CliError> {
    let mut request = CreateToken::new(args.name).scopes(args.scopes);
    if let Some(at) = expiry(args.expires_in, args.expires_at)? {
        request = request.expires_at(at);
    }
    if let Some(amount) = args.credit_limit {
        request = request.credit_limit(amount);
    }
    if let Some(reset) = &args.limit_reset {
        request = request.limit_reset(tokctl_sdk::LimitReset::from(reset.as_str()));
    }
    let created = client.tokens().create(&request).await;
    let token = TokenRow(created.map_err(|err| in_cli_words(err, args.expires_in.is_some()))?);
    print_with_secret(ctx, &token, token.0.secret.as_ref())
}

/// A create's error in the CLI's words: the flags that set what the API names.
pub(crate) fn in_cli_words(err: tokctl_sdk::Error, expires_in: bool) -> CliError {
    let expiry_flag = if expires_in {
        "--expires-in"
    } else {
        "--expires-at"
    };
    CliError::from(err).in_cli_words(&[
        ("expires_at", expiry_flag),
        ("scopes", "--scope"),
        ("GET /v1/scopes", "`tokctl scopes`"),
        ("limit_reset", "--limit-reset"),
        ("credit_limit", "--credit-limit"),
    ])
}

/// The expiry `--expires-in` or `--expires-at` asks for, if either does; a time already past
/// is a usage error (exit 2), caught before asking the server.
pub(crate) fn expiry(
    expires_in: Option<std::time::Duration>,
    expires_at: Option<DateTime<Utc>>,
) -> Result<Option<DateTime<Utc>>, CliError> {
    match (expires_in, expires_at) {
        (Some(after), _) => later(Utc::now(), after, "--expires-in").map(Some),
        (None, Some(at)) if at <= Utc::now() => Err(CliError::usage(format!(
            "--expires-at must be in the future (it is {})",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ))),
        (None, at) => Ok(at),
    }
}

/// Prints a token or key that carries its secret, and reminds (on stderr) that it is shown once.
pub(crate) fn print_with_secret<T: Row + Serialize>(
    ctx: &Ctx,
    row: &T,
    secret: Option<&Secret>,
) -> Result<(), CliError> {
    let secret = secret
        .map(Secret::expose)
        .ok_or_else(|| CliError::new("the server returned no secret"))?;
    if ctx.out.quiet() {
        ctx.out.line(secret)?;
    } else if ctx.out.json() {
        ctx.out.print_json(row)?;
    } else {
        ctx.out.item(row)?;
        ctx.out.line(&format!("secret     {secret}"))?;
    }
    ctx.note("Store the secret now: it is not shown again.");
    Ok(())
}

async fn list(ctx: &Ctx, client: &Client, args: ListArgs) -> Result<(), CliError> {
    let mut request = ListTokens::new();
    if let Some(status) = &args.status {
        request = request.status(TokenStatus::from(status.as_str()));
    }
    let now = Utc::now();
    let expiring_before = args
        .expiring_within
        .map(|d| later(now, d, "--expiring-within"))
        .transpose()?;
    let unused_since = args.stale.map(|d| earlier(now, d, "--stale")).transpose()?;
    let tokens: Vec<TokenRow> = client
        .tokens()
        .list_all(request)
        .try_filter(|t| {
            let expiring = expiring_before.is_none_or(|before| {
                t.status == TokenStatus::Active && t.expires_at.is_some_and(|at| at <= before)
            });
            let stale = unused_since.is_none_or(|since| is_stale(t, since));
            std::future::ready(expiring && stale)
        })
        .map_ok(TokenRow)
        .try_collect()
        .await?;
    Ok(ctx.out.list(&tokens)?)
}

/// Active and unused since `since` (a never-used token counts from its creation).
pub(crate) fn is_stale(token: &Token, since: DateTime<Utc>) -> bool {
    token.status == TokenStatus::Active && token.last_used_at.unwrap_or(token.created_at) < since
}

/// `now` moved `by` into the future: a usage error naming `flag` when past the last date
/// representable.
pub(crate) fn later(
    now: DateTime<Utc>,
    by: std::time::Duration,
    flag: &str,
) -> Result<DateTime<Utc>, CliError> {
    Duration::from_std(by)
        .ok()
        .and_then(|by| now.checked_add_signed(by))
        .ok_or_else(|| out_of_range(flag))
}

/// `now` moved `by` into the past: a usage error naming `flag` when before the first date
/// representable.
pub(crate) fn earlier(
    now: DateTime<Utc>,
    by: std::time::Duration,
    flag: &str,
) -> Result<DateTime<Utc>, CliError> {
    Duration::from_std(by)
        .ok()
        .and_then(|by| now.checked_sub_signed(by))
        .ok_or_else(|| out_of_range(flag))
}

fn out_of_range(flag: &str) -> CliError {
    CliError::usage(format!(
        "{flag} is too long: the date it gives is out of range"
    ))
}
