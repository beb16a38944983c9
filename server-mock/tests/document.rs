//! The OpenAPI document and the server agree at the edges schemathesis found (issue 36): each
//! body below is checked against the schema the served document gives its operation, and sent;
//! the server takes it exactly when the document allows it. The whole document is held to the
//! server by bench/schemathesis.sh, which .ci/run runs.

mod common;

use common::both;
use common::{Server, id};
use reqwest::Method;
use serde_json::{Value, json};

/// Whether the served document's request body schema of `method path` allows `body`.
fn allowed(document: &Value, method: &str, path: &str, body: &Value) -> bool {
    let schema =
        &document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"];
    assert!(
        !schema.is_null(),
        "{method} {path} has no JSON body in the document"
    );
    let root = json!({"allOf": [schema], "components": document["components"]});
    jsonschema::validator_for(&root).unwrap().is_valid(body)
}

/// Sends `body` (JSON text) and says whether the server took it (2xx).
async fn taken(server: &Server, method: Method, path: &str, body: &Value) -> (bool, String) {
    let response = server
        .request(method, path, &server.admin_key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    (status.is_success(), format!("{status} {text}"))
}

/// Each of `cases` (a body and whether the document should allow it) agrees on both sides.
async fn agree(
    server: &Server,
    document: &Value,
    method: Method,
    path: &str,
    cases: Vec<(Value, bool)>,
) {
    let templated = document_path(path);
    for (body, expected) in cases {
        let documented = allowed(document, &method.as_str().to_lowercase(), &templated, &body);
        assert_eq!(
            documented, expected,
            "the document on {method} {path} {body}"
        );
        let (ok, answer) = taken(server, method.clone(), path, &body).await;
        assert_eq!(
            ok, expected,
            "the server on {method} {path} {body}: {answer}"
        );
    }
}

/// The document's path template of a concrete path (`tok_...` is `{id}`).
fn document_path(path: &str) -> String {
    path.split('/')
        .map(|part| {
            if part.starts_with("tok_") {
                "{id}"
            } else {
                part
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

both! {
    #[tokio::test]
    async fn token_bodies_are_taken_exactly_when_the_document_allows_them() {
        let server = Server::start();
        let document: Value = server.get("/v1/openapi.json", &server.admin_key).await.json().await.unwrap();
        let token = |n: &str| json!({"name": n, "scopes": ["tokens:read"]});
        let with = |mut body: Value, extra: Value| {
            body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            body
        };
        agree(&server, &document, Method::POST, "/v1/tokens", vec![
            (with(token("a"), json!({"limit_reset": "daily"})), false),
            (with(token("b"), json!({"credit_limit": null, "limit_reset": "daily"})), false),
            (with(token("c"), json!({"credit_limit": 0})), false),
            (with(token("d"), json!({"credit_limit": "01"})), false),
            (with(token("e"), json!({"credit_limit": "2.25"})), true),
            (with(token("f"), json!({"credit_limit": 1.5, "limit_reset": "daily"})), true),
            (with(token("g"), json!({"limit_reset": null})), true),
        ]).await;
        // Keys have no limits: their body is a token's without them, so the fields are unknown
        // ones, ignored.
        agree(&server, &document, Method::POST, "/v1/keys", vec![
            (with(token("k"), json!({"limit_reset": {}})), true),
        ]).await;

        let limited = server
            .post("/v1/tokens", &server.admin_key, &with(token("limited"), json!({"credit_limit": 5})))
            .await
            .json::<Value>()
            .await
            .unwrap();
        let path = format!("/v1/tokens/{}", id(&limited));
        agree(&server, &document, Method::PATCH, &path, vec![
            (json!({"credit_limit": 25, "limit_reset": null}), false),
            (json!({}), false),
            (json!({"credit_limit": 25, "name": "renamed"}), false),
            (json!({"credit_limit": 25}), true),
            (json!({"limit_reset": "weekly"}), true),
        ]).await;

        let rotate = format!("{path}/rotate");
        agree(&server, &document, Method::POST, &rotate, vec![
            (Value::Null, true),
            (json!({"previous_secret_expires_in": 0}), true),
            (json!({"previous_secret_expires_in": 600}), false),
            (json!({"previous_secret_expires_in": " 10m"}), false),
            (json!({"previous_secret_expires_in": "1h30m"}), true),
            (json!([]), false),
        ]).await;
    }
}

both! {
    #[tokio::test]
    async fn x402_terms_are_taken_exactly_when_the_document_allows_them() {
        let server = Server::start();
        let document: Value = server.get("/v1/openapi.json", &server.admin_key).await.json().await.unwrap();
        let terms = |change: Value| {
            let mut body = json!({"pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
                "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
                "asset_name": "USDC", "asset_version": "2", "asset_decimals": 6,
                "credit_price": "10000", "facilitator_url": "https://x402.org/facilitator"});
            body.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
            body
        };
        agree(&server, &document, Method::PUT, "/v1/x402", vec![
            (terms(json!({"asset_decimals": 32.0})), true),
            (terms(json!({"asset_decimals": 6.5})), false),
            (terms(json!({"asset_name": "\u{f}£p"})), false),
            (terms(json!({"pay_to": " 0x209693Bc6afc0C5328bA36FaF03C514EF312287C"})), false),
            (terms(json!({"facilitator_url": "https://x402.org/facilitator?x=1"})), false),
            (terms(json!({"facilitator_url": "http://127.0.0.1:9/facilitator/"})), true),
        ]).await;
    }
}

both! {
    #[tokio::test]
    async fn an_empty_payment_header_is_no_payment_and_gets_the_offer() {
        let server = Server::start();
        // Terms whose facilitator is a closed port: the offer needs no answer from it.
        let terms = json!({"pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
            "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
            "asset_name": "USDC", "asset_version": "2", "asset_decimals": 6,
            "credit_price": "10000", "facilitator_url": "http://127.0.0.1:9"});
        let set = server.request(Method::PUT, "/v1/x402", &server.admin_key).json(&terms).send().await.unwrap();
        assert_eq!(set.status(), 200);
        let ask = json!({"model": "auto", "max_tokens": 5, "agent_wallet": "0x0000000000000000000000000000000000000001",
                         "messages": [{"role": "user", "content": "Say hello"}]});
        for header in ["", "  "] {
            let answer = server
                .request(Method::POST, "/v1/chat/completions", &server.admin_key)
                .header("PAYMENT-SIGNATURE", header)
                .json(&ask)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 402, "{header:?}");
            assert!(answer.headers().contains_key("payment-required"));
            let body: Value = answer.json().await.unwrap();
            assert_eq!(body["error"]["code"], "payment_required", "{body}");
        }
        // A header that is there but is not a payment is still a 400.
        let answer = server
            .request(Method::POST, "/v1/chat/completions", &server.admin_key)
            .header("PAYMENT-SIGNATURE", "not base64 json")
            .json(&ask)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400);
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_payment", "{body}");
    }
}
