//! `tokctl keys ...` against the real server: create, list and revoke API keys, as a person
//! setting up CI, and a script, run them.

mod common;

use std::io::Write;

use common::{Env, stderr, stdout};
use serde_json::Value;

/// Creates an API key with the admin key and returns (id, secret).
fn create_key(env: &Env, name: &str, scopes: &[&str]) -> (String, String) {
    let mut args = vec!["keys", "create", name];
    for scope in scopes {
        args.extend(["--scope", scope]);
    }
    let key = env.json(&args);
    (
        key["id"].as_str().expect("id").to_string(),
        key["key"].as_str().expect("secret").to_string(),
    )
}

/// The admin key's id: the one key the server made itself.
fn admin_key_id(env: &Env) -> String {
    let keys = env.json(&["keys", "list"]);
    let admin = keys
        .as_array()
        .expect("a list")
        .iter()
        .find(|k| k["created_by"] == "admin")
        .expect("the bootstrap key");
    admin["id"].as_str().expect("id").to_string()
}

#[test]
fn create_prints_the_api_object_and_quiet_prints_a_working_secret() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args([
            "keys",
            "create",
            "ci-admin",
            "--scope",
            "keys:read",
            "--expires-in",
            "1h",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let key: Value = serde_json::from_slice(&output.stdout).unwrap();
    for field in [
        "id",
        "name",
        "key",
        "scopes",
        "status",
        "created_at",
        "expires_at",
        "last_used_at",
        "created_by",
    ] {
        assert!(key.get(field).is_some(), "{field} missing from {key}");
    }
    assert_eq!(key["status"], "active");
    assert_eq!(key["created_by"], admin_key_id(&env).as_str());
    assert!(stderr(&output).contains("not shown again"));

    // Quiet: only the secret, which works as a credential at once.
    let output = env
        .tokctl()
        .args(["keys", "create", "ci-reader", "-s", "keys:read", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let secret = stdout(&output).trim().to_string();
    assert!(secret.starts_with("tka_") && !secret.contains(char::is_whitespace));
    assert_eq!(stderr(&output), "", "-q: no reminder off a terminal");
    let listed = env
        .bare()
        .env("TOKCTL_API_KEY", &secret)
        .args(["keys", "list", "-q"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(
        stdout(&listed).lines().count(),
        3,
        "admin, ci-admin, ci-reader"
    );

    // Listing never shows a secret.
    let listed = env
        .tokctl()
        .args(["keys", "list", "-o", "json"])
        .output()
        .unwrap();
    assert!(!stdout(&listed).contains(&secret));
    assert!(!stdout(&listed).contains("\"key\""));
}

#[test]
fn list_filters_by_status_and_prints_plain_lines_when_piped() {
    let env = Env::new();
    create_key(&env, "alpha", &["tokens:read"]);
    let (beta, _) = create_key(&env, "beta", &["tokens:read"]);
    env.tokctl()
        .args(["keys", "revoke", &beta, "--yes"])
        .assert()
        .success();

    let output = env.tokctl().args(["keys", "list"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<String> = stdout(&output).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines.iter().all(|l| l.split('\t').count() == 7),
        "tab-separated: {lines:?}"
    );
    assert!(
        lines[0].contains("\tbeta\trevoked\t"),
        "newest first: {lines:?}"
    );
    assert!(!stdout(&output).contains('│'), "no table when piped");

    let active = env.json(&["keys", "list", "--status", "active"]);
    assert_eq!(active.as_array().unwrap().len(), 2);
    let revoked = env.json(&["keys", "list", "--status", "revoked"]);
    assert_eq!(revoked[0]["id"], beta.as_str());
    assert_eq!(revoked.as_array().unwrap().len(), 1);
    let output = env
        .tokctl()
        .args(["keys", "list", "--status", "lost"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn revoke_needs_yes_off_a_terminal_then_revokes_and_says_already_gone_the_second_time() {
    let env = Env::new();
    let (id, secret) = create_key(&env, "retire", &["tokens:read"]);

    let output = env.tokctl().args(["keys", "revoke", &id]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert_eq!(
        env.json(&["keys", "list", "--status", "revoked"]),
        serde_json::json!([])
    );

    let output = env
        .tokctl()
        .args(["keys", "revoke", &id, "--yes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), id);
    // -q off a terminal: the id on stdout and nothing else.
    assert_eq!(stderr(&output), "");
    let refused = env
        .bare()
        .env("TOKCTL_API_KEY", &secret)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(4), "the secret stopped working");

    let output = env
        .tokctl()
        .args(["keys", "revoke", &id, "--yes", "-o", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        outcome,
        serde_json::json!({"id": id, "outcome": "already_gone"})
    );
    assert!(stderr(&output).contains("Revoked 0, already gone 1, failed 0."));
}

#[test]
fn the_key_in_use_cannot_revoke_itself_and_says_so_in_one_line() {
    let env = Env::new();
    let admin = admin_key_id(&env);
    let output = env
        .tokctl()
        .args(["keys", "revoke", &admin, "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("tokctl: ") && err.contains(&admin) && err.contains("cannot revoke itself"),
        "{err}"
    );
    assert!(stdout(&output).is_empty());

    // Another key with keys:write may revoke it.
    let (_, other) = create_key(&env, "other-admin", &["keys:write"]);
    let output = env
        .bare()
        .env("TOKCTL_API_KEY", &other)
        .args(["keys", "revoke", &admin, "--yes"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn exit_codes_follow_the_documentation() {
    let env = Env::new();
    let code = |cmd: &mut assert_cmd::Command| cmd.output().unwrap().status.code();
    create_key(&env, "taken", &["tokens:read"]);
    assert_eq!(
        code(
            env.tokctl()
                .args(["keys", "create", "taken", "-s", "tokens:read"])
        ),
        Some(6)
    );
    // A name no key carries is not found (exit 5) after one listing, never "already gone",
    // and nothing is revoked.
    let output = env
        .tokctl()
        .args(["-v", "keys", "revoke", "nobody", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(
        stderr(&output).contains("GET /v1/keys"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("DELETE"), "{}", stderr(&output));
    assert_eq!(
        code(env.tokctl().args(["keys", "create", "no-scope"])),
        Some(2)
    );
    for args in [
        &[
            "keys",
            "create",
            "x",
            "-s",
            "tokens:read",
            "--expires-in",
            "soon",
        ][..],
        &[
            "keys",
            "create",
            "far",
            "-s",
            "tokens:read",
            "--expires-in",
            "1000000000d",
        ],
    ] {
        let output = env.tokctl().args(args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("panicked"));
    }
    assert_eq!(code(env.tokctl().args(["keys", "frobnicate"])), Some(2));
}

#[test]
fn a_key_without_keys_scopes_is_forbidden_with_a_hint() {
    let env = Env::new();
    let (_, reader) = create_key(&env, "reader", &["tokens:read"]);
    for args in [
        &["keys", "list"][..],
        &["keys", "create", "more", "-s", "tokens:read"],
    ] {
        let output = env
            .bare()
            .env("TOKCTL_API_KEY", &reader)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(4), "{args:?}");
        let err = stderr(&output);
        assert!(err.contains("keys:"), "{args:?}: {err}");
        assert!(err.contains("hint"), "{args:?}: {err}");
    }
}

#[test]
fn a_terminal_confirms_before_revoking() {
    let env = Env::new();
    let (id, _) = create_key(&env, "asked", &["tokens:read"]);
    let on_terminal = |input: &str| {
        let mut child = env
            .on_terminal(&format!("keys revoke {id}"))
            .spawn()
            .expect("util-linux `script` runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("type");
        let output = child.wait_with_output().expect("wait");
        (output.status.code(), stdout(&output))
    };

    let (code, screen) = on_terminal("n\n");
    assert_eq!(code, Some(1), "{screen}");
    assert!(
        screen.contains(&format!("Revoke API key {id} for good?")),
        "{screen}"
    );
    assert_eq!(
        env.json(&["keys", "list", "--status", "revoked"]),
        serde_json::json!([])
    );

    let (code, screen) = on_terminal("y\n");
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("Revoked 1, already gone 0, failed 0."),
        "{screen}"
    );
    assert_eq!(
        env.json(&["keys", "list", "--status", "revoked"])[0]["id"],
        id.as_str()
    );
}
