//! The gateway's errors in OpenAI's envelope: validation, unknown models, auth, scopes, rate
//! limits and unknown methods, so OpenAI's client libraries raise their typed errors.

mod common;

use common::both;

use common::{Options, Server, chat_json as chat, fast, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn hello(model: &str) -> Value {
    json!({"model": model, "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello gateway"}]})
}

both! {
    #[tokio::test]
    async fn bad_requests_get_openai_error_envelopes() {
        let server = fast();
        let user = json!([{"role": "user", "content": "hi"}]);
        let cases = [
            (json!({"model": "auto"}), 400, None),
            (
                json!({"model": "auto", "messages": []}),
                400,
                Some("messages"),
            ),
            (
                json!({"model": "auto", "messages": [{"role": "wizard", "content": "hi"}]}),
                400,
                Some("messages"),
            ),
            (
                json!({"model": "auto", "messages": user, "temperature": 2.5}),
                400,
                Some("temperature"),
            ),
            (
                json!({"model": "auto", "messages": user, "max_tokens": 0}),
                400,
                Some("max_tokens"),
            ),
            (
                json!({"model": "auto", "messages": user, "route_strategy": {"cost_weight": -1}}),
                400,
                Some("route_strategy"),
            ),
            (
                json!({"model": "auto", "messages": user, "route_strategy": {"cost_weight": 0, "quality_weight": 0}}),
                400,
                Some("route_strategy"),
            ),
            (
                json!({"model": "auto", "messages": user, "budget_limit": 0}),
                400,
                Some("budget_limit"),
            ),
            (
                json!({"model": "auto", "messages": user, "agent_wallet": "0x123"}),
                400,
                Some("agent_wallet"),
            ),
            (
                json!({"model": "auto", "messages": user, "temperature": "hot"}),
                400,
                None,
            ),
            (
                json!({"model": "gpt-nope", "messages": user}),
                404,
                Some("model"),
            ),
        ];
        for (body, status, param) in cases {
            let (got, error) = chat(&server, body.clone()).await;
            assert_eq!(got.as_u16(), status, "{body}: {error}");
            let error = &error["error"];
            assert!(
                error["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{error}"
            );
            assert!(error["type"].is_string(), "{error}");
            if let Some(param) = param {
                assert_eq!(error["param"], param, "{body}");
            }
        }
        let response = server
            .request(
                reqwest::Method::POST,
                "/v1/chat/completions",
                &server.admin_key,
            )
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "invalid_request_error");
    }
}

both! {
    #[tokio::test]
    async fn auth_errors_use_the_openai_envelope_too() {
        let server = fast();
        let response = server
            .post("/v1/chat/completions", "tka_nope", &hello("auto"))
            .await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "authentication_error");
        let reader = secret(&server.create_token("reader", &["tokens:read"]).await);
        let response = server
            .post("/v1/chat/completions", &reader, &hello("auto"))
            .await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "permission_error");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("chat:write")
        );
    }
}

both! {
    #[tokio::test]
    async fn rate_limits_and_unknown_methods_use_the_openai_envelope_too() {
        let server = Server::start_with(Options {
            rate_limit: Some(2),
            args: vec!["--sim-token-delay-ms".into(), "0".into()],
            ..Default::default()
        });
        let wrong_method = server.get("/v1/chat/completions", &server.admin_key).await;
        assert_eq!(wrong_method.status(), StatusCode::NOT_FOUND);
        let body: Value = wrong_method.json().await.unwrap();
        assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
        let mut limited = None;
        for _ in 0..5 {
            let response = server
                .post("/v1/chat/completions", &server.admin_key, &hello("auto"))
                .await;
            if response.status() == StatusCode::TOO_MANY_REQUESTS {
                limited = Some(response);
                break;
            }
        }
        let response = limited.expect("a 429 within five requests of a limit of two");
        assert!(response.headers().contains_key("retry-after"));
        assert_eq!(response.headers()["x-ratelimit-remaining"], "0");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "rate_limit_error", "{body}");
        assert_eq!(body["error"]["code"], "rate_limit_exceeded", "{body}");
    }
}
