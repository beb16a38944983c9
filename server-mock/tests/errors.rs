//! Every row of the spec's error table and bad input of every kind (listing bounds: listing.rs).

mod common;

use common::both;

use common::{Server, assert_error, id, secret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

async fn post_raw(server: &Server, content_type: Option<&str>, body: Vec<u8>) -> reqwest::Response {
    let mut request = server
        .request(Method::POST, "/v1/tokens", &server.admin_key)
        .body(body);
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    request.send().await.unwrap()
}

both! {
    #[tokio::test]
    async fn malformed_bodies_are_400_with_the_error_body() {
        let server = Server::start();
        let json = Some("application/json");
        let cases: Vec<(&str, Option<&str>, Vec<u8>)> = vec![
            ("invalid JSON", json, b"{\"name\": ".to_vec()),
            ("not an object", json, b"[1, 2]".to_vec()),
            (
                "missing name",
                json,
                br#"{"scopes": ["tokens:read"]}"#.to_vec(),
            ),
            ("missing scopes", json, br#"{"name": "x"}"#.to_vec()),
            (
                "name of wrong type",
                json,
                br#"{"name": 5, "scopes": ["tokens:read"]}"#.to_vec(),
            ),
            (
                "scopes of wrong type",
                json,
                br#"{"name": "x", "scopes": "tokens:read"}"#.to_vec(),
            ),
            (
                "expires_at of wrong type",
                json,
                br#"{"name": "x", "scopes": ["tokens:read"], "expires_at": 5}"#.to_vec(),
            ),
            ("empty body", json, Vec::new()),
            (
                "non-UTF-8",
                json,
                b"{\"name\": \"\xff\xfe\", \"scopes\": []}".to_vec(),
            ),
            (
                "no content type",
                None,
                br#"{"name": "x", "scopes": ["tokens:read"]}"#.to_vec(),
            ),
            (
                "text/plain",
                Some("text/plain"),
                br#"{"name": "x", "scopes": ["tokens:read"]}"#.to_vec(),
            ),
            (
                "form",
                Some("application/x-www-form-urlencoded"),
                b"name=x".to_vec(),
            ),
        ];
        for (what, content_type, body) in cases {
            let response = post_raw(&server, content_type, body).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{what}");
            assert_error(response, 400, "bad_request").await;
        }
        let listed: Value = server
            .get("/v1/tokens", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            listed["meta"]["total"], 0,
            "nothing was created by bad input"
        );
    }
}

both! {
    #[tokio::test]
    async fn json_with_a_charset_parameter_is_accepted() {
        let server = Server::start();
        let body = br#"{"name": "charset", "scopes": ["tokens:read"]}"#.to_vec();
        let response = post_raw(&server, Some("Application/JSON; charset=utf-8"), body).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
}

both! {
    #[tokio::test]
    async fn a_body_over_64_kib_is_400_not_413() {
        let server = Server::start();
        let name = "x".repeat(70 * 1024);
        let body = serde_json::to_vec(&json!({"name": name, "scopes": ["tokens:read"]})).unwrap();
        let response = post_raw(&server, Some("application/json"), body).await;
        let message = assert_error(response, 400, "bad_request").await;
        assert!(message.contains("65536"), "{message}");
    }
}

both! {
    #[tokio::test]
    async fn rotate_and_revoke_check_a_body_they_do_not_need() {
        let server = Server::start();
        let token = server.create_token("bodies", &["tokens:read"]).await;
        let rotate = format!("/v1/tokens/{}/rotate", id(&token));
        let send = |method: Method, path: &str, content_type: &str, body: Vec<u8>| {
            server
                .request(method, path, &server.admin_key)
                .header("content-type", content_type)
                .body(body)
                .send()
        };
        let text = send(
            Method::POST,
            &rotate,
            "text/plain",
            b"rotate please".to_vec(),
        );
        assert_error(text.await.unwrap(), 400, "bad_request").await;
        let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(70 * 1024)).into_bytes();
        let oversized = send(Method::POST, &rotate, "application/json", huge);
        assert_error(oversized.await.unwrap(), 400, "bad_request").await;
        let broken = send(Method::POST, &rotate, "application/json", b"{".to_vec());
        assert_error(broken.await.unwrap(), 400, "bad_request").await;
        let revoke = format!("/v1/tokens/{}", id(&token));
        let text = send(Method::DELETE, &revoke, "text/plain", b"bye".to_vec());
        assert_error(text.await.unwrap(), 400, "bad_request").await;
        // None of the refused requests changed the token; an empty or JSON body is fine.
        let old = secret(&token);
        assert_eq!(server.get("/v1/tokens", &old).await.status(), 200);
        let rotated = send(Method::POST, &rotate, "application/json", b"{}".to_vec());
        assert_eq!(rotated.await.unwrap().status(), 200);
        let revoked = server.delete(&revoke, &server.admin_key).await;
        assert_eq!(revoked.status(), 204);
    }
}

both! {
    #[tokio::test]
    async fn invalid_values_are_422_naming_the_field() {
        let server = Server::start();
        let cases = [
            (
                json!({"name": "x", "scopes": ["tokens:read"], "expires_at": "next tuesday"}),
                "expires_at",
            ),
            (
                json!({"name": "x", "scopes": ["tokens:read"], "expires_at": "2001-01-01T00:00:00Z"}),
                "expires_at",
            ),
            (
                json!({"name": "x", "scopes": ["tokens:read"], "expires_at": "2099-01-01T00:00:00"}),
                "expires_at",
            ),
            (json!({"name": "x", "scopes": ["tokens:fly"]}), "scopes"),
            (json!({"name": "x", "scopes": []}), "scopes"),
            (json!({"name": "   ", "scopes": ["tokens:read"]}), "name"),
            (
                json!({"name": "a".repeat(101), "scopes": ["tokens:read"]}),
                "name",
            ),
            (
                json!({"name": "bell\u{7}", "scopes": ["tokens:read"]}),
                "name",
            ),
        ];
        for (body, field) in cases {
            let response = server.post("/v1/tokens", &server.admin_key, &body).await;
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(message.contains(field), "{body}: {message}");
        }
    }
}

both! {
    #[tokio::test]
    async fn a_duplicate_name_is_409() {
        let server = Server::start();
        server.create_token("dup", &["tokens:read"]).await;
        let response = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "dup", "scopes": ["tokens:read"]}),
            )
            .await;
        assert_error(response, 409, "conflict").await;
    }
}

