//! Error mapping against wiremock: each status to its variant and helper, raw bodies kept,
//! transport failures and timeouts told apart, and no key in any of it.

mod common;

use std::time::Duration;

use common::{KEY, client, error_body, fixture, mock_server, with_rate_limit};
use tokctl_sdk::{CreateToken, Error, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn each_error_status_maps_to_its_helper() {
    type Check = fn(&Error) -> bool;
    let cases: [(u16, &str, &str, Check); 7] = [
        (400, "bad_request", "Malformed JSON", |e| {
            e.status() == Some(400)
        }),
        (401, "unauthorized", "Missing or invalid API key", |e| {
            e.is_unauthorized() && !e.is_token_expired()
        }),
        (
            401,
            "unauthorized",
            "Token has expired",
            Error::is_token_expired,
        ),
        (
            403,
            "forbidden",
            "Missing required scope: tokens:read",
            Error::is_forbidden,
        ),
        (
            404,
            "not_found",
            "No token with id tok_x",
            Error::is_not_found,
        ),
        (
            409,
            "conflict",
            "A token with this name already exists",
            Error::is_conflict,
        ),
        (
            422,
            "unprocessable_entity",
            "expires_at must be in the future",
            |e| e.status() == Some(422),
        ),
    ];
    for (status, code, message, check) in cases {
        let server = mock_server().await;
        Mock::given(method("GET"))
            .and(path("/v1/tokens/tok_x"))
            .respond_with(with_rate_limit(
                ResponseTemplate::new(status)
                    .set_body_json(error_body(status, code, message))
                    .insert_header("x-request-id", "req_abc"),
                7,
                1_900_000_000,
            ))
            .expect(1)
            .mount(&server)
            .await;
        let err = client(&server).tokens().get("tok_x").await.unwrap_err();
        assert!(check(&err), "{status} {message}: {err:?}");
        let Error::Api(api) = &err else {
            panic!("not an API error: {err:?}")
        };
        assert_eq!(
            (api.status, api.code.as_str(), api.message.as_str()),
            (status, code, message)
        );
        assert_eq!(api.request_id.as_deref(), Some("req_abc"));
        assert_eq!(err.rate_limit().map(|r| r.remaining), Some(7));
        assert!(err.to_string().contains(message));
    }
}

#[tokio::test]
async fn a_non_json_error_keeps_the_raw_body() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/tokens"))
        .respond_with(ResponseTemplate::new(502).set_body_string("<html>bad gateway</html>"))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server)
        .tokens()
        .create(&CreateToken::new("x").scope("tokens:read"))
        .await
        .unwrap_err();
    match err {
        Error::UnexpectedStatus { status, body, .. } => {
            assert_eq!(status, 502);
            assert!(body.contains("bad gateway"));
        }
        other => panic!("expected UnexpectedStatus, got {other:?}"),
    }
}

#[tokio::test]
async fn an_undecodable_success_body_is_a_decode_error() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens/tok_x"))
        .respond_with(ResponseTemplate::new(200).set_body_string("{\"id\": 5}"))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server).tokens().get("tok_x").await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { body, .. } if body.as_str() == "{\"id\": 5}"),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_undecodable_rotation_keeps_its_secret_out_of_debug_output() {
    let server = mock_server().await;
    let secret = "tok_live_0123456789abcdef0123456789abcdef";
    Mock::given(method("POST"))
        .and(path("/v1/tokens/tok_x/rotate"))
        .respond_with(
            ResponseTemplate::new(200).set_body_string(format!("{{\"secret\": \"{secret}\"}}")),
        )
        .mount(&server)
        .await;
    let err = client(&server).tokens().rotate("tok_x").await.unwrap_err();
    let Error::Decode { body, .. } = &err else {
        panic!("expected Decode, got {err:?}");
    };
    assert!(body.as_str().contains(secret), "the body stays readable");
    for shown in [format!("{err:?}"), format!("{err:#?}"), err.to_string()] {
        assert!(!shown.contains(secret), "secret shown in {shown}");
    }
}

#[tokio::test]
async fn a_slow_server_is_a_timeout() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/tokens/tok_x"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(fixture("token.json"))
                .set_delay(Duration::from_secs(5)),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = tokctl_sdk::Client::builder()
        .base_url(format!("{}/v1", server.uri()))
        .api_key(KEY)
        .timeout(Duration::from_millis(200))
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let err = client.tokens().get("tok_x").await.unwrap_err();
    assert!(matches!(err, Error::Timeout), "{err:?}");
}

#[tokio::test]
async fn an_unreachable_server_is_a_transport_error_without_the_key() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = tokctl_sdk::Client::builder()
        .base_url(format!("http://127.0.0.1:{port}/v1"))
        .api_key(KEY)
        .retry_policy(common::fast_retries())
        .build()
        .unwrap();
    let err = client.tokens().get("tok_x").await.unwrap_err();
    assert!(err.is_transport(), "{err:?}");
    assert_eq!(
        err.connect_cause(),
        Some(&tokctl_sdk::ConnectCause::Refused)
    );
    assert_eq!(
        err.to_string(),
        format!("cannot connect to http://127.0.0.1:{port}/v1: connection refused")
    );
    assert!(
        !format!("{err} {err:?} {client:?}").contains(KEY),
        "the key never shows"
    );

    // A stream says the same, naming the gateway's base.
    let request = tokctl_sdk::ChatRequest::new("auto").message(tokctl_sdk::ChatMessage::user("hi"));
    let err = match client.chat().create_stream(&request).await {
        Ok(mut stream) => futures::StreamExt::next(&mut stream)
            .await
            .expect("an item")
            .unwrap_err(),
        Err(err) => err,
    };
    assert_eq!(
        err.to_string(),
        format!("cannot connect to http://127.0.0.1:{port}/v1: connection refused")
    );
}

#[tokio::test]
async fn https_to_a_plain_http_server_is_a_tls_failure() {
    let server = mock_server().await;
    let base = format!("{}/v1", server.uri().replace("http://", "https://"));
    let client = tokctl_sdk::Client::builder()
        .base_url(&base)
        .api_key(KEY)
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let err = client.tokens().get("tok_x").await.unwrap_err();
    assert!(
        matches!(err.connect_cause(), Some(tokctl_sdk::ConnectCause::Tls(_))),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("cannot connect to {base}: TLS handshake failed: ")),
        "{err}"
    );
}

#[test]
fn bad_configuration_is_refused_when_building() {
    for url in [
        "not a url",
        "ftp://example.com/v1",
        "mailto:x@y",
        // The chat base URL by mistake: no version segment.
        "http://127.0.0.1:8080",
        "http://127.0.0.1:8080/api",
    ] {
        let err = tokctl_sdk::Client::builder()
            .base_url(url)
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::Config(_)), "{url}");
    }
    for url in [
        "http://127.0.0.1:8080/v1/",
        "https://api.example.com/tokens/v2",
    ] {
        assert!(tokctl_sdk::Client::builder().base_url(url).build().is_ok());
    }
    let err = tokctl_sdk::Client::builder()
        .api_key("bad\nkey")
        .build()
        .unwrap_err();
    assert!(matches!(&err, Error::Config(m) if !m.contains("bad\nkey")));
}
