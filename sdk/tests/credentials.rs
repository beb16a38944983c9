//! Leak reports against wiremock: request shape (no Authorization, even from a client with a
//! key), batches of at most 100, error mapping.

mod common;

use common::{client, error_body, mock_server};
use serde_json::{Value, json};
use tokctl_sdk::Client;
use wiremock::matchers::{body_json, header, header_exists, method, path};
use wiremock::{Mock, Request, ResponseTemplate};

const LEAKED: &str = "tkt_0123456789abcdefghijABCDEFGHIJ000000";

fn received(n: usize) -> ResponseTemplate {
    ResponseTemplate::new(202).set_body_json(json!({ "received": n }))
}

/// Fails the test if any leak report carries an Authorization header.
async fn refuse_authorized(server: &wiremock::MockServer) {
    Mock::given(path("/v1/credentials/revoke"))
        .and(header_exists("authorization"))
        .respond_with(ResponseTemplate::new(599))
        .with_priority(1)
        .expect(0)
        .named("a leak report must not carry the client's key")
        .mount(server)
        .await;
}

#[tokio::test]
async fn revoke_posts_the_secrets_without_the_clients_key() {
    let server = mock_server().await;
    refuse_authorized(&server).await;
    Mock::given(method("POST"))
        .and(path("/v1/credentials/revoke"))
        .and(header("content-type", "application/json"))
        .and(body_json(
            json!({ "credentials": [LEAKED, "not-a-secret"] }),
        ))
        .respond_with(received(2))
        .expect(1)
        .mount(&server)
        .await;
    // `client` has an API key; the report goes without it.
    let client = client(&server);
    let n = client
        .credentials()
        .revoke([LEAKED, "not-a-secret"])
        .await
        .unwrap();
    assert_eq!(n, 2);
    assert!(client.rate_limit().is_none());
}

#[tokio::test]
async fn a_client_without_a_key_may_report_and_an_empty_list_sends_nothing() {
    let server = mock_server().await;
    refuse_authorized(&server).await;
    Mock::given(method("POST"))
        .and(path("/v1/credentials/revoke"))
        .and(body_json(json!({ "credentials": [LEAKED] })))
        .respond_with(received(1))
        .expect(1)
        .mount(&server)
        .await;
    let client = Client::builder()
        .base_url(format!("{}/v1", server.uri()))
        .build()
        .unwrap();
    let secrets = vec![LEAKED.to_string()];
    assert_eq!(client.credentials().revoke(&secrets).await.unwrap(), 1);
    assert_eq!(
        client
            .credentials()
            .revoke(Vec::<String>::new())
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn more_than_100_go_in_batches_of_100_and_the_counts_add_up() {
    let server = mock_server().await;
    refuse_authorized(&server).await;
    Mock::given(method("POST"))
        .and(path("/v1/credentials/revoke"))
        .respond_with(|request: &Request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            let n = body["credentials"].as_array().unwrap().len();
            received(n)
        })
        .expect(2)
        .mount(&server)
        .await;
    let secrets: Vec<String> = (0..150).map(|n| format!("secret-{n}")).collect();
    let n = client(&server)
        .credentials()
        .revoke(&secrets)
        .await
        .unwrap();
    assert_eq!(n, 150);

    // In order: the first 100, then the other 50.
    let sent: Vec<Vec<String>> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            serde_json::from_value(body["credentials"].clone()).unwrap()
        })
        .collect();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], secrets[..100]);
    assert_eq!(sent[1], secrets[100..]);
}

#[tokio::test]
async fn a_refusal_maps_to_the_error_with_its_status_code_and_message() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/credentials/revoke"))
        .respond_with(ResponseTemplate::new(422).set_body_json(error_body(
            422,
            "unprocessable_entity",
            "credentials must hold 1 to 100 secrets, not 101",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server)
        .credentials()
        .revoke([LEAKED])
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(422));
    assert_eq!(err.code(), Some("unprocessable_entity"));
    let tokctl_sdk::Error::Api(api) = err else {
        panic!("not the API's error body: {err:?}");
    };
    assert!(api.message.contains("credentials"), "{}", api.message);
}
