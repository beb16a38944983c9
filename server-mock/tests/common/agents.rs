//! Coding agents from the npm registry, pinned, installed into `target/agents` the first time
//! a test asks for one, and run kept to loopback.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary `bin` of npm `package` at `version` (its `--version` mentions it), installed if
/// need be; `None` (said) when npm or the registry cannot give it, except under `CI=true`,
/// where the test fails.
pub async fn installed(package: &str, version: &str, bin: &str) -> Option<PathBuf> {
    let (package, version, bin) = (package.to_string(), version.to_string(), bin.to_string());
    let found = tokio::task::spawn_blocking(move || install(&package, &version, &bin))
        .await
        .unwrap();
    match found {
        Ok(binary) => Some(binary),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: this test needs a coding agent from npm: {why}");
            None
        }
    }
}

fn install(package: &str, version: &str, bin: &str) -> Result<PathBuf, String> {
    let prefix = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agents");
    let binary = prefix.join("node_modules/.bin").join(bin);
    let ready = |binary: &Path| {
        Command::new(binary)
            .arg("--version")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains(version))
    };
    if ready(&binary) {
        return Ok(binary);
    }
    std::fs::create_dir_all(&prefix).map_err(|err| err.to_string())?;
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(format!("{package}@{version}"))
        .output()
        .map_err(|err| format!("npm cannot run ({err})"))?;
    match out.status.success() && ready(&binary) {
        true => Ok(binary),
        false => Err(format!(
            "npm could not install {package}@{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// `binary` with `args` in `dir`, `home` as its home, only `env` and `PATH` in its
/// environment, and anything it would send beyond loopback sent to a proxy that is not there.
pub async fn run(binary: &Path, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut command = Command::new(binary);
    command
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .envs(env.iter().copied())
        .args(args)
        .stdin(std::process::Stdio::null());
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// What a run printed, for an assertion's message.
pub fn said(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
