//! A webhook receiver for tests, and helpers to subscribe and verify deliveries.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use hmac::{Hmac, KeyInit, Mac};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

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

/// A request held by [`holding_receiver`]: send the status to answer it with.
pub struct Held {
    pub received: Received,
    pub answer: oneshot::Sender<u16>,
}

/// A receiver on `addr` that answers each request only when the test says how.
pub async fn holding_receiver(
    addr: SocketAddr,
) -> (mpsc::UnboundedReceiver<Held>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |State(tx): State<mpsc::UnboundedSender<Held>>,
                 headers: HeaderMap,
                 body: axum::body::Bytes| async move {
                    let (answer, status) = oneshot::channel();
                    let received = Received {
                        headers,
                        body: body.to_vec(),
                    };
                    let _ = tx.send(Held { received, answer });
                    let status = status.await.unwrap_or(500);
                    AxumStatus::from_u16(status).unwrap()
                },
            ),
        )
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .expect("bind receiver");
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (rx, task)
}

/// A receiver that accepts connections and never answers; each accepted connection is
/// reported (with how many are open) on the channel.
pub async fn stuck_receiver() -> (
    SocketAddr,
    mpsc::UnboundedReceiver<usize>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
            let _ = tx.send(held.len());
        }
    });
    (addr, rx, task)
}

/// Polls `check` until it yields a value, for at most 20 s of wall-clock time.
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "gave up after 20 s waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The endpoint's delivery attempts (first page of 100), newest first.
pub async fn attempts(server: &Server, endpoint_id: &str) -> Value {
    let response = server
        .get(
            &format!("/v1/webhooks/{endpoint_id}/deliveries?per_page=100"),
            &server.admin_key,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
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

/// Queues a `webhook.test` event for `endpoint_id` through `server`; returns its id.
pub async fn send_test(server: &Server, endpoint_id: &str) -> String {
    let response = server
        .post(
            &format!("/v1/webhooks/{endpoint_id}/test"),
            &server.admin_key,
            &json!({}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let queued: Value = response.json().await.unwrap();
    queued["id"].as_str().unwrap().to_string()
}
