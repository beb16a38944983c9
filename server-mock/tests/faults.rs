//! PostgreSQL lost and found. At start: one line naming the host, exit code 1. While serving
//! (a proxy between server and database cuts every connection, or stalls them): each request
//! is answered 503 in its shape within the database time limit, `/healthz` says so, service
//! resumes by itself when the database is back, and no acknowledged write is lost.

mod common;

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::hooks::eventually;
use common::proxy::{Proxy, postgres_addr, through};
use common::{Options, Server, exit_of, postgres};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// `tokctl-server serve` on `url`, run to its exit (it must refuse to start).
fn serve_on(url: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    exit_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--database-timeout",
                "1s",
            ])
            .arg("--data-dir")
            .arg(tmp.path().join("data"))
            .args(["--database-url", url])
            .env_remove("TOKCTL_DATABASE_URL"),
        Duration::from_secs(20),
    )
}

#[test]
fn postgres_unreachable_at_start_is_one_line_naming_the_host_and_exit_code_1() {
    // Refused: nothing listens on the port.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // Silent: a listener that never answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    for (port, cause) in [(port, "Connection refused"), (silent_port, "no answer")] {
        let output = serve_on(&format!(
            "postgres://tokctl:hunter2@127.0.0.1:{port}/tokctl"
        ));
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        let expected =
            format!("tokctl-server: cannot connect to PostgreSQL at 127.0.0.1:{port}/tokctl: ");
        assert!(stderr.starts_with(&expected), "{stderr}");
        assert!(stderr.contains(cause), "{stderr}");
        assert!(
            !stderr.contains("hunter2") && !stderr.contains("panicked"),
            "{stderr}"
        );
    }
}

#[test]
fn a_bad_database_url_is_a_usage_error_that_never_repeats_the_password() {
    for url in [
        "mysql://root:hunter2@127.0.0.1/tokctl",
        "postgres://tokctl:hunter2@[::1/tokctl",
        "postgres://tokctl:hunter2@127.0.0.1/tokctl?sslmode=allow",
        "postgres://tokctl:hunter2@127.0.0.1/tokctl?sslrootcert=system&sslmode=require",
    ] {
        let output = serve_on(url);
        assert_eq!(output.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with("error: invalid --database-url: "),
            "{stderr}"
        );
        assert!(!stderr.contains("hunter2"), "{stderr}");
    }
}

