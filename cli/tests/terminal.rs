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

#[test]
fn quiet_keeps_the_reminder_for_a_person_at_a_terminal() {
    let env = Env::new();
    let (code, screen) = on_terminal(&env, "tokens create ci -s tokens:read -q", "", false);
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("tkt_"), "{screen}");
    assert!(screen.contains("Store the secret now"), "{screen}");
}

#[test]
fn scan_asks_before_revoking_the_key_the_cli_uses() {
    let env = Env::new();
    let (_, leaked) = env.create("leaked", &["tokens:read"]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        format!("{}\n{leaked}\n", env.admin_key),
    )
    .unwrap();
    let args = format!("scan --revoke '{}'", dir.path().display());
    // "n" keeps the CLI's own key; "y" revokes the rest.
    let (code, screen) = on_terminal(&env, &args, "ny", false);
    assert_eq!(code, Some(3), "{screen}");
    assert!(
        screen.contains("One of them is the API key this CLI uses (env TOKCTL_API_KEY)"),
        "{screen}"
    );
    assert!(screen.contains("Revoke 1 secret at"), "{screen}");
    assert!(screen.contains("left out 1 secret"), "{screen}");
    let status = env.json(&["tokens", "get", "leaked"]);
    assert_eq!(status["status"], "revoked");
}

#[test]
fn models_shows_each_deployment_under_its_model_and_json_nests_them() {
    let env = Env::with_models(
        "[[models]]\nid = \"gpt-4o\"\nprompt_price = 2.5\ncompletion_price = 10\n\
         quality = 0.85\nlatency_ms = 500\nfallbacks = [\"local\"]\n\
         [[models.deployments]]\nname = \"east\"\nprovider = \"openai\"\n\
         base_url = \"http://127.0.0.1:9/v1\"\nweight = 3\n\
         [[models.deployments]]\nname = \"west\"\nprovider = \"openai\"\n\
         base_url = \"http://127.0.0.1:9/v1\"\nprompt_price = 3\n\n\
         [[models]]\nid = \"local\"\nprovider = \"simulated\"\nprompt_price = 0.1\n\
         completion_price = 0.1\nquality = 0.5\nlatency_ms = 10\n",
    );
    let (code, screen) = on_terminal(&env, "models", "", false);
    assert_eq!(code, Some(0), "{screen}");
    let lines: Vec<&str> = screen.lines().collect();
    let row = |needle: &str| lines.iter().position(|l| l.contains(needle));
    let (model, east, west, local) = (
        row("gpt-4o").expect(&screen),
        row("- east (weight 3)").expect(&screen),
        row("- west (weight 1)").expect(&screen),
        row("local").expect(&screen),
    );
    assert!(model < east && east < west && west < local, "{screen}");
    assert!(
        lines[west].contains('3'),
        "west's own prompt price: {screen}"
    );

    let json = env.json(&["models"]);
    let models = json.as_array().expect("a list");
    assert_eq!(models.len(), 2, "deployments are not models: {json}");
    assert_eq!(models[0]["deployments"][1]["name"], "west");
    assert_eq!(models[0]["deployments"][1]["prompt_price"], 3.0);
}
