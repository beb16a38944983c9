//! The gateway's errors, in OpenAI's envelope so OpenAI client libraries parse them:
//! `{"error": {"message", "type", "code", "param"}}`.

use axum::Json;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// A gateway error.
#[derive(Debug, Clone)]
pub struct GatewayError {
    pub status: StatusCode,
    pub message: String,
    pub kind: &'static str,
    pub code: Option<&'static str>,
    pub param: Option<&'static str>,
}

impl GatewayError {
    /// 400 `invalid_request_error` about `param`.
    pub fn invalid(param: &'static str, message: impl Into<String>) -> Self {
        GatewayError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            kind: "invalid_request_error",
            code: Some("invalid_value"),
            param: Some(param),
        }
    }

    /// 404 `model_not_found`.
    pub fn model_not_found(model: &str) -> Self {
        GatewayError {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "The model {:?} does not exist; GET /v1/models lists them, or use auto, auto-fast, auto-cheap",
                crate::error::truncate(model, 64)
            ),
            kind: "invalid_request_error",
            code: Some("model_not_found"),
            param: Some("model"),
        }
    }

    /// 402 `budget_exceeded`.
    pub fn budget_exceeded(message: impl Into<String>) -> Self {
        GatewayError {
            status: StatusCode::PAYMENT_REQUIRED,
            message: message.into(),
            kind: "invalid_request_error",
            code: Some("budget_exceeded"),
            param: Some("budget_limit"),
        }
    }

    /// 502 when every upstream that could serve the request failed.
    pub fn upstream(message: impl Into<String>) -> Self {
        GatewayError {
            status: StatusCode::BAD_GATEWAY,
            message: message.into(),
            kind: "api_error",
            code: Some("upstream_error"),
            param: None,
        }
    }

    /// 504 when every upstream that could serve the request timed out.
    pub fn timeout(message: impl Into<String>) -> Self {
        GatewayError {
            status: StatusCode::GATEWAY_TIMEOUT,
            message: message.into(),
            kind: "api_error",
            code: Some("upstream_timeout"),
            param: None,
        }
    }

    /// The envelope as JSON (also sent as an SSE error event).
    pub fn body(&self) -> Value {
        json!({"error": {
            "message": self.message,
            "type": self.kind,
            "code": self.code,
            "param": self.param,
        }})
    }
}

impl IntoResponse for GatewayError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

/// Whether `path` is one of the OpenAI-compatible paths (chat completions, models).
fn is_openai_path(path: &str) -> bool {
    path.starts_with("/v1/chat/") || path == "/v1/models" || path.starts_with("/v1/models/")
}

/// Layer: on the OpenAI-compatible paths, rewrites the token API's error body (written by the
/// shared auth, rate-limit and JSON layers) into OpenAI's envelope. Headers are kept.
pub async fn openai_envelope(request: Request, next: Next) -> Response {
    let openai = is_openai_path(request.uri().path());
    let response = next.run(request).await;
    if !openai || response.status().is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let rewritten = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|value| {
            let code = value.get("error")?.as_str()?.to_string();
            let message = value.get("message")?.as_str()?.to_string();
            let kind = match code.as_str() {
                "unauthorized" => "authentication_error",
                "forbidden" => "permission_error",
                "rate_limited" => "rate_limit_error",
                "internal_error" => "api_error",
                _ => "invalid_request_error",
            };
            let code = match code.as_str() {
                "unauthorized" => "invalid_api_key".to_string(),
                "rate_limited" => "rate_limit_exceeded".to_string(),
                _ => code,
            };
            Some(json!({"error": {"message": message, "type": kind, "code": code, "param": null}}))
        });
    match rewritten {
        Some(value) => {
            let body = value.to_string();
            parts
                .headers
                .insert(header::CONTENT_LENGTH, body.len().into());
            Response::from_parts(parts, Body::from(body))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}
