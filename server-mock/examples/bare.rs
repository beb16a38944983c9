//! The baseline for `bench/run.sh`: a bare axum handler answering `GET /v1/tokens/{id}` with a
//! fixed token-shaped JSON body, no auth, no storage. Usage: `bare ADDR`.

use axum::Router;
use axum::http::header;
use axum::routing::get;

// The same allocator as tokctl-server, so the comparison is of the handlers alone.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BODY: &str = r#"{"id":"tok_0123456789abcdefghijklmn","name":"bench","scopes":["tokens:read"],"status":"active","created_at":"2026-11-22T09:00:00.123456Z","last_used_at":"2026-11-22T09:00:01.123456Z","created_by":"key_0123456789abcdefghijklmn"}"#;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let app = Router::new().route(
        "/v1/tokens/{id}",
        get(|| async { ([(header::CONTENT_TYPE, "application/json")], BODY) }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