both! {
    #[tokio::test]
    async fn missing_malformed_and_unknown_credentials_are_401() {
        let server = Server::start();
        let url = server.url("/v1/tokens");
        let client = reqwest::Client::new();
        let fake = format!("tka_{}", "A".repeat(36));
        let headers: Vec<Option<String>> = vec![
            None,
            Some(String::new()),
            Some("Bearer".into()),
            Some("Bearer ".into()),
            Some(format!("Basic {}", server.admin_key)),
            Some("Bearer tok_nothing".into()),
            Some(format!("Bearer {fake}")),
            Some(format!("Bearer {}x", server.admin_key)),
        ];
        for header in headers {
            let mut request = client.get(&url);
            if let Some(value) = &header {
                request = request.header("authorization", value);
            }
            let response = request.send().await.unwrap();
            assert_error(response, 401, "unauthorized").await;
        }
        // A header value with bytes that are not text.
        let value = reqwest::header::HeaderValue::from_bytes(b"Bearer \xff\xfe").unwrap();
        let response = client
            .get(&url)
            .header("authorization", value)
            .send()
            .await
            .unwrap();
        assert_error(response, 401, "unauthorized").await;
    }
}

both! {
    #[tokio::test]
    async fn unknown_and_malformed_ids_and_routes_are_404() {
        let server = Server::start();
        let key = &server.admin_key;
        let unknown = "tok_000000000000000000000000";
        for path in [
            format!("/v1/tokens/{unknown}"),
            "/v1/tokens/not-a-token".to_string(),
            "/v1/tokens/tok_UPPERCASE".to_string(),
            "/v1/tokens/%FF%FE".to_string(),
            "/v1/nothing-here".to_string(),
            "/nothing".to_string(),
        ] {
            assert_error(server.get(&path, key).await, 404, "not_found").await;
        }
        assert_error(
            server.delete(&format!("/v1/tokens/{unknown}"), key).await,
            404,
            "not_found",
        )
        .await;
        let rotate = server
            .post(&format!("/v1/tokens/{unknown}/rotate"), key, &json!({}))
            .await;
        assert_error(rotate, 404, "not_found").await;
        let patch = server
            .request(Method::PATCH, "/v1/tokens", key)
            .send()
            .await
            .unwrap();
        assert_error(patch, 404, "not_found").await;
    }
}

