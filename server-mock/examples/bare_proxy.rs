//! A pass-through reverse proxy for `bench/gateway.sh`'s reference line: axum in front, pooled
//! hyper HTTP/1.1 connections behind, no auth, no JSON, no ledger. It shows what the extra hop
//! alone costs on the machine. Usage: `bare_proxy LISTEN_ADDR UPSTREAM_ADDR`.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http_body_util::Full;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

#[derive(Clone)]
struct Upstream {
    addr: Arc<str>,
    idle: Arc<Mutex<Vec<SendRequest<Full<Bytes>>>>>,
}

async fn forward(State(up): State<Upstream>, body: Bytes) -> Response {
    // A pooled connection whose last answer has been read; those still answering stay pooled.
    let pooled = up.idle.lock().ok().and_then(|mut idle| {
        idle.retain(|s| !s.is_closed());
        let ready = idle.iter().position(SendRequest::is_ready)?;
        Some(idle.swap_remove(ready))
    });
    let mut sender = match pooled {
        Some(sender) => sender,
        None => {
            let Ok(stream) = TcpStream::connect(&*up.addr).await else {
                return StatusCode::BAD_GATEWAY.into_response();
            };
            let _ = stream.set_nodelay(true);
            let Ok((sender, conn)) = http1::handshake(TokioIo::new(stream)).await else {
                return StatusCode::BAD_GATEWAY.into_response();
            };
            tokio::spawn(conn);
            sender
        }
    };
    let request = Request::post("/v1/chat/completions")
        .header("host", &*up.addr)
        .header("content-type", "application/json")
        .body(Full::new(body));
    let Ok(request) = request else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    match sender.send_request(request).await {
        Ok(answer) => {
            if let Ok(mut idle) = up.idle.lock() {
                idle.push(sender);
            }
            answer.map(Body::new).into_response()
        }
        Err(_) => StatusCode::BAD_GATEWAY.into_response(),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let upstream = args.next().unwrap_or_else(|| "127.0.0.1:8000".into());
    let state = Upstream {
        addr: upstream.into(),
        idle: Arc::default(),
    };
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(forward))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(listen).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
