//! A real reference server on 127.0.0.1:0 with a temporary data directory, and `tokctl`
//! commands pointed at it with a temporary config file and no terminal.
#![allow(dead_code)]

pub mod scan;

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;
use tokctl_server::{Running, ServeConfig, spawn};

pub struct Env {
    pub base_url: String,
    pub admin_key: String,
    pub data_dir: PathBuf,
    pub config: PathBuf,
    _running: Running,
    _runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env::with_rate_limit(1000)
    }

    pub fn with_rate_limit(rate_limit: u32) -> Env {
        Env::build(rate_limit, std::time::Duration::ZERO)
    }

    /// A server whose simulated models stream a token every `delay`.
    pub fn with_sim_delay(delay: std::time::Duration) -> Env {
        Env::build(1000, delay)
    }

    /// A server over the catalogue `models` (TOML).
    pub fn with_models(models: &str) -> Env {
        Env::build_with(1000, std::time::Duration::ZERO, Some(models))
    }

    fn build(rate_limit: u32, sim_token_delay: std::time::Duration) -> Env {
        Env::build_with(rate_limit, sim_token_delay, None)
    }

    fn build_with(
        rate_limit: u32,
        sim_token_delay: std::time::Duration,
        models: Option<&str>,
    ) -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let data_dir = dir.path().join("data");
        let models = models.map(|text| {
            let path = dir.path().join("models.toml");
            std::fs::write(&path, text).expect("catalogue");
            path
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let running = runtime
            .block_on(spawn(ServeConfig {
                rate_limit,
                sim_token_delay,
                models,
                request_log: Some(Default::default()),
                ..ServeConfig::new("127.0.0.1:0", &data_dir)
            }))
            .expect("server");
        let admin_key = std::fs::read_to_string(data_dir.join("admin.key")).expect("admin.key");
        Env {
            base_url: format!("http://{}/v1", running.addr),
            admin_key: admin_key.trim().to_string(),
            config: dir.path().join("config/config.toml"),
            data_dir,
            _running: running,
            _runtime: runtime,
            _dir: dir,
        }
    }

    /// Runs `future` on the runtime the server runs on (what it spawns keeps running there).
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self._runtime.block_on(future)
    }

    /// Variables every `tokctl` run gets: this server, a private config file and home.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let home = self._dir.path();
        vec![
            ("TOKCTL_BASE_URL", self.base_url.clone()),
            ("TOKCTL_CONFIG", self.config.display().to_string()),
            ("HOME", home.display().to_string()),
            (
                "XDG_CONFIG_HOME",
                home.join("xdg-config").display().to_string(),
            ),
            ("XDG_DATA_HOME", home.join("xdg-data").display().to_string()),
        ]
    }

    /// Variables a run must not inherit.
    pub const UNSET: [&'static str; 5] = [
        "TOKCTL_API_KEY",
        "TOKCTL_PROFILE",
        "TOKCTL_DATA_DIR",
        "TOKCTL_MAX_WAIT",
        "TOKCTL_CHAT_BASE_URL",
    ];

    /// `tokctl` with no key configured: base URL and config file only, no colour.
    pub fn bare(&self) -> Command {
        let mut cmd = Command::cargo_bin("tokctl").expect("tokctl binary");
        for var in Env::UNSET {
            cmd.env_remove(var);
        }
        cmd.envs(self.vars()).env("NO_COLOR", "1");
        cmd
    }

    /// `tokctl ARGS` with the admin key on a pseudo-terminal made by util-linux `script`, no
    /// colour, every stream piped: the test types on stdin and reads the screen on stdout.
    /// `script` runs the command through `$SHELL -c` (`/bin/sh` when unset, as in CI); `exec`
    /// makes tokctl the terminal's foreground process, so Ctrl-C reaches it and not a shell that
    /// would die of it.
    pub fn on_terminal(&self, args: &str) -> std::process::Command {
        self.on_terminal_sized(args, None)
    }

    /// [`Env::on_terminal`] on a terminal `columns` wide, when given.
    pub fn on_terminal_sized(&self, args: &str, columns: Option<u16>) -> std::process::Command {
        let tokctl = assert_cmd::cargo::cargo_bin("tokctl");
        let size = columns.map_or(String::new(), |c| format!("stty cols {c} rows 50; "));
        let mut script = std::process::Command::new("script");
        script.args([
            "-qec",
            &format!("{size}exec '{}' {args}", tokctl.display()),
            "/dev/null",
        ]);
        for var in Env::UNSET {
            script.env_remove(var);
        }
        script
            .envs(self.vars())
            .env("TOKCTL_API_KEY", &self.admin_key)
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        script
    }

    /// `tokctl` with the admin key in `TOKCTL_API_KEY`.
    pub fn tokctl(&self) -> Command {
        let mut cmd = self.bare();
        cmd.env("TOKCTL_API_KEY", &self.admin_key);
        cmd
    }

    /// Runs `tokctl ARGS` with the admin key, its stdout a pipe whose reader has already gone
    /// (like `| head` that has exited), and returns the exit status and stderr.
    pub fn closed_stdout(&self, args: &[&str]) -> std::process::Output {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tokctl"));
        for var in Env::UNSET {
            cmd.env_remove(var);
        }
        cmd.envs(self.vars())
            .env("TOKCTL_API_KEY", &self.admin_key)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(writer)
            .output()
            .expect("run")
    }

    /// Runs `tokctl ARGS -o json` with the admin key and parses stdout.
    pub fn json(&self, args: &[&str]) -> Value {
        let output = self
            .tokctl()
            .args(args)
            .args(["-o", "json"])
            .output()
            .expect("run");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON on stdout")
    }

    /// Creates a token and returns (id, secret).
    pub fn create(&self, name: &str, scopes: &[&str]) -> (String, String) {
        let mut args = vec!["tokens", "create", name];
        for scope in scopes {
            args.extend(["--scope", scope]);
        }
        let token = self.json(&args);
        (
            token["id"].as_str().expect("id").to_string(),
            token["token"].as_str().expect("secret").to_string(),
        )
    }
}

pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
