//! Every row of the spec's state table (durability across restarts and crashes: restarts.rs).

mod common;

use common::both;

use common::{Options, Server, assert_error, id, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn create_returns_201_with_location_secret_and_active_status() {
        let server = Server::start();
        let response = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "  ci-deploy ", "scopes": ["tokens:read", "tokens:read"],
                        "expires_at": "2099-01-01T00:00:00Z", "unknown_field": true}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers()["location"].to_str().unwrap().to_string();
        let token: Value = response.json().await.unwrap();
        assert_eq!(location, format!("/v1/tokens/{}", id(&token)));
        assert_eq!(token["name"], "ci-deploy");
        assert_eq!(token["scopes"], json!(["tokens:read"]));
        assert_eq!(token["status"], "active");
        assert_eq!(token["expires_at"], "2099-01-01T00:00:00Z");
        assert_eq!(token["last_used_at"], Value::Null);
        assert!(token["created_by"].as_str().unwrap().starts_with("key_"));
        let token_id = id(&token);
        assert_eq!(token_id.len(), 28);
        assert!(
            token_id[4..]
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        );
        let secret = secret(&token);
        assert!(!secret.starts_with("tok_"));

        // The secret is a working credential; reads never show it again, and the first use shows.
        let shown: Value = server.get(&location, &secret).await.json().await.unwrap();
        assert!(shown.get("token").is_none());
        assert_eq!(shown["id"], token_id.as_str());
        assert!(shown["last_used_at"].is_string(), "{shown}");
    }
}

both! {
    #[tokio::test]
    async fn a_token_without_expiry_omits_expires_at() {
        let server = Server::start();
        let token = server.create_token("forever", &["tokens:read"]).await;
        assert!(token.get("expires_at").is_none(), "{token}");
    }
}

both! {
    #[tokio::test]
    async fn a_token_in_use_stops_working_the_moment_it_expires() {
        let server = Server::start_with(Options {
            rate_limit: Some(1_000_000),
            ..Default::default()
        });
        // 5 s: time enough to make and use it first, however loaded the machine.
        let expires_at = chrono::Utc::now() + chrono::Duration::seconds(5);
        let created: Value = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "brief", "scopes": ["tokens:read"], "expires_at": expires_at.to_rfc3339()}),
            )
            .await
            .json()
            .await
            .unwrap();
        // Used (and so cached by the server) while still valid.
        let mut last = server.get("/v1/tokens", &secret(&created)).await;
        assert_eq!(last.status(), StatusCode::OK);
        // Time passes; no job runs, yet no request sent after expires_at is accepted.
        let deadline = expires_at + chrono::Duration::seconds(30);
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(10));
        while last.status() == StatusCode::OK && chrono::Utc::now() < deadline {
            tick.tick().await;
            let sent = chrono::Utc::now();
            last = server.get("/v1/tokens", &secret(&created)).await;
            assert!(
                last.status() != StatusCode::OK || sent < expires_at,
                "accepted a request sent after expires_at"
            );
        }
        let body: Value = last.json().await.unwrap();
        assert_eq!(
            body,
            json!({"error": "unauthorized", "message": "Token has expired", "status": 401})
        );
    }
}

both! {
    #[tokio::test]
    async fn an_expired_token_is_refused_listed_as_expired_and_cannot_rotate() {
        let mut server = Server::start();
        let created = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "short", "scopes": ["tokens:read"], "expires_at": "2099-01-01T00:00:00Z"}),
            )
            .await
            .json::<Value>()
            .await
            .unwrap();
        let token_id = id(&created);
        server.expire_while_stopped(&[&token_id]);

        let response = server.get("/v1/tokens", &secret(&created)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            body,
            json!({"error": "unauthorized", "message": "Token has expired", "status": 401})
        );

        let shown: Value = server
            .get(&format!("/v1/tokens/{token_id}"), &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(shown["status"], "expired");
        let expired: Value = server
            .get("/v1/tokens?status=expired", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(expired["meta"]["total"], 1);

        let rotate = server
            .post(
                &format!("/v1/tokens/{token_id}/rotate"),
                &server.admin_key,
                &json!({}),
            )
            .await;
        let message = assert_error(rotate, 409, "conflict").await;
        assert!(message.contains("expired"), "{message}");

        // An expired token can still be revoked, and its history stays.
        let revoke = server
            .delete(&format!("/v1/tokens/{token_id}"), &server.admin_key)
            .await;
        assert_eq!(revoke.status(), StatusCode::NO_CONTENT);
        let audit: Value = server
            .get(&format!("/v1/audit?token_id={token_id}"), &server.admin_key)
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
        assert_eq!(actions, ["token.revoked", "auth.denied", "token.created"]);
    }
}

both! {
    #[tokio::test]
    async fn rotation_keeps_identity_and_invalidates_the_old_secret() {
        let server = Server::start();
        let created = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "rotating", "scopes": ["tokens:read", "tokens:rotate"],
                        "expires_at": "2099-06-01T12:00:00Z"}),
            )
            .await
            .json::<Value>()
            .await
            .unwrap();
        let token_id = id(&created);
        let old = secret(&created);

        // The token rotates itself (CI self-rotation), with no body.
        let response = server
            .request(
                reqwest::Method::POST,
                &format!("/v1/tokens/{token_id}/rotate"),
                &old,
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let rotated: Value = response.json().await.unwrap();
        let new = secret(&rotated);
        assert_ne!(new, old);
        for field in [
            "id",
            "name",
            "scopes",
            "expires_at",
            "created_at",
            "created_by",
        ] {
            assert_eq!(rotated[field], created[field], "{field} changed");
        }
        assert_eq!(rotated["status"], "active");

        assert_error(server.get("/v1/tokens", &old).await, 401, "unauthorized").await;
        assert_eq!(
            server.get("/v1/tokens", &new).await.status(),
            StatusCode::OK
        );
    }
}

both! {
    #[tokio::test]
    async fn revocation_is_immediate_permanent_and_idempotent_for_callers() {
        let server = Server::start();
        let created = server.create_token("doomed", &["tokens:read"]).await;
        let token_id = id(&created);
        let path = format!("/v1/tokens/{token_id}");
        // Use the secret and read the token first, so any cached copy is warm.
        let before: Value = server
            .get(&path, &secret(&created))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(before["status"], "active");

        let response = server.delete(&path, &server.admin_key).await;
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        assert!(response.bytes().await.unwrap().is_empty());

        assert_error(
            server.get("/v1/tokens", &secret(&created)).await,
            401,
            "unauthorized",
        )
        .await;
        assert_error(
            server.delete(&path, &server.admin_key).await,
            404,
            "not_found",
        )
        .await;
        let rotate = server
            .post(&format!("{path}/rotate"), &server.admin_key, &json!({}))
            .await;
        assert_error(rotate, 404, "not_found").await;

        let shown: Value = server
            .get(&path, &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(shown["status"], "revoked");

        // The name is free again once its token is revoked.
        let again = server.create_token("doomed", &["tokens:read"]).await;
        assert_ne!(id(&again), token_id);
    }
}
