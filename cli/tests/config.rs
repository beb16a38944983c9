//! `tokctl login` and `tokctl config ...`: profiles, precedence, file mode, first-run key.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{Env, stderr, stdout};

#[test]
fn login_with_token_verifies_saves_0600_and_is_used() {
    let env = Env::new();
    let output = env
        .bare()
        .args(["login", "--with-token"])
        .write_stdin(format!("{}\n", env.admin_key))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let mode = std::fs::metadata(&env.config).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // Now no key in the environment is needed.
    let output = env.bare().args(["tokens", "list"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = env.bare().args(["config", "show"]).output().unwrap();
    let text = stdout(&shown);
    assert!(text.contains("profile default"), "{text}");
    assert!(
        !text.contains(&env.admin_key),
        "config show redacts the key"
    );
}

#[test]
fn login_with_a_bad_key_exits_4_and_saves_nothing() {
    let env = Env::new();
    let output = env
        .bare()
        .args(["login", "--with-token"])
        .write_stdin("tka_wrong\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(!env.config.exists());
    let output = env.bare().args(["login"]).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "no terminal and no --with-token"
    );
}

#[test]
fn profiles_switch_and_precedence_is_flag_env_profile() {
    let env = Env::new();
    let set = |profile: &str, key: &str, value: &str| {
        env.bare()
            .args(["--profile", profile, "config", "set", key, value])
            .assert()
            .success();
    };
    set("work", "base_url", &env.base_url);
    set("work", "api_key", &env.admin_key);
    set("broken", "base_url", "http://127.0.0.1:9/v1");
    set("broken", "api_key", "tka_unused");
    let profiles = env.bare().args(["config", "profiles"]).output().unwrap();
    assert_eq!(stdout(&profiles), "  broken\n* work\n");

    // The profile's base URL, when TOKCTL_BASE_URL is unset.
    let run = |extra: &[&str]| {
        env.bare()
            .env_remove("TOKCTL_BASE_URL")
            .args(extra)
            .args(["scopes", "-q"])
            .output()
            .unwrap()
    };
    assert!(run(&[]).status.success());
    env.bare()
        .args(["config", "use", "broken"])
        .assert()
        .success();
    assert_eq!(
        run(&[]).status.code(),
        Some(1),
        "broken profile: nothing listens there"
    );
    // The environment beats the profile, and the flag beats the environment.
    let output = env
        .bare()
        .env("TOKCTL_PROFILE", "work")
        .env_remove("TOKCTL_BASE_URL")
        .args(["scopes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let output = env
        .bare()
        .args([
            "--profile",
            "work",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "scopes",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("hint"), "{}", stderr(&output));
    let output = env.bare().args(["config", "use", "nope"]).output().unwrap();
    assert_eq!(output.status.code(), Some(5));
}

#[test]
fn a_fresh_reference_server_needs_no_key_copying() {
    let env = Env::new();
    let output = env
        .bare()
        .env("TOKCTL_DATA_DIR", &env.data_dir)
        .args(["tokens", "list"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = env
        .bare()
        .env("TOKCTL_DATA_DIR", &env.data_dir)
        .args(["config", "show"])
        .output()
        .unwrap();
    assert!(stdout(&shown).contains("admin.key"));
    let without = env.bare().args(["tokens", "list"]).output().unwrap();
    assert_eq!(without.status.code(), Some(4));
    assert!(stderr(&without).contains("tokctl login"));
}
