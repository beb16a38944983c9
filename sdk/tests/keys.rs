//! Every API key method against wiremock: request shape, success decoding, error mapping.

mod common;

use common::{KEY, client, error_body, fixture, mock_server};
use futures::TryStreamExt;
use serde_json::json;
use tokctl_sdk::{CreateKey, ListKeys, RevokeOutcome, TokenStatus};
use wiremock::matchers::{body_json, header, method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn create_sends_the_body_and_decodes_the_secret() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/keys"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .and(header("content-type", "application/json"))
        .and(body_json(json!({
            "name": "ci-admin",
            "scopes": ["tokens:read", "keys:read"],
            "expires_at": "2030-01-01T00:00:00Z"
        })))
        .respond_with(
            ResponseTemplate::new(201)
                .insert_header("location", "/v1/keys/key_0123456789abcdefghijklmn")
                .set_body_json(fixture("key_created.json")),
        )
        .expect(1)
        .mount(&server)
        .await;
    let expires = "2030-01-01T00:00:00Z".parse().unwrap();
    let request = CreateKey::new("ci-admin")
        .scope("tokens:read")
        .scopes(["keys:read"])
        .expires_at(expires);
    let key = client(&server).keys().create(&request).await.unwrap();

    assert_eq!(key.id, "key_0123456789abcdefghijklmn");
    assert_eq!(key.status, TokenStatus::Active);
    assert_eq!(key.expires_at, Some(expires));
    assert_eq!(key.last_used_at, None);
    assert_eq!(key.created_by, "key_abcdefghijklmn0123456789");
    let secret = key.secret.as_ref().expect("secret");
    assert_eq!(secret.expose(), "tka_SECRETsecretSECRETsecretSECRET123456");
    assert!(
        !format!("{key:?}").contains(secret.expose()),
        "Debug redacts the secret"
    );
    assert!(
        !format!("{request:?}").contains("tka_"),
        "a request holds no secret"
    );
    // Serialising gives back the exact API object, secret included.
    assert_eq!(
        serde_json::to_value(&key).unwrap(),
        fixture("key_created.json")
    );
}

#[tokio::test]
async fn create_without_expiry_leaves_the_field_out_and_maps_errors() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/keys"))
        .and(body_json(
            json!({"name": "taken", "scopes": ["tokens:read"]}),
        ))
        .respond_with(ResponseTemplate::new(409).set_body_json(error_body(
            409,
            "conflict",
            "An API key named taken already exists",
        )))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/keys"))
        .and(body_json(json!({"name": "wide", "scopes": ["keys:write"]})))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: keys:write",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    let taken = client
        .keys()
        .create(&CreateKey::new("taken").scope("tokens:read"))
        .await
        .unwrap_err();
    assert!(
        taken.is_conflict() && taken.code() == Some("conflict"),
        "{taken}"
    );
    let wide = client
        .keys()
        .create(&CreateKey::new("wide").scope("keys:write"))
        .await
        .unwrap_err();
    assert!(wide.is_forbidden(), "{wide}");
}

