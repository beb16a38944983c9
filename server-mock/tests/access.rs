//! Scopes, workspaces, admin credentials and the audit log.

mod common;

use common::both;

use common::{Server, assert_error, id, secret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn each_endpoint_needs_its_scope() {
        let server = Server::start();
        let target = id(&server.create_token("target", &["tokens:read"]).await);
        let read_only = secret(&server.create_token("reader", &["tokens:read"]).await);
        let no_scope_for_reads = secret(&server.create_token("writer", &["tokens:write"]).await);
        let body = json!({"name": "new", "scopes": ["tokens:read"]});

        let forbidden = [
            (
                server.post("/v1/tokens", &read_only, &body).await,
                "tokens:write",
            ),
            (
                server
                    .post(
                        &format!("/v1/tokens/{target}/rotate"),
                        &read_only,
                        &json!({}),
                    )
                    .await,
                "tokens:rotate",
            ),
            (
                server
                    .delete(&format!("/v1/tokens/{target}"), &read_only)
                    .await,
                "tokens:revoke",
            ),
            (server.get("/v1/audit", &read_only).await, "audit:read"),
            (
                server.get("/v1/tokens", &no_scope_for_reads).await,
                "tokens:read",
            ),
            (
                server
                    .get(&format!("/v1/tokens/{target}"), &no_scope_for_reads)
                    .await,
                "tokens:read",
            ),
        ];
        for (response, scope) in forbidden {
            let message = assert_error(response, 403, "forbidden").await;
            assert!(message.contains(scope), "{message}");
        }
        // Scope is checked before the body is read: a bad body from a read-only key is still 403.
        let response = server
            .request(Method::POST, "/v1/tokens", &read_only)
            .header("content-type", "application/json")
            .body("{oops")
            .send()
            .await
            .unwrap();
        assert_error(response, 403, "forbidden").await;
        // Any valid credential may list scopes.
        assert_eq!(
            server.get("/v1/scopes", &read_only).await.status(),
            StatusCode::OK
        );
    }
}

both! {
    #[tokio::test]
    async fn a_credential_cannot_grant_scopes_it_does_not_hold() {
        let server = Server::start();
        let writer = secret(
            &server
                .create_token("writer", &["tokens:write", "tokens:read"])
                .await,
        );
        let response = server
            .post(
                "/v1/tokens",
                &writer,
                &json!({"name": "escalate", "scopes": ["tokens:read", "tokens:revoke"]}),
            )
            .await;
        let message = assert_error(response, 403, "forbidden").await;
        assert!(message.contains("tokens:revoke"), "{message}");

        let response = server
            .post(
                "/v1/tokens",
                &writer,
                &json!({"name": "subset", "scopes": ["tokens:read"]}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let child: Value = response.json().await.unwrap();
        assert!(child["created_by"].as_str().unwrap().starts_with("tok_"));
    }
}

both! {
    #[tokio::test]
    async fn tokens_of_another_workspace_are_not_found_on_every_id_endpoint() {
        let server = Server::start();
        let theirs = id(&server.create_token("theirs", &["tokens:read"]).await);
        let other_key = server.admin(&["create-workspace", "acme"]);
        assert!(other_key.starts_with("tka_"));

        let path = format!("/v1/tokens/{theirs}");
        assert_error(server.get(&path, &other_key).await, 404, "not_found").await;
        let rotate = server
            .post(&format!("{path}/rotate"), &other_key, &json!({}))
            .await;
        assert_error(rotate, 404, "not_found").await;
        assert_error(server.delete(&path, &other_key).await, 404, "not_found").await;
        let listed: Value = server
            .get("/v1/tokens", &other_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(listed["meta"]["total"], 0);

        // Names are per workspace, and the original token is untouched.
        let response = server
            .post(
                "/v1/tokens",
                &other_key,
                &json!({"name": "theirs", "scopes": ["tokens:read"]}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let shown: Value = server
            .get(&path, &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(shown["status"], "active");
    }
}

both! {
    #[tokio::test]
    async fn admin_keys_work_at_once_against_a_running_server() {
        let server = Server::start();
        let reader = server.admin(&[
            "create-key",
            "--workspace",
            "default",
            "--scope",
            "tokens:read",
        ]);
        assert_eq!(
            server.get("/v1/tokens", &reader).await.status(),
            StatusCode::OK
        );
        let response = server
            .post(
                "/v1/tokens",
                &reader,
                &json!({"name": "x", "scopes": ["tokens:read"]}),
            )
            .await;
        assert_error(response, 403, "forbidden").await;

        let output = server
            .admin_command()
            .args(["create-key", "--workspace", "nope"])
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("nope"));
    }
}

both! {
    #[tokio::test]
    async fn the_admin_key_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let server = Server::start();
        let mode = std::fs::metadata(server.dir.join("admin.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(&server.dir).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o077, 0, "data directory is private");
    }
}

both! {
    #[tokio::test]
    async fn the_audit_log_records_mutations_and_denials_newest_first() {
        let server = Server::start();
        let key = &server.admin_key;
        let created = server.create_token("audited", &["tokens:read"]).await;
        let token_id = id(&created);
        // Denied: the token lacks tokens:revoke, so it may not revoke itself.
        let response = server
            .request(
                Method::DELETE,
                &format!("/v1/tokens/{token_id}"),
                &secret(&created),
            )
            .header("x-request-id", "denied-request-1")
            .send()
            .await
            .unwrap();
        assert_error(response, 403, "forbidden").await;
        server
            .post(&format!("/v1/tokens/{token_id}/rotate"), key, &json!({}))
            .await;
        // The old secret no longer works; an unknown secret names no workspace to audit in.
        let response = server.get("/v1/tokens", &secret(&created)).await;
        assert_error(response, 401, "unauthorized").await;
        let response = server
            .request(Method::DELETE, &format!("/v1/tokens/{token_id}"), key)
            .header("x-request-id", "revoke-request-1")
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["x-request-id"], "revoke-request-1");
        let reader = server.create_token("reader", &["tokens:read"]).await;
        let response = server.get("/v1/audit", &secret(&reader)).await;
        assert_error(response, 403, "forbidden").await;

        let audit: Value = server.get("/v1/audit", key).await.json().await.unwrap();
        let entries = audit["data"].as_array().unwrap();
        let actions: Vec<&str> = entries
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        assert_eq!(
            actions,
            [
                "auth.denied",
                "token.created",
                "token.revoked",
                "token.rotated",
                "auth.denied",
                "token.created"
            ]
        );
        let denied = &entries[4];
        assert_eq!(denied["token_id"], token_id.as_str());
        assert_eq!(denied["actor"], token_id.as_str());
        assert_eq!(denied["request_id"], "denied-request-1");
        let revoked = &entries[2];
        assert_eq!(revoked["token_id"], token_id.as_str());
        assert_eq!(revoked["request_id"], "revoke-request-1");
        assert!(revoked["actor"].as_str().unwrap().starts_with("key_"));
        assert!(revoked["id"].as_str().unwrap().starts_with("aud_"));
        assert!(revoked["created_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(entries[0]["actor"], id(&reader).as_str());

        let filtered: Value = server
            .get(
                &format!("/v1/audit?token_id={token_id}&action=token.rotated"),
                key,
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(filtered["meta"]["total"], 1);
        assert_eq!(filtered["data"][0]["action"], "token.rotated");
        let paged: Value = server
            .get("/v1/audit?per_page=2&page=2", key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(paged["data"][0]["id"], entries[2]["id"]);
        assert_eq!(paged["meta"], json!({"page": 2, "per_page": 2, "total": 6}));
    }
}
