//! What a person at a terminal sees: tables, colours, the confirmation and the progress bar.
//! Each command runs under a pseudo-terminal made by util-linux `script`.

mod common;

use std::io::Write;

use common::{Env, stdout};

/// Runs `tokctl ARGS` with the admin key on a pseudo-terminal, typing `input`; returns the
/// exit code and everything the terminal showed.
fn on_terminal(env: &Env, args: &str, input: &str, colour: bool) -> (Option<i32>, String) {
    let mut script = env.on_terminal(args);
    if colour {
        script.env_remove("NO_COLOR");
    }
    let mut child = script.spawn().expect("util-linux `script` runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("type");
    let output = child.wait_with_output().expect("wait");
    (output.status.code(), stdout(&output))
}

#[test]
fn a_terminal_gets_a_table_with_expiring_rows_marked_in_colour() {
    let env = Env::new();
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
    env.create("later", &["tokens:read"]);
    let (code, screen) = on_terminal(&env, "tokens list", "", true);
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains('│') && screen.contains("NAME"),
        "a table: {screen}"
    );
    assert!(
        screen.contains("in 2 days") || screen.contains("in 1 day"),
        "human times: {screen}"
    );
    assert!(screen.contains("active (expiring)"));
    assert!(
        screen.contains("\u{1b}[38;5;11m"),
        "expiring row in yellow: {screen:?}"
    );

    let (_, plain) = on_terminal(&env, "tokens list", "", false);
    assert!(
        plain.contains('│') && !plain.contains("\u{1b}[38;5"),
        "NO_COLOR: {plain:?}"
    );
}

#[test]
fn a_terminal_confirms_before_revoking_and_shows_progress() {
    let env = Env::new();
    env.create("a", &["tokens:read"]);
    env.create("b", &["tokens:read"]);

    let (code, screen) = on_terminal(&env, "tokens revoke a b", "n\n", false);
    assert_eq!(code, Some(1), "{screen}");
    assert!(
        screen.contains("Revoke 2 token(s) for good (a, b)?"),
        "{screen}"
    );
    assert_eq!(
        env.json(&["tokens", "list", "--status", "active"])
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let (code, screen) = on_terminal(&env, "tokens revoke a b", "y\n", false);
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("2/2"), "a progress bar: {screen:?}");
    assert!(screen.contains("Revoked 2, already gone 0, failed 0."));
    assert_eq!(
        env.json(&["tokens", "list", "--status", "active"]),
        serde_json::json!([])
    );
}

#[test]
fn without_colour_the_table_still_fits_the_terminal() {
    let env = Env::new();
    for n in 0..3 {
        env.create(&format!("deploy-{n}"), &["tokens:read", "tokens:rotate"]);
    }
    let output = env
        .on_terminal_sized("tokens list", Some(80))
        .output()
        .expect("util-linux `script` runs");
    let screen = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{screen}");
    assert!(
        screen.contains('│') && screen.contains("deploy-2"),
        "{screen}"
    );
    assert!(!screen.contains("\u{1b}[38;5"), "NO_COLOR: {screen:?}");
    let widest = screen
        .lines()
        .map(|line| line.trim_end_matches('\r').chars().count())
        .max();
    assert!(
        widest.is_some_and(|w| w <= 80),
        "wider than 80 columns: {screen}"
    );
}
