//! Timing against a real local server that drips its answer (wiremock sends a body at once):
//! a stream has no overall time limit, the timeout bounds the wait for its response and each
//! silence, an ordinary call keeps its total limit, and dropping a stream closes the connection.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::routing::{get, post};
use futures::{Stream, StreamExt};
use serde_json::json;
use tokctl_sdk::{ChatMessage, ChatRequest, Client, Error, RetryPolicy};
use tokio::sync::oneshot;

/// The client's timeout in every test here: long beside the servers' 20 ms gaps, so a loaded
/// machine does not turn a gap into a silence.
const TIMEOUT: Duration = Duration::from_secs(2);
/// The gap between a dripping server's pieces.
const GAP: Duration = Duration::from_millis(20);
/// Bound on any wait, so a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(30);

/// Serves `router` on 127.0.0.1:0 and returns a client pointed at it with [`TIMEOUT`].
async fn serve(router: Router) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    Client::builder()
        .base_url(format!("http://{addr}/v1"))
        .api_key("tka_test")
        .timeout(TIMEOUT)
        .retry_policy(RetryPolicy::default().max_retries(0))
        .build()
        .expect("client")
}

fn event(text: &str) -> Bytes {
    let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    Bytes::from(format!("data: {chunk}\n\n"))
}

/// `count` chunks `0`, `1`, ..., each after `gap`.
fn dripped(count: usize, gap: Duration) -> impl Stream<Item = Bytes> + Send {
    futures::stream::unfold(0, move |i| async move {
        if i == count {
            return None;
        }
        tokio::time::sleep(gap).await;
        Some((event(&i.to_string()), i + 1))
    })
}

/// Chunks `0`, `1`, ..., each [`GAP`] after the last, until `at_least` has passed since the
/// first: however slowly they go, the whole takes that long.
fn dripped_for(at_least: Duration) -> impl Stream<Item = Bytes> + Send {
    futures::stream::unfold(
        (0, None),
        move |(i, started): (usize, Option<Instant>)| async move {
            let started = started.unwrap_or_else(Instant::now);
            if i > 0 && started.elapsed() >= at_least {
                return None;
            }
            tokio::time::sleep(GAP).await;
            Some((event(&i.to_string()), (i + 1, Some(started))))
        },
    )
}

fn sse(body: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(body.map(Ok::<_, Infallible>)))
        .expect("response")
}

fn request() -> ChatRequest {
    ChatRequest::new("auto").message(ChatMessage::user("a long answer, please"))
}

/// Reads the whole stream within [`DEADLINE`]: the texts, then the error that ended it, if any.
async fn read_all(client: &Client) -> (Vec<String>, Option<Error>) {
    let read = async {
        let mut stream = client.chat().create_stream(&request()).await?;
        let mut texts = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(chunk) => texts.push(chunk.text().unwrap_or_default().to_string()),
                Err(err) => return Ok::<_, Error>((texts, Some(err))),
            }
        }
        Ok((texts, None))
    };
    match tokio::time::timeout(DEADLINE, read).await {
        Ok(Ok(read)) => read,
        Ok(Err(err)) => (Vec::new(), Some(err)),
        Err(_) => panic!("the stream neither ended nor failed within {DEADLINE:?}"),
    }
}

#[tokio::test]
async fn a_stream_that_keeps_arriving_outlives_the_timeout() {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(|| async {
            let done = futures::stream::once(async { Bytes::from("data: [DONE]\n\n") });
            sse(dripped_for(TIMEOUT * 2).chain(done))
        }),
    );
    let client = serve(router).await;
    let started = Instant::now();
    let (texts, err) = read_all(&client).await;
    assert!(err.is_none(), "the stream was cut: {err:?}");
    let expected: Vec<String> = (0..texts.len()).map(|i| i.to_string()).collect();
    assert_eq!(texts, expected);
    // By the server's own making (only a lower bound: a slow machine makes it longer still).
    assert!(
        started.elapsed() > TIMEOUT * 2,
        "the answer should take well over the timeout to arrive"
    );
}

#[tokio::test]
async fn a_silence_longer_than_the_timeout_ends_the_stream_with_a_timeout() {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(|| async { sse(dripped(2, Duration::ZERO).chain(futures::stream::pending())) }),
    );
    let client = serve(router).await;
    let (texts, err) = read_all(&client).await;
    assert_eq!(texts, ["0", "1"]);
    let err = err.expect("an error after the silence");
    assert!(matches!(err, Error::Timeout), "{err:?}");
    assert!(err.is_transport());
}

#[tokio::test]
async fn a_stream_whose_response_never_comes_times_out() {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(std::future::pending::<Response>),
    );
    let client = serve(router).await;
    let (texts, err) = read_all(&client).await;
    assert!(texts.is_empty());
    assert!(matches!(err, Some(Error::Timeout)), "{err:?}");
}

#[tokio::test]
async fn an_ordinary_call_keeps_its_total_time_limit() {
    // Every gap is much shorter than the timeout, and the answer never ends: only a limit
    // on the whole call ends it.
    let router = Router::new().route(
        "/v1/models",
        get(|| async {
            let slow = futures::stream::repeat(" ").then(|piece| async move {
                tokio::time::sleep(GAP).await;
                Ok::<_, Infallible>(Bytes::from(piece))
            });
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from_stream(slow))
                .expect("response")
        }),
    );
    let client = serve(router).await;
    let listed = tokio::time::timeout(DEADLINE, client.models().list())
        .await
        .expect("an answer within the deadline");
    assert!(matches!(listed, Err(Error::Timeout)), "{listed:?}");
}

/// Sends on its channel when dropped: the server gave up the response body.
struct OnDrop(Option<oneshot::Sender<()>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

#[tokio::test]
async fn dropping_a_stream_closes_its_connection() {
    let (gone_tx, gone_rx) = oneshot::channel();
    let gone_tx = Arc::new(Mutex::new(Some(gone_tx)));
    let router = Router::new().route(
        "/v1/chat/completions",
        post(move || async move {
            let guard = OnDrop(gone_tx.lock().expect("lock").take());
            // Endless: only the client going away ends it.
            let endless = dripped(usize::MAX, GAP).map(move |bytes| {
                let _keep = &guard;
                bytes
            });
            sse(endless)
        }),
    );
    let client = serve(router).await;
    let mut stream = client.chat().create_stream(&request()).await.unwrap();
    for expected in ["0", "1"] {
        let chunk = tokio::time::timeout(DEADLINE, stream.next())
            .await
            .expect("a chunk in time")
            .expect("a chunk")
            .unwrap();
        assert_eq!(chunk.text(), Some(expected));
    }
    drop(stream);
    tokio::time::timeout(DEADLINE, gone_rx)
        .await
        .expect("the server saw the client go away")
        .expect("the body was dropped, not leaked");
}
