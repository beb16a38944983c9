//! Durability: what a restart, a crash or SIGTERM keeps, on both backends.

mod common;

use common::both;

use common::{Options, Server, id, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn restart_keeps_every_token_status_and_audit_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let mut server = Server::start_in(&dir, Options::default());
        let active = server.create_token("stays-active", &["tokens:read"]).await;
        let rotated = server.create_token("gets-rotated", &["tokens:read"]).await;
        let revoked = server.create_token("gets-revoked", &["tokens:read"]).await;
        let expired = server.create_token("gets-expired", &["tokens:read"]).await;
        let rotation: Value = server
            .post(
                &format!("/v1/tokens/{}/rotate", id(&rotated)),
                &server.admin_key,
                &json!({}),
            )
            .await
            .json()
            .await
            .unwrap();
        server
            .delete(&format!("/v1/tokens/{}", id(&revoked)), &server.admin_key)
            .await;
        server.expire_while_stopped(&[&id(&expired)]);
        let tokens_before: Value = server
            .get("/v1/tokens", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        let audit_before: Value = server
            .get("/v1/audit", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert!(server.stop(), "SIGTERM should stop the server cleanly");
        assert!(server.logs().contains("store closed"));

        let server = Server::start_in(&dir, Options::default());
        let tokens_after: Value = server
            .get("/v1/tokens", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        let audit_after: Value = server
            .get("/v1/audit", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(tokens_after, tokens_before);
        assert_eq!(audit_after, audit_before);
        assert_eq!(tokens_after["meta"]["total"], 4);
        assert_eq!(
            server.get("/v1/tokens", &secret(&active)).await.status(),
            StatusCode::OK
        );
        assert_eq!(
            server.get("/v1/tokens", &secret(&rotation)).await.status(),
            StatusCode::OK
        );
        for stale in [secret(&rotated), secret(&revoked), secret(&expired)] {
            assert_eq!(
                server.get("/v1/tokens", &stale).await.status(),
                StatusCode::UNAUTHORIZED
            );
        }
    }
}

both! {
    #[tokio::test]
    async fn an_acknowledged_rotation_survives_a_crash() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let mut server = Server::start_in(&dir, Options::default());
        let created = server.create_token("crash", &["tokens:read"]).await;
        let rotation: Value = server
            .post(
                &format!("/v1/tokens/{}/rotate", id(&created)),
                &server.admin_key,
                &json!({}),
            )
            .await
            .json()
            .await
            .unwrap();
        let revoked = server.create_token("crash-revoked", &["tokens:read"]).await;
        server
            .delete(&format!("/v1/tokens/{}", id(&revoked)), &server.admin_key)
            .await;
        server.crash();

        let server = Server::start_in(&dir, Options::default());
        assert_eq!(
            server.get("/v1/tokens", &secret(&created)).await.status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            server.get("/v1/tokens", &secret(&revoked)).await.status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            server.get("/v1/tokens", &secret(&rotation)).await.status(),
            StatusCode::OK
        );
    }
}

both! {
    #[tokio::test]
    async fn last_used_is_kept_across_a_clean_restart() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let mut server = Server::start_in(&dir, Options::default());
        let created = server.create_token("used", &["tokens:read"]).await;
        let path = format!("/v1/tokens/{}", id(&created));
        server.get(&path, &secret(&created)).await;
        let first: Value = server
            .get(&path, &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        server.get(&path, &secret(&created)).await;
        let second: Value = server
            .get(&path, &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        let at = |v: &Value| {
            chrono::DateTime::parse_from_rfc3339(v["last_used_at"].as_str().unwrap()).unwrap()
        };
        assert!(at(&second) > at(&first), "the second use shows");
        assert!(server.stop());

        let server = Server::start_in(&dir, Options::default());
        let after: Value = server
            .get(&path, &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(after["last_used_at"], second["last_used_at"]);
    }
}

both! {
    #[tokio::test]
    async fn only_the_first_start_prints_the_admin_key() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let mut first = Server::start_in(&dir, Options::default());
        assert!(first.stop());
        assert!(first.stdout().contains(&first.admin_key));

        let mut second = Server::start_in(&dir, Options::default());
        assert!(second.stop());
        assert_eq!(second.admin_key, first.admin_key);
        assert!(!second.stdout().contains(&second.admin_key));
        assert!(
            second.logs().contains("admin.key"),
            "later starts say where the key is"
        );
    }
}

both! {
    #[tokio::test]
    async fn sigterm_lets_a_request_in_flight_finish() {
        use futures::StreamExt;
        let mut server = Server::start_with(Options {
            args: vec!["--sim-token-delay-ms".into(), "30".into()],
            ..Default::default()
        });
        let response = server
            .post(
                "/v1/chat/completions",
                &server.admin_key,
                &json!({"model": "sim-pro", "max_tokens": 20, "stream": true,
                        "messages": [{"role": "user", "content": "finish what you started"}]}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut body = response.bytes_stream();
        assert!(body.next().await.expect("a first chunk").is_ok());
        server.terminate();
        let mut rest = Vec::new();
        while let Some(chunk) = body.next().await {
            rest.extend_from_slice(&chunk.expect("the stream is not cut"));
        }
        let rest = String::from_utf8(rest).unwrap();
        assert!(rest.contains("\"finish_reason\":\"length\""), "{rest}");
        assert!(rest.trim_end().ends_with("data: [DONE]"), "{rest}");
        assert!(server.wait(), "the server then exits cleanly");
    }
}

both! {
    #[tokio::test]
    async fn readyz_is_503_naming_a_database_that_a_newer_server_migrated() {
        let server = Server::start();
        let ready = || async { reqwest::get(server.url("/readyz")).await.unwrap() };
        assert_eq!(ready().await.status(), StatusCode::OK);

        // A newer server, beside this one, migrates the database past what this one knows.
        let known: i64 = common::backend::one(
            &server.dir,
            ("PRAGMA user_version", &[]),
            ("SELECT MAX(version)::bigint FROM schema_migrations", &[]),
        );
        let changed = |sqlite: &str, postgres: &str| {
            common::backend::execute(&server.dir, (sqlite, &[]), (postgres, &[]));
        };
        changed(
            "PRAGMA user_version = 1000",
            "INSERT INTO schema_migrations (version) VALUES (1000)",
        );
        let refused = ready().await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()["retry-after"], "1");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"], "service_unavailable", "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("migrated by a newer tokctl-server (schema version 1000; this one knows {known})"))
                && message.ends_with("upgrade this server"),
            "{message}"
        );
        let health = reqwest::get(server.url("/healthz")).await.unwrap();
        assert_eq!(health.status(), StatusCode::SERVICE_UNAVAILABLE);
        let health: Value = health.json().await.unwrap();
        assert_eq!(health, json!({"status": "unavailable", "database": "newer_schema"}));

        // Back to the schema it knows (the newer server rolled back): ready again.
        changed(
            &format!("PRAGMA user_version = {known}"),
            "DELETE FROM schema_migrations WHERE version = 1000",
        );
        assert_eq!(ready().await.status(), StatusCode::OK);
    }
}
