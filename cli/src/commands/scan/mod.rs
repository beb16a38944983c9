//! `tokctl scan`: finds leaked credentials in files, stdin or git history (tokctl's own secrets,
//! told by their checksum, and the common providers' keys, told by their shape), prints where
//! they are (never the secrets themselves), and with `--revoke` reports tokctl's to the server.

mod files;
mod git;
mod sarif;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokctl_sdk::Secret;
use tokctl_sdk::secrets::{self, Credential, Kind};

use super::{Ctx, confirm, interactive};
use crate::cli::{OutputFormat, ScanArgs};
use crate::error::{CliError, exit};
use crate::output::Row;

/// One secret found, where it was.
#[derive(Debug, Serialize)]
pub struct Finding {
    /// The file, as given or found under a given directory; `-` for stdin.
    pub path: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u64,
    /// `token` or `api_key` (tokctl's), or a provider's key: `openai_api_key`, ...
    #[serde(serialize_with = "kind_name")]
    pub kind: Credential,
    /// The secret masked to its known start and last 4 characters.
    pub masked: String,
    /// The commit that added it, with `--git-history`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The secret itself: kept for `--revoke`, never printed.
    #[serde(skip)]
    pub secret: Secret,
    #[serde(skip)]
    location: String,
}

impl Finding {
    pub fn new(path: String, line: u64, column: u64, kind: Credential, secret: &str) -> Finding {
        Finding {
            location: format!("{path}:{line}"),
            path,
            line,
            column,
            kind,
            masked: kind.mask(secret),
            commit: None,
            secret: Secret::new(secret),
        }
    }
}

fn kind_name<S: serde::Serializer>(kind: &Credential, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.id())
}

impl Row for Finding {
    fn headers() -> &'static [&'static str] {
        &["FILE", "LINE", "KIND", "SECRET"]
    }

    fn cells(&self, _time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        vec![
            self.path.clone(),
            self.line.to_string(),
            self.kind.to_string(),
            self.masked.clone(),
        ]
    }

    /// `path:line`, what an editor opens.
    fn key(&self) -> &str {
        &self.location
    }
}

/// A finding from `--git-history`: the same row with the commit that added it.
#[derive(Serialize)]
#[serde(transparent)]
struct InHistory<'a>(&'a Finding);

impl Row for InHistory<'_> {
    fn headers() -> &'static [&'static str] {
        &["FILE", "LINE", "KIND", "SECRET", "COMMIT"]
    }

    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String> {
        let mut cells = self.0.cells(time);
        let commit = self.0.commit.as_deref().unwrap_or("-");
        cells.push(commit[..commit.len().min(12)].to_string());
        cells
    }

    fn key(&self) -> &str {
        self.0.key()
    }
}

/// What a scan covered, for the summary line.
#[derive(Debug, Default)]
pub struct Covered {
    pub files: u64,
    pub bytes: u64,
    /// Commits read, when history was scanned.
    pub commits: Option<u64>,
}

pub async fn run(ctx: &Ctx, args: ScanArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let (mut findings, covered) = if args.git_history {
        scan_history(&paths)?
    } else {
        files::scan(&paths, !args.no_ignore)?
    };
    findings.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));

    match ctx.global.output {
        Some(OutputFormat::Sarif) => ctx.out.print_json(&sarif::report(&findings))?,
        _ if args.git_history => {
            ctx.out
                .list(&findings.iter().map(InHistory).collect::<Vec<_>>())?;
        }
        _ => ctx.out.list(&findings)?,
    }
    let scanned = scanned(&covered, started);
    if findings.is_empty() {
        if !ctx.out.quiet() {
            eprintln!("no secrets found ({scanned})");
        }
        return Ok(());
    }
    if args.revoke {
        revoke(ctx, &findings, &args).await?;
    }
    let files: BTreeSet<&str> = findings.iter().map(|f| f.path.as_str()).collect();
    Err(CliError::new(format!(
        "found {} in {} ({scanned})",
        count(findings.len(), "secret"),
        count(files.len(), "file"),
    ))
    .with_code(exit::FOUND))
}

fn scan_history(paths: &[PathBuf]) -> Result<(Vec<Finding>, Covered), CliError> {
    let mut findings = Vec::new();
    let mut covered = Covered::default();
    for path in paths {
        if path == Path::new("-") {
            return Err(CliError::usage(
                "--git-history scans repositories, not stdin",
            ));
        }
        *covered.commits.get_or_insert(0) += git::scan(path, &mut findings)?;
    }
    Ok((findings, covered))
}

