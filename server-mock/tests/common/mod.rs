//! Starts the real `tokctl-server` binary on 127.0.0.1:0 with a temporary data directory, and
//! speaks to it with plain reqwest.
#![allow(dead_code)]

pub mod agents;
pub mod anthropic;
pub mod backend;
pub mod cluster;
pub mod collector;
pub mod facilitator;
pub mod hooks;
pub mod inflight;
pub mod pgbouncer;
pub mod proxy;
pub mod upstream;
pub mod wallet;

#[allow(unused_imports)]
pub(crate) use backend::{both, instances, postgres};

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};

/// A running server process.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub dir: PathBuf,
    /// The admin key written on first start.
    pub admin_key: String,
    /// The PostgreSQL database it serves from (`None`: SQLite in `dir`).
    pub database: Option<String>,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
    _tmp: Option<tempfile::TempDir>,
    client: reqwest::Client,
}

/// Options for [`Server::start_with`].
#[derive(Default)]
pub struct Options<'a> {
    pub rate_limit: Option<u32>,
    pub env: Vec<(&'a str, &'a str)>,
    /// More `serve` arguments, e.g. `--models FILE`.
    pub args: Vec<String>,
    /// A PostgreSQL database URL to serve from, shared with other servers [default: the test's
    /// backend: SQLite, or a database of the data directory's own].
    pub database: Option<String>,
}

impl Server {
    /// A server on a fresh temporary data directory.
    pub fn start() -> Server {
        Server::start_with(Options::default())
    }

    pub fn start_with(options: Options<'_>) -> Server {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("data");
        let mut server = Server::start_in(&dir, options);
        server._tmp = Some(tmp);
        server
    }

