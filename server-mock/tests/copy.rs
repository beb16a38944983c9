//! `tokctl-server admin copy-to-postgres`: a SQLite data directory filled through the API,
//! copied into an empty PostgreSQL database and served from it: every list reads the same and
//! every old secret behaves as before, and a delivery pending at the copy is made afterwards.

mod common;

use std::time::Duration;

use common::hooks::{attempts, eventually, free_addr, receiver, subscribe, verify};
use common::{Options, Server, id, postgres, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// What a client reads from a server: every list, by path.
async fn lists(server: &Server, key: &str, paths: &[String]) -> Vec<Value> {
    let mut read = Vec::new();
    for path in paths {
        let response = server.get(path, key).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        read.push(response.json().await.unwrap());
    }
    read
}

/// Secrets of the data, each with the status a request with it gets.
struct Secrets {
    admin: String,
    other_workspace: String,
    expect: Vec<(String, StatusCode)>,
}

postgres! {
    #[tokio::test]
    async fn a_sqlite_data_directory_copied_to_postgres_serves_as_before() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let hook = free_addr();
        let (secrets, paths, before) = common::backend::on_sqlite(fill(&dir, hook)).await;

        let url = common::backend::new_database();
        let copy = |url: &str| {
            std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
                .args(["admin", "copy-to-postgres", "--data-dir"])
                .arg(&dir)
                .args(["--database-url", url])
                .env_remove("TOKCTL_DATABASE_URL")
                .output()
                .unwrap()
        };
        let output = copy(&url);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let said = String::from_utf8(output.stdout).unwrap();
        assert!(said.contains("tokens") && said.contains("webhook.key"), "{said}");
        // A second copy into the same (now full) database is refused, changing nothing.
        let again = copy(&url);
        assert_eq!(again.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&again.stderr).contains("already holds data"));

        let (mut inbox, _task) = receiver(hook, 200).await;
        let key_file = dir.join("webhook.key").display().to_string();
        let mut server = Server::start_with(Options {
            database: Some(url),
            args: vec!["--webhook-key-file".into(), key_file],
            ..Default::default()
        });
        server.admin_key = secrets.admin.clone();
        assert_eq!(lists(&server, &secrets.admin, &paths).await, before);
        let acme: Value = server.get("/v1/tokens", &secrets.other_workspace).await.json().await.unwrap();
        assert_eq!(acme["meta"]["total"], 1, "{acme}");
        for (secret, status) in &secrets.expect {
            assert_eq!(server.get("/v1/tokens", secret).await.status(), *status);
        }

        // The delivery that was waiting for its retry is made from PostgreSQL, signed with
        // the secret sealed in SQLite.
        let endpoint: Value = before[before.len() - 2]["data"][0].clone();
        let received = tokio::time::timeout(Duration::from_secs(20), inbox.recv())
            .await
            .expect("the pending delivery")
            .unwrap();
        let body = verify(&secrets_of(&dir), &received);
        assert_eq!(body["type"], "token.rotated");
        let endpoint_id = endpoint["id"].as_str().unwrap();
        eventually("the delivery to be recorded", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["data"][0]["status_code"] == 200).then_some(())
        })
        .await;
        assert!(server.stop());
    }
}

/// The signing secret the fill step saved beside the data directory.
fn secrets_of(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.with_file_name("endpoint.secret")).unwrap()
}

/// Fills a SQLite data directory through the API and stops its server; returns the secrets,
/// the list paths, and what they read.
async fn fill(
    dir: &std::path::Path,
    hook: std::net::SocketAddr,
) -> (Secrets, Vec<String>, Vec<Value>) {
    let mut server = Server::start_in(
        dir,
        Options {
            // The first attempt fails (nothing listens yet); the retry comes after the copy.
            args: vec![
                "--webhook-retry-schedule".into(),
                "5s".into(),
                "--sim-token-delay-ms".into(),
                "0".into(),
            ],
            ..Default::default()
        },
    );
    let key = server.admin_key.clone();
    let other_workspace = server.admin(&["create-workspace", "acme"]);
    let endpoint = subscribe(&server, &format!("http://{hook}/hook"), &["token.rotated"]).await;
    std::fs::write(
        dir.with_file_name("endpoint.secret"),
        endpoint["secret"].as_str().unwrap(),
    )
    .unwrap();

    let mut expect = Vec::new();
    let kept = server.create_token("kept", &["tokens:read"]).await;
    expect.push((secret(&kept), StatusCode::OK));
    let rotated = server
        .create_token("rotated", &["tokens:read", "tokens:rotate"])
        .await;
    let new: Value = server
        .post(
            &format!("/v1/tokens/{}/rotate", id(&rotated)),
            &key,
            &json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    expect.push((secret(&rotated), StatusCode::UNAUTHORIZED));
    expect.push((secret(&new), StatusCode::OK));
    let revoked = server.create_token("revoked", &["tokens:read"]).await;
    server
        .delete(&format!("/v1/tokens/{}", id(&revoked)), &key)
        .await;
    expect.push((secret(&revoked), StatusCode::UNAUTHORIZED));
    let soon = (chrono::Utc::now() + chrono::Duration::days(3)).to_rfc3339();
    let expiring: Value = server
        .post(
            "/v1/tokens",
            &key,
            &json!({"name": "expiring", "scopes": ["tokens:read"], "expires_at": soon}),
        )
        .await
        .json()
        .await
        .unwrap();
    expect.push((secret(&expiring), StatusCode::OK));
    let acme: Value = server
        .post(
            "/v1/tokens",
            &other_workspace,
            &json!({"name": "acme-ci", "scopes": ["tokens:read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    expect.push((secret(&acme), StatusCode::OK));
    // Each token is used once: its first use is written at once, so the lists read below are
    // what the copy holds.
    for (secret, status) in &expect {
        assert_eq!(server.get("/v1/tokens", secret).await.status(), *status);
    }
    for _ in 0..3 {
        let ask = json!({"model": "auto", "messages": [{"role": "user", "content": "hello"}]});
        server.post("/v1/chat/completions", &key, &ask).await;
    }
    // The workspace's settings (and their audit entry) are copied too.
    let settings = server
        .request(reqwest::Method::PUT, "/v1/settings", &key)
        .json(&json!({"store_bodies": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(settings.status(), StatusCode::OK);
    let endpoint_id = endpoint["id"].as_str().unwrap();
    eventually(
        "the first attempt to fail and wait for its retry",
        || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["data"][0]["next_retry_at"].is_string()).then_some(())
        },
    )
    .await;

    let paths: Vec<String> = [
        "/v1/settings",
        "/v1/tokens?per_page=100",
        "/v1/tokens?status=revoked",
        "/v1/tokens?status=active&per_page=2&page=2",
        "/v1/audit?per_page=100",
        &format!("/v1/tokens/{}", id(&new)),
        "/v1/usage",
        "/v1/webhooks",
        &format!("/v1/webhooks/{endpoint_id}/deliveries"),
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    let before = lists(&server, &key, &paths).await;
    assert!(server.stop());
    let secrets = Secrets {
        admin: key,
        other_workspace,
        expect,
    };
    (secrets, paths, before)
}
