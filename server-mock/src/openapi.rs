//! `GET /v1/openapi.json`: the OpenAPI document, generated from the handlers' annotations plus
//! what annotations cannot say (the gateway's shapes, rate-limit headers, links), so it cannot
//! drift from the code. A test holds it against the list of routes the router answers, and
//! `bench/schemathesis.sh` holds the running server against it.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::IntoResponse;
use bytes::Bytes;
use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::{
    audit, chat, credentials, keys, probes, requests, scopes, settings, tokens, usage, webhooks,
    x402,
};

#[derive(OpenApi)]
#[openapi(
    info(title = "tokctl API", description = "The token API and the chat gateway of tokctl-server."),
    paths(tokens::create, tokens::list, tokens::show, tokens::rotate::rotate, tokens::revoke,
        tokens::limits::update,
          keys::create, keys::list, keys::revoke, credentials::revoke, scopes::list, audit::list, chat::models::list, usage::list, webhooks::create,
          webhooks::list, webhooks::show, webhooks::remove, webhooks::test, webhooks::deliveries,
          x402::show, x402::set, x402::disable, requests::list, requests::show,
          settings::show, settings::update,
          serve, probes::livez, probes::readyz, probes::healthz),
    modifiers(&BearerAuth),
    security(("bearer" = []))
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The document, built once.
static DOCUMENT: LazyLock<Value> = LazyLock::new(|| {
    let mut document = serde_json::to_value(ApiDoc::openapi()).unwrap_or_else(|_| json!({}));
    crate::chat::schema::describe(&mut document);
    crate::chat::messages::schema::describe(&mut document);
    crate::chat::responses::schema::describe(&mut document);
    crate::tokens::limits::describe(&mut document);
    crate::keys::describe(&mut document);
    links(&mut document);
    unavailable(&mut document);
    rate_limit_headers(&mut document);
    document
});

/// The OpenAPI document of the whole API.
pub fn document() -> Value {
    DOCUMENT.clone()
}

/// The OpenAPI 3.1 document of this server (no credential needed).
#[utoipa::path(get, path = "/v1/openapi.json", tag = "meta", security(()),
    responses((status = 200, description = "This document", content_type = "application/json", body = Object),
        (status = 429, description = "Too many requests from this address", body = crate::http::error::ErrorBody)))]
pub async fn serve() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        WRITTEN.clone(),
    )
}

/// The document as JSON text, written once: each request is sent the same bytes.
static WRITTEN: LazyLock<Bytes> =
    LazyLock::new(|| Bytes::from(serde_json::to_vec(&*DOCUMENT).unwrap_or_default()));

/// Links from each create to the operations that take the new resource's id, so a client (or
/// a stateful test) can follow them.
fn links(document: &mut Value) {
    let link = |operation: &str| json!({"operationId": operation, "parameters": {"id": "$response.body#/id"}});
    let created = [
        (
            "/v1/tokens",
            [
                ("get_token", "GetToken"),
                ("update_token", "UpdateToken"),
                ("rotate_token", "RotateToken"),
                ("revoke_token", "RevokeToken"),
            ]
            .as_slice(),
        ),
        (
            "/v1/webhooks",
            [
                ("get_webhook", "GetWebhook"),
                ("delete_webhook", "DeleteWebhook"),
                ("test_webhook", "TestWebhook"),
                ("list_webhook_deliveries", "ListWebhookDeliveries"),
            ]
            .as_slice(),
        ),
    ];
    for (path, targets) in created {
        if let Some(response) =
            document.pointer_mut(&format!("/paths/{}/post/responses/201", escape(path)))
        {
            let links: serde_json::Map<String, Value> = targets
                .iter()
                .map(|(operation, name)| (name.to_string(), link(operation)))
                .collect();
            response["links"] = Value::Object(links);
        }
    }
}

/// A 503 on every operation under `/v1`: any of them may meet a shared database that cannot be
/// reached. In OpenAI's envelope on the OpenAI-compatible paths and Anthropic's on its own, as
/// every error there.
fn unavailable(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !path.starts_with("/v1/") {
            continue;
        }
        let schema = match (
            crate::http::openai::is_openai_path(path),
            crate::http::anthropic::is_anthropic_path(path),
        ) {
            (true, _) => "#/components/schemas/OpenAiError",
            (_, true) => "#/components/schemas/AnthropicError",
            _ => "#/components/schemas/ErrorBody",
        };
        let response = json!({
            "description": "The database cannot be reached (instances sharing a PostgreSQL database); retry after `Retry-After` seconds",
            "headers": {"Retry-After": {"description": "Seconds to wait before retrying", "schema": {"type": "integer", "minimum": 0}}},
            "content": {"application/json": {"schema": {"$ref": schema}}}
        });
        for operation in item
            .as_object_mut()
            .into_iter()
            .flat_map(|o| o.values_mut())
        {
            if let Some(responses) = operation["responses"].as_object_mut() {
                responses.entry("503").or_insert_with(|| response.clone());
            }
        }
    }
}

