//! Workspace settings (issue 40, point 2): `GET`/`PUT /v1/settings`. The request log keeps a
//! workspace's bodies (redacted, capped) only while its `store_bodies` is on; the server's
//! `--request-log-bodies` is only the default of workspaces that never chose. Each change is
//! audited; the scopes are enforced; bad bodies get the documented errors.

mod common;

use common::hooks::eventually;
use common::{Options, Server, assert_error, both, postgres, secret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// An OpenAI-shaped key planted in a message: the log must never keep it.
const PLANTED: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

/// Options of a server keeping the request log (with `more` arguments), answering at once.
fn logging(more: &[&str]) -> Options<'static> {
    let mut args: Vec<String> = ["--request-log", "--sim-token-delay-ms", "0"]
        .map(String::from)
        .to_vec();
    args.extend(more.iter().map(|a| a.to_string()));
    Options {
        args,
        ..Default::default()
    }
}

/// Sends a chat completion with request id `id`, the planted key in its message.
async fn ask(server: &Server, id: &str) {
    let body = json!({"model": "sim-mini",
        "messages": [{"role": "user", "content": format!("my key is {PLANTED}, rotate it")}]});
    let response = server
        .request(Method::POST, "/v1/chat/completions", &server.admin_key)
        .header("x-request-id", id)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{id}");
}

/// The request log's entry `id` (the read waits for pending entries to be written).
async fn entry(server: &Server, id: &str) -> Value {
    let response = server
        .get(&format!("/v1/requests/{id}"), &server.admin_key)
        .await;
    assert_eq!(response.status(), StatusCode::OK, "{id}");
    response.json().await.unwrap()
}

/// Asserts entry `id` kept no body.
async fn assert_no_body(server: &Server, id: &str) {
    let shown = entry(server, id).await;
    assert!(
        shown.get("request_body").is_none() && shown.get("response_body").is_none(),
        "{shown}"
    );
}

/// Asserts entry `id` kept both bodies, the planted key redacted.
async fn assert_redacted_body(server: &Server, id: &str) {
    let shown = entry(server, id).await;
    let kept = shown["request_body"].as_str().expect("request_body");
    assert!(
        kept.contains("my key is [REDACTED], rotate it") && !kept.contains(PLANTED),
        "{kept}"
    );
    assert!(shown["response_body"].as_str().is_some(), "{shown}");
}

