//! The SDK's webhook configuration and event verification against the real server and a
//! receiver on 127.0.0.1.

mod common;

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use common::TestServer;
use futures::TryStreamExt;
use tokctl_sdk::CreateToken;
use tokctl_sdk::webhooks::{CreateWebhook, EventKind, verify_event};
use tokio::sync::mpsc;

async fn receiver() -> (String, mpsc::UnboundedReceiver<(HeaderMap, Bytes)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |State(tx): State<mpsc::UnboundedSender<(HeaderMap, Bytes)>>,
                 headers: HeaderMap,
                 body: Bytes| async move {
                    let _ = tx.send((headers, body));
                    "ok"
                },
            ),
        )
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, rx)
}

#[tokio::test]
async fn configure_receive_and_verify_with_the_sdk() {
    let server = TestServer::start().await;
    let client = server.admin();
    let (url, mut inbox) = receiver().await;
    let endpoint = client
        .webhooks()
        .create(&CreateWebhook::new(&url).event("token.rotated"))
        .await
        .unwrap();
    let secret = endpoint.secret.clone().expect("secret on create");
    assert!(
        client
            .webhooks()
            .get(&endpoint.id)
            .await
            .unwrap()
            .secret
            .is_none()
    );
    let all: Vec<_> = client.webhooks().list_all().try_collect().await.unwrap();
    assert_eq!(all.len(), 1);

    let token = client
        .tokens()
        .create(&CreateToken::new("ci").scope("tokens:read"))
        .await
        .unwrap();
    client.tokens().rotate(&token.id).await.unwrap();
    let (headers, body) = tokio::time::timeout(Duration::from_secs(20), inbox.recv())
        .await
        .unwrap()
        .unwrap();
    let event = verify_event(
        secret.expose().as_bytes(),
        &headers,
        &body,
        Some(Duration::from_secs(300)),
    )
    .unwrap();
    let EventKind::TokenRotated {
        token_id,
        previous_secret_expires_at,
    } = &event.kind
    else {
        panic!("{event:?}")
    };
    assert_eq!(token_id, &token.id);
    assert!(
        previous_secret_expires_at.is_some_and(|at| at <= chrono::Utc::now()),
        "without an overlap the old secret stopped at the rotation: {event:?}"
    );
    assert_eq!(headers["x-service-event-id"].to_str().unwrap(), event.id);
    assert!(verify_event(b"wrong secret", &headers, &body, None).is_err());
    let rotated_id = event.id;

    let test_id = client.webhooks().test(&endpoint.id).await.unwrap();
    let (headers, body) = tokio::time::timeout(Duration::from_secs(20), inbox.recv())
        .await
        .unwrap()
        .unwrap();
    let event = verify_event(secret.expose().as_bytes(), &headers, &body, None).unwrap();
    assert_eq!(event.id, test_id);
    assert!(matches!(event.kind, EventKind::WebhookTest { .. }));

    // Both attempts, newest first, with their event, type, result and no next retry.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let attempts = loop {
        let attempts = client.webhooks().deliveries(&endpoint.id).await.unwrap();
        if attempts.meta.total == 2 {
            break attempts;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "two recorded attempts within 20 s: {:?}",
            attempts.data
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let seen: Vec<(&str, &str)> = attempts
        .data
        .iter()
        .map(|a| (a.event_id.as_str(), a.event_type.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (test_id.as_str(), "webhook.test"),
            (rotated_id.as_str(), "token.rotated")
        ]
    );
    for attempt in &attempts.data {
        assert_eq!(
            (
                attempt.attempt,
                attempt.status_code,
                attempt.error.as_deref()
            ),
            (1, Some(200), None)
        );
        assert!(attempt.next_retry_at.is_none());
    }
    assert!(attempts.data[0].created_at >= attempts.data[1].created_at);

    client.webhooks().delete(&endpoint.id).await.unwrap();
    assert!(
        client
            .webhooks()
            .get(&endpoint.id)
            .await
            .unwrap_err()
            .is_not_found()
    );
}
