//! Start-up as an operator meets it, with real server processes: one server per SQLite data
//! directory (a second is refused, naming the first; a SIGKILLed one leaves no stale lock), and
//! a start that cannot bind prints no admin key it would never serve.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::backend::{self, Backend};
use common::{Options, Server, both};
use reqwest::StatusCode;

/// `tokctl-server serve` on `dir` and `listen`, on the test's backend, run to its exit (which
/// a refused start reaches at once; one that serves instead is killed after 30 s and fails the
/// test rather than hang it).
fn serve_until_exit(dir: &Path, listen: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tokctl-server"));
    command
        .args(["serve", "--listen", listen, "--data-dir"])
        .arg(dir)
        .env_remove("TOKCTL_DATABASE_URL")
        .env_remove("TOKCTL_DATA_DIR")
        .env_remove("TOKCTL_SERVER_LISTEN")
        .env_remove("TOKCTL_WEBHOOK_KEY_FILE")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Backend::Postgres(databases) = backend::current() {
        command.args(["--database-url", &databases.url_for(dir)]);
    }
    let child = command.spawn().expect("run tokctl-server");
    let pid = child.id().to_string();
    let (tx, exited) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match exited.recv_timeout(Duration::from_secs(30)) {
        Ok(output) => output.expect("wait for tokctl-server"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!(
                "tokctl-server on {} started instead of refusing",
                dir.display()
            );
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn a_second_server_on_one_sqlite_directory_is_refused_naming_the_first() {
    let first = Server::start();
    let output = serve_until_exit(&first.dir, "127.0.0.1:0");
    assert!(!output.status.success());
    assert_eq!(
        text(&output.stderr).trim_end(),
        format!(
            "tokctl-server: the data directory {} is in use by another tokctl-server (PID {}, {}): \
             one SQLite data directory serves one process; stop it, pass another --data-dir, or \
             run several instances on one PostgreSQL database with --database-url",
            first.dir.display(),
            first.pid(),
            first.base
        )
    );
    assert_eq!(text(&output.stdout), "", "no key, no address");
    // The first one serves on, undisturbed.
    let response = first.get("/v1/tokens", &first.admin_key).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_killed_server_leaves_no_lock_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let mut first = Server::start_in(&dir, Options::default());
    let token = first.create_token("survivor", &["tokens:read"]).await;
    first.crash();
    let second = Server::start_in(&dir, Options::default());
    assert_eq!(second.admin_key, first.admin_key);
    let response = second
        .get(
            &format!("/v1/tokens/{}", token["id"].as_str().unwrap()),
            &second.admin_key,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    // And the new holder is the one a third start names.
    let output = serve_until_exit(&dir, "127.0.0.1:0");
    assert!(
        text(&output.stderr).contains(&format!("(PID {}, {})", second.pid(), second.base)),
        "{}",
        text(&output.stderr)
    );
}

#[tokio::test]
async fn admin_commands_work_beside_a_running_server_but_a_copy_waits_for_it_to_stop() {
    let server = Server::start();
    let key = server.admin(&["create-key", "--workspace", "default", "--name", "beside"]);
    let response = server.get("/v1/scopes", &key).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "the new key works at once"
    );

    // Refused before connecting anywhere: nothing listens on port 1.
    let output = server
        .admin_command()
        .args([
            "copy-to-postgres",
            "--database-url",
            "postgres://tokctl@127.0.0.1:1/tokctl",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert!(
        err.contains(&format!(
            "is in use by another tokctl-server (PID {}, {}): stop it first, so nothing changes during the copy",
            server.pid(),
            server.base
        )),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

both! {
    #[tokio::test]
    async fn a_port_in_use_prints_no_key_and_the_next_start_does() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = taken.local_addr().unwrap().to_string();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let output = serve_until_exit(&dir, &address);
        assert!(!output.status.success());
        let err = text(&output.stderr);
        assert!(err.contains(&format!("cannot listen on {address}")), "{err}");
        assert!(!text(&output.stdout).contains("tka_"), "{}", text(&output.stdout));
        assert!(!text(&output.stdout).contains("Admin API key"));
        assert!(!dir.join("admin.key").exists());
        drop(taken);

        // The key is made, shown and saved by the start that serves.
        let server = Server::start_in(&dir, Options::default());
        assert!(server.admin_key.starts_with("tka_"));
        assert!(server.stdout().contains("Admin API key (shown once"));
        assert!(server.stdout().contains(&server.admin_key));
        let response = server.get("/v1/scopes", &server.admin_key).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}
