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
    // Well formed, but not a key this server issued: the server refuses it.
    let unknown = tokctl_sdk::secrets::seal(
        tokctl_sdk::secrets::Kind::ApiKey,
        "0123456789abcdefghijABCDEFGHIJ",
    );
    let output = env
        .bare()
        .args(["login", "--with-token"])
        .write_stdin(format!("{unknown}\n"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(!env.config.exists());

    // Mistyped (a character short, one changed, not a key at all): refused offline, exit 2,
    // before any request; the base URL here has nothing listening, which would be exit 1.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let last = if env.admin_key.ends_with('X') {
        'Y'
    } else {
        'X'
    };
    let changed = format!("{}{last}", &env.admin_key[..env.admin_key.len() - 1]);
    for typo in [
        &env.admin_key[..39],
        changed.as_str(),
        "tka_wrong",
        "hunter2",
    ] {
        let output = env
            .bare()
            .env("TOKCTL_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
            .args(["login", "--with-token"])
            .write_stdin(format!("{typo}\n"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{typo}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("that is not a tokctl API key"),
            "{}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains(typo), "the key is never echoed");
    }
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
    assert!(
        stderr(&output).contains("cannot connect to http://127.0.0.1:9/v1: connection refused"),
        "{}",
        stderr(&output)
    );
    let output = env.bare().args(["config", "use", "nope"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("\"nope\"") && stderr(&output).contains("broken, work"),
        "{}",
        stderr(&output)
    );
}

/// Profiles `work` (this server, the admin key) and `broken` (nothing listens there, a key
/// the server refuses), with TOKCTL_BASE_URL unset so the profile's URL counts.
fn two_profiles(env: &Env) -> impl Fn() -> assert_cmd::Command + '_ {
    for (profile, key, value) in [
        ("work", "base_url", env.base_url.as_str()),
        ("work", "api_key", env.admin_key.as_str()),
        ("broken", "base_url", "http://127.0.0.1:9/v1"),
        ("broken", "api_key", "tka_refused"),
    ] {
        env.bare()
            .args(["--profile", profile, "config", "set", key, value])
            .assert()
            .success();
    }
    || {
        let mut cmd = env.bare();
        cmd.env_remove("TOKCTL_BASE_URL");
        cmd
    }
}

#[test]
fn the_profile_flag_beats_tokctl_profile() {
    let env = Env::new();
    let tokctl = two_profiles(&env);
    let output = tokctl()
        .env("TOKCTL_PROFILE", "broken")
        .args(["--profile", "work", "scopes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let output = tokctl()
        .env("TOKCTL_PROFILE", "work")
        .args(["--profile", "broken", "scopes", "-q"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn tokctl_api_key_beats_the_profiles_key() {
    let env = Env::new();
    let tokctl = two_profiles(&env);
    env.bare()
        .args([
            "--profile",
            "work",
            "config",
            "set",
            "api_key",
            "tka_refused",
        ])
        .assert()
        .success();
    let output = tokctl()
        .args(["--profile", "work", "scopes", "-q"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(4),
        "the profile's key is refused"
    );
    let output = tokctl()
        .env("TOKCTL_API_KEY", &env.admin_key)
        .args(["--profile", "work", "scopes", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = tokctl()
        .env("TOKCTL_API_KEY", &env.admin_key)
        .args(["--profile", "work", "config", "show"])
        .output()
        .unwrap();
    assert!(
        stdout(&shown).contains("(env TOKCTL_API_KEY)"),
        "{}",
        stdout(&shown)
    );
}

#[test]
fn a_mistyped_profile_is_a_usage_error_naming_the_known_ones() {
    let env = Env::new();
    let tokctl = two_profiles(&env);
    let flag = tokctl()
        .env("TOKCTL_API_KEY", &env.admin_key)
        .args(["--profile", "wrok", "scopes"])
        .output()
        .unwrap();
    let environment = tokctl()
        .env("TOKCTL_API_KEY", &env.admin_key)
        .env("TOKCTL_PROFILE", "wrok")
        .args(["scopes"])
        .output()
        .unwrap();
    for (output, origin) in [(flag, "--profile"), (environment, "TOKCTL_PROFILE")] {
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let err = stderr(&output);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("\"wrok\"") && err.contains(origin) && err.contains("broken, work"),
            "{err}"
        );
    }
    // `default` needs no entry in the file.
    env.tokctl()
        .args(["--profile", "default", "scopes", "-q"])
        .assert()
        .success();
    // Login creates the profile it is given.
    let output = env
        .bare()
        .args(["--profile", "ci", "login", "--with-token"])
        .write_stdin(env.admin_key.clone())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let profiles = env.bare().args(["config", "profiles"]).output().unwrap();
    assert_eq!(stdout(&profiles), "  broken\n  ci\n* work\n");
}

#[test]
fn login_uses_the_same_client_as_every_command() {
    let env = Env::new();
    let output = env
        .bare()
        .args(["-v", "login", "--with-token"])
        .write_stdin(env.admin_key.clone())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("GET /v1/scopes 200"),
        "-v logs login's request: {err}"
    );
    assert!(!err.contains(&env.admin_key), "{err}");
}

#[test]
fn config_set_leaves_an_existing_0644_file_0600() {
    let env = Env::new();
    std::fs::create_dir_all(env.config.parent().unwrap()).unwrap();
    std::fs::write(
        &env.config,
        "[profiles.default]\nbase_url = \"http://x/v1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&env.config, std::fs::Permissions::from_mode(0o644)).unwrap();
    env.bare()
        .args(["config", "set", "api_key", "tka_secret"])
        .assert()
        .success();
    let mode = std::fs::metadata(&env.config).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let text = std::fs::read_to_string(&env.config).unwrap();
    assert!(
        text.contains("http://x/v1") && text.contains("tka_secret"),
        "{text}"
    );
}

#[test]
fn a_broken_config_file_is_one_clear_line_and_spares_completions_and_version() {
    let env = Env::new();
    std::fs::create_dir_all(env.config.parent().unwrap()).unwrap();
    std::fs::write(&env.config, "[profiles.default]\nbase_url = [\n").unwrap();
    for args in [&["completions", "bash"][..], &["--version"]] {
        let output = env.tokctl().args(args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert!(!output.stdout.is_empty());
    }
    for args in [&["tokens", "list"][..], &["config", "set", "api_key", "x"]] {
        let output = env.tokctl().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let err = stderr(&output);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&env.config.display().to_string()) && err.contains("line 2"),
            "{err}"
        );
    }
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
