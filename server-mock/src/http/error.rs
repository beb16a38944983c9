//! The one error type of the token API, written as the spec's error body.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::StoreError;

/// `Result` with [`ApiError`] as the error.
pub type Result<T, E = ApiError> = std::result::Result<T, E>;

/// Every way a token API request can fail. The message is safe to show a client: it never holds a
/// secret or an internal cause (those are logged, without secrets, where they arise).
#[derive(Debug)]
pub enum ApiError {
    BadRequest(String),
    Unauthorized(String),
    Forbidden(String),
    NotFound(String),
    Conflict(String),
    Unprocessable(String),
    /// A body over the limit of a path that takes large ones (the coding agents' paths), which
    /// answer as their own APIs do: 413.
    TooLarge(String),
    RateLimited {
        retry_after: u64,
    },
    Internal,
    /// The database cannot be reached now; the same request may succeed shortly.
    Unavailable,
    /// The instance is not ready (`GET /readyz`): unavailable, with the reason shown.
    NotReady(String),
}

/// The error body: `{"error": code, "message": text, "status": int}`. Error responses also
/// carry it as an extension, so a layer can rewrite it (OpenAI's envelope) without parsing.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Machine-readable code, e.g. `not_found`.
    pub error: &'static str,
    /// Human-readable explanation.
    pub message: String,
    /// Mirrors the HTTP status.
    pub status: u16,
}

impl ApiError {
    /// The HTTP status this error is sent with.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable | ApiError::NotReady(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The body this error is sent with.
    pub fn body(&self) -> ErrorBody {
        let (error, message) = match self {
            ApiError::BadRequest(m) => ("bad_request", m.clone()),
            ApiError::Unauthorized(m) => ("unauthorized", m.clone()),
            ApiError::Forbidden(m) => ("forbidden", m.clone()),
            ApiError::NotFound(m) => ("not_found", m.clone()),
            ApiError::Conflict(m) => ("conflict", m.clone()),
            ApiError::Unprocessable(m) => ("unprocessable_entity", m.clone()),
            ApiError::TooLarge(m) => ("request_too_large", m.clone()),
            ApiError::RateLimited { retry_after } => (
                "rate_limited",
                format!("Rate limit exceeded; retry in {retry_after} s"),
            ),
            ApiError::Internal => ("internal_error", "Internal server error".to_string()),
            ApiError::Unavailable => (
                "service_unavailable",
                "The service's database cannot be reached; retry shortly".to_string(),
            ),
            ApiError::NotReady(m) => ("service_unavailable", m.clone()),
        };
        ErrorBody {
            error,
            message,
            status: self.status().as_u16(),
        }
    }

    /// 404 for a token id that is unknown or belongs to another workspace.
    pub fn token_not_found(id: &str) -> Self {
        ApiError::NotFound(format!("No token with id {}", truncate(id, 64)))
    }

    /// 404 for an API key id that is unknown, revoked where that matters, or elsewhere.
    pub fn key_not_found(id: &str) -> Self {
        ApiError::NotFound(format!("No API key with id {}", truncate(id, 64)))
    }
}

/// Marks a response refused for want of the database, for the edge to count (a request,
/// [`ApiError::Unavailable`]) or pass over (a probe saying it is not ready) during an outage,
/// rather than log each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Request,
    Probe,
}

/// The code of an error answer, left on the response for the request log.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

impl ErrorCode {
    /// The code `response` answers with (`refused` for an answer that left none).
    pub fn of(response: &Response) -> &'static str {
        response
            .extensions()
            .get::<ErrorCode>()
            .map_or("refused", |code| code.0)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        let mut response = (self.status(), Json(&body)).into_response();
        response.extensions_mut().insert(ErrorCode(body.error));
        response.extensions_mut().insert(body);
        let retry_after = match self {
            ApiError::RateLimited { retry_after } => Some(retry_after),
            ApiError::Unavailable | ApiError::NotReady(_) => Some(1),
            _ => None,
        };
        match self {
            ApiError::Unavailable => response.extensions_mut().insert(Refused::Request),
            ApiError::NotReady(_) => response.extensions_mut().insert(Refused::Probe),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            // The outage is logged once where it is noticed (`telemetry::Outage`); the edge
            // counts each request refused for it.
            StoreError::Unavailable(cause) | StoreError::Busy(cause) => {
                tracing::debug!(error = %cause, "database unavailable");
                ApiError::Unavailable
            }
            StoreError::Invalid(message) => ApiError::Conflict(message),
            err => {
                tracing::error!(error = %err, "storage failed");
                ApiError::Internal
            }
        }
    }
}

/// Cuts client-supplied text that is echoed in a message to `max` characters.
pub fn truncate(text: &str, max: usize) -> String {
    let mut out: String = text.chars().filter(|c| !c.is_control()).take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}
