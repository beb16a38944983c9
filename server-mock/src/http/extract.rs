//! Our own extractors, so that every bad request gets the spec's error body instead of axum's
//! plain-text rejections.

use std::time::Duration;

use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, TRANSFER_ENCODING};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;
use crate::secrets::is_token_id;
use crate::store::PageRequest;

/// Largest request body accepted (the spec has no 413, so larger bodies are a 400).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// How long a client may take to send its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default and largest page sizes.
pub const DEFAULT_PER_PAGE: u64 = 25;
pub const MAX_PER_PAGE: u64 = 100;

/// A JSON body: `Content-Type: application/json`, at most 64 KiB, valid UTF-8 JSON of shape `T`.
/// Every body the API takes is an object: anything else (an array, which serde would read into a
/// struct field by field) is a 400; `null` only where `T` allows it ([`OptionalJson`]).
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = json_bytes(request, MAX_BODY_BYTES).await?;
        object(&bytes).map(ApiJson)
    }
}

/// The largest body of the coding agents' paths (`/v1/messages`, `/v1/responses`): Anthropic's
/// own limit for a Messages request. An agent's first turn alone (its system prompt and tool
/// definitions) is past the API's 64 KiB, and its conversation grows with every turn.
pub const MAX_AGENT_BODY_BYTES: usize = 32 * 1024 * 1024;

/// A JSON body as [`ApiJson`] takes it, up to [`MAX_AGENT_BODY_BYTES`]; a larger one is a 413.
pub struct AgentJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for AgentJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = json_bytes(request, MAX_AGENT_BODY_BYTES).await?;
        object(&bytes).map(AgentJson)
    }
}

/// `bytes` as a JSON object (or `null`) of shape `T`.
fn object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'n')) {
        return Err(ApiError::BadRequest(
            "Invalid request body: expected a JSON object".into(),
        ));
    }
    parse(bytes)
}

/// A request's body, once its Content-Type, size (at most `limit` bytes), arrival time and
/// encoding are checked.
async fn json_bytes(request: Request, limit: usize) -> Result<axum::body::Bytes, ApiError> {
    if !is_json(request.headers().get(CONTENT_TYPE)) {
        return Err(ApiError::BadRequest(
            "Content-Type must be application/json".into(),
        ));
    }
    // A workspace's request log may keep the body (redacted, capped).
    let logged = request
        .extensions()
        .get::<crate::request_log::Logged>()
        .cloned();
    let body = axum::body::to_bytes(request.into_body(), limit);
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, body).await {
        Err(_) => {
            return Err(ApiError::BadRequest(
                "Request body arrived too slowly".into(),
            ));
        }
        Ok(Err(_)) if limit > MAX_BODY_BYTES => {
            return Err(ApiError::TooLarge(format!(
                "Request body is larger than {limit} bytes or was cut off"
            )));
        }
        Ok(Err(_)) => {
            return Err(ApiError::BadRequest(format!(
                "Request body is larger than {limit} bytes or was cut off"
            )));
        }
        Ok(Ok(bytes)) => bytes,
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(ApiError::BadRequest(
            "Request body is not valid UTF-8".into(),
        ));
    };
    if let Some(logged) = logged {
        logged.request_body(text);
    }
    Ok(bytes)
}

/// `bytes` as JSON of shape `T`, or the 400 saying why not.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|err| {
        let what = match err.classify() {
            serde_json::error::Category::Data => "Invalid request body",
            _ => "Malformed JSON",
        };
        ApiError::BadRequest(format!("{what}: {err}"))
    })
}

/// The body of a request whose handler needs none (rotate, revoke): absent, or any JSON within
/// the limits of [`ApiJson`], so a wrong Content-Type or an oversized body is a 400 here too.
pub struct IgnoredBody;

impl<S: Send + Sync> FromRequest<S> for IgnoredBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        if !has_body(&request) {
            return Ok(IgnoredBody);
        }
        let bytes = json_bytes(request, MAX_BODY_BYTES).await?;
        parse::<serde::de::IgnoredAny>(&bytes).map(|_| IgnoredBody)
    }
}

/// An optional JSON body: absent (no body at all) or JSON `null` is `None`; any other body must
/// be JSON within the limits of [`ApiJson`] and of `T`'s shape.
pub struct OptionalJson<T>(pub Option<T>);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        if !has_body(&request) {
            return Ok(OptionalJson(None));
        }
        ApiJson::<Option<T>>::from_request(request, state)
            .await
            .map(|ApiJson(body)| OptionalJson(body))
    }
}

/// Whether the request says it has a body (a length above 0, or a chunked one).
fn has_body(request: &Request) -> bool {
    let headers = request.headers();
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    declared.map_or(headers.contains_key(TRANSFER_ENCODING), |len| len > 0)
}

fn is_json(content_type: Option<&axum::http::HeaderValue>) -> bool {
    content_type
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// The query string as name/value pairs.
pub struct Query(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let raw = parts.uri.query().unwrap_or("");
        serde_urlencoded::from_str(raw)
            .map(Query)
            .map_err(|_| ApiError::BadRequest("Malformed query string".into()))
    }
}

impl Query {
    /// The last value given for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// `page` (default 1, at least 1) and `per_page` (default 25, 1 to 100).
    /// Not an integer: 400. An integer out of range: 422 naming the field.
    pub fn page_request(&self) -> Result<PageRequest, ApiError> {
        let page = self.integer("page", 1, u64::MAX / MAX_PER_PAGE, 1)?;
        let per_page = self.integer("per_page", 1, MAX_PER_PAGE, DEFAULT_PER_PAGE)?;
        Ok(PageRequest { page, per_page })
    }

    fn integer(&self, name: &str, min: u64, max: u64, default: u64) -> Result<u64, ApiError> {
        let Some(raw) = self.get(name) else {
            return Ok(default);
        };
        let digits = raw.strip_prefix(['-', '+']).unwrap_or(raw);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ApiError::BadRequest(format!("{name} must be an integer")));
        }
        match raw.parse::<i128>().ok().and_then(|v| u64::try_from(v).ok()) {
            Some(value) if (min..=max).contains(&value) => Ok(value),
            _ => Err(ApiError::Unprocessable(format!(
                "{name} must be between {min} and {max}"
            ))),
        }
    }
}

/// A `:id` path segment naming a token; anything that is not a token id is a 404.
pub struct TokenId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for TokenId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NotFound("No token with that id".into()))?;
        if is_token_id(&id) {
            Ok(TokenId(id))
        } else {
            Err(ApiError::token_not_found(&id))
        }
    }
}

/// The `{id}` of a `/v1/keys/{id}` path. An id of the wrong shape is a 404, like an unknown one.
pub struct KeyId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for KeyId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NotFound("No API key with that id".into()))?;
        if crate::secrets::is_key_id(&id) {
            Ok(KeyId(id))
        } else {
            Err(ApiError::key_not_found(&id))
        }
    }
}
