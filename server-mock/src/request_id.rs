//! Request ids: every response carries `x-request-id`; audit entries record it.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use crate::secrets::new_id;

/// The id of the request being served, available as a request extension.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Keeps a client's `x-request-id` when it is short and plain, otherwise makes one.
pub async fn layer(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| is_plain(v))
        .map(str::to_string)
        .unwrap_or_else(|| new_id("req_"));
    request.extensions_mut().insert(RequestId(id.clone()));
    let mut response = next.run(request).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

fn is_plain(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}
