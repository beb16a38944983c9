//! `tokctl tokens revoke`: one or many tokens, with confirmation, progress and a summary.

use std::io::BufRead;

use chrono::Utc;
use futures::TryStreamExt;
use serde::Serialize;
use tokctl_sdk::{Client, ListTokens, RevokeOutcome, Token, TokenStatus};

use super::{earlier, is_stale};
use crate::cli::RevokeArgs;
use crate::commands::names::{Found, Names, TOKEN};
use crate::commands::{Ctx, interactive};
use crate::error::{CliError, code_for};
use crate::output::Row;

/// What happened to one requested token.
#[derive(Debug, Serialize)]
struct Outcome {
    /// As given (id or name).
    target: String,
    /// The id it resolved to, if it did.
    id: Option<String>,
    /// `revoked`, `already_gone` or `failed`.
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip)]
    code: u8,
}

impl Row for Outcome {
    fn headers() -> &'static [&'static str] {
        &["TOKEN", "ID", "OUTCOME", "ERROR"]
    }

    fn cells(&self, _: &dyn Fn(Option<chrono::DateTime<Utc>>) -> String) -> Vec<String> {
        vec![
            self.target.clone(),
            self.id.clone().unwrap_or_else(|| "-".into()),
            self.outcome.replace('_', " "),
            self.error.clone().unwrap_or_default(),
        ]
    }

    fn key(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.target)
    }
}

/// Revokes every requested token; a failure does not stop the rest. Tokens are listed at most
/// once a run, for `--expired`, `--stale` and every name together.
///
/// One token named on the command line fails with its own exit code (5 not found, 4 refused,
/// ...). A bulk run (`--from-file`, `--expired`, `--stale`, or several tokens) that had any
/// failure exits 1 however many failed, so a script sees the same code for one bad line as
/// for ten.
pub async fn run(ctx: &Ctx, client: &Client, args: RevokeArgs) -> Result<(), CliError> {
    let asked_for_set = args.expired || args.stale.is_some();
    let bulk = asked_for_set || args.from_file.is_some() || args.tokens.len() > 1;
    let (targets, names) = targets(client, &args).await?;
    if targets.is_empty() {
        if asked_for_set {
            ctx.note("Nothing to revoke.");
            return Ok(());
        }
        return Err(CliError::usage(
            "name tokens to revoke, or use --expired, --stale or --from-file",
        ));
    }
    confirm(&targets, args.yes)?;

    let progress = (interactive() && targets.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(targets.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut outcomes = Vec::with_capacity(targets.len());
    for target in targets {
        if let Some(bar) = &progress {
            bar.set_message(target.clone());
        }
        outcomes.push(revoke_one(client, &names, target).await);
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }

    // A closed stdout (`| head`) must not hide a failure: the summary and the exit code follow.
    let shown = if ctx.out.quiet() {
        outcomes
            .iter()
            .filter(|o| o.outcome != "failed")
            .try_for_each(|o| ctx.out.line(o.key()))
    } else {
        ctx.out.list(&outcomes)
    };
    let count = |what| outcomes.iter().filter(|o| o.outcome == what).count();
    let failed = count("failed");
    ctx.note(&format!(
        "Revoked {}, already gone {}, failed {failed}.",
        count("revoked"),
        count("already_gone")
    ));
    match outcomes.as_slice() {
        _ if failed == 0 => Ok(shown?),
        [only] if !bulk => {
            Err(CliError::new(only.error.clone().unwrap_or_default()).with_code(only.code))
        }
        _ => Err(CliError::new(format!(
            "revocations failed: {failed} of {}",
            outcomes.len()
        ))),
    }
}

/// Revokes one id, or the token a name stands for; a name only revoked tokens carry is
/// already gone.
async fn revoke_one(client: &Client, names: &Names, target: String) -> Outcome {
    let id = match names.find(&target) {
        Ok(Found::Id(id)) => id,
        Ok(Found::Revoked(id)) => return done(target, id, "already_gone"),
        Err(err) => return failed(target, None, err.message, err.code),
    };
    match client.tokens().revoke(&id).await {
        Ok(RevokeOutcome::Revoked) => done(target, id, "revoked"),
        Ok(RevokeOutcome::AlreadyGone) => done(target, id, "already_gone"),
        Err(err) => {
            let code = code_for(&err);
            failed(target, Some(id), err.to_string(), code)
        }
    }
}

fn done(target: String, id: String, outcome: &'static str) -> Outcome {
    Outcome {
        target,
        id: Some(id),
        outcome,
        error: None,
        code: 0,
    }
}

fn failed(target: String, id: Option<String>, error: String, code: u8) -> Outcome {
    Outcome {
        target,
        id,
        outcome: "failed",
        error: Some(error),
        code,
    }
}

/// Every requested id or name, once, in the order given, and the names of the tokens listed
/// (only when a name, `--expired` or `--stale` needs a listing).
async fn targets(client: &Client, args: &RevokeArgs) -> Result<(Vec<String>, Names), CliError> {
    let unused_since = args
        .stale
        .map(|d| earlier(Utc::now(), d, "--stale"))
        .transpose()?;
    let mut targets: Vec<String> = args.tokens.clone();
    if let Some(path) = &args.from_file {
        targets.extend(read_lines(path)?);
    }
    let listed = args.expired || args.stale.is_some() || targets.iter().any(|t| !TOKEN.is_id(t));
    let tokens: Vec<Token> = if listed {
        client
            .tokens()
            .list_all(ListTokens::new())
            .try_collect()
            .await?
    } else {
        Vec::new()
    };
    targets.extend(
        tokens
            .iter()
            .filter(|t| {
                (args.expired && t.status == TokenStatus::Expired)
                    || unused_since.is_some_and(|since| is_stale(t, since))
            })
            .map(|t| t.id.clone()),
    );
    let mut seen = std::collections::HashSet::new();
    targets.retain(|t| seen.insert(t.clone()));
    Ok((targets, Names::of_tokens(&tokens)))
}

fn read_lines(path: &std::path::Path) -> Result<Vec<String>, CliError> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path)
            .map_err(|err| CliError::usage(format!("cannot read {}: {err}", path.display())))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut lines = Vec::new();
    for line in reader.lines() {
        let line = line?;
        let line = line.trim();
        if !line.is_empty() && !line.starts_with('#') {
            lines.push(line.to_string());
        }
    }
    Ok(lines)
}

/// Asks on a terminal; without one, demands `--yes`.
fn confirm(targets: &[String], yes: bool) -> Result<(), CliError> {
    crate::commands::confirm(yes, || {
        let shown: Vec<&str> = targets.iter().take(5).map(String::as_str).collect();
        let more = targets.len().saturating_sub(shown.len());
        let suffix = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!(
            "Revoke {} token(s) for good ({}{suffix})?",
            targets.len(),
            shown.join(", ")
        )
    })
}
