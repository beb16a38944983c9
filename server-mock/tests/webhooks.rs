//! Webhooks end to end: the configuration API, signed delivery checked with an independent
//! HMAC, retries across a receiver outage, delivery after a server crash, and 410.

mod common;

use std::time::Duration;

use common::hooks::{fast_retries, free_addr, next, receiver, subscribe, verify};
use common::{Server, id, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn endpoints_are_configured_through_the_api() {
    let server = Server::start();
    let key = &server.admin_key;
    let created = subscribe(&server, "https://example.test/hook", &["token.rotated"]).await;
    let endpoint_id = created["id"].as_str().unwrap().to_string();
    assert!(endpoint_id.starts_with("whk_"));
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(created["status"], "active");

    let shown: Value = server
        .get(&format!("/v1/webhooks/{endpoint_id}"), key)
        .await
        .json()
        .await
        .unwrap();
    assert!(shown.get("secret").is_none(), "the secret is shown once");
    let listed: Value = server.get("/v1/webhooks", key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 1);

    for body in [
        json!({"url": "ftp://example.test/hook", "events": ["token.rotated"]}),
        json!({"url": "not a url", "events": ["token.rotated"]}),
        json!({"url": "https://example.test/hook", "events": ["token.exploded"]}),
        json!({"url": "https://example.test/hook", "events": []}),
    ] {
        let response = server.post("/v1/webhooks", key, &body).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
    }
    let reader = secret(&server.create_token("reader", &["tokens:read"]).await);
    let response = server
        .post(
            "/v1/webhooks",
            &reader,
            &json!({"url": "https://x.test", "events": ["token.rotated"]}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    assert_eq!(
        server
            .delete(&format!("/v1/webhooks/{endpoint_id}"), key)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        server
            .get(&format!("/v1/webhooks/{endpoint_id}"), key)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );

    // Both changes are in the audit log, newest first (the denied request and the reader's
    // creation lie between them).
    let audit: Value = server
        .get("/v1/audit?per_page=5", key)
        .await
        .json()
        .await
        .unwrap();
    let actions: Vec<&str> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions[0], "webhook.deleted", "{actions:?}");
    assert_eq!(actions.last(), Some(&"webhook.created"), "{actions:?}");

    // The signing secret is not stored in plain text.
    let db = std::fs::read(server.dir.join("tokctl.db")).unwrap();
    let wal = std::fs::read(server.dir.join("tokctl.db-wal")).unwrap_or_default();
    let secret = created["secret"].as_str().unwrap().as_bytes();
    assert!(
        !db.windows(secret.len())
            .chain(wal.windows(secret.len()))
            .any(|w| w == secret)
    );
}

#[tokio::test]
async fn a_rotation_delivers_a_signed_event_without_the_secret() {
    let addr = free_addr();
    let (mut inbox, _task) = receiver(addr, 200).await;
    let server = Server::start_with(fast_retries());
    let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    let token = server.create_token("ci", &["tokens:read"]).await;
    let rotated: Value = server
        .post(
            &format!("/v1/tokens/{}/rotate", id(&token)),
            &server.admin_key,
            &json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    let received = next(&mut inbox).await;
    let body = verify(endpoint["secret"].as_str().unwrap(), &received);
    assert_eq!(body["type"], "token.rotated");
    assert_eq!(body["data"]["id"], id(&token).as_str());
    assert!(body["id"].as_str().unwrap().starts_with("evt_"));
    let raw = String::from_utf8(received.body).unwrap();
    assert!(
        !raw.contains(&secret(&rotated)) && !raw.contains(&secret(&token)),
        "no secret in the payload"
    );

    // A test event, and the attempts are listed.
    let endpoint_id = endpoint["id"].as_str().unwrap();
    let queued = server
        .post(
            &format!("/v1/webhooks/{endpoint_id}/test"),
            &server.admin_key,
            &json!({}),
        )
        .await;
    assert_eq!(queued.status(), StatusCode::ACCEPTED);
    let test = verify(
        endpoint["secret"].as_str().unwrap(),
        &next(&mut inbox).await,
    );
    assert_eq!(test["type"], "webhook.test");
    let mut attempts = Value::Null;
    for _ in 0..100 {
        attempts = server
            .get(
                &format!("/v1/webhooks/{endpoint_id}/deliveries"),
                &server.admin_key,
            )
            .await
            .json()
            .await
            .unwrap();
        if attempts["meta"]["total"] == 2 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(attempts["meta"]["total"], 2, "{attempts}");
    assert_eq!(attempts["data"][0]["status_code"], 200);
    assert_eq!(attempts["data"][0]["attempt"], 1);
}

#[tokio::test]
async fn deliveries_survive_a_receiver_outage() {
    let addr = free_addr();
    let server = Server::start_with(fast_retries());
    let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    let token = server.create_token("ci", &["tokens:read"]).await;
    let mut event_ids = Vec::new();
    for _ in 0..3 {
        let response = server
            .post(
                &format!("/v1/tokens/{}/rotate", id(&token)),
                &server.admin_key,
                &json!({}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    // Wait until every event has failed at least once against the closed port.
    let path = format!(
        "/v1/webhooks/{}/deliveries?per_page=100",
        endpoint["id"].as_str().unwrap()
    );
    let all_failed = async {
        loop {
            let attempts: Value = server
                .get(&path, &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            let mut failed: Vec<&str> = attempts["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["error"] == "connection failed")
                .map(|a| a["event_id"].as_str().unwrap())
                .collect();
            failed.sort_unstable();
            failed.dedup();
            if failed.len() == 3 {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), all_failed)
        .await
        .expect("three failed deliveries");

    // The receiver comes up only now; every event still arrives (at least once).
    let (mut inbox, _task) = receiver(addr, 200).await;
    while event_ids.len() < 3 {
        let body = verify(
            endpoint["secret"].as_str().unwrap(),
            &next(&mut inbox).await,
        );
        let event_id = body["id"].as_str().unwrap().to_string();
        if !event_ids.contains(&event_id) {
            event_ids.push(event_id);
        }
    }
}

#[tokio::test]
async fn pending_deliveries_resume_after_a_crash() {
    let addr = free_addr();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let mut server = Server::start_in(&dir, fast_retries());
    let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    let token = server.create_token("ci", &["tokens:read"]).await;
    server
        .post(
            &format!("/v1/tokens/{}/rotate", id(&token)),
            &server.admin_key,
            &json!({}),
        )
        .await;
    server.crash();

    let (mut inbox, _task) = receiver(addr, 200).await;
    let server = Server::start_in(&dir, fast_retries());
    let received = tokio::time::timeout(Duration::from_secs(20), inbox.recv()).await;
    let Ok(Some(received)) = received else {
        let db = rusqlite::Connection::open(dir.join("tokctl.db")).unwrap();
        let rows: Vec<String> = db
            .prepare("SELECT state || ' ' || attempts || ' ' || leased || ' ' || next_attempt_at FROM webhook_deliveries")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let attempts: Vec<String> = db
            .prepare("SELECT attempt || ' ' || COALESCE(status_code, '-') || ' ' || COALESCE(error, '-') || ' ' || created_at FROM webhook_attempts")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        panic!(
            "no delivery after the restart; deliveries {rows:?}; attempts {attempts:?}; now {}; server log:\n{}",
            chrono::Utc::now().timestamp_micros(),
            server.logs()
        );
    };
    let body = verify(endpoint["secret"].as_str().unwrap(), &received);
    assert_eq!(body["data"]["id"], id(&token).as_str());
}

#[tokio::test]
async fn a_410_disables_the_endpoint() {
    let addr = free_addr();
    let (mut inbox, _task) = receiver(addr, 410).await;
    let server = Server::start_with(fast_retries());
    let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    let endpoint_id = endpoint["id"].as_str().unwrap();
    server
        .post(
            &format!("/v1/webhooks/{endpoint_id}/test"),
            &server.admin_key,
            &json!({}),
        )
        .await;
    next(&mut inbox).await;
    let mut shown = Value::Null;
    for _ in 0..100 {
        shown = server
            .get(&format!("/v1/webhooks/{endpoint_id}"), &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        if shown["status"] == "disabled" {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(shown["status"], "disabled");
}

#[tokio::test]
async fn a_slow_endpoint_does_not_hold_up_the_others() {
    // A receiver that accepts connections and never answers.
    let stuck = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stuck_addr = stuck.local_addr().unwrap();
    let _hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = stuck.accept().await {
            held.push(socket);
        }
    });
    let addr = free_addr();
    let (mut inbox, _task) = receiver(addr, 200).await;
    let server = Server::start_with(fast_retries());
    let slow = subscribe(
        &server,
        &format!("http://{stuck_addr}/hook"),
        &["token.rotated"],
    )
    .await;
    subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    let token = server.create_token("ci", &["tokens:read"]).await;
    server
        .post(
            &format!("/v1/tokens/{}/rotate", id(&token)),
            &server.admin_key,
            &json!({}),
        )
        .await;

    next(&mut inbox).await;
    // The stuck endpoint's attempt (10 s timeout) has not even finished.
    let attempts: Value = server
        .get(
            &format!("/v1/webhooks/{}/deliveries", slow["id"].as_str().unwrap()),
            &server.admin_key,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(attempts["meta"]["total"], 0);
}
