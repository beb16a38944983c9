//! The web dashboard, served at `/`: its files are compiled into the binary (`build.rs` embeds
//! `server-mock/dashboard/`), and everything it shows or changes goes through the public `/v1`
//! API. Its only private endpoints sign a person in and out ([`crate::auth::session`]).
//!
//! Every response here carries a strict Content-Security-Policy (no inline script or style, no
//! framing), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::extract::Request;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::rate_limit::Limits;
use crate::store::Store;

/// Each file of the dashboard: its URL path (`/js/app.js`) and its bytes.
static ASSETS: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/dashboard_assets.rs"));

/// The policy every dashboard response carries.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
    frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";

/// The dashboard's routes: its files (`/` is `index.html`), and signing in and out.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Limits>: FromRef<S>,
{
    let mut router = Router::new().route(
        "/session",
        get(crate::auth::session::show)
            .post(crate::auth::session::sign_in)
            .delete(crate::auth::session::sign_out),
    );
    for &(path, bytes) in ASSETS {
        let file = get(move || async move { asset(path, bytes) });
        if path == "/index.html" {
            router = router.route("/", file.clone());
        }
        router = router.route(path, file);
    }
    router.layer(middleware::from_fn(security_headers))
}

/// One of the dashboard's files, revalidated each time (a new server version shows its new
/// files at once).
fn asset(path: &str, bytes: &'static [u8]) -> Response {
    (
        [
            (CONTENT_TYPE, content_type(path)),
            (CACHE_CONTROL, "no-cache"),
        ],
        bytes,
    )
        .into_response()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Adds the security headers to every dashboard response.
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cross-origin-opener-policy", "same-origin"),
    ] {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}
