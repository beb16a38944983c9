//! The examples, run as a user runs them with no server listening: each fails with one line
//! that says where it tried to connect and why, never a `Debug` dump.

use std::path::PathBuf;
use std::process::Command;

/// `cargo test` builds the examples beside the test binaries: `target/debug/examples/NAME`.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/debug");
    let path = dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run the tests with `cargo test`, which builds the examples",
        path.display()
    );
    path
}

#[test]
fn examples_print_a_connection_failure_as_one_sentence() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let dir = tempfile::tempdir().unwrap();
    let wallet = dir.path().join("wallet.key");
    std::fs::write(
        &wallet,
        "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wallet, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let wallet = wallet.display().to_string();
    let leaked = tokctl_sdk::secrets::seal(
        tokctl_sdk::secrets::Kind::Token,
        "0123456789abcdefghijABCDEFGHIJ",
    );
    for (name, args) in [
        ("list_json", &[][..]),
        ("revoke_stale", &["30"][..]),
        ("api_keys", &["1"][..]),
        ("chat_budget", &["0.05", "hi"][..]),
        ("rotate_in_ci", &["tok_000000000000000000000000"][..]),
        ("revoke_leaked", &[leaked.as_str()][..]),
        ("pay_with_wallet", &[wallet.as_str(), "50000", "hi"][..]),
        ("agent_budget", &["agent", "25"][..]),
        ("store_bodies", &["on"][..]),
    ] {
        let output = Command::new(example(name))
            .args(args)
            .env("TOKCTL_API_KEY", "tka_examplekeyexamplekeyexamplekey123456")
            .env("TOKCTL_BASE_URL", &base)
            .env_remove("TOKCTL_CHAT_BASE_URL")
            .output()
            .expect("run the example");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name} succeeded: {stderr}");
        let wanted = format!("cannot connect to {base}: connection refused");
        assert!(stderr.contains(&wanted), "{name}: {stderr}");
        let failure: Vec<&str> = stderr.lines().filter(|l| l.starts_with(name)).collect();
        assert_eq!(failure, [format!("{name}: {wanted}")], "{name}: {stderr}");
        for debug in ["Connect {", "Transport {", "source:", "kind:"] {
            assert!(!stderr.contains(debug), "{name} printed Debug: {stderr}");
        }
    }
}