/// A server on a new database reached through `proxy`, giving up on it after 2 s.
fn behind(proxy: &Proxy) -> Server {
    Server::start_with(Options {
        database: Some(through(proxy, &common::backend::new_database())),
        rate_limit: Some(1_000_000),
        args: vec![
            "--database-timeout".into(),
            "2s".into(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    })
}

/// How long a request to a server whose database is gone may take before the test calls it
/// hung. Far above the 2 s database limit, so a loaded machine does not fail the test: that it
/// was the limit that ended a wait is read from the server's log instead (see
/// [`gave_up_within_the_limit`]). Without a limit a request to a stalled database never ends.
const HUNG: Duration = Duration::from_secs(30);

/// `request`'s answer, failing the test if it has not come within [`HUNG`].
async fn ends<T>(what: &str, request: impl Future<Output = T>) -> T {
    tokio::time::timeout(HUNG, request)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {HUNG:?}"))
}

/// Asserts what a client sees while the database is unavailable: 503 in each API's shape, an
/// answer rather than a wait without end, and `/healthz` saying so.
async fn unavailable(server: &Server) {
    let response = ends(
        "GET /v1/tokens",
        server.get("/v1/tokens", &server.admin_key),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.unwrap();
    service_unavailable(&body);

    let ask = json!({"model": "auto", "messages": [{"role": "user", "content": "hi"}]});
    let response = ends(
        "POST /v1/chat/completions",
        server.post("/v1/chat/completions", &server.admin_key, &ask),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "api_error", "{body}");
    assert_eq!(body["error"]["code"], "service_unavailable", "{body}");

    let health = ends("GET /healthz", reqwest::get(server.url("/healthz")))
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = health.json().await.unwrap();
    assert_eq!(body["status"], "unavailable", "{body}");

    // Not ready, with the reason in the API's error shape; alive all the same, so a liveness
    // probe does not restart the instance for its database.
    let ready = ends("GET /readyz", reqwest::get(server.url("/readyz")))
        .await
        .unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(ready.headers()["retry-after"], "1");
    let body: Value = ready.json().await.unwrap();
    service_unavailable(&body);
    let reason = body["message"].as_str().unwrap();
    assert!(
        reason.starts_with("Not ready: ") && reason.contains("PostgreSQL"),
        "{body}"
    );
    assert_eq!(live(server).await, StatusCode::OK);
}

/// Asserts `body` is the API's error shape for an unavailable database.
fn service_unavailable(body: &Value) {
    assert_eq!(
        (body["error"].as_str(), body["status"].as_u64()),
        (Some("service_unavailable"), Some(503)),
        "{body}"
    );
}

/// `GET /livez`'s status, which must come at once whatever the database does.
async fn live(server: &Server) -> StatusCode {
    let live = tokio::time::timeout(Duration::from_secs(5), reqwest::get(server.url("/livez")))
        .await
        .expect("/livez answers without waiting on the database")
        .unwrap();
    live.status()
}

/// Waits until the server's log, past its first `from` bytes, says a request gave up on the
/// database when the 2 s limit passed (a stalled database answers nothing, so only the limit
/// ends the wait).
async fn gave_up_within_the_limit(server: &Server, from: usize) {
    eventually(
        "the log to say the database did not answer within 2 s",
        || async {
            let logs = server.logs();
            logs[from..]
                .contains("did not answer within 2 s")
                .then_some(())
        },
    )
    .await;
}

/// Waits until the server answers again, by itself.
async fn resumed(server: &Server) {
    eventually("service to resume", || async {
        let status = server.get("/v1/tokens", &server.admin_key).await.status();
        (status == StatusCode::OK).then_some(())
    })
    .await;
    let health: Value = reqwest::get(server.url("/healthz"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok", "{health}");
    let ready = reqwest::get(server.url("/readyz")).await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    assert_eq!(live(server).await, StatusCode::OK);
}

/// Creates tokens until stopped, noting the name of every create the server acknowledged.
fn writer(
    server: &Server,
    stop: Arc<AtomicBool>,
) -> (Arc<Mutex<Vec<String>>>, tokio::task::JoinHandle<()>) {
    let acknowledged: Arc<Mutex<Vec<String>>> = Arc::default();
    let (noted, url, key) = (
        acknowledged.clone(),
        server.url("/v1/tokens"),
        server.admin_key.clone(),
    );
    let task = tokio::spawn(async move {
        let client = reqwest::Client::new();
        for n in 0.. {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let name = format!("write-{n}");
            let sent = client
                .post(&url)
                .bearer_auth(&key)
                .json(&json!({"name": name, "scopes": ["tokens:read"]}))
                .send()
                .await;
            if sent.is_ok_and(|r| r.status() == StatusCode::CREATED) {
                noted.lock().unwrap().push(name);
            }
        }
    });
    (acknowledged, task)
}

/// The names of every token the server lists.
async fn listed_names(server: &Server) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    for page in 1.. {
        let listed: Value = server
            .get(
                &format!("/v1/tokens?per_page=100&page={page}"),
                &server.admin_key,
            )
            .await
            .json()
            .await
            .unwrap();
        let data = listed["data"].as_array().unwrap();
        if data.is_empty() {
            return names;
        }
        names.extend(data.iter().map(|t| t["name"].as_str().unwrap().to_string()));
    }
    names
}

postgres! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_database_lost_while_serving_is_a_503_then_service_resumes_with_every_write_kept() {
        let proxy = Proxy::start(postgres_addr()).await;
        let server = behind(&proxy);
        let stop = Arc::new(AtomicBool::new(false));
        let (acknowledged, task) = writer(&server, stop.clone());
        eventually("writes to be acknowledged", || async {
            (acknowledged.lock().unwrap().len() >= 20).then_some(())
        })
        .await;

        assert_eq!(live(&server).await, StatusCode::OK);
        // Every connection to the database closed, new ones refused.
        proxy.cut();
        unavailable(&server).await;
        let before = acknowledged.lock().unwrap().len();
        proxy.restore().await;
        resumed(&server).await;
        eventually("writes to be acknowledged again", || async {
            (acknowledged.lock().unwrap().len() >= before + 20).then_some(())
        })
        .await;

        // Connections open, nothing passing: a partition. Requests still end, at the limit.
        let logged = server.logs().len();
        proxy.stall();
        unavailable(&server).await;
        gave_up_within_the_limit(&server, logged).await;
        let before = acknowledged.lock().unwrap().len();
        proxy.restore().await;
        resumed(&server).await;
        eventually("writes to be acknowledged again", || async {
            (acknowledged.lock().unwrap().len() >= before + 20).then_some(())
        })
        .await;

        stop.store(true, Ordering::Relaxed);
        task.await.unwrap();
        let stored = listed_names(&server).await;
        let acknowledged = acknowledged.lock().unwrap().clone();
        let lost: Vec<&String> = acknowledged.iter().filter(|n| !stored.contains(*n)).collect();
        assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");
        assert!(acknowledged.len() >= 60, "{}", acknowledged.len());
    }
}

postgres! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_that_finds_every_pool_connection_busy_is_a_503_at_the_acquire_timeout() {
        let proxy = Proxy::start(postgres_addr()).await;
        // One connection for requests; a request waits 1 s for it, an operation 60 s.
        let server = Server::start_with(Options {
            database: Some(through(&proxy, &common::backend::new_database())),
            args: ["--database-timeout", "60s", "--database-pool-size", "1"]
                .into_iter()
                .chain(["--database-acquire-timeout", "1s"])
                .map(String::from)
                .collect(),
            ..Default::default()
        });
        assert_eq!(
            server.get("/v1/tokens", &server.admin_key).await.status(),
            StatusCode::OK
        );

        // Two readiness checks (each asks the database on a request connection, and nothing
        // else: API requests also count themselves on connections of their own) while
        // PostgreSQL answers nothing: whichever takes the one connection waits on the database
        // (up to 60 s); the other finds the pool exhausted and is answered 503 at its acquire
        // timeout, while the first still waits.
        proxy.stall();
        let ready = || reqwest::get(server.url("/readyz"));
        let (first, second) = (ready(), ready());
        tokio::pin!(first, second);
        let (answer, pending) = ends("a request finding the pool busy", async {
            tokio::select! {
                answer = &mut first => (answer, &mut second),
                answer = &mut second => (answer, &mut first),
            }
        })
        .await;
        let answer = answer.unwrap();
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(answer.headers()["retry-after"], "1");
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["error"], "service_unavailable", "{body}");
        let reason = body["message"].as_str().unwrap();
        assert!(
            reason.contains("all 1 connections to PostgreSQL") && reason.contains("stayed busy"),
            "{body}"
        );

        // The request holding the connection ends once PostgreSQL answers again.
        proxy.restore().await;
        let held = ends("the request holding the connection", pending).await;
        assert_eq!(held.unwrap().status(), StatusCode::OK);
        resumed(&server).await;
    }
}

postgres! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_whose_count_cannot_be_sent_is_a_503_at_the_acquire_timeout_and_not_counted() {
        let proxy = Proxy::start(postgres_addr()).await;
        // A request's count waits 1 s to be sent; an operation may take 60 s.
        let server = Server::start_with(Options {
            database: Some(through(&proxy, &common::backend::new_database())),
            args: ["--database-timeout", "60s", "--database-acquire-timeout", "1s"]
                .into_iter()
                .map(String::from)
                .collect(),
            rate_limit: Some(1_000),
            ..Default::default()
        });
        // What is left of the window, and which window (its reset time) it is of.
        let left = |response: &reqwest::Response| -> (u64, String) {
            let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
            (header("x-ratelimit-remaining").parse().unwrap(), header("x-ratelimit-reset"))
        };
        // Counts compare only within one window (a minute). A run that crosses into the next is
        // run again; two runs of a few seconds cannot both cross.
        for _ in 0..2 {
            let (before, window) = left(&server.get("/v1/scopes", &server.admin_key).await);

            // While PostgreSQL answers nothing, one request's count is sent and waits on it (up
            // to 60 s); the next one's cannot be sent meanwhile and is answered 503 at 1 s,
            // never sent.
            proxy.stall();
            let held = proxy.held();
            let first = server.get("/v1/scopes", &server.admin_key);
            tokio::pin!(first);
            tokio::select! {
                answer = &mut first => panic!("answered while PostgreSQL stalls: {}", answer.status()),
                () = eventually("the first count to reach PostgreSQL", || async {
                    (proxy.held() > held).then_some(())
                }) => {}
            }
            let started = std::time::Instant::now();
            let second =
                ends("the request whose count waits", server.get("/v1/scopes", &server.admin_key))
                    .await;
            let waited = started.elapsed();
            assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(second.headers()["retry-after"], "1");
            assert!(waited >= Duration::from_secs(1) && waited < Duration::from_secs(10), "{waited:?}");

            // Once PostgreSQL answers, the first is served, and the window holds exactly the
            // requests let through: the refused one was never counted.
            proxy.restore().await;
            let first = ends("the request whose count was sent", first).await;
            assert_eq!(first.status(), StatusCode::OK);
            let next = server.get("/v1/scopes", &server.admin_key).await;
            let (first, next) = (left(&first), left(&next));
            if next.1 != window {
                continue;
            }
            assert_eq!(first.0, before - 1);
            assert_eq!(next.0, before - 2, "the 503 was counted");
            return;
        }
        panic!("both runs crossed into a new rate-limit window");
    }
}
