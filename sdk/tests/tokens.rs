//! Every token method against wiremock: request shape, success decoding, error mapping.

mod common;

use common::{KEY, client, error_body, fixture, mock_server};
use futures::TryStreamExt;
use serde_json::json;
use tokctl_sdk::{CreateToken, ListTokens, RevokeOutcome, TokenStatus};
use wiremock::matchers::{body_json, header, method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn create_sends_the_body_and_decodes_the_secret() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/tokens"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .and(header("content-type", "application/json"))
        .and(body_json(json!({
            "name": "ci-deploy",
            "scopes": ["tokens:read", "tokens:rotate"],
            "expires_at": "2030-01-01T00:00:00Z"
        })))
        .respond_with(ResponseTemplate::new(201).set_body_json(fixture("token_created.json")))
        .expect(1)
        .mount(&server)
        .await;
    let expires = "2030-01-01T00:00:00Z".parse().unwrap();
    let request = CreateToken::new("ci-deploy")
        .scopes(["tokens:read", "tokens:rotate"])
        .expires_at(expires);
    let token = client(&server).tokens().create(&request).await.unwrap();

    assert_eq!(token.id, "tok_0123456789abcdefghijklmn");
    assert_eq!(token.status, TokenStatus::Active);
    assert_eq!(token.expires_at, Some(expires));
    assert_eq!(token.last_used_at, None);
    let secret = token.secret.as_ref().expect("secret");
    assert_eq!(secret.expose(), "tkt_SECRETsecretSECRETsecretSECRET123456");
    assert!(
        !format!("{token:?}").contains(secret.expose()),
        "Debug redacts the secret"
    );
    assert!(
        !format!("{secret}").contains(secret.expose()),
        "Display redacts the secret"
    );
    // Serialising gives back the exact API object, secret included.
    assert_eq!(
        serde_json::to_value(&token).unwrap(),
        fixture("token_created.json")
    );
}

#[tokio::test]
async fn list_sends_paging_and_filter_and_reads_meta() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens"))
        .and(query_param("page", "2"))
        .and(query_param("per_page", "10"))
        .and(query_param("status", "expired"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [fixture("token.json")],
            "meta": {"page": 2, "per_page": 10, "total": 11}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let page = client(&server)
        .tokens()
        .list(
            &ListTokens::new()
                .page(2)
                .per_page(10)
                .status(TokenStatus::Expired),
        )
        .await
        .unwrap();
    assert_eq!(page.data.len(), 1);
    assert_eq!((page.meta.page, page.meta.total), (2, 11));
    assert!(!page.has_next());
    assert!(page.data[0].secret.is_none());
    assert_eq!(
        page.data[0].expires_at, None,
        "absent expires_at reads as None"
    );
}

#[tokio::test]
async fn list_all_walks_every_page_once() {
    let server = mock_server().await;
    let token = |n: usize| {
        let mut t = fixture("token.json");
        t["id"] = json!(format!("tok_{n:024}"));
        t
    };
    for page in 1..=3usize {
        let items: Vec<_> = (0..100)
            .map(|i| (page - 1) * 100 + i)
            .filter(|n| *n < 250)
            .map(token)
            .collect();
        Mock::given(method("GET"))
            .and(path("/v1/tokens"))
            .and(query_param("page", page.to_string().as_str()))
            .and(query_param("per_page", "100"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "data": items, "meta": {"page": page, "per_page": 100, "total": 250}
            })))
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(&server);
    let all: Vec<_> = client
        .tokens()
        .list_all(ListTokens::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 250);
    assert_eq!(all[249].id, format!("tok_{:024}", 249));
}

#[tokio::test]
async fn list_all_stops_at_the_first_error() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens"))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: tokens:read",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    let result: Result<Vec<_>, _> = client
        .tokens()
        .list_all(ListTokens::new())
        .try_collect()
        .await;
    assert!(result.unwrap_err().is_forbidden());
}

