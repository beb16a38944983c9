//! Where the CLI connects: a server that is not there is named with the reason, the same way in
//! every command; base URLs without a scheme are refused, and ones without `/v1` get it.

mod common;

use common::{Env, stderr, stdout};
use tokctl_sdk::secrets::{self, Kind};

/// A loopback address nothing listens on: bind a port, then free it.
fn closed_base_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}/v1")
}

#[test]
fn no_server_is_one_sentence_naming_the_address_in_every_command() {
    let env = Env::new();
    let base = closed_base_url();
    let key = secrets::seal(Kind::ApiKey, "0123456789abcdefghijABCDEFGHIJ");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("leak.txt"), format!("{key}\n")).unwrap();
    let wanted =
        format!("tokctl: cannot connect to {base}: connection refused (is tokctl-server running?)");
    let commands: [&[&str]; 12] = [
        &["tokens", "list"],
        &["tokens", "create", "ci", "--scope", "tokens:read"],
        &["tokens", "rotate", "ci"],
        &["keys", "list"],
        &["audit", "list"],
        &["scopes"],
        &["models"],
        &["usage"],
        &["webhooks", "list"],
        &["chat", "hi"],
        &["chat", "--stream", "hi"],
        &["scan", "--revoke", "--yes", "leak.txt"],
    ];
    for args in commands {
        let output = env
            .tokctl()
            .current_dir(dir.path())
            .env("TOKCTL_BASE_URL", &base)
            .env("TOKCTL_MAX_WAIT", "0")
            .args(args)
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end(), wanted, "{args:?}");
    }

    // Login names the address too, without saving anything.
    let output = env
        .bare()
        .env("TOKCTL_BASE_URL", &base)
        .args(["login", "--with-token"])
        .write_stdin(format!("{key}\n"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output).trim_end(), wanted);
    assert!(!env.config.exists());
}

#[test]
fn https_to_a_plain_http_server_says_tls_failed() {
    let env = Env::new();
    let base = env.base_url.replace("http://", "https://");
    let output = env
        .tokctl()
        .env("TOKCTL_BASE_URL", &base)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with(&format!(
            "tokctl: cannot connect to {base}: TLS handshake failed: "
        )),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("(does the server speak https, with a certificate this machine trusts?)"),
        "{err}"
    );
}

#[test]
fn a_base_url_without_a_scheme_is_refused_before_anything_else() {
    let env = Env::new();
    let bare = env.base_url.trim_start_matches("http://").to_string();
    // With no key configured either: the URL is the problem to report.
    for (args, origin) in [
        (
            vec!["--base-url", bare.as_str(), "tokens", "list"],
            "--base-url",
        ),
        (vec!["tokens", "list"], "TOKCTL_BASE_URL"),
    ] {
        let output = env
            .bare()
            .env("TOKCTL_BASE_URL", &bare)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert_eq!(
            stderr(&output).trim_end(),
            format!(
                "tokctl: invalid base URL {bare:?} (from {origin}): it has no scheme; did you mean http://{bare}?"
            )
        );
    }
    let output = env
        .tokctl()
        .args(["--base-url", "ftp://127.0.0.1/v1", "scopes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("ftp:// is not served: use http or https"));

    // `config set` refuses it too, and `config show` says why a stored one cannot be used.
    let output = env
        .bare()
        .args(["config", "set", "base_url", &bare])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(!env.config.exists(), "nothing saved");
    let output = env
        .bare()
        .env("TOKCTL_BASE_URL", &bare)
        .args(["config", "show"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        stdout(&output).contains("invalid: it has no scheme"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_base_url_without_the_version_gets_v1() {
    let env = Env::new();
    let origin = env.base_url.trim_end_matches("/v1").to_string();
    for url in [origin.clone(), format!("{origin}/")] {
        let output = env
            .tokctl()
            .args(["--base-url", &url, "scopes", "-q"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{url}: {}", stderr(&output));
        let scopes = tokctl_sdk::scopes::ALL.len();
        assert_eq!(stdout(&output).lines().count(), scopes, "{url}");
    }
    // Saved completed, and shown as used.
    env.bare()
        .args(["config", "set", "base_url", &origin])
        .assert()
        .success();
    let saved = std::fs::read_to_string(&env.config).unwrap();
    assert!(saved.contains(&format!("{origin}/v1")), "{saved}");
    let shown = env
        .bare()
        .env_remove("TOKCTL_BASE_URL")
        .args(["config", "show", "-o", "json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["base_url"], format!("{origin}/v1"));
}
