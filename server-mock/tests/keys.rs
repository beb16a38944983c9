//! `/v1/keys`: API keys listed, created and revoked through the API, with the same rules as
//! tokens (subset of the caller's scopes, unique live names, audit entries).

mod common;

use common::both;

use common::{Server, assert_error, id};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn create_key(server: &Server, by: &str, body: Value) -> Value {
    let response = server.post("/v1/keys", by, &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let location = response.headers()["location"].to_str().unwrap().to_string();
    let key: Value = response.json().await.unwrap();
    assert_eq!(location, format!("/v1/keys/{}", id(&key)));
    key
}

fn key_secret(key: &Value) -> String {
    key["key"].as_str().expect("the key's secret").to_string()
}

both! {
    #[tokio::test]
    async fn a_key_made_through_the_api_works_at_once_and_stops_when_revoked() {
        let server = Server::start();
        let key = create_key(
            &server,
            &server.admin_key,
            json!({"name": " ci-admin ", "scopes": ["tokens:read", "keys:read", "tokens:read"],
                   "expires_at": "2099-01-01T00:00:00Z"}),
        )
        .await;
        let secret = key_secret(&key);
        assert!(secret.starts_with("tka_") && secret.len() == 40, "{secret}");
        assert!(id(&key).starts_with("key_"));
        assert_eq!(key["name"], "ci-admin");
        assert_eq!(key["scopes"], json!(["tokens:read", "keys:read"]));
        assert_eq!(key["status"], "active");
        assert_eq!(key["expires_at"], "2099-01-01T00:00:00Z");
        assert_eq!(key["last_used_at"], Value::Null);
        let admin_id = admin_key_id(&server).await;
        assert_eq!(key["created_by"], admin_id.as_str());

        // It authenticates as a key of the workspace, with its own scopes only.
        assert_eq!(server.get("/v1/tokens", &secret).await.status(), 200);
        assert_error(server.get("/v1/audit", &secret).await, 403, "forbidden").await;

        // Listed newest first without its secret, its first use visible at once.
        let listed: Value = server.get("/v1/keys", &secret).await.json().await.unwrap();
        assert_eq!(listed["meta"]["total"], 2);
        let first = &listed["data"][0];
        assert_eq!(first["id"], key["id"]);
        assert!(first.get("key").is_none(), "{first}");
        assert!(first["last_used_at"].is_string(), "{first}");
        assert_eq!(listed["data"][1]["name"], "admin");
        assert_eq!(listed["data"][1]["created_by"], "admin");
        assert!(listed["data"][1].get("expires_at").is_none());

        let path = format!("/v1/keys/{}", id(&key));
        assert_eq!(server.delete(&path, &server.admin_key).await.status(), 204);
        assert_error(server.get("/v1/tokens", &secret).await, 401, "unauthorized").await;
        assert_error(server.delete(&path, &server.admin_key).await, 404, "not_found").await;

        let revoked: Value = server
            .get("/v1/keys?status=revoked", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(revoked["meta"]["total"], 1);
        assert_eq!(revoked["data"][0]["status"], "revoked");
        let active: Value = server
            .get("/v1/keys?status=active", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(active["data"][0]["id"], admin_id.as_str());
        assert_eq!(active["meta"]["total"], 1);

        // Each change is in the audit log, about the key.
        let audit: Value = server
            .get(&format!("/v1/audit?key_id={}", id(&key)), &server.admin_key)
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
        assert_eq!(actions, ["key.revoked", "key.created"]);
        assert_eq!(audit["data"][0]["actor"], admin_id.as_str());
        assert_eq!(audit["data"][0]["token_id"], Value::Null);
        assert!(audit["data"][0]["request_id"].is_string());

        // Filters combine, and no entry is about a token and a key at once.
        let path = format!("/v1/audit?key_id={}&token_id=tok_{}", id(&key), "0".repeat(24));
        let response = server.get(&path, &server.admin_key).await;
        assert_eq!(response.status(), 200);
        let none: Value = response.json().await.unwrap();
        assert_eq!(none["meta"]["total"], 0);
        assert_eq!(none["data"], serde_json::json!([]));
    }
}

both! {
    #[tokio::test]
    async fn a_key_cannot_revoke_itself_but_another_key_can() {
        let server = Server::start();
        let admin_id = admin_key_id(&server).await;
        let path = format!("/v1/keys/{admin_id}");
        let message = assert_error(server.delete(&path, &server.admin_key).await, 409, "conflict")
            .await;
        assert!(message.contains("itself"), "{message}");
        assert_eq!(server.get("/v1/tokens", &server.admin_key).await.status(), 200);

        let other = create_key(
            &server,
            &server.admin_key,
            json!({"name": "second", "scopes": ["keys:write"]}),
        )
        .await;
        assert_eq!(server.delete(&path, &key_secret(&other)).await.status(), 204);
        assert_error(server.get("/v1/tokens", &server.admin_key).await, 401, "unauthorized")
            .await;
    }
}

both! {
    #[tokio::test]
    async fn keys_follow_the_token_rules() {
        let server = Server::start();
        let limited = create_key(
            &server,
            &server.admin_key,
            json!({"name": "limited", "scopes": ["keys:write", "tokens:read"]}),
        )
        .await;
        let limited = key_secret(&limited);

        // The subset rule: no key with more than its maker holds, and the refusal is audited.
        let response = server
            .post("/v1/keys", &limited, &json!({"name": "escalate", "scopes": ["audit:read"]}))
            .await;
        let message = assert_error(response, 403, "forbidden").await;
        assert!(message.contains("audit:read"), "{message}");
        let created = create_key(
            &server,
            &limited,
            json!({"name": "narrower", "scopes": ["tokens:read"]}),
        )
        .await;
        assert_eq!(created["scopes"], json!(["tokens:read"]));

        // Scopes: keys:read to list, keys:write to create and revoke.
        assert_error(server.get("/v1/keys", &limited).await, 403, "forbidden").await;
        let reader = key_secret(&created);
        let response = server.post("/v1/keys", &reader, &json!({"name": "n", "scopes": ["tokens:read"]})).await;
        assert_error(response, 403, "forbidden").await;

        // A live name is unique; a revoked key's name can be used again.
        let response = server
            .post("/v1/keys", &server.admin_key, &json!({"name": "narrower", "scopes": ["tokens:read"]}))
            .await;
        assert_error(response, 409, "conflict").await;
        let path = format!("/v1/keys/{}", id(&created));
        assert_eq!(server.delete(&path, &server.admin_key).await.status(), 204);
        create_key(&server, &server.admin_key, json!({"name": "narrower", "scopes": ["tokens:read"]}))
            .await;

        // Bad values are 422 naming the field; bad bodies 400; unknown or malformed ids 404.
        for (body, field) in [
            (json!({"name": "", "scopes": ["tokens:read"]}), "name"),
            (json!({"name": "x", "scopes": []}), "scopes"),
            (json!({"name": "x", "scopes": ["nope"]}), "scopes"),
            (json!({"name": "x", "scopes": ["tokens:read"], "expires_at": "2001-01-01T00:00:00Z"}), "expires_at"),
            (json!({"name": "x", "scopes": ["tokens:read"], "expires_at": "soon"}), "expires_at"),
        ] {
            let response = server.post("/v1/keys", &server.admin_key, &body).await;
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(message.contains(field), "{message}");
        }
        let response = server
            .request(reqwest::Method::POST, "/v1/keys", &server.admin_key)
            .header("content-type", "application/json")
            .body("{\"name\": ")
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
        for path in ["/v1/keys/key_000000000000000000000000", "/v1/keys/tok_nope", "/v1/keys/%00"] {
            assert_error(server.delete(path, &server.admin_key).await, 404, "not_found").await;
        }
        let response = server.get("/v1/keys?status=lost", &server.admin_key).await;
        assert_error(response, 422, "unprocessable_entity").await;
        let response = server.get("/v1/keys?per_page=0", &server.admin_key).await;
        assert_error(response, 422, "unprocessable_entity").await;
    }
}

both! {
    #[tokio::test]
    async fn keys_of_another_workspace_are_out_of_reach() {
        let server = Server::start();
        let other = server.admin(&["create-workspace", "other"]);
        let theirs = create_key(&server, &other, json!({"name": "theirs", "scopes": ["tokens:read"]}))
            .await;
        let path = format!("/v1/keys/{}", id(&theirs));
        assert_error(server.delete(&path, &server.admin_key).await, 404, "not_found").await;
        let ours: Value = server.get("/v1/keys", &server.admin_key).await.json().await.unwrap();
        assert_eq!(ours["meta"]["total"], 1);
        assert_eq!(server.get("/v1/tokens", &key_secret(&theirs)).await.status(), 200);
    }
}

both! {
    #[tokio::test]
    async fn the_admin_command_names_its_keys() {
        let server = Server::start();
        let key = server.admin(&["create-key", "--workspace", "default", "--name", "ops", "--scope", "keys:read"]);
        let listed: Value = server.get("/v1/keys", &key).await.json().await.unwrap();
        assert_eq!(listed["data"][0]["name"], "ops");
        assert_eq!(listed["data"][0]["scopes"], json!(["keys:read"]));
        assert_eq!(listed["data"][0]["created_by"], "admin");
        let output = server
            .admin_command()
            .args(["create-key", "--workspace", "default", "--name", "ops"])
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("already live"), "{stderr}");
        // Unnamed, it gets a name of its own.
        let unnamed = server.admin(&["create-key", "--workspace", "default"]);
        let listed: Value = server.get("/v1/keys", &unnamed).await.json().await.unwrap();
        let name = listed["data"][0]["name"].as_str().unwrap();
        assert!(name.starts_with("key-") && name.len() == 12, "{name}");
    }
}

/// The id of the server's admin key (the oldest key of the workspace).
async fn admin_key_id(server: &Server) -> String {
    let listed: Value = server
        .get("/v1/keys?status=active", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    let keys = listed["data"].as_array().unwrap();
    id(keys.last().unwrap())
}
