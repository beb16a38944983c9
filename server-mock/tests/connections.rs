//! Connections. Clients' connections: cut off when they stall before a whole request head or sit
//! idle. Connections to a plain-HTTP upstream: kept alive and reused, replaced when the upstream
//! closes them, and closed when the client hangs up on a stream.

mod common;

use common::both;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use common::upstream::{catalogue, chat, gateway};
use common::{Options, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What the upstream saw: the client address of each request.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<SocketAddr>>>);

/// An OpenAI-compatible upstream on 127.0.0.1:0 answering every request at once; with
/// `close_each`, it closes the connection after each answer.
async fn upstream(close_each: bool) -> (String, Seen) {
    let seen = Seen::default();
    let record = seen.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |ConnectInfo(peer): ConnectInfo<SocketAddr>| {
            let record = record.clone();
            async move {
                record.0.lock().unwrap().push(peer);
                let body = json!({"id": "up", "object": "chat.completion", "created": 1, "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}});
                let mut response = axum::Json(body).into_response();
                if close_each {
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, "close".parse().unwrap());
                }
                response
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    (format!("http://{addr}/v1"), seen)
}

async fn ask_five_times(base_url: &str) -> Vec<StatusCode> {
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(&catalogue(tmp.path(), base_url, "m"), "k");
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let response = chat(
            &server,
            json!({"model": "upstream", "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
        statuses.push(response.status());
    }
    statuses
}

both! {
    #[tokio::test]
    async fn one_connection_serves_request_after_request() {
        let (base_url, seen) = upstream(false).await;
        assert_eq!(ask_five_times(&base_url).await, [StatusCode::OK; 5]);
        let peers: HashSet<SocketAddr> = seen.0.lock().unwrap().iter().copied().collect();
        assert_eq!(peers.len(), 1, "one kept-alive connection: {peers:?}");
    }
}

both! {
    #[tokio::test]
    async fn an_upstream_that_closes_its_connections_still_gets_every_request() {
        let (base_url, seen) = upstream(true).await;
        assert_eq!(ask_five_times(&base_url).await, [StatusCode::OK; 5]);
        let peers: HashSet<SocketAddr> = seen.0.lock().unwrap().iter().copied().collect();
        assert_eq!(peers.len(), 5, "a new connection each time: {peers:?}");
    }
}

/// Ends when dropped: tells the test that the upstream's answer was abandoned.
struct Abandoned(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

both! {
    #[tokio::test]
    async fn a_client_hanging_up_closes_the_upstream_connection() {
        let (tx, abandoned) = tokio::sync::oneshot::channel();
        let guard = Arc::new(Mutex::new(Some(Abandoned(Some(tx)))));
        // An upstream that streams a token every 50 ms, forever.
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            post(move || {
                let guard = guard.lock().unwrap().take();
                async move {
                    let chunks = futures::stream::unfold(guard, |guard| async move {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let chunk = json!({"id": "up", "object": "chat.completion.chunk",
                            "choices": [{"index": 0, "delta": {"content": "la "}, "finish_reason": null}]});
                        Some((
                            Ok::<_, std::convert::Infallible>(format!("data: {chunk}\n\n")),
                            guard,
                        ))
                    });
                    Response::builder()
                        .header(header::CONTENT_TYPE, "text/event-stream")
                        .body(axum::body::Body::from_stream(chunks))
                        .unwrap()
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let tmp = tempfile::tempdir().unwrap();
        let server = gateway(
            &catalogue(tmp.path(), &format!("http://{addr}/v1"), "m"),
            "k",
        );
        let mut response = chat(
            &server,
            json!({"model": "upstream", "stream": true, "messages": [{"role": "user", "content": "sing"}]}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut seen = String::new();
        while seen.matches("la ").count() < 2 {
            seen.push_str(&String::from_utf8_lossy(
                &response.chunk().await.unwrap().unwrap(),
            ));
        }
        drop(response);
        tokio::time::timeout(Duration::from_secs(10), abandoned)
            .await
            .expect("the upstream's answer was dropped within 10 s of the hang-up")
            .unwrap();
        // Billed for what was sent before the hang-up, not for an endless song.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let usage: Value = server
                .get("/v1/usage", &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            if usage["totals"]["requests"] == 1 {
                let billed = usage["totals"]["completion_tokens"].as_u64().unwrap();
                assert!((2..=10).contains(&billed), "{usage}");
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no ledger record");
        }
    }
}

/// Reads until the server closes the connection; fails if it has not within 20 s.
async fn until_closed(mut stream: TcpStream) -> String {
    let mut received = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut received))
        .await
        .expect("the server did not close the connection")
        .expect("read");
    String::from_utf8_lossy(&received).into_owned()
}

both! {
    #[tokio::test]
    async fn a_client_that_stalls_or_idles_is_cut_off_after_the_header_timeout() {
        let server = Server::start_with(Options {
            args: vec!["--header-timeout".into(), "300ms".into()],
            ..Options::default()
        });
        let addr = server.base.trim_start_matches("http://");
        // Half a request head, then nothing (slowloris).
        let mut stalled = TcpStream::connect(addr).await.unwrap();
        stalled
            .write_all(b"GET /v1/tokens HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        // A whole request, answered, then an idle keep-alive connection.
        let mut idle = TcpStream::connect(addr).await.unwrap();
        idle.write_all(b"GET /v1/tokens HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .unwrap();

        assert_eq!(until_closed(stalled).await, "");
        let answer = until_closed(idle).await;
        assert!(answer.starts_with("HTTP/1.1 401 "), "{answer}");
        // The server itself goes on answering.
        let response = server.get("/v1/tokens", &server.admin_key).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}
