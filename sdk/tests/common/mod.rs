//! A wiremock server with a catch-all registered last that fails the test on any request no
//! other mock expected, and a client pointed at it.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::{Value, json};
use tokctl_sdk::{Client, RetryPolicy};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

pub const KEY: &str = "tka_testkeytestkeytestkeytestkeytestkey12";

/// A mock server whose unexpected requests fail the test when it drops.
pub async fn mock_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(599).set_body_string("unexpected request"))
        .with_priority(u8::MAX)
        .expect(0)
        .named("catch-all: no other mock expected this request")
        .mount(&server)
        .await;
    server
}

/// A client for `server`, retrying quickly.
pub fn client(server: &MockServer) -> Client {
    client_with(server, fast_retries())
}

pub fn client_with(server: &MockServer, retry: RetryPolicy) -> Client {
    Client::builder()
        .base_url(format!("{}/v1", server.uri()))
        .api_key(KEY)
        .retry_policy(retry)
        .build()
        .expect("client")
}

pub fn fast_retries() -> RetryPolicy {
    RetryPolicy::default()
        .max_retries(3)
        .initial_backoff(Duration::from_millis(10))
        .max_backoff(Duration::from_millis(20))
}

pub fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture json")
}

/// The API's error body.
pub fn error_body(status: u16, code: &str, message: &str) -> Value {
    json!({"error": code, "message": message, "status": status})
}

/// A response carrying the three rate-limit headers.
pub fn with_rate_limit(template: ResponseTemplate, remaining: u32, reset: i64) -> ResponseTemplate {
    template
        .insert_header("x-ratelimit-limit", "1000")
        .insert_header("x-ratelimit-remaining", remaining.to_string().as_str())
        .insert_header("x-ratelimit-reset", reset.to_string().as_str())
}
