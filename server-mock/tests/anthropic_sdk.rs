//! Real clients against the `anthropic` provider (issue 37, point 5): OpenAI's official Python
//! client goes through the gateway to the faithful Anthropic mock, end to end; then everything
//! the mock sent (messages, stream events, error bodies) and everything the gateway sent it is
//! held to the official `anthropic` Python SDK's types, so the mock cannot drift from the API.
//! Both clients (pinned) are installed into `target/anthropic-venv` from PyPI the first time;
//! without Python or PyPI the test says it was skipped, except under `CI=true`, where it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::anthropic::{Anthropic, KEY, KEY_VAR, catalogue};
use common::{Options, Server};

const ANTHROPIC_VERSION: &str = "2.14.0";
const OPENAI_VERSION: &str = "3.54.0";

/// A Python with both clients, or why there is none.
fn python() -> Result<PathBuf, String> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openais_client_reaches_claude_and_the_mock_speaks_as_the_anthropic_sdk_reads() {
    let python = match tokio::task::spawn_blocking(python).await.unwrap() {
        Ok(python) => python,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: the Anthropic SDK checks need Python clients: {why}");
            return;
        }
    };
    let mock = Anthropic::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let extra = "[models.breaker]\nfailures = 4\ncooldown = \"60s\"";
    let models = catalogue(tmp.path(), &mock.url, extra);
    let server = Server::start_with(Options {
        env: vec![(KEY_VAR, KEY)],
        args: vec![
            "--models".into(),
            models.display().to_string(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    });
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