/// `PUT /v1/settings` with `body` and `key`.
async fn put(server: &Server, key: &str, body: &Value) -> reqwest::Response {
    server
        .request(Method::PUT, "/v1/settings", key)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// `PUT /v1/settings` as the admin key, which must succeed; the settings answered.
async fn set(server: &Server, body: Value) -> Value {
    let response = put(server, &server.admin_key, &body).await;
    assert_eq!(response.status(), StatusCode::OK, "{body}");
    response.json().await.unwrap()
}

/// The `settings.updated` audit entries, newest first.
async fn audited(server: &Server) -> Vec<Value> {
    let response = server
        .get("/v1/audit?action=settings.updated", &server.admin_key)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let page: Value = response.json().await.unwrap();
    page["data"].as_array().unwrap().clone()
}

both! {
    #[tokio::test]
    async fn bodies_are_kept_only_while_the_workspace_turns_them_on_and_each_change_is_audited() {
        let server = Server::start_with(logging(&[]));
        let shown: Value = server.get("/v1/settings", &server.admin_key).await.json().await.unwrap();
        assert_eq!(shown, json!({"store_bodies": false, "updated_at": null}));
        ask(&server, "before").await;
        assert_no_body(&server, "before").await;

        let on = set(&server, json!({"store_bodies": true, "unknown": "ignored"})).await;
        assert_eq!(on["store_bodies"], true, "{on}");
        assert!(on["updated_at"].as_str().is_some(), "{on}");
        let shown: Value = server.get("/v1/settings", &server.admin_key).await.json().await.unwrap();
        assert_eq!(shown, on);
        ask(&server, "on").await;
        assert_redacted_body(&server, "on").await;

        // The same value again, or no field at all, changes nothing and is not audited.
        assert_eq!(set(&server, json!({"store_bodies": true})).await, on);
        assert_eq!(set(&server, json!({})).await, on);

        let off = set(&server, json!({"store_bodies": false})).await;
        assert_eq!(off["store_bodies"], false, "{off}");
        ask(&server, "off").await;
        assert_no_body(&server, "off").await;

        let entries = audited(&server).await;
        assert_eq!(entries.len(), 2, "{entries:?}");
        for entry in &entries {
            assert!(entry["actor"].as_str().is_some_and(|a| a.starts_with("key_")), "{entry}");
            assert!(entry["request_id"].as_str().is_some(), "{entry}");
            assert_eq!(entry["details"]["field"], "store_bodies", "{entry}");
        }
        assert_eq!(entries[0]["details"]["before"]["store_bodies"], true);
        assert_eq!(entries[0]["details"]["after"]["store_bodies"], false);
        assert_eq!(entries[1]["details"]["before"]["store_bodies"], false);
        assert_eq!(entries[1]["details"]["after"]["store_bodies"], true);
        assert!(!serde_json::to_string(&entries).unwrap().contains("tka_"), "no secret in audit");
    }
}

both! {
    #[tokio::test]
    async fn the_server_default_yields_to_a_workspace_that_turned_bodies_off_even_after_a_restart() {
        let mut server = Server::start_with(logging(&["--request-log-bodies"]));
        let shown: Value = server.get("/v1/settings", &server.admin_key).await.json().await.unwrap();
        assert_eq!(shown, json!({"store_bodies": true, "updated_at": null}));
        ask(&server, "default").await;
        assert_redacted_body(&server, "default").await;

        let off = set(&server, json!({"store_bodies": false})).await;
        assert_eq!(off["store_bodies"], false);
        let entries = audited(&server).await;
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert_eq!(entries[0]["details"]["before"], json!({"store_bodies": true, "chosen": false}));
        ask(&server, "chose-off").await;
        assert_no_body(&server, "chose-off").await;

        // A new start reads the choice before it serves.
        assert!(server.stop());
        let again = Server::start_in(&server.dir, logging(&["--request-log-bodies"]));
        let shown: Value = again.get("/v1/settings", &again.admin_key).await.json().await.unwrap();
        assert_eq!(shown, off);
        ask(&again, "restarted").await;
        assert_no_body(&again, "restarted").await;
    }
}

both! {
    #[tokio::test]
    async fn reading_and_changing_need_their_scopes() {
        let server = Server::start_with(logging(&[]));
        let reader = secret(&server.create_token("settings-reader", &["settings:read"]).await);
        let none = secret(&server.create_token("no-settings", &["tokens:read"]).await);
        assert_eq!(server.get("/v1/settings", &reader).await.status(), StatusCode::OK);
        let message = assert_error(server.get("/v1/settings", &none).await, 403, "forbidden").await;
        assert!(message.contains("settings:read"), "{message}");
        let refused = put(&server, &reader, &json!({"store_bodies": true})).await;
        let message = assert_error(refused, 403, "forbidden").await;
        assert!(message.contains("settings:write"), "{message}");
        let shown: Value = server.get("/v1/settings", &reader).await.json().await.unwrap();
        assert_eq!(shown["store_bodies"], false, "a refused change changes nothing");
        assert!(audited(&server).await.is_empty());

        let writer = secret(&server.create_token("settings-writer", &["settings:write"]).await);
        let response = put(&server, &writer, &json!({"store_bodies": true})).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}

both! {
    #[tokio::test]
    async fn bad_bodies_get_the_documented_errors_and_change_nothing() {
        let server = Server::start_with(logging(&[]));
        let key = server.admin_key.clone();
        for wrong in [json!({"store_bodies": "yes"}), json!({"store_bodies": 1}), json!({"store_bodies": null})] {
            let message = assert_error(put(&server, &key, &wrong).await, 422, "unprocessable_entity").await;
            assert!(message.contains("store_bodies"), "{message}");
        }
        for malformed in ["{", "[]", "\"on\"", "null"] {
            let response = server
                .request(Method::PUT, "/v1/settings", &key)
                .header("content-type", "application/json")
                .body(malformed)
                .send()
                .await
                .unwrap();
            assert_error(response, 400, "bad_request").await;
        }
        let response = server
            .request(Method::PUT, "/v1/settings", &key)
            .header("content-type", "text/plain")
            .body(r#"{"store_bodies": true}"#)
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
        let shown: Value = server.get("/v1/settings", &key).await.json().await.unwrap();
        assert_eq!(shown, json!({"store_bodies": false, "updated_at": null}));
        assert!(audited(&server).await.is_empty());
    }
}

postgres! {
    #[tokio::test]
    async fn another_instance_follows_a_change_within_its_refresh() {
        let a = Server::start_with(logging(&[]));
        let b = a.another(logging(&[]));
        set(&a, json!({"store_bodies": true})).await;
        ask(&a, "on-a").await;
        assert_redacted_body(&a, "on-a").await;
        // B re-reads the settings every few seconds.
        let mut n = 0;
        eventually("the other instance keeps bodies", || {
            n += 1;
            let id = format!("on-b-{n}");
            let b = &b;
            async move {
                ask(b, &id).await;
                entry(b, &id).await.get("request_body").map(|_| ())
            }
        })
        .await;
    }
}
