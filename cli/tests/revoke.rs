//! `tokctl tokens revoke`: by id and by name, in bulk, and what a script sees when part fails.

mod common;

use common::{Env, stderr, stdout};
use serde_json::Value;

#[test]
fn revoke_twice_exits_0_and_says_already_gone() {
    let env = Env::new();
    let (id, _) = env.create("once", &["tokens:read"]);
    let first = env
        .tokctl()
        .args(["tokens", "revoke", &id, "--yes"])
        .output()
        .unwrap();
    assert!(first.status.success());
    assert!(stderr(&first).contains("Revoked 1, already gone 0, failed 0."));
    let second = env
        .tokctl()
        .args(["tokens", "revoke", &id, "--yes"])
        .output()
        .unwrap();
    assert!(second.status.success());
    assert!(stdout(&second).contains("already gone"));
    assert!(stderr(&second).contains("Revoked 0, already gone 1, failed 0."));
}

#[test]
fn bulk_revoke_carries_on_past_a_failure_and_exits_1() {
    let env = Env::new();
    let (a, _) = env.create("a", &["tokens:read"]);
    env.create("b", &["tokens:read"]);
    let list = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        list.path(),
        format!("# tokens to retire\n{a}\nmissing-name\n\nb\n"),
    )
    .unwrap();
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "--yes", "-o", "json", "--from-file"])
        .arg(list.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let outcomes: Value = serde_json::from_slice(&output.stdout).unwrap();
    let kinds: Vec<&str> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["revoked", "failed", "revoked"]);
    assert!(
        outcomes[1]["error"]
            .as_str()
            .unwrap()
            .contains("missing-name")
    );
    assert!(stderr(&output).contains("Revoked 2, already gone 0, failed 1."));
    assert_eq!(
        env.json(&["tokens", "list", "--status", "active"]),
        serde_json::json!([])
    );
}

#[test]
fn bulk_revoke_of_stale_tokens_from_stdin_ids() {
    let env = Env::new();
    let (a, _) = env.create("a", &["tokens:read"]);
    let (b, _) = env.create("b", &["tokens:read"]);
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "--yes", "-q", "--from-file", "-"])
        .write_stdin(format!("{a}\n"))
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(stdout(&output).trim(), a);
    // --stale 0s: every active token counts as unused.
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "--stale", "0s", "--yes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), b);
}

#[test]
fn revoke_without_a_terminal_needs_yes_and_never_prompts_or_draws_progress() {
    let env = Env::new();
    let (a, _) = env.create("a", &["tokens:read"]);
    let (b, _) = env.create("b", &["tokens:read"]);
    let output = env
        .tokctl()
        .args(["tokens", "revoke", &a, &b])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--yes"));
    assert_eq!(
        stderr(&output).lines().count(),
        1,
        "one line: {}",
        stderr(&output)
    );
    assert_eq!(
        env.json(&["tokens", "list", "--status", "revoked"]),
        serde_json::json!([])
    );

    let output = env
        .tokctl()
        .args(["tokens", "revoke", &a, &b, "--yes"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "only the summary: {err}");
    assert!(
        !err.contains('\r') && !err.contains("\u{1b}["),
        "no progress bar: {err:?}"
    );
}

#[test]
fn revoking_a_name_twice_exits_0_and_says_already_gone() {
    let env = Env::new();
    let (id, _) = env.create("twice", &["tokens:read"]);
    let revoke = || {
        env.tokctl()
            .args(["tokens", "revoke", "twice", "--yes"])
            .output()
            .unwrap()
    };
    let first = revoke();
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("Revoked 1, already gone 0, failed 0."));
    let second = revoke();
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert!(stdout(&second).contains(&format!("twice\t{id}\talready gone")));
    assert!(stderr(&second).contains("Revoked 0, already gone 1, failed 0."));

    // `get` finds the revoked token by its name as revoke does; rotate needs a live one.
    assert_eq!(env.json(&["tokens", "get", "twice"])["id"], id.as_str());
    let output = env
        .tokctl()
        .args(["tokens", "rotate", "twice"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(
        stderr(&output).contains("no token named \"twice\" that is not revoked"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn names_are_resolved_from_one_listing_per_run() {
    let env = Env::new();
    for name in ["a", "b", "c"] {
        env.create(name, &["tokens:read"]);
    }
    let output = env
        .tokctl()
        .args([
            "-v",
            "tokens",
            "revoke",
            "a",
            "b",
            "c",
            "--expired",
            "--yes",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    let listings = err
        .lines()
        .filter(|l| l.starts_with("GET /v1/tokens "))
        .count();
    assert_eq!(listings, 1, "{err}");
    assert_eq!(err.matches("DELETE /v1/tokens/").count(), 3, "{err}");

    // Ids alone need no listing at all.
    let (id, _) = env.create("d", &["tokens:read"]);
    let output = env
        .tokctl()
        .args(["-v", "tokens", "revoke", &id, "--yes"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        !stderr(&output).contains("GET /v1/tokens"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_closed_stdout_does_not_hide_a_failure() {
    let env = Env::new();
    env.create("a", &["tokens:read"]);
    let output = env.closed_stdout(&["tokens", "revoke", "a", "missing-name", "--yes"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("Revoked 1, already gone 0, failed 1."),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        env.json(&["tokens", "list", "--status", "active"]),
        serde_json::json!([])
    );

    // With nothing failed, a closed stdout is still success.
    env.create("b", &["tokens:read"]);
    let output = env.closed_stdout(&["tokens", "revoke", "b", "--yes"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("Revoked 1, already gone 0, failed 0."));
}

#[test]
fn a_stale_period_beyond_the_calendar_is_a_usage_error() {
    let env = Env::new();
    env.create("kept", &["tokens:read"]);
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "--stale", "1000000000d", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--stale") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(
        env.json(&["tokens", "list", "--status", "active"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_file_exits_the_same_whether_one_line_or_several_fail() {
    let env = Env::new();
    let (a, _) = env.create("a", &["tokens:read"]);
    let run = |lines: &str| {
        let list = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(list.path(), lines).unwrap();
        env.tokctl()
            .args(["tokens", "revoke", "--yes", "--from-file"])
            .arg(list.path())
            .output()
            .unwrap()
    };
    let one = run("missing-name\n");
    let several = run(&format!("{a}\nmissing-name\nalso-missing\n"));
    for (output, summary) in [(&one, "1 of 1"), (&several, "2 of 3")] {
        assert_eq!(output.status.code(), Some(1), "{}", stderr(output));
        assert!(
            stderr(output).contains(&format!("tokctl: revocations failed: {summary}")),
            "{}",
            stderr(output)
        );
    }
    // One token named on the command line keeps its own code: not found is 5.
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "missing-name", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
}
