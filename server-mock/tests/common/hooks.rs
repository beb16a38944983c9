//! A webhook receiver for tests, and helpers to subscribe and verify deliveries.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use hmac::{Hmac, KeyInit, Mac};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Options, Server};

/// One request the receiver got.
#[derive(Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// A receiver on `addr` answering `status`; each request arrives on the channel.
pub async fn receiver(
    addr: SocketAddr,
    status: u16,
) -> (
    mpsc::UnboundedReceiver<Received>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |State((tx, status)): State<(mpsc::UnboundedSender<Received>, u16)>,
                 headers: HeaderMap,
                 body: axum::body::Bytes| async move {
                    let _ = tx.send(Received {
                        headers,
                        body: body.to_vec(),
                    });
                    AxumStatus::from_u16(status).unwrap()
                },
            ),
        )
        .with_state((tx, status));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .expect("bind receiver");
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (rx, task)
}

/// A loopback address nothing listens on (yet).
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

pub async fn next(rx: &mut mpsc::UnboundedReceiver<Received>) -> Received {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a delivery within 20 s")
        .expect("receiver open")
}

pub fn fast_retries() -> Options<'static> {
    Options {
        args: vec![
            "--webhook-retry-schedule".into(),
            "100ms,200ms,300ms,400ms,500ms,500ms,500ms,500ms,500ms,500ms".into(),
        ],
        ..Default::default()
    }
}

pub async fn subscribe(server: &Server, url: &str, events: &[&str]) -> Value {
    let response = server
        .post(
            "/v1/webhooks",
            &server.admin_key,
            &json!({"url": url, "events": events}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

pub fn verify(secret: &str, received: &Received) -> Value {
    let mut mac = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(&received.body);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(
        received.headers["x-service-signature"].to_str().unwrap(),
        expected
    );
    let body: Value = serde_json::from_slice(&received.body).unwrap();
    assert_eq!(
        received.headers["x-service-event-id"].to_str().unwrap(),
        body["id"].as_str().unwrap()
    );
    assert!(
        received.headers["x-service-timestamp"]
            .to_str()
            .unwrap()
            .parse::<i64>()
            .is_ok()
    );
    body
}
