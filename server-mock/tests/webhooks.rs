//! Webhooks end to end: the configuration API and its scopes, signed delivery checked with an
//! independent HMAC, retries across a receiver outage, delivery after a server crash, and 410.
//! The retry schedule and in-flight attempts are in `webhooks/retries.rs`, the per-endpoint
//! cap in `webhooks/slow.rs`.

mod common;

use common::both;
#[path = "webhooks/retries.rs"]
mod retries;
#[path = "webhooks/slow.rs"]
mod slow;

use std::time::Duration;

use common::hooks::{
    attempts, eventually, fast_retries, free_addr, next, receiver, subscribe, verify,
};
use common::{Server, assert_error, id, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

both! {
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
        let secret = created["secret"].as_str().unwrap().as_bytes();
        match common::backend::stored_text(&server.dir) {
            Some(stored) => {
                assert!(stored.contains("whk_"), "the endpoints were read");
                assert!(!stored.contains(created["secret"].as_str().unwrap()));
                assert!(!stored.contains(&hex::encode(secret)));
            }
            None => {
                let db = std::fs::read(server.dir.join("tokctl.db")).unwrap();
                let wal = std::fs::read(server.dir.join("tokctl.db-wal")).unwrap_or_default();
                assert!(
                    !db.windows(secret.len())
                        .chain(wal.windows(secret.len()))
                        .any(|w| w == secret)
                );
            }
        }
    }
}

both! {
    #[tokio::test]
    async fn each_route_needs_its_webhook_scope() {
        let server = Server::start();
        let created = subscribe(&server, "https://example.test/hook", &["token.rotated"]).await;
        let one = format!("/v1/webhooks/{}", created["id"].as_str().unwrap());
        let no_webhooks = secret(&server.create_token("tokens-only", &["tokens:read"]).await);
        let reader = secret(&server.create_token("reader", &["webhooks:read"]).await);

        for path in ["/v1/webhooks".to_string(), one.clone()] {
            let response = server.get(&path, &no_webhooks).await;
            assert_error(response, 403, "forbidden").await;
        }
        let body = json!({"url": "https://x.test/hook", "events": ["token.rotated"]});
        let response = server.post("/v1/webhooks", &reader, &body).await;
        assert_error(response, 403, "forbidden").await;
        let response = server
            .post(&format!("{one}/test"), &reader, &json!({}))
            .await;
        assert_error(response, 403, "forbidden").await;
        let response = server.delete(&one, &reader).await;
        assert_error(response, 403, "forbidden").await;

        // Reading is what webhooks:read allows, and the refused delete changed nothing.
        assert_eq!(server.get(&one, &reader).await.status(), StatusCode::OK);
        let listed: Value = server
            .get("/v1/webhooks", &reader)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(listed["meta"]["total"], 1, "{listed}");
    }
}

both! {
    #[tokio::test]
    async fn an_id_that_cannot_name_an_endpoint_is_a_json_404() {
        let server = Server::start();
        let key = &server.admin_key;
        for path in [
            "/v1/webhooks/%FF",
            "/v1/webhooks/%FF/deliveries",
            "/v1/webhooks/whk_doesnotexist",
            "/v1/webhooks/tok_abcdefghijklmnopqrstuvwx",
        ] {
            let message = assert_error(server.get(path, key).await, 404, "not_found").await;
            assert!(message.contains("webhook endpoint"), "{path}: {message}");
        }
        let response = server.post("/v1/webhooks/%FF/test", key, &json!({})).await;
        assert_error(response, 404, "not_found").await;
        assert_error(
            server.delete("/v1/webhooks/%FF", key).await,
            404,
            "not_found",
        )
        .await;
    }
}

both! {
    #[tokio::test]
    async fn the_sealing_key_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let server = Server::start();
        // The server answers requests only once the key is loaded (it is written on first start).
        subscribe(&server, "https://example.test/hook", &["token.rotated"]).await;
        let key = std::fs::metadata(server.dir.join("webhook.key")).unwrap();
        assert_eq!(key.permissions().mode() & 0o777, 0o600);
        assert_eq!(key.len(), 32);
    }
}

both! {
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
        let queued: Value = queued.json().await.unwrap();
        let test = verify(
            endpoint["secret"].as_str().unwrap(),
            &next(&mut inbox).await,
        );
        assert_eq!(test["type"], "webhook.test");
        assert_eq!(test["id"], queued["id"]);

        // Both attempts are listed, newest first, each with its event, type, result, duration,
        // attempt number and (being delivered) no next retry.
        let listed = eventually("two recorded attempts", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["meta"]["total"] == 2).then_some(listed)
        })
        .await;
        let data = listed["data"].as_array().unwrap();
        let expected = [
            (test["id"].as_str().unwrap(), "webhook.test"),
            (body["id"].as_str().unwrap(), "token.rotated"),
        ];
        for (attempt, (event_id, kind)) in data.iter().zip(expected) {
            assert_eq!(attempt["event_id"], event_id, "{listed}");
            assert_eq!(attempt["type"], kind, "{listed}");
            assert_eq!(attempt["status_code"], 200, "{listed}");
            assert!(attempt["error"].is_null(), "{listed}");
            assert!(attempt["duration_ms"].is_u64(), "{listed}");
            assert_eq!(attempt["attempt"], 1, "{listed}");
            assert!(attempt["next_retry_at"].is_null(), "{listed}");
        }
        let at = |i: usize| {
            chrono::DateTime::parse_from_rfc3339(data[i]["created_at"].as_str().unwrap()).unwrap()
        };
        assert!(at(0) >= at(1), "newest first: {listed}");
    }
}

both! {
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
        eventually("every event to fail once", || async {
            let listed: Value = server
                .get(&path, &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            let mut failed: Vec<&str> = listed["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["error"] == "connection refused")
                .map(|a| a["event_id"].as_str().unwrap())
                .collect();
            failed.sort_unstable();
            failed.dedup();
            (failed.len() == 3).then_some(())
        })
        .await;

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
}

both! {
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
            // The same SQL reads either backend.
            let outbox = |sql: &str| {
                common::backend::one::<Option<String>>(&dir, (sql, &[]), (sql, &[]))
            };
            let rows = outbox(
                "SELECT string_agg(state || ' ' || attempts || ' ' || next_attempt_at, '; ')
                 FROM webhook_deliveries",
            );
            let attempts = outbox(
                "SELECT string_agg(attempt || ' ' || COALESCE(error, '-') || ' ' || created_at, '; ')
                 FROM webhook_attempts",
            );
            panic!(
                "no delivery after the restart; deliveries {rows:?}; attempts {attempts:?}; now {}; server log:\n{}",
                chrono::Utc::now().timestamp_micros(),
                server.logs()
            );
        };
        let body = verify(endpoint["secret"].as_str().unwrap(), &received);
        assert_eq!(body["data"]["id"], id(&token).as_str());
    }
}

both! {
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
        eventually("the endpoint to be disabled", || async {
            let shown: Value = server
                .get(&format!("/v1/webhooks/{endpoint_id}"), &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            (shown["status"] == "disabled").then_some(())
        })
        .await;

        // A test event could not be sent: the API says so instead of queueing it.
        let refused = server
            .post(
                &format!("/v1/webhooks/{endpoint_id}/test"),
                &server.admin_key,
                &json!({}),
            )
            .await;
        let message = assert_error(refused, 409, "conflict").await;
        assert!(message.contains("disabled"), "{message}");
    }
}
