//! Errors in the user's words: the CLI's flags and commands rather than API fields and
//! endpoints, values refused by the CLI itself (exit 2) before anything is sent, and a refused
//! key's hint naming where the key came from.

mod common;

use common::{Env, stderr};

fn create(env: &Env, args: &[&str]) -> std::process::Output {
    env.tokctl()
        .args(["tokens", "create", "t"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn scopes_take_a_comma_list_and_unknown_ones_are_refused_by_the_cli() {
    let env = Env::new();
    let token = env.json(&["tokens", "create", "ci", "-s", "tokens:read,tokens:rotate"]);
    assert_eq!(
        token["scopes"],
        serde_json::json!(["tokens:read", "tokens:rotate"])
    );
    let key = env.json(&["keys", "create", "k", "-s", "tokens:read,keys:read"]);
    assert_eq!(
        key["scopes"],
        serde_json::json!(["tokens:read", "keys:read"])
    );

    for scopes in ["tokens:read,nope", "tokens:raed"] {
        let output = create(&env, &["-s", scopes]);
        assert_eq!(output.status.code(), Some(2), "{scopes}");
        let err = stderr(&output);
        assert!(err.contains("for '--scope <SCOPE>'"), "{err}");
        assert!(
            err.contains("tokens:read, tokens:write"),
            "lists the scopes: {err}"
        );
        assert!(!err.contains("GET /v1/scopes"), "{err}");
    }
    // Nothing reached the server: only the one token exists.
    assert_eq!(env.json(&["tokens", "list"]).as_array().unwrap().len(), 1);
}

#[test]
fn expiry_flags_are_checked_by_the_cli_and_named_in_errors() {
    let env = Env::new();
    for (value, says) in [
        ("0s", "must be longer than 0"),
        ("-1d", "must be a positive length of time"),
        (
            "1y",
            "years and months vary in length: give days, e.g. 365d",
        ),
        ("6months", "years and months vary in length"),
        ("soon", "examples: 30d, 12h, 90m"),
    ] {
        let output = create(&env, &["-s", "tokens:read", "--expires-in", value]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{value}: {}",
            stderr(&output)
        );
        let err = stderr(&output);
        assert!(
            err.contains("'--expires-in <EXPIRES_IN>'"),
            "{value}: {err}"
        );
        assert!(err.contains(says), "{value}: {err}");
    }
    let output = create(
        &env,
        &["-s", "tokens:read", "--expires-at", "2001-01-01T00:00:00Z"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        "tokctl: --expires-at must be in the future (it is 2001-01-01T00:00:00Z)"
    );
    assert!(env.json(&["tokens", "list"]).as_array().unwrap().is_empty());

    // 365d is 365 days to the second, as the help says.
    let token = env.json(&[
        "tokens",
        "create",
        "yearly",
        "-s",
        "tokens:read",
        "--expires-in",
        "365d",
    ]);
    let created =
        chrono::DateTime::parse_from_rfc3339(token["created_at"].as_str().unwrap()).unwrap();
    let expires =
        chrono::DateTime::parse_from_rfc3339(token["expires_at"].as_str().unwrap()).unwrap();
    let days = (expires - created).num_seconds() as f64 / 86_400.0;
    assert!((days - 365.0).abs() < 0.001, "{days} days");
}

#[test]
fn gateway_errors_name_the_flags_and_commands() {
    let env = Env::new();
    let output = env
        .tokctl()
        .args(["chat", "--budget", "0.000001", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("fits --budget 0.000001; raise it or lower --max-tokens"),
        "{err}"
    );
    assert!(
        !err.contains("budget_limit") && !err.contains("max_tokens"),
        "{err}"
    );

    let output = env
        .tokctl()
        .args(["chat", "-m", "sim-pro", "--budget", "0.000001", "hi"])
        .output()
        .unwrap();
    let err = stderr(&output);
    assert!(err.contains("over --budget 0.000001"), "{err}");

    let output = env
        .tokctl()
        .args(["chat", "-m", "nope", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    let err = stderr(&output);
    assert!(err.contains("`tokctl models` lists them"), "{err}");
    assert!(!err.contains("GET /v1/models"), "{err}");
}

#[test]
fn a_refused_key_hint_names_where_the_key_came_from() {
    let env = Env::new();
    let wrong = tokctl_sdk::secrets::seal(
        tokctl_sdk::secrets::Kind::ApiKey,
        "0123456789abcdefghijABCDEFGHIJ",
    );
    // From TOKCTL_API_KEY: the variable is what to fix, not the profile.
    let output = env
        .bare()
        .env("TOKCTL_API_KEY", &wrong)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let err = stderr(&output);
    assert!(
        err.contains("the API key comes from TOKCTL_API_KEY"),
        "{err}"
    );
    assert!(!err.contains("run `tokctl login`"), "{err}");

    // From a profile: log in again.
    env.bare()
        .args(["config", "set", "api_key", &wrong])
        .assert()
        .success();
    let output = env.bare().args(["tokens", "list"]).output().unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output)
            .contains("the API key of profile \"default\" was refused: run `tokctl login`"),
        "{}",
        stderr(&output)
    );

    // From a local server's admin.key that is not this server's.
    std::fs::remove_file(&env.config).unwrap();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("admin.key"), format!("{wrong}\n")).unwrap();
    let output = env
        .bare()
        .env("TOKCTL_DATA_DIR", other.path())
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "the API key is the one in {}",
            other.path().join("admin.key").display()
        )),
        "{err}"
    );
}

#[test]
fn the_lists_the_cli_checks_against_are_the_servers() {
    let server_scopes: Vec<&str> = tokctl_server::scopes::Scope::ALL
        .iter()
        .map(|scope| scope.as_str())
        .collect();
    assert_eq!(tokctl_sdk::scopes::ALL.to_vec(), server_scopes);
    assert_eq!(
        tokctl_sdk::audit::ACTIONS,
        tokctl_server::audit::actions::ALL
    );
}
