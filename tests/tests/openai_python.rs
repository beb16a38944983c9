//! OpenAI's official Python client works against the gateway unchanged: create, stream, the
//! `platform` extra, extension fields, typed errors, models. The client (a pinned version) is
//! installed into `target/openai-venv` the first time, from PyPI.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::TestServer;

const OPENAI_VERSION: &str = "3.54.0";

/// A Python with the `openai` package, installing it into a private venv if needed.
fn python_with_openai() -> PathBuf {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/openai-venv");
    let python = target.join("bin/python");
    let has_client = |python: &Path| {
        Command::new(python)
            .args([
                "-c",
                &format!("import openai, sys; sys.exit(openai.__version__ != '{OPENAI_VERSION}')"),
            ])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_client(&python) {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&target)
        .status();
    assert!(made.is_ok_and(|s| s.success()), "python3 -m venv failed");
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            &format!("openai=={OPENAI_VERSION}"),
        ])
        .status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "pip install openai failed"
    );
    assert!(has_client(&python));
    python
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openais_python_client_works_unchanged() {
    let python = tokio::task::spawn_blocking(python_with_openai)
        .await
        .unwrap();
    let server = TestServer::start().await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/openai_compat.py");
    let (base, key) = (server.base_url.clone(), server.admin_key.clone());
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(script)
            .arg(base)
            .arg(key)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert_eq!(stdout.trim(), "ok");
}
