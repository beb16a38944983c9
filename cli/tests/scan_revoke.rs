//! `tokctl scan --revoke` against the real server: what it sends (tokctl's secrets, never the
//! providers' keys), what the server then refuses, and the CLI's own key left out unless told.

mod common;

use common::scan::{ANTHROPIC, assert_no_secret_shown, write};
use common::{Env, stderr};
use tokctl_sdk::secrets;

#[test]
fn revoke_reports_what_it_found_and_the_server_refuses_it_from_then_on() {
    let env = Env::new();
    let (id, token) = env.create("ci-deploy", &["tokens:read"]);
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "build.log",
        &format!("step 1\nAuthorization: Bearer {token}\n{token}\nx-api-key: {ANTHROPIC}\n"),
    );
    let as_leaked = |env: &Env| {
        env.bare()
            .env("TOKCTL_API_KEY", &token)
            .args(["tokens", "list"])
            .output()
            .unwrap()
    };
    assert!(as_leaked(&env).status.success());

    // Not on a terminal, --revoke needs --yes: exit 2, and nothing is sent.
    let refused = env
        .bare()
        .current_dir(dir.path())
        .args(["scan", "--revoke"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(as_leaked(&env).status.success());

    // No API key is configured: reporting needs none.
    let output = env
        .bare()
        .current_dir(dir.path())
        .args(["scan", "--revoke", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("sent 1 secret for revocation; the server received 1"),
        "{}",
        stderr(&output)
    );
    // The Anthropic key is not tokctl's to revoke: it is said where it is.
    assert!(
        stderr(&output).contains(
            "left out 1 key of other providers, which only they can revoke: \
             Anthropic API key: https://console.anthropic.com/settings/keys"
        ),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("found 3 secrets in 1 file"),
        "{}",
        stderr(&output)
    );
    assert_no_secret_shown(&output, &[&token, ANTHROPIC]);

    let refused = as_leaked(&env);
    assert_eq!(refused.status.code(), Some(4), "{}", stderr(&refused));
    let shown = env.json(&["tokens", "get", &id]);
    assert_eq!(shown["status"], "revoked");
    let audit = env.json(&["audit", "list", "--action", "token.revoked"]);
    assert_eq!(audit[0]["actor"], "leak-report", "{audit}");
}

#[test]
fn revoke_leaves_out_the_key_the_cli_uses_unless_told() {
    let env = Env::new();
    let (_, leaked) = env.create("leaked", &["tokens:read"]);
    // A tree that held the server's data directory (admin.key) and a log with a token in it:
    // the CLI, configured by nothing else, uses that admin.key.
    std::fs::write(
        env.data_dir.join("server.log"),
        format!("Bearer {leaked}\n"),
    )
    .unwrap();
    let cli = || {
        let mut cmd = env.bare();
        cmd.env("TOKCTL_DATA_DIR", &env.data_dir);
        cmd
    };
    let output = cli()
        .args(["scan", "--revoke", "--yes"])
        .arg(&env.data_dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("sent 1 secret for revocation"), "{err}");
    assert!(
        err.contains(&format!(
            "left out 1 secret: {}, the API key this CLI uses (reference server key {})",
            secrets::mask(&env.admin_key),
            env.data_dir.join("admin.key").display()
        )),
        "{err}"
    );
    assert!(
        err.contains("tokctl keys create"),
        "says how to replace it: {err}"
    );
    assert!(err.contains("--include-own-key"), "{err}");
    assert_no_secret_shown(&output, &[&env.admin_key, &leaked]);
    // The leaked token is dead; the CLI still works.
    let as_leaked = env
        .bare()
        .env("TOKCTL_API_KEY", &leaked)
        .args(["scopes"])
        .output()
        .unwrap();
    assert_eq!(as_leaked.status.code(), Some(4));
    cli().args(["tokens", "list"]).assert().success();

    // Told to, it goes too, and the CLI is cut off.
    let output = cli()
        .args(["scan", "--revoke", "--yes", "--include-own-key"])
        .arg(&env.data_dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("sent 2 secrets for revocation"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("left out"));
    let output = cli().args(["tokens", "list"]).output().unwrap();
    assert_eq!(output.status.code(), Some(4));
}
