//! When the client sends a request again: after a 429's wait for every method, after a server
//! error or a connection failure only for GET and DELETE, never beyond the maximum.

mod common;

use std::time::{Duration, Instant};

use common::{KEY, client, client_with, error_body, fixture, mock_server, with_rate_limit};
use tokctl_sdk::{CreateToken, Error, ListTokens, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn a_429_waits_for_retry_after_then_succeeds_for_any_method() {
    let server = mock_server().await;
    let reset = chrono::Utc::now().timestamp() + 1;
    answer_first(
        &server,
        "POST",
        "/v1/tokens",
        with_rate_limit(
            ResponseTemplate::new(429)
                .set_body_json(error_body(
                    429,
                    "rate_limited",
                    "Rate limit exceeded; retry in 1 s",
                ))
                .insert_header("retry-after", "1"),
            0,
            reset,
        ),
        1,
    )
    .await;
    answer(
        &server,
        "POST",
        "/v1/tokens",
        with_rate_limit(
            ResponseTemplate::new(201).set_body_json(fixture("token_created.json")),
            999,
            reset + 60,
        ),
        1,
    )
    .await;
    let client = client(&server);
    let started = Instant::now();
    let token = client
        .tokens()
        .create(&CreateToken::new("x").scope("tokens:read"))
        .await
        .unwrap();
    assert_eq!(token.name, "ci-deploy");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited for Retry-After"
    );
    assert_eq!(client.rate_limit().map(|r| r.remaining), Some(999));
}

#[tokio::test]
async fn a_429_with_only_a_reset_time_waits_until_then() {
    let server = mock_server().await;
    let reset = chrono::Utc::now().timestamp() + 2;
    answer_first(
        &server,
        "GET",
        "/v1/tokens/tok_a",
        ResponseTemplate::new(429)
            .set_body_json(error_body(429, "rate_limited", "Rate limit exceeded"))
            .insert_header("x-ratelimit-reset", reset.to_string()),
        1,
    )
    .await;
    answer(
        &server,
        "GET",
        "/v1/tokens/tok_a",
        ResponseTemplate::new(200).set_body_json(fixture("token.json")),
        1,
    )
    .await;
    client(&server).tokens().get("tok_a").await.unwrap();
    assert!(
        chrono::Utc::now().timestamp() >= reset,
        "the retry waited for X-RateLimit-Reset"
    );
}

#[tokio::test]
async fn a_429_whose_reset_is_too_far_is_returned_at_once() {
    let server = mock_server().await;
    answer(
        &server,
        "GET",
        "/v1/tokens",
        with_rate_limit(
            ResponseTemplate::new(429)
                .set_body_json(error_body(
                    429,
                    "rate_limited",
                    "Rate limit exceeded; retry in 50 s",
                ))
                .insert_header("retry-after", "50"),
            0,
            chrono::Utc::now().timestamp() + 50,
        ),
        1,
    )
    .await;
    let retry = RetryPolicy::default().max_rate_limit_wait(Duration::from_secs(5));
    let err = client_with(&server, retry)
        .tokens()
        .list(&ListTokens::new())
        .await
        .unwrap_err();
    assert!(err.is_rate_limited());
    let Error::Api(api) = &err else { panic!() };
    assert_eq!(api.retry_after, Some(Duration::from_secs(50)));
    assert_eq!(err.rate_limit().map(|r| r.remaining), Some(0));
}

#[tokio::test]
async fn server_errors_are_retried_for_get_and_delete() {
    let server = mock_server().await;
    answer_first(&server, "GET", "/v1/tokens/tok_x", server_error(503), 2).await;
    answer(
        &server,
        "GET",
        "/v1/tokens/tok_x",
        ResponseTemplate::new(200).set_body_json(fixture("token.json")),
        1,
    )
    .await;
    answer_first(&server, "DELETE", "/v1/tokens/tok_x", server_error(500), 1).await;
    answer(
        &server,
        "DELETE",
        "/v1/tokens/tok_x",
        ResponseTemplate::new(204),
        1,
    )
    .await;
    let client = client(&server);
    assert_eq!(
        client.tokens().get("tok_x").await.unwrap().name,
        "ci-deploy"
    );
    assert_eq!(
        client.tokens().revoke("tok_x").await.unwrap(),
        tokctl_sdk::RevokeOutcome::Revoked
    );
}

#[tokio::test]
async fn retries_stop_after_the_maximum() {
    let server = mock_server().await;
    // The first attempt and three retries.
    answer(&server, "GET", "/v1/tokens", server_error(500), 4).await;
    let err = client(&server)
        .tokens()
        .list(&ListTokens::new())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(500));
}

#[tokio::test]
async fn create_and_rotate_are_never_retried_on_server_errors() {
    let server = mock_server().await;
    answer(&server, "POST", "/v1/tokens", server_error(503), 1).await;
    answer(
        &server,
        "POST",
        "/v1/tokens/tok_x/rotate",
        server_error(500),
        1,
    )
    .await;
    let client = client(&server);
    assert_eq!(
        client
            .tokens()
            .create(&CreateToken::new("x").scope("tokens:read"))
            .await
            .unwrap_err()
            .status(),
        Some(503)
    );
    assert_eq!(
        client.tokens().rotate("tok_x").await.unwrap_err().status(),
        Some(500)
    );
}

#[tokio::test]
async fn a_connection_failure_is_retried_for_get_but_never_for_post() {
    use std::sync::atomic::{AtomicU32, Ordering};
    // A port nothing listens on: every attempt fails to connect.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let attempts = std::sync::Arc::new(AtomicU32::new(0));
    let counter = attempts.clone();
    let client = tokctl_sdk::Client::builder()
        .base_url(format!("http://127.0.0.1:{port}/v1"))
        .api_key(KEY)
        .retry_policy(common::fast_retries())
        .on_request(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let err = client
        .tokens()
        .create(&CreateToken::new("x").scope("tokens:read"))
        .await
        .unwrap_err();
    assert!(err.is_transport(), "{err}");
    assert_eq!(
        attempts.swap(0, Ordering::SeqCst),
        1,
        "a create is sent once"
    );
    client.tokens().rotate("tok_a").await.unwrap_err();
    assert_eq!(
        attempts.swap(0, Ordering::SeqCst),
        1,
        "a rotation is sent once"
    );
    client.tokens().get("tok_a").await.unwrap_err();
    assert!(
        attempts.load(Ordering::SeqCst) > 1,
        "a GET is retried after a connection failure"
    );
}

/// The server's 500 error body, answered with `status`.
fn server_error(status: u16) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(error_body(
        500,
        "internal_error",
        "Internal server error",
    ))
}

/// Answers the first `times` requests to `verb route` with `template`, expecting exactly that
/// many; a mock mounted after it answers the ones that follow.
async fn answer_first(
    server: &MockServer,
    verb: &str,
    route: &str,
    template: ResponseTemplate,
    times: u64,
) {
    expecting(verb, route, template, times)
        .up_to_n_times(times)
        .mount(server)
        .await;
}

/// Answers every request to `verb route` with `template`, expecting exactly `times` of them.
async fn answer(
    server: &MockServer,
    verb: &str,
    route: &str,
    template: ResponseTemplate,
    times: u64,
) {
    expecting(verb, route, template, times).mount(server).await;
}

/// A mock answering `verb route` with `template` that expects exactly `times` requests.
fn expecting(verb: &str, route: &str, template: ResponseTemplate, times: u64) -> Mock {
    Mock::given(method(verb))
        .and(path(route))
        .respond_with(template)
        .expect(times)
}
