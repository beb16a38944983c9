//! Names stand for tokens and API keys the same way in every command: the live one, else the
//! newest revoked one where history is what is asked for.

mod common;

use common::{Env, stderr, stdout};

#[test]
fn audit_finds_a_token_by_name_even_after_it_is_revoked() {
    let env = Env::new();
    let (id, _) = env.create("deploy-bot", &["tokens:read"]);
    env.create("bystander", &["tokens:read"]);
    env.tokctl()
        .args(["tokens", "revoke", "deploy-bot", "--yes"])
        .assert()
        .success();
    let entries = env.json(&["audit", "list", "--token", "deploy-bot"]);
    let actions: Vec<&str> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["token_id"], id.as_str(), "{e}");
            e["action"].as_str().unwrap()
        })
        .collect();
    assert_eq!(actions, ["token.revoked", "token.created"]);

    let output = env
        .tokctl()
        .args(["audit", "list", "--token", "nobody"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert_eq!(
        stderr(&output).trim_end(),
        "tokctl: no token named \"nobody\""
    );
}

#[test]
fn audit_finds_a_key_by_name_and_refuses_an_unknown_action() {
    let env = Env::new();
    let key = env.json(&["keys", "create", "ci-admin", "--scope", "tokens:read"]);
    let entries = env.json(&["audit", "list", "--key", "ci-admin"]);
    assert_eq!(entries[0]["action"], "key.created");
    assert_eq!(entries[0]["key_id"], key["id"]);

    let output = env
        .tokctl()
        .args(["audit", "list", "--action", "token.deleted"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("invalid value 'token.deleted' for '--action"),
        "{err}"
    );
    for valid in tokctl_sdk::audit::ACTIONS {
        assert!(err.contains(valid), "{valid} is not listed: {err}");
    }
}

#[test]
fn get_and_show_find_a_revoked_token_by_name_as_revoke_does() {
    let env = Env::new();
    let (id, _) = env.create("retired", &["tokens:read"]);
    env.tokctl()
        .args(["tokens", "revoke", "retired", "--yes"])
        .assert()
        .success();
    for verb in ["get", "show"] {
        let token = env.json(&["tokens", verb, "retired"]);
        assert_eq!(token["id"], id.as_str(), "{verb}");
        assert_eq!(token["status"], "revoked", "{verb}");
    }
    // Rotating needs a live one.
    let output = env
        .tokctl()
        .args(["tokens", "rotate", "retired"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(stderr(&output).contains("no token named \"retired\" that is not revoked"));
}

#[test]
fn an_unknown_id_says_no_token_with_id() {
    let env = Env::new();
    for (verb, value) in [
        ("get", "tok_abc"),
        ("rotate", "tok_abc"),
        ("get", "tok_000000000000000000000000"),
    ] {
        let output = env.tokctl().args(["tokens", verb, value]).output().unwrap();
        assert_eq!(output.status.code(), Some(5), "{verb} {value}");
        let err = stderr(&output).to_lowercase();
        assert!(err.contains(&format!("no token with id {value}")), "{err}");
        assert!(!err.contains("named"), "{err}");
    }
    let output = env
        .tokctl()
        .args(["tokens", "revoke", "tok_abc", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(stderr(&output).contains("no token with id tok_abc"));
    let output = env
        .tokctl()
        .args(["keys", "revoke", "key_abc", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(stderr(&output).contains("no API key with id key_abc"));
}

#[test]
fn keys_revoke_takes_a_name_like_tokens_revoke() {
    let env = Env::new();
    let key = env.json(&["keys", "create", "ci-job", "--scope", "tokens:read"]);
    let secret = key["key"].as_str().unwrap();
    let output = env
        .tokctl()
        .args(["keys", "revoke", "ci-job", "--yes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), key["id"].as_str().unwrap());
    let refused = env
        .bare()
        .env("TOKCTL_API_KEY", secret)
        .args(["scopes"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(4));

    // Again: the name now stands only for a revoked key, which is already gone (exit 0).
    let output = env
        .tokctl()
        .args(["keys", "revoke", "ci-job", "--yes", "-o", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["outcome"], "already_gone");
    let output = env
        .tokctl()
        .args(["keys", "revoke", "no-such-key", "--yes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert_eq!(
        stderr(&output).trim_end(),
        "tokctl: no API key named \"no-such-key\""
    );
}
