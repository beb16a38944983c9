//! The gateway's errors, in OpenAI's envelope so OpenAI client libraries parse them:
//! `{"error": {"message", "type", "code", "param"}}`.

use axum::Json;
use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::http::error::ErrorBody;

/// A gateway error.
#[derive(Debug, Clone)]
pub struct GatewayError {
    pub status: StatusCode,
    pub message: String,
    pub kind: &'static str,
    pub code: Option<&'static str>,
    pub param: Option<&'static str>,
    /// Seconds for the `Retry-After` header, when the answer has one.
    pub retry_after: Option<u64>,
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
            retry_after: None,
        }
    }

    /// 400 `invalid_request_error`, code `unsupported_parameter`: the model routed to cannot
    /// take `param` (named when it is one of the API's parameters, else empty).
    pub fn unsupported(param: &'static str, message: impl Into<String>) -> Self {
        GatewayError {
            code: Some("unsupported_parameter"),
            param: (!param.is_empty()).then_some(param),
            ..GatewayError::invalid("", message)
        }
    }

    /// 404 `model_not_found`.
    pub fn model_not_found(model: &str) -> Self {
        GatewayError {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "The model {:?} does not exist; GET /v1/models lists them, or use auto, auto-fast, auto-cheap",
                crate::http::error::truncate(model, 64)
            ),
            kind: "invalid_request_error",
            code: Some("model_not_found"),
            param: Some("model"),
            retry_after: None,
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
            retry_after: None,
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
            retry_after: None,
        }
    }

    /// 503 `upstreams_unavailable` when no upstream that could serve the request may be tried
    /// now (each circuit is open); `retry_after` seconds until one may.
    pub fn unavailable(message: impl Into<String>, retry_after: u64) -> Self {
        GatewayError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
            kind: "api_error",
            code: Some("upstreams_unavailable"),
            param: None,
            retry_after: Some(retry_after),
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
            retry_after: None,
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

impl GatewayError {
    /// The response, with `extra` fields in the error object beside the envelope's own (an x402
    /// offer, a limit's figures).
    pub fn response_with(&self, extra: serde_json::Map<String, Value>) -> Response {
        let mut body = self.body();
        if let Some(error) = body["error"].as_object_mut() {
            error.extend(extra);
        }
        let mut response = (self.status, Json(body)).into_response();
        let code = crate::http::error::ErrorCode(self.code.unwrap_or(self.kind));
        response.extensions_mut().insert(code);
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
        }
        response
    }
}

impl IntoResponse for GatewayError {
    fn into_response(self) -> Response {
        self.response_with(serde_json::Map::new())
    }
}

/// Whether `path` is one of the OpenAI-compatible paths (chat completions, responses, models).
pub fn is_openai_path(path: &str) -> bool {
    path.starts_with("/v1/chat/")
        || path == "/v1/responses"
        || path == "/v1/models"
        || path.starts_with("/v1/models/")
}

/// For the OpenAI-compatible paths: rewrites a token API error (written by the shared auth,
/// rate-limit and JSON layers, which leave their [`ErrorBody`] on the response) into OpenAI's
/// envelope. Headers are kept; any other response passes unchanged.
pub fn openai_envelope(response: Response) -> Response {
    let Some(error) = response.extensions().get::<ErrorBody>() else {
        return response;
    };
    let kind = match error.error {
        "unauthorized" => "authentication_error",
        "forbidden" => "permission_error",
        "rate_limited" => "rate_limit_error",
        "internal_error" | "service_unavailable" => "api_error",
        _ => "invalid_request_error",
    };
    let code = match error.error {
        "unauthorized" => "invalid_api_key",
        "rate_limited" => "rate_limit_exceeded",
        code => code,
    };
    let envelope = GatewayError {
        status: response.status(),
        message: error.message.clone(),
        kind,
        code: Some(code),
        param: None,
        retry_after: None,
    };
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(envelope.body().to_string()))
}