/// Sends each distinct tokctl secret once; the server answers how many it received, never
/// which were live. Providers' keys are not tokctl's to revoke: the summary says where each
/// kind is revoked. The key this CLI is configured with is left out unless `--include-own-key`
/// says otherwise (or, on a terminal without `--yes`, the user does): revoking it would cut off
/// every later command, the revocation's own follow-up included.
async fn revoke(ctx: &Ctx, findings: &[Finding], args: &ScanArgs) -> Result<(), CliError> {
    let (own_kind, providers): (Vec<&Finding>, Vec<&Finding>) = findings
        .iter()
        .partition(|f| matches!(f.kind, Credential::Tokctl(_)));
    let mut distinct: BTreeSet<&str> = own_kind.iter().map(|f| f.secret.expose()).collect();
    let base_url = ctx.settings.base_url()?;
    let own = ctx
        .settings
        .api_key
        .as_ref()
        .filter(|(key, _)| distinct.contains(key.as_str()));
    let mut left_out = None;
    if let Some((key, source)) = own {
        let include = args.include_own_key
            || (!args.yes
                && interactive()
                && ask(&format!(
                    "One of them is the API key this CLI uses ({source}): revoking it cuts this CLI off too. Revoke it as well?"
                ))?);
        if !include {
            distinct.remove(key.as_str());
            left_out = Some((key.as_str(), source));
        }
    }
    if !distinct.is_empty() {
        confirm(args.yes, || {
            format!(
                "Revoke {} at {base_url}? Whoever uses them is cut off at once",
                count(distinct.len(), "secret"),
            )
        })?;
        let client = ctx.anonymous_client()?;
        let received = client.credentials().revoke(distinct.iter()).await?;
        eprintln!(
            "sent {} for revocation; the server received {received} (it does not say which were live)",
            count(distinct.len(), "secret"),
        );
    }
    if let Some((key, source)) = left_out {
        eprintln!("{}", own_key_left_out(key, source));
    }
    if !providers.is_empty() {
        eprintln!("{}", providers_left_out(&providers));
    }
    Ok(())
}

/// What the summary says of providers' keys found: that tokctl cannot revoke them, and where
/// each kind is revoked.
fn providers_left_out(findings: &[&Finding]) -> String {
    let mut kinds: Vec<&secrets::providers::Provider> = Vec::new();
    let mut distinct = BTreeSet::new();
    for finding in findings {
        distinct.insert(finding.secret.expose());
        if let Credential::Provider(provider) = finding.kind
            && !kinds.contains(&provider)
        {
            kinds.push(provider);
        }
    }
    let wheres: Vec<String> = kinds
        .iter()
        .map(|p| format!("{}: {}", p.name, p.revoke_at))
        .collect();
    format!(
        "left out {} of other providers, which only they can revoke: {}",
        count(distinct.len(), "key"),
        wheres.join("; ")
    )
}

/// Yes or no on the terminal (default no).
fn ask(prompt: &str) -> Result<bool, CliError> {
    dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact()
        .map_err(|err| CliError::new(format!("no answer: {err}")))
}

/// What the summary says of the CLI's own key, left out of a revocation: that it leaked, and
/// how to replace it before revoking it.
fn own_key_left_out(key: &str, source: &crate::config::Source) -> String {
    let masked = secrets::mask(key);
    let replace = match secrets::check(key) {
        Some(Kind::Token) => "rotate it (`tokctl tokens rotate ID`) and save the new secret \
             where it came from (`tokctl login` for a profile)"
            .to_string(),
        _ => "make a new key (`tokctl keys create NAME --scope ...`, or \
             `tokctl-server admin create-key` on the server), switch to it (`tokctl login`), \
             then revoke this one (`tokctl keys revoke ID`, or this scan again with \
             --include-own-key)"
            .to_string(),
    };
    format!(
        "left out 1 secret: {masked}, the API key this CLI uses ({source}). It is leaked too: {replace}"
    )
}

/// "scanned 95 files, 99.6 MB in 0.12 s" or "scanned 12 commits in 0.05 s".
fn scanned(covered: &Covered, started: Instant) -> String {
    let seconds = started.elapsed().as_secs_f64();
    if let Some(commits) = covered.commits {
        format!(
            "scanned {} in {seconds:.2} s",
            count(commits as usize, "commit")
        )
    } else {
        format!(
            "scanned {}, {:.1} MB in {seconds:.2} s",
            count(covered.files as usize, "file"),
            covered.bytes as f64 / 1e6
        )
    }
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