/// `X-RateLimit-*` on every response under `/v1`, `Retry-After` on its 429s.
fn rate_limit_headers(document: &mut Value) {
    let integer = |description: &str| json!({"description": description, "schema": {"type": "integer", "minimum": 0}});
    let headers = json!({
        "X-RateLimit-Limit": integer("Requests allowed in the current one-minute window"),
        "X-RateLimit-Remaining": integer("Requests left in the current window"),
        "X-RateLimit-Reset": integer("Unix time, in seconds, when the window resets"),
    });
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !path.starts_with("/v1/") {
            continue;
        }
        let Some(operations) = item.as_object_mut() else {
            continue;
        };
        for operation in operations.values_mut() {
            let Some(responses) = operation["responses"].as_object_mut() else {
                continue;
            };
            for (status, response) in responses.iter_mut() {
                let mut all = headers.clone();
                if status == "429" || status == "503" {
                    all["Retry-After"] = integer("Seconds until the window resets");
                }
                let own = response["headers"].as_object().cloned().unwrap_or_default();
                for (name, header) in own {
                    all[name] = header;
                }
                response["headers"] = all;
            }
        }
    }
}

/// `path` as one JSON pointer segment.
fn escape(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every route the router answers, as `METHOD /path`, and every operation of the document.
    fn both() -> (Vec<String>, Vec<String>) {
        let routed: Vec<String> = crate::route_list()
            .iter()
            .map(|(method, path)| format!("{method} {path}"))
            .collect();
        let document = document();
        let mut documented = Vec::new();
        for (path, item) in document["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                if method != "parameters" {
                    documented.push(format!("{} {path}", method.to_uppercase()));
                }
            }
        }
        (routed, documented)
    }

    #[test]
    fn every_route_the_router_answers_is_in_the_document_and_nothing_else() {
        let (routed, documented) = both();
        assert!(routed.len() >= 17, "{routed:?}");
        let missing: Vec<_> = routed.iter().filter(|r| !documented.contains(r)).collect();
        assert!(
            missing.is_empty(),
            "routes missing from the OpenAPI document: {missing:?}"
        );
        let extra: Vec<_> = documented.iter().filter(|d| !routed.contains(d)).collect();
        assert!(extra.is_empty(), "documented but not routed: {extra:?}");
    }

    #[test]
    fn every_v1_operation_documents_the_503_of_an_unreachable_database() {
        let document = document();
        let mut checked = 0;
        for (path, item) in document["paths"].as_object().unwrap() {
            for operation in item.as_object().unwrap().values() {
                let response = &operation["responses"]["503"];
                if !path.starts_with("/v1/") {
                    continue;
                }
                let target = response["content"]["application/json"]["schema"]["$ref"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{path} has no 503"));
                let name = target.trim_start_matches("#/components/schemas/");
                assert!(
                    document["components"]["schemas"][name].is_object(),
                    "{target}"
                );
                assert!(response["headers"]["Retry-After"].is_object(), "{path}");
                checked += 1;
            }
        }
        assert!(checked >= 16, "{checked}");
    }

    #[test]
    fn every_path_parameter_is_declared_and_every_link_reaches_an_operation() {
        let document = document();
        let mut operation_ids = Vec::new();
        for (path, item) in document["paths"].as_object().unwrap() {
            for operation in item.as_object().unwrap().values() {
                let declared: Vec<&str> = operation["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == "path")
                    .filter_map(|p| p["name"].as_str())
                    .collect();
                for segment in path.split('/').filter(|s| s.starts_with('{')) {
                    let name = segment.trim_matches(['{', '}']);
                    assert!(declared.contains(&name), "{path}: {name} is not declared");
                }
                operation_ids.extend(operation["operationId"].as_str().map(String::from));
            }
        }
        for path in ["/v1/tokens", "/v1/webhooks"] {
            let links = document["paths"][path]["post"]["responses"]["201"]["links"]
                .as_object()
                .unwrap_or_else(|| panic!("{path} has no links"));
            for link in links.values() {
                let target = link["operationId"].as_str().unwrap();
                assert!(operation_ids.iter().any(|id| id == target), "{target}");
            }
        }
    }
}