#[tokio::test]
async fn get_escapes_the_id_and_maps_404() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens/tok_0123456789abcdefghijklmn"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("token.json")))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens/a%2Fb%3F"))
        .respond_with(ResponseTemplate::new(404).set_body_json(error_body(
            404,
            "not_found",
            "No token with id a/b?",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    let token = client
        .tokens()
        .get("tok_0123456789abcdefghijklmn")
        .await
        .unwrap();
    assert_eq!(token.name, "ci-deploy");
    let err = client.tokens().get("a/b?").await.unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(err.code(), Some("not_found"));
}

#[tokio::test]
async fn rotate_posts_without_a_body() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/tokens/tok_0123456789abcdefghijklmn/rotate"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("token_created.json")))
        .expect(1)
        .mount(&server)
        .await;
    let token = client(&server)
        .tokens()
        .rotate("tok_0123456789abcdefghijklmn")
        .await
        .unwrap();
    assert!(token.secret.is_some());
    let received = &server.received_requests().await.unwrap()[0];
    assert!(received.body.is_empty());
}

#[tokio::test]
async fn revoke_tells_revoked_from_already_gone() {
    let server = mock_server().await;
    Mock::given(method("DELETE"))
        .and(path("/v1/tokens/tok_a"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/v1/tokens/tok_b"))
        .respond_with(ResponseTemplate::new(404).set_body_json(error_body(
            404,
            "not_found",
            "No token with id tok_b",
        )))
        .expect(1)
        .mount(&server)
        .await;
    // A 404 that is not the API's (a proxy's HTML page) is an error, not "already gone".
    Mock::given(method("DELETE"))
        .and(path("/v1/tokens/tok_d"))
        .respond_with(ResponseTemplate::new(404).set_body_string("<html>Not Found</html>"))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/v1/tokens/tok_c"))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: tokens:revoke",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    assert_eq!(
        client.tokens().revoke("tok_a").await.unwrap(),
        RevokeOutcome::Revoked
    );
    assert_eq!(
        client.tokens().revoke("tok_b").await.unwrap(),
        RevokeOutcome::AlreadyGone
    );
    assert!(
        client
            .tokens()
            .revoke("tok_c")
            .await
            .unwrap_err()
            .is_forbidden()
    );
    let proxy = client.tokens().revoke("tok_d").await.unwrap_err();
    assert!(
        matches!(
            proxy,
            tokctl_sdk::Error::UnexpectedStatus { status: 404, .. }
        ),
        "{proxy}"
    );
}

#[tokio::test]
async fn scopes_and_audit_decode() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/scopes"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [{"name": "tokens:read", "description": "List tokens."}],
            "meta": {"page": 1, "per_page": 1, "total": 1}
        })))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/audit"))
        .and(query_param("token_id", "tok_0123456789abcdefghijklmn"))
        .and(query_param("action", "token.rotated"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("audit_page.json")))
        .expect(2)
        .mount(&server)
        .await;
    let client = client(&server);
    let scopes = client.scopes().list().await.unwrap();
    assert_eq!(scopes[0].name, "tokens:read");

    let request = tokctl_sdk::ListAudit::new()
        .token_id("tok_0123456789abcdefghijklmn")
        .action("token.rotated");
    let page = client.audit().list(&request).await.unwrap();
    assert_eq!(page.data[0].action, "token.rotated");
    assert_eq!(
        page.data[0].request_id.as_deref(),
        Some("req_0123456789abcdefghijklmn")
    );
    let all: Vec<_> = client
        .audit()
        .list_all(request)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 1);
}

#[tokio::test]
async fn an_unknown_status_from_a_newer_server_still_decodes() {
    let server = mock_server().await;
    let mut token = fixture("token.json");
    token["status"] = json!("suspended");
    token["new_field"] = json!({"nested": true});
    Mock::given(method("GET"))
        .and(path("/v1/tokens/tok_0123456789abcdefghijklmn"))
        .respond_with(ResponseTemplate::new(200).set_body_json(token))
        .expect(1)
        .mount(&server)
        .await;
    let token = client(&server)
        .tokens()
        .get("tok_0123456789abcdefghijklmn")
        .await
        .unwrap();
    assert_eq!(token.status, TokenStatus::Unknown("suspended".into()));
    assert_eq!(token.status.to_string(), "suspended");
}

#[tokio::test]
async fn audit_list_all_walks_every_page_and_errors_map_for_scopes_and_audit() {
    let server = mock_server().await;
    let entry = |n: u32| {
        let mut entry = fixture("audit_page.json")["data"][0].clone();
        entry["id"] = json!(format!("aud_{n:024}"));
        entry
    };
    for (page, entries) in [(1, vec![entry(3), entry(2)]), (2, vec![entry(1)])] {
        Mock::given(method("GET"))
            .and(path("/v1/audit"))
            .and(query_param("page", page.to_string()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "data": entries,
                "meta": {"page": page, "per_page": 2, "total": 3}
            })))
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(&server);
    let ids: Vec<String> = client
        .audit()
        .list_all(tokctl_sdk::ListAudit::new())
        .map_ok(|e| e.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        ids,
        [entry(3), entry(2), entry(1)].map(|e| e["id"].as_str().unwrap().to_string())
    );

    let denied = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/audit"))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: audit:read",
        )))
        .expect(1)
        .mount(&denied)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/scopes"))
        .respond_with(ResponseTemplate::new(401).set_body_json(error_body(
            401,
            "unauthorized",
            "Missing or invalid API key",
        )))
        .expect(1)
        .mount(&denied)
        .await;
    let client = common::client(&denied);
    let err = client
        .audit()
        .list(&tokctl_sdk::ListAudit::new())
        .await
        .unwrap_err();
    assert!(
        err.is_forbidden() && err.code() == Some("forbidden"),
        "{err}"
    );
    assert!(client.scopes().list().await.unwrap_err().is_unauthorized());
}
