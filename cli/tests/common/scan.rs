//! What the `tokctl scan` tests share: made-up secrets and keys, a scan with no configuration,
//! files and commits to scan, and the check that no secret is ever shown.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use tokctl_sdk::secrets::{self, Kind};

use super::{Env, stderr, stdout};

/// Made-up provider keys: an OpenAI project key, an AWS access key id, an Anthropic key.
pub const OPENAI: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
pub const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
pub const ANTHROPIC: &str = "sk-ant-api03-Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c";

/// A well-formed secret (not issued by any server) for scans that need no server.
pub fn secret(kind: Kind, n: usize) -> String {
    let random: String = (0..30)
        .map(|i| char::from(secrets::BASE62[(i * 11 + n * 5) % 62]))
        .collect();
    secrets::seal(kind, &random)
}

/// `tokctl scan ARGS` in `dir`, with no configuration, no key and no terminal.
pub fn scan(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("tokctl").expect("tokctl binary");
    for var in Env::UNSET {
        cmd.env_remove(var);
    }
    cmd.current_dir(dir)
        .env("TOKCTL_CONFIG", dir.join("no-config.toml"))
        .env("NO_COLOR", "1")
        .arg("scan")
        .args(args)
        .output()
        .expect("run tokctl scan")
}

pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .expect("git");
    assert!(status.status.success(), "git {args:?}: {}", stderr(&status));
}

pub fn assert_no_secret_shown(output: &Output, secrets: &[&str]) {
    for secret in secrets {
        assert!(!stdout(output).contains(secret), "stdout shows a secret");
        assert!(!stderr(output).contains(secret), "stderr shows a secret");
    }
}