    /// A server on `dir` (which may already hold data), on the test's backend.
    pub fn start_in(dir: &Path, options: Options<'_>) -> Server {
        let database = options
            .database
            .clone()
            .or_else(|| match backend::current() {
                backend::Backend::Sqlite => None,
                backend::Backend::Postgres(databases) => Some(databases.url_for(dir)),
            });
        let mut command = Command::new(env!("CARGO_BIN_EXE_tokctl-server"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .env_remove("TOKCTL_SERVER_LISTEN")
            .env_remove("TOKCTL_DATA_DIR")
            .env_remove("TOKCTL_DATABASE_URL")
            .env_remove("TOKCTL_WEBHOOK_KEY_FILE")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(limit) = options.rate_limit {
            command.args(["--rate-limit", &limit.to_string()]);
        }
        if let Some(url) = &database {
            command.args(["--database-url", url]);
        }
        for (key, value) in options.env {
            command.env(key, value);
        }
        command.args(&options.args);
        let mut child = command.spawn().expect("spawn tokctl-server");
        let (stdout, out_reader) = capture(child.stdout.take().expect("stdout"), None);
        let (tx, rx) = mpsc::channel();
        let (stderr, err_reader) = capture(child.stderr.take().expect("stderr"), Some(tx));
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(addr) => format!("http://{addr}"),
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "server did not report its address; stderr:\n{}",
                    stderr.lock().unwrap()
                );
            }
        };
        // Empty when another instance bootstrapped the database (see `Server::another`).
        let admin_key = std::fs::read_to_string(dir.join("admin.key"))
            .map(|key| key.trim().to_string())
            .unwrap_or_default();
        Server {
            child,
            base,
            dir: dir.to_path_buf(),
            admin_key,
            database,
            stdout,
            stderr,
            readers: vec![out_reader, err_reader],
            _tmp: None,
            client: reqwest::Client::new(),
        }
    }

    /// Another instance serving this server's PostgreSQL database, as a load balancer would
    /// have beside it: its own data directory, the same webhook key, the same admin key.
    pub fn another(&self, mut options: Options<'_>) -> Server {
        options.database = Some(self.database.clone().expect("a server on PostgreSQL"));
        let key = self.dir.join("webhook.key");
        options
            .args
            .extend(["--webhook-key-file".into(), key.display().to_string()]);
        let mut server = Server::start_with(options);
        server.admin_key = self.admin_key.clone();
        server
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops with SIGTERM and waits, output included; returns whether the exit was clean.
    pub fn stop(&mut self) -> bool {
        self.terminate();
        self.wait()
    }

    /// Waits for the exit, output included; returns whether it was clean.
    pub fn wait(&mut self) -> bool {
        let clean = self.child.wait().expect("wait").success();
        self.drain();
        clean
    }

    /// Sends SIGTERM without waiting for the exit (see [`Server::stop`]).
    pub fn terminate(&self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM failed");
    }

    /// Kills with SIGKILL, as a crash would.
    pub fn crash(&mut self) {
        self.child.kill().expect("kill");
        let _ = self.child.wait();
        self.drain();
    }

    /// Waits until the output pipes are closed, so `logs` and `stdout` are complete.
    fn drain(&mut self) {
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }

    /// Everything the server wrote to stderr (its logs) so far.
    pub fn logs(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The URL of its `/metrics`, from its log line (a server started with `--metrics-listen`).
    pub fn metrics_url(&self) -> String {
        let logs = self.logs();
        logs.split("metrics on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no `metrics on` line in the log:\n{logs}"))
            .to_string()
    }

    /// Everything the server wrote to stdout so far.
    pub fn stdout(&self) -> String {
        self.stdout.lock().unwrap().clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with `key` as bearer credential.
    pub fn request(&self, method: Method, path: &str, key: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path)).bearer_auth(key)
    }

    pub async fn get(&self, path: &str, key: &str) -> Response {
        self.request(Method::GET, path, key)
            .send()
            .await
            .expect("send")
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Response {
        self.request(Method::POST, path, key)
            .json(body)
            .send()
            .await
            .expect("send")
    }

    pub async fn delete(&self, path: &str, key: &str) -> Response {
        self.request(Method::DELETE, path, key)
            .send()
            .await
            .expect("send")
    }

    /// Creates a token named `name` with `scopes` using the admin key; returns the body.
    pub async fn create_token(&self, name: &str, scopes: &[&str]) -> Value {
        let response = self
            .post(
                "/v1/tokens",
                &self.admin_key,
                &json!({ "name": name, "scopes": scopes }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        response.json().await.expect("json")
    }

    /// `tokctl-server admin` on this server's data (its directory, and its database).
    pub fn admin_command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tokctl-server"));
        command
            .arg("admin")
            .arg("--data-dir")
            .arg(&self.dir)
            .env_remove("TOKCTL_DATABASE_URL");
        if let Some(url) = &self.database {
            command.args(["--database-url", url]);
        }
        command
    }

    /// Runs `tokctl-server admin ARGS...` on this server's data; returns stdout.
    pub fn admin(&self, args: &[&str]) -> String {
        let output = self.admin_command().args(args).output().expect("run admin");
        assert!(
            output.status.success(),
            "admin {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("utf-8")
            .trim()
            .to_string()
    }

    /// Moves tokens' expiry into the past, as if time had passed while the server was down:
    /// stops the server, edits its data, and starts it again on the same data.
    pub fn expire_while_stopped(&mut self, token_ids: &[&str]) {
        assert!(self.stop());
        let past = chrono::DateTime::from_timestamp(1, 0).unwrap();
        for id in token_ids {
            let changed = backend::execute(
                &self.dir,
                (
                    "UPDATE tokens SET expires_at = 1000000 WHERE id = ?1",
                    &[id],
                ),
                (
                    "UPDATE tokens SET expires_at = $1 WHERE id = $2",
                    &[&past, id],
                ),
            );
            assert_eq!(changed, 1);
        }
        let tmp = self._tmp.take();
        *self = Server::start_in(&self.dir, Options::default());
        self._tmp = tmp;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn capture(
    stream: impl Read + Send + 'static,
    addr: Option<mpsc::Sender<String>>,
) -> (Arc<Mutex<String>>, std::thread::JoinHandle<()>) {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let (Some(tx), Some(at)) = (&addr, line.find("listening on http://")) {
                let _ = tx.send(line[at + "listening on http://".len()..].trim().to_string());
            }
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
    });
    (text, reader)
}

/// A server whose simulated models stream without delay.
pub fn fast() -> Server {
    Server::start_with(Options {
        args: vec!["--sim-token-delay-ms".into(), "0".into()],
        ..Default::default()
    })
}

/// Sends a chat completion with the admin key; returns the status and the JSON body.
pub async fn chat_json(server: &Server, body: Value) -> (StatusCode, Value) {
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &body)
        .await;
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

/// Asserts the spec's error body and returns its message.
pub async fn assert_error(response: Response, status: u16, code: &str) -> String {
    assert_eq!(response.status().as_u16(), status, "status");
    let headers = response.headers().clone();
    for name in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert!(headers.contains_key(name), "{name} missing on a {status}");
    }
    let body: Value = response.json().await.expect("error body is JSON");
    assert_eq!(body["error"], code, "{body}");
    assert_eq!(body["status"], status, "{body}");
    let message = body["message"].as_str().expect("message").to_string();
    assert!(!message.is_empty());
    message
}

/// The secret of a create or rotate response.
pub fn secret(token: &Value) -> String {
    token["token"].as_str().expect("token secret").to_string()
}

/// The id of a token object.
pub fn id(token: &Value) -> String {
    token["id"].as_str().expect("token id").to_string()
}

/// Runs `command` to its exit, which must come within `limit` (a server that should have
/// refused to start would otherwise serve for ever): kills it and fails the test if not.
pub fn exit_of(command: &mut Command, limit: Duration) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!(
                "still running after {limit:?}; stderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}