#[tokio::test]
async fn a_create_answered_with_a_server_error_is_not_sent_twice() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/keys"))
        .respond_with(ResponseTemplate::new(503).set_body_json(error_body(
            503,
            "unavailable",
            "Try again",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server)
        .keys()
        .create(&CreateKey::new("ci").scope("tokens:read"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
}

#[tokio::test]
async fn list_sends_paging_and_filter_and_reads_absent_and_null_expiry() {
    let server = mock_server().await;
    let mut null_expiry = fixture("key.json");
    null_expiry["expires_at"] = json!(null);
    Mock::given(method("GET"))
        .and(path("/v1/keys"))
        .and(query_param("page", "2"))
        .and(query_param("per_page", "10"))
        .and(query_param("status", "revoked"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [fixture("key.json"), null_expiry],
            "meta": {"page": 2, "per_page": 10, "total": 12}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let page = client(&server)
        .keys()
        .list(
            &ListKeys::new()
                .page(2)
                .per_page(10)
                .status(TokenStatus::Revoked),
        )
        .await
        .unwrap();
    assert_eq!(page.data.len(), 2);
    assert_eq!((page.meta.page, page.meta.total), (2, 12));
    assert!(!page.has_next());
    for key in &page.data {
        assert!(key.secret.is_none());
        assert_eq!(
            key.expires_at, None,
            "absent and null expires_at read as None"
        );
    }
    assert_eq!(page.data[0].created_by, "admin");
}

#[tokio::test]
async fn list_all_walks_every_page_once_and_stops_at_an_error() {
    let server = mock_server().await;
    let key = |n: usize| {
        let mut k = fixture("key.json");
        k["id"] = json!(format!("key_{n:024}"));
        k
    };
    for page in 1..=3usize {
        let items: Vec<_> = (0..100)
            .map(|i| (page - 1) * 100 + i)
            .filter(|n| *n < 205)
            .map(key)
            .collect();
        Mock::given(method("GET"))
            .and(path("/v1/keys"))
            .and(query_param("page", page.to_string().as_str()))
            .and(query_param("per_page", "100"))
            .and(query_param("status", "active"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "data": items, "meta": {"page": page, "per_page": 100, "total": 205}
            })))
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(&server);
    let all: Vec<_> = client
        .keys()
        .list_all(ListKeys::new().page(7).status(TokenStatus::Active))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 205);
    assert_eq!(all[204].id, format!("key_{:024}", 204));

    let denied = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/keys"))
        .respond_with(ResponseTemplate::new(403).set_body_json(error_body(
            403,
            "forbidden",
            "Missing required scope: keys:read",
        )))
        .expect(1)
        .mount(&denied)
        .await;
    let client = common::client(&denied);
    let result: Result<Vec<_>, _> = client.keys().list_all(ListKeys::new()).try_collect().await;
    assert!(result.unwrap_err().is_forbidden());
}

#[tokio::test]
async fn revoke_tells_revoked_from_already_gone_and_refuses_the_key_in_use() {
    let server = mock_server().await;
    Mock::given(method("DELETE"))
        .and(path("/v1/keys/key_a"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/v1/keys/key_b"))
        .respond_with(ResponseTemplate::new(404).set_body_json(error_body(
            404,
            "not_found",
            "No API key with id key_b",
        )))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/v1/keys/key_self"))
        .respond_with(ResponseTemplate::new(409).set_body_json(error_body(
            409,
            "conflict",
            "An API key cannot revoke itself",
        )))
        .expect(1)
        .mount(&server)
        .await;
    // A 404 that is not the API's (a proxy's HTML page) is an error, not "already gone".
    Mock::given(method("DELETE"))
        .and(path("/v1/keys/key_d"))
        .respond_with(ResponseTemplate::new(404).set_body_string("<html>Not Found</html>"))
        .expect(1)
        .mount(&server)
        .await;
    // Ids are escaped into one path segment.
    Mock::given(method("DELETE"))
        .and(path("/v1/keys/a%2Fb%3F"))
        .respond_with(ResponseTemplate::new(404).set_body_json(error_body(
            404,
            "not_found",
            "No API key with id a/b?",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    assert_eq!(
        client.keys().revoke("key_a").await.unwrap(),
        RevokeOutcome::Revoked
    );
    assert_eq!(
        client.keys().revoke("key_b").await.unwrap(),
        RevokeOutcome::AlreadyGone
    );
    let in_use = client.keys().revoke("key_self").await.unwrap_err();
    assert!(
        in_use.is_conflict() && in_use.code() == Some("conflict"),
        "{in_use}"
    );
    let proxy = client.keys().revoke("key_d").await.unwrap_err();
    assert!(
        matches!(
            proxy,
            tokctl_sdk::Error::UnexpectedStatus { status: 404, .. }
        ),
        "{proxy}"
    );
    assert_eq!(
        client.keys().revoke("a/b?").await.unwrap(),
        RevokeOutcome::AlreadyGone
    );
}

#[tokio::test]
async fn an_unknown_status_and_unknown_fields_from_a_newer_server_still_decode() {
    let server = mock_server().await;
    let mut key = fixture("key.json");
    key["status"] = json!("suspended");
    key["new_field"] = json!({"nested": true});
    Mock::given(method("GET"))
        .and(path("/v1/keys"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [key], "meta": {"page": 1, "per_page": 25, "total": 1}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let page = client(&server).keys().list(&ListKeys::new()).await.unwrap();
    assert_eq!(
        page.data[0].status,
        TokenStatus::Unknown("suspended".into())
    );
    assert_eq!(page.data[0].status.to_string(), "suspended");
}
