//! Request ids: every response carries `x-request-id` (written by [`crate::http::edge`]); audit
//! entries record it.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use chrono::{DateTime, Utc};

use crate::secrets::new_request_id;

/// The id of the request being served, available as a request extension.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The header that carries it, both ways.
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The same id under the gateway's own name, on the answers of the paths other dialects' clients
/// call (whose libraries keep no `x-request-id`).
pub const TOKCTL_HEADER: HeaderName = HeaderName::from_static("x-tokctl-request-id");

/// Gives `request` its id: the client's `x-request-id` when it is short and plain, otherwise a
/// new one carrying its arrival time ([`new_request_id`]). Returns the value for the response's
/// header (plain ids always make one) and, for an id made here, the arrival time it carries.
pub fn assign(request: &mut Request) -> (Option<HeaderValue>, Option<DateTime<Utc>>) {
    let chosen = request
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| is_plain(v))
        .map(str::to_string);
    let (id, made) = match chosen {
        Some(id) => (id, None),
        None => {
            let at = crate::store::now();
            (new_request_id(at), Some(at))
        }
    };
    let value = HeaderValue::from_str(&id).ok();
    request.extensions_mut().insert(RequestId(id));
    (value, made)
}

fn is_plain(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}
