//! `tokctl requests list|show`: the gateway's request log.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt};
use serde::Serialize;
use tokctl_sdk::{ListRequests, RequestEntry};

use super::Ctx;
use super::names::{KEY, TOKEN, resolve};
use crate::cli::{ListRequestsArgs, RequestsCommand};
use crate::error::CliError;
use crate::output::{Mark, Row};

/// How often `--follow` asks for new requests.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

fn or_dash(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "-".into(), |v| v.to_string())
}

fn millis(ms: f64) -> String {
    match ms < 1000.0 {
        true => format!("{ms:.0} ms"),
        false => format!("{:.2} s", ms / 1000.0),
    }
}

/// Who sent it: the credential's name, else its id.
fn who(e: &RequestEntry) -> String {
    let id = e.token_id.as_ref().or(e.key_id.as_ref());
    or_dash(e.credential_name.as_ref().or(id))
}

fn status(e: &RequestEntry) -> String {
    match &e.error {
        Some(code) => format!("{} {code}", e.status),
        None => e.status.to_string(),
    }
}

fn mark(e: &RequestEntry) -> Mark {
    match e.status >= 400 || e.error.is_some() {
        true => Mark::Warn,
        false => Mark::Normal,
    }
}

/// A request as a row of the list.
#[derive(Serialize)]
#[serde(transparent)]
struct RequestRow(RequestEntry);

impl Row for RequestRow {
    fn headers() -> &'static [&'static str] {
        &[
            "TIME", "ID", "WHO", "MODEL", "STATUS", "TTFT", "TOTAL", "TOKENS", "CREDITS",
        ]
    }

    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        let e = &self.0;
        let tokens = match (e.prompt_tokens, e.completion_tokens) {
            (Some(prompt), Some(completion)) => format!("{prompt}/{completion}"),
            _ => "-".into(),
        };
        vec![
            time(Some(e.created_at)),
            e.id.clone(),
            who(e),
            or_dash(e.routed_model.as_ref().or(e.model.as_ref())),
            status(e),
            or_dash(e.time_to_first_token_ms.map(millis)),
            millis(e.duration_ms),
            tokens,
            or_dash(e.credits.map(|c| c.normalize())),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }

    fn mark(&self) -> Mark {
        mark(&self.0)
    }
}

/// A request with every field, for `show`.
#[derive(Serialize)]
#[serde(transparent)]
struct RequestDetail(RequestEntry);

impl Row for RequestDetail {
    fn headers() -> &'static [&'static str] {
        &[
            "ID",
            "TIME",
            "ENDPOINT",
            "TOKEN",
            "KEY",
            "NAME",
            "MODEL",
            "ROUTED MODEL",
            "DEPLOYMENT",
            "ROUTE REASON",
            "STATUS",
            "STREAM",
            "FIRST TOKEN",
            "TOTAL",
            "PROMPT TOKENS",
            "CACHED TOKENS",
            "COMPLETION TOKENS",
            "CREDITS",
            "X402 SETTLED",
            "SESSION",
            "REQUEST BODY",
            "RESPONSE BODY",
        ]
    }

    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        let e = &self.0;
        vec![
            e.id.clone(),
            time(Some(e.created_at)),
            e.endpoint.clone(),
            or_dash(e.token_id.as_ref()),
            or_dash(e.key_id.as_ref()),
            or_dash(e.credential_name.as_ref()),
            or_dash(e.model.as_ref()),
            or_dash(e.routed_model.as_ref()),
            or_dash(e.deployment.as_ref()),
            or_dash(e.route_reason.as_ref()),
            status(e),
            e.stream.to_string(),
            or_dash(e.time_to_first_token_ms.map(millis)),
            millis(e.duration_ms),
            or_dash(e.prompt_tokens),
            or_dash(e.cached_tokens),
            or_dash(e.completion_tokens),
            or_dash(e.credits.map(|c| c.normalize())),
            or_dash(e.x402_settled.as_ref()),
            or_dash(e.session_id.as_ref()),
            or_dash(e.request_body.as_ref()),
            or_dash(e.response_body.as_ref()),
        ]
    }

    fn key(&self) -> &str {
        &self.0.id
    }

    fn mark(&self) -> Mark {
        mark(&self.0)
    }
}

/// Runs a requests subcommand.
pub async fn run(ctx: &Ctx, command: RequestsCommand) -> Result<(), CliError> {
    let client = ctx.client()?;
    match command {
        RequestsCommand::Show { id } => {
            let entry = client.requests().get(&id).await?;
            Ok(ctx.out.item(&RequestDetail(entry))?)
        }
        RequestsCommand::List(args) => list(ctx, &client, args).await,
    }
}

async fn list(
    ctx: &Ctx,
    client: &tokctl_sdk::Client,
    args: ListRequestsArgs,
) -> Result<(), CliError> {
    let mut request = ListRequests::new();
    if let Some(token) = &args.token {
        request = request.token_id(resolve(client, TOKEN, token, true).await?);
    }
    if let Some(key) = &args.key {
        request = request.key_id(resolve(client, KEY, key, true).await?);
    }
    if let Some(model) = args.model {
        request = request.model(model);
    }
    if let Some(status) = args.status {
        request = request.status(status);
    }
    if let Some(since) = args.since {
        request = request.since(since);
    }
    if let Some(until) = args.until {
        request = request.until(until);
    }
    if let Some(session) = args.session {
        request = request.session_id(session);
    }
    let rows: Vec<RequestRow> = client
        .requests()
        .list_all(request.clone())
        .take(args.limit as usize)
        .map_ok(RequestRow)
        .try_collect()
        .await?;
    if !args.follow {
        return Ok(ctx.out.list(&rows)?);
    }
    // Followed, the log reads like a tail: one line per request, oldest first.
    for row in rows.iter().rev() {
        ctx.out.row(row)?;
    }
    let mut new = std::pin::pin!(client.requests().follow(request, FOLLOW_EVERY));
    while let Some(entry) = new.try_next().await? {
        ctx.out.row(&RequestRow(entry))?;
    }
    Ok(())
}
