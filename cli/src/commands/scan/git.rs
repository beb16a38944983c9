//! `--git-history`: the added lines of every commit on every ref, read from `git log -p` as it
//! streams, so a secret committed and removed later is still found.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use tokctl_sdk::secrets;

use super::Finding;
use crate::error::CliError;

/// Scans the history of the repository at `repo`; returns the number of commits read.
pub fn scan(repo: &Path, findings: &mut Vec<Finding>) -> Result<u64, CliError> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "core.quotePath=false",
            "log",
            "-p",
            "--all",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--format=commit %H",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| CliError::new(format!("cannot run git: {err}")))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| CliError::new("cannot read git's output"))?;
    let commits = parse(BufReader::with_capacity(1 << 20, stdout), findings)
        .map_err(|err| CliError::new(format!("cannot read git's output: {err}")));
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let status = child
        .wait()
        .map_err(|err| CliError::new(format!("git failed: {err}")))?;
    if !status.success() {
        let reason = stderr.lines().next().unwrap_or("no reason given");
        return Err(CliError::new(format!(
            "git log failed in {}: {reason}",
            repo.display()
        )));
    }
    commits
}

/// Where the parser is in `git log -p -U0` output.
#[derive(Default)]
struct Hunk {
    /// Line number in the new file of the next added line.
    line: u64,
    /// Lines of the hunk still to come, old and new.
    old: u64,
    new: u64,
}

/// Reads `git log -p --unified=0 --format='commit %H'` output. Lines are only read as hunk
/// lines while the hunk header's counts say some remain, so an added line that looks like a
/// header (`+++ x`) is still scanned as content.
fn parse(mut input: impl BufRead, findings: &mut Vec<Finding>) -> std::io::Result<u64> {
    let mut raw = Vec::new();
    let mut commits = 0;
    let mut commit = String::new();
    let mut path: Option<String> = None;
    let mut hunk = Hunk::default();
    loop {
        raw.clear();
        if input.read_until(b'\n', &mut raw)? == 0 {
            return Ok(commits);
        }
        let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
        if hunk.old + hunk.new > 0 {
            match text.first() {
                Some(b'+') => {
                    if let Some(path) = &path {
                        for leak in secrets::find_leaks(&text[1..]) {
                            let column = super::files::chars(&text[1..leak.offset + 1]) + 1;
                            let mut finding = Finding::new(
                                path.clone(),
                                hunk.line,
                                column,
                                leak.credential,
                                leak.secret,
                            );
                            finding.commit = Some(commit.clone());
                            findings.push(finding);
                        }
                    }
                    hunk.line += 1;
                    hunk.new = hunk.new.saturating_sub(1);
                }
                Some(b'-') => hunk.old = hunk.old.saturating_sub(1),
                // "\ No newline at end of file" belongs to the line before it.
                Some(b'\\') => {}
                _ => hunk = Hunk::default(),
            }
            continue;
        }
        if let Some(sha) = text.strip_prefix(b"commit ") {
            commits += 1;
            commit = String::from_utf8_lossy(sha).into_owned();
            path = None;
        } else if let Some(name) = text.strip_prefix(b"+++ ") {
            path = new_path(name);
        } else if text.starts_with(b"@@ ") {
            hunk = header(text).unwrap_or_default();
        }
    }
}

/// The file a diff writes to: `b/src/x.rs`, or `None` for `/dev/null` (a deletion).
fn new_path(name: &[u8]) -> Option<String> {
    let name = String::from_utf8_lossy(name);
    let name = name.trim_end_matches('\t');
    // git quotes names with special characters: "b/with\ttab".
    let name = name.trim_matches('"');
    name.strip_prefix("b/").map(str::to_string)
}

/// `@@ -a[,b] +c[,d] @@ ...`: where the new lines start and how many lines follow.
fn header(text: &[u8]) -> Option<Hunk> {
    let text = std::str::from_utf8(text).ok()?;
    let mut parts = text.split(' ').skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |spec: &str| -> Option<(u64, u64)> {
        match spec.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((spec.parse().ok()?, 1)),
        }
    };
    let (_, old) = range(old)?;
    let (line, new) = range(new)?;
    Some(Hunk { line, old, new })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokctl_sdk::secrets::Kind;

    #[test]
    fn added_lines_carry_their_new_line_numbers_and_commit() {
        let secret = secrets::seal(Kind::ApiKey, "0123456789abcdefghijABCDEFGHIJ");
        let log = format!(
            "commit aaaa\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3,2 +3,3 @@ fn\n-old\n-old\n\
             +++ {secret}\n+b AKIAIOSFODNN7EXAMPLE\n+c{secret}\n\\ No newline at end of file\n\
             commit bbbb\n\ndiff --git a/x b/x\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-{secret}\n"
        );
        let mut findings = Vec::new();
        let commits = parse(log.as_bytes(), &mut findings).unwrap();
        assert_eq!(commits, 2);
        let seen: Vec<_> = findings
            .iter()
            .map(|f| (f.path.as_str(), f.line, f.column, f.commit.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                ("x", 3, 4, Some("aaaa")),
                ("x", 4, 3, Some("aaaa")),
                ("x", 5, 2, Some("aaaa"))
            ]
        );
        assert_eq!(findings[1].kind.id(), "aws_access_key_id");
    }
}
