//! Real clients against the `anthropic` provider (issue 37, point 5): OpenAI's official Python
//! client goes through the gateway to the faithful Anthropic mock, end to end; then everything
//! the mock sent (messages, stream events, error bodies) and everything the gateway sent it is
//! held to the official `anthropic` Python SDK's types, so the mock cannot drift from the API.
//! And the `anthropic` SDK itself against the gateway's `/v1/messages`, and OpenAI's client
//! against its `/v1/responses` (issue 38).
//! Both clients (pinned) are installed into `target/anthropic-venv` from PyPI the first time;
//! without Python or PyPI the test says it was skipped, except under `CI=true`, where it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::anthropic::{Anthropic, gateway};

const ANTHROPIC_VERSION: &str = "2.14.0";
const OPENAI_VERSION: &str = "3.54.0";

/// A Python with both clients, or why there is none: made once, however many tests ask at
/// the same time (three making one venv together trip over each other's files).
fn python() -> Result<PathBuf, String> {
    static READY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    READY.get_or_init(install).clone()
}

fn install() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/anthropic-venv");
    let python = venv.join("bin/python");
    let check = format!(
        "import anthropic, openai, sys; sys.exit(not (anthropic.__version__ == '{ANTHROPIC_VERSION}' and openai.__version__ == '{OPENAI_VERSION}'))"
    );
    let ready = |python: &Path| {
        Command::new(python)
            .args(["-c", &check])
            .status()
            .is_ok_and(|s| s.success())
    };
    if ready(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status();
    if !made.is_ok_and(|s| s.success()) {
        return Err("python3 -m venv failed (is python3 with venv installed?)".into());
    }
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet"])
        .arg(format!("anthropic=={ANTHROPIC_VERSION}"))
        .arg(format!("openai=={OPENAI_VERSION}"))
        .status();
    if !installed.is_ok_and(|s| s.success()) || !ready(&python) {
        return Err("pip could not install the anthropic and openai clients from PyPI".into());
    }
    Ok(python)
}

fn run(python: &Path, script: &str, args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let output = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

/// The Python with both clients; `None` (said) when there is none, except under `CI=true`.
async fn clients() -> Option<PathBuf> {
    match tokio::task::spawn_blocking(python).await.unwrap() {
        Ok(python) => Some(python),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: the Anthropic SDK checks need Python clients: {why}");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openais_client_reaches_claude_and_the_mock_speaks_as_the_anthropic_sdk_reads() {
    let Some(python) = clients().await else {
        return;
    };
    let mock = Anthropic::start().await;
    let extra = "[models.breaker]\nfailures = 4\ncooldown = \"60s\"";
    let (tmp, server) = gateway(&mock, extra, &[]);
    let (base, key) = (format!("{}/v1", server.base), server.admin_key.clone());
    let python_e2e = python.clone();
    let out =
        tokio::task::spawn_blocking(move || run(&python_e2e, "anthropic_e2e.py", &[&base, &key]))
            .await
            .unwrap();
    assert_eq!(out.trim(), "ok");

    let sent = mock.sent();
    let requests: Vec<_> = mock.seen().into_iter().map(|seen| seen.body).collect();
    let shapes = serde_json::json!({
        "messages": sent.messages, "events": sent.events, "errors": sent.errors, "requests": requests,
    });
    let file = tmp.path().join("shapes.json");
    std::fs::write(&file, shapes.to_string()).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        run(&python, "anthropic_shapes.py", &[file.to_str().unwrap()])
    })
    .await
    .unwrap();
    assert!(out.starts_with("ok"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropics_sdk_speaks_to_the_gateways_messages_api() {
    let Some(python) = clients().await else {
        return;
    };
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let limited = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &serde_json::json!({"name": "agent", "scopes": ["chat:write"],
                "credit_limit": "0.000001", "limit_reset": "daily"}),
        )
        .await
        .json::<serde_json::Value>()
        .await
        .unwrap();
    let limited = common::secret(&limited);
    let (base, key) = (server.base.clone(), server.admin_key.clone());
    let out = tokio::task::spawn_blocking(move || {
        run(&python, "messages_e2e.py", &[&base, &key, &limited])
    })
    .await
    .unwrap();
    assert_eq!(out.trim(), "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openais_client_speaks_to_the_gateways_responses_api() {
    let Some(python) = clients().await else {
        return;
    };
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let (base, key) = (format!("{}/v1", server.base), server.admin_key.clone());
    let out = tokio::task::spawn_blocking(move || run(&python, "responses_e2e.py", &[&base, &key]))
        .await
        .unwrap();
    assert_eq!(out.trim(), "ok");
}