both! {
    #[tokio::test]
    async fn health_scopes_and_openapi_answer() {
        let server = Server::start();
        let health: Value = reqwest::get(server.url("/healthz"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(health["status"], "ok");
        let live = reqwest::get(server.url("/livez")).await.unwrap();
        assert_eq!(live.status(), 200);
        assert_eq!(live.json::<Value>().await.unwrap(), json!({"status": "ok"}));
        let ready = reqwest::get(server.url("/readyz")).await.unwrap();
        assert_eq!(ready.status(), 200);
        let mut ready: Value = ready.json().await.unwrap();
        // How the server reaches PostgreSQL (the local one offers TLS, which loopback prefers);
        // nothing on SQLite.
        let tls = ready.as_object_mut().unwrap().remove("database_tls");
        match common::backend::current() {
            common::backend::Backend::Sqlite => assert_eq!(tls, None),
            common::backend::Backend::Postgres(_) => {
                let tls = tls.expect("database_tls on PostgreSQL");
                let tls = tls.as_str().unwrap();
                assert!(
                    tls.starts_with("TLS 1.") || tls.starts_with("not encrypted"),
                    "{tls}"
                );
            }
        }
        assert_eq!(ready, json!({"status": "ok", "database": "ok"}));
        let post = reqwest::Client::new()
            .post(server.url("/healthz"))
            .send()
            .await
            .unwrap();
        assert_eq!(post.status(), 404, "no 405: the spec lists none");
        let body: Value = post.json().await.unwrap();
        assert_eq!(body["error"], "not_found");

        let scopes: Value = server
            .get("/v1/scopes", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        let names: Vec<&str> = scopes["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "tokens:read",
                "tokens:write",
                "tokens:rotate",
                "tokens:revoke",
                "audit:read",
                "webhooks:read",
                "webhooks:write",
                "chat:write",
                "usage:read",
                "keys:read",
                "keys:write",
                "x402:read",
                "x402:write",
                "requests:read",
                "settings:read",
                "settings:write"
            ]
        );
        assert!(
            scopes["data"][0]["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty())
        );
        assert_eq!(scopes["meta"]["total"], 16);

        let doc: Value = reqwest::get(server.url("/v1/openapi.json"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        for (path, method) in [
            ("/v1/tokens", "post"),
            ("/v1/tokens", "get"),
            ("/v1/tokens/{id}", "get"),
            ("/v1/tokens/{id}", "delete"),
            ("/v1/tokens/{id}/rotate", "post"),
            ("/v1/scopes", "get"),
            ("/v1/audit", "get"),
            ("/v1/requests", "get"),
            ("/v1/requests/{id}", "get"),
            ("/v1/settings", "get"),
            ("/v1/settings", "put"),
        ] {
            assert!(
                doc["paths"][path][method].is_object(),
                "{method} {path} missing from OpenAPI"
            );
        }
        assert!(doc["paths"]["/v1/tokens"]["post"]["responses"]["201"].is_object());
    }
}
