//! `tokctl tokens ...`, `audit`, `scopes` against the real server, as a CI pipeline runs them.

mod common;

use common::{Env, stderr, stdout};
use serde_json::Value;

#[test]
fn version_prints_the_crate_version() {
    let output = Env::new().bare().arg("--version").output().unwrap();
    assert!(output.status.success());
    assert_eq!(
        stdout(&output).trim(),
        format!("tokctl {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn create_prints_the_api_object_and_reminds_on_stderr() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args([
            "tokens",
            "create",
            "ci",
            "--scope",
            "tokens:read",
            "--expires-in",
            "30d",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let token: Value = serde_json::from_slice(&output.stdout).unwrap();
    for field in [
        "id",
        "name",
        "token",
        "scopes",
        "status",
        "created_at",
        "expires_at",
        "last_used_at",
        "created_by",
    ] {
        assert!(token.get(field).is_some(), "{field} missing from {token}");
    }
    assert_eq!(token["status"], "active");
    assert!(stderr(&output).contains("not shown again"));

    // Quiet: only the secret, which is a working credential.
    let output = env
        .tokctl()
        .args(["tokens", "create", "ci-2", "-s", "tokens:read", "-q"])
        .output()
        .unwrap();
    let secret = stdout(&output).trim().to_string();
    assert!(secret.starts_with("tkt_") && !secret.contains(char::is_whitespace));
    // Off a terminal, -q means the value and nothing else: no reminder on stderr.
    assert_eq!(stderr(&output), "");
    let listed = env
        .bare()
        .env("TOKCTL_API_KEY", &secret)
        .args(["tokens", "list", "-q"])
        .output()
        .unwrap();
    assert!(listed.status.success());
    assert_eq!(stdout(&listed).lines().count(), 2);
}

#[test]
fn list_filters_and_prints_plain_lines_when_piped() {
    let env = Env::new();
    env.create("alpha", &["tokens:read"]);
    env.tokctl()
        .args([
            "tokens",
            "create",
            "soon",
            "-s",
            "tokens:read",
            "--expires-in",
            "2d",
        ])
        .assert()
        .success();
    let (beta, _) = env.create("beta", &["tokens:read"]);
    env.tokctl()
        .args(["tokens", "revoke", &beta, "--yes"])
        .assert()
        .success();

    let output = env.tokctl().args(["tokens", "list"]).output().unwrap();
    let lines: Vec<String> = stdout(&output).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines.iter().all(|l| l.split('\t').count() == 7),
        "tab-separated: {lines:?}"
    );
    assert!(!stdout(&output).contains('│'), "no table when piped");
    assert!(!stdout(&output).contains("\u{1b}["), "no colour when piped");

    let active = env.json(&["tokens", "list", "--status", "active"]);
    assert_eq!(active.as_array().unwrap().len(), 2);
    let expiring = env.json(&["tokens", "list", "--expiring-within", "7d"]);
    assert_eq!(expiring[0]["name"], "soon");
    assert_eq!(expiring.as_array().unwrap().len(), 1);
    let stale = env.json(&["tokens", "list", "--stale", "1h"]);
    assert_eq!(
        stale.as_array().unwrap().len(),
        0,
        "all were created just now"
    );
}

#[test]
fn get_and_rotate_accept_a_name_and_rotate_captures_the_secret() {
    let env = Env::new();
    let (id, old) = env.create("deploy", &["tokens:read", "tokens:rotate"]);
    let shown = env.json(&["tokens", "get", "deploy"]);
    assert_eq!(shown["id"], id.as_str());
    assert!(shown.get("token").is_none());

    // A CI job rotating its own token: $(tokctl tokens rotate deploy -q)
    let output = env
        .bare()
        .env("TOKCTL_API_KEY", &old)
        .args(["tokens", "rotate", "deploy", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let new = stdout(&output).trim().to_string();
    assert!(new.starts_with("tkt_") && new != old);
    let with_old = env
        .bare()
        .env("TOKCTL_API_KEY", &old)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert_eq!(with_old.status.code(), Some(4));
    let with_new = env
        .bare()
        .env("TOKCTL_API_KEY", &new)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert!(with_new.status.success());
}

#[test]
fn durations_beyond_the_calendar_are_usage_errors_not_panics() {
    let env = Env::new();
    for args in [
        &[
            "tokens",
            "create",
            "far",
            "-s",
            "tokens:read",
            "--expires-in",
            "1000000000d",
        ][..],
        &["tokens", "list", "--stale", "1000000000d"],
        &["tokens", "list", "--expiring-within", "1000000000d"],
    ] {
        let output = env.tokctl().args(args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let err = stderr(&output);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("tokctl: --") && err.contains("out of range"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(env.json(&["tokens", "list"]), serde_json::json!([]));
}

#[test]
fn exit_codes_follow_the_documentation() {
    let env = Env::with_rate_limit(4);
    let code = |cmd: &mut assert_cmd::Command| cmd.output().unwrap().status.code();
    env.create("taken", &["tokens:read"]);
    assert_eq!(
        code(
            env.tokctl()
                .args(["tokens", "create", "taken", "-s", "tokens:read"])
        ),
        Some(6)
    );
    assert_eq!(
        code(env.tokctl().args(["tokens", "get", "nobody"])),
        Some(5)
    );
    assert_eq!(
        code(
            env.tokctl()
                .args(["tokens", "get", "tok_000000000000000000000000"])
        ),
        Some(5)
    );
    assert_eq!(
        code(
            env.bare()
                .env("TOKCTL_API_KEY", "tka_wrong")
                .args(["scopes"])
        ),
        Some(4)
    );
    assert_eq!(code(env.tokctl().args(["tokens", "frobnicate"])), Some(2));
    let output = env
        .tokctl()
        .args([
            "tokens",
            "create",
            "x",
            "-s",
            "tokens:read",
            "--expires-in",
            "soon",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    // 10 calls against a limit of 4 a minute span at most two windows, so at least two are
    // refused; with no wait allowed the CLI gives up on those with 7.
    let outputs: Vec<_> = (0..10)
        .map(|_| {
            env.tokctl()
                .env("TOKCTL_MAX_WAIT", "0")
                .args(["scopes", "-q"])
                .output()
                .unwrap()
        })
        .collect();
    assert!(
        outputs
            .iter()
            .all(|o| matches!(o.status.code(), Some(0 | 7)))
    );
    let output = outputs
        .into_iter()
        .find(|o| o.status.code() == Some(7))
        .expect("a 7");
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1);
    assert!(err.starts_with("tokctl: ") && !err.contains("Api(") && !err.contains("panicked"));
}

#[test]
fn a_forbidden_call_exits_4_with_a_hint() {
    let env = Env::new();
    let (_, reader) = env.create("reader", &["tokens:read"]);
    let output = env
        .bare()
        .env("TOKCTL_API_KEY", &reader)
        .args(["audit", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(stderr(&output).contains("audit:read"));
}

#[test]
fn verbose_logs_requests_without_secrets() {
    let env = Env::new();
    let (id, _) = env.create("v", &["tokens:read"]);
    let output = env
        .tokctl()
        .args(["-v", "tokens", "rotate", &id, "-q"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let secret = stdout(&output).trim().to_string();
    let err = stderr(&output);
    assert!(
        err.contains(&format!("POST /v1/tokens/{id}/rotate 200")),
        "{err}"
    );
    assert!(err.contains(" ms"));
    assert!(
        !err.contains(&secret) && !err.contains(&env.admin_key),
        "a secret reached -v output"
    );
}

#[test]
fn audit_and_scopes_list() {
    let env = Env::new();
    let (id, _) = env.create("audited", &["tokens:read"]);
    let entries = env.json(&["audit", "list", "--token", &id]);
    assert_eq!(entries[0]["action"], "token.created");
    let rotated = env.json(&["audit", "list", "--action", "token.rotated"]);
    assert_eq!(rotated, serde_json::json!([]));
    let scopes = env.json(&["scopes"]);
    assert_eq!(
        scopes.as_array().unwrap().len(),
        tokctl_sdk::scopes::ALL.len()
    );
    let output = env.tokctl().args(["scopes", "-q"]).output().unwrap();
    assert!(stdout(&output).lines().any(|l| l == "tokens:rotate"));
    assert!(stdout(&output).lines().any(|l| l == "keys:write"));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let env = Env::new();
    for n in 0..30 {
        env.create(&format!("t{n}"), &["tokens:read"]);
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tokctl"))
        .args(["tokens", "list"])
        .env("TOKCTL_BASE_URL", &env.base_url)
        .env("TOKCTL_API_KEY", &env.admin_key)
        .env("TOKCTL_CONFIG", &env.config)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(!stderr(&output).contains("panicked"));
}

#[test]
fn a_limit_is_set_at_creation_changed_shown_and_refused_without_a_change() {
    let env = Env::new();
    let created = env.json(&[
        "tokens",
        "create",
        "agent",
        "--scope",
        "chat:write",
        "--credit-limit",
        "0.5",
        "--limit-reset",
        "daily",
    ]);
    assert_eq!(created["limits"]["credit_limit"], serde_json::json!(0.5));
    let changed = env.json(&["tokens", "limit", "agent", "--credit-limit", "2"]);
    assert_eq!(changed["limits"]["credit_limit"], serde_json::json!(2));
    assert_eq!(changed["limits"]["reset"], "daily");

    // Not a terminal: the spend in words, no bar.
    let output = env
        .tokctl()
        .args(["tokens", "show", "agent"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    assert!(shown.contains("limit      2 credits a day"), "{shown}");
    assert!(
        shown.contains("spent      0 of 2 credits a day (0%), 2 remaining"),
        "{shown}"
    );
    assert!(!shown.contains('█'), "{shown}");

    let output = env
        .tokctl()
        .args(["tokens", "limit", "agent"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "a usage error: nothing to change"
    );
    let output = env
        .tokctl()
        .args([
            "tokens",
            "create",
            "x",
            "--scope",
            "chat:write",
            "--limit-reset",
            "daily",
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "--limit-reset needs --credit-limit"
    );

    let removed = env.json(&["tokens", "limit", "agent", "--remove"]);
    assert!(removed.get("limits").is_none(), "{removed}");
    let usage = env.json(&["usage", "--token", "agent"]);
    assert_eq!(usage["totals"]["requests"], 0);
}

#[test]
fn rotate_with_an_overlap_says_until_when_the_old_secret_works() {
    let env = Env::new();
    let (id, old) = env.create("fleet", &["tokens:read"]);
    let output = env
        .tokctl()
        .args([
            "tokens",
            "rotate",
            "fleet",
            "--overlap",
            "10m",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let rotated: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        rotated["previous_secret_expires_at"].is_string(),
        "{rotated}"
    );
    assert!(
        stderr(&output).contains("The old secret works until"),
        "{}",
        stderr(&output)
    );
    // The old secret still reads the token.
    let output = env
        .bare()
        .env("TOKCTL_API_KEY", &old)
        .args(["tokens", "get", &id])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let output = env
        .tokctl()
        .args(["tokens", "rotate", "fleet", "--overlap", "25h"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "more than a day is a usage error"
    );
}
