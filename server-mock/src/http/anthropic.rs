//! The errors of Anthropic's paths (`/v1/messages`, `/v1/messages/count_tokens`) in
//! Anthropic's envelope, so its client libraries and the coding agents built on them read
//! them: `{"type": "error", "error": {"type", "message"}}`, the type following the status.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::http::error::ErrorBody;

/// Whether `path` is one of Anthropic's paths.
pub fn is_anthropic_path(path: &str) -> bool {
    path.starts_with("/v1/messages")
}

/// Anthropic's error type for an answer with `status`.
pub fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        504 => "timeout_error",
        400..=499 => "invalid_request_error",
        _ => "api_error",
    }
}

/// The envelope for an error with `status` and `message`, and `extra` fields beside them in
/// the error object (a limit's figures, an x402 offer).
pub fn envelope(status: StatusCode, message: &str, extra: Map<String, Value>) -> Value {
    let mut error = Map::new();
    error.insert("type".into(), json!(error_type(status)));
    error.insert("message".into(), json!(message));
    error.extend(extra);
    json!({"type": "error", "error": error})
}

/// A response whose body is `body` (JSON), other parts kept but for the length.
pub fn with_body(response: Response, body: &Value) -> Response {
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.extensions.remove::<ErrorBody>();
    Response::from_parts(parts, Body::from(body.to_string()))
}

/// For Anthropic's paths: a token API error (from the shared auth, rate-limit and JSON
/// layers, which leave their [`ErrorBody`] on the response) in Anthropic's envelope. Headers
/// are kept (`Retry-After`); any other response passes unchanged.
pub fn anthropic_envelope(response: Response) -> Response {
    let Some(error) = response.extensions().get::<ErrorBody>() else {
        return response;
    };
    let body = envelope(response.status(), &error.message, Map::new());
    with_body(response, &body)
}

/// An error in the gateway's OpenAI envelope (`{"error": {"message", "type", "code", ...}}`)
/// rewritten into Anthropic's: the type from the status, the message kept, and the error's
/// other fields (`code`, an offer, a limit's figures) beside them. A body already in
/// Anthropic's envelope (an Anthropic upstream's, relayed) is returned as it is.
pub async fn from_openai(response: Response) -> Response {
    if response.status().is_success() {
        return response;
    }
    let (parts, body) = response.into_parts();
    // Error bodies are small and already whole.
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let response = Response::from_parts(parts, Body::from(bytes.clone()));
    let Ok(Value::Object(mut body)) = serde_json::from_slice::<Value>(&bytes) else {
        return response;
    };
    if body.get("type").and_then(Value::as_str) == Some("error") {
        return response;
    }
    let Some(Value::Object(mut error)) = body.remove("error") else {
        return response;
    };
    let message = match error.remove("message") {
        Some(Value::String(message)) => message,
        _ => String::new(),
    };
    error.remove("type");
    error.remove("param");
    let body = envelope(response.status(), &message, error);
    with_body(response, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_follow_the_status() {
        let cases = [
            (400, "invalid_request_error"),
            (401, "authentication_error"),
            (402, "billing_error"),
            (403, "permission_error"),
            (404, "not_found_error"),
            (413, "request_too_large"),
            (422, "invalid_request_error"),
            (429, "rate_limit_error"),
            (500, "api_error"),
            (502, "api_error"),
            (503, "overloaded_error"),
            (504, "timeout_error"),
        ];
        for (status, kind) in cases {
            let status = StatusCode::from_u16(status).unwrap();
            assert_eq!(error_type(status), kind, "{status}");
        }
    }

    #[tokio::test]
    async fn an_openai_error_is_rewritten_and_an_anthropic_one_kept() {
        let openai = json!({"error": {"message": "no", "type": "invalid_request_error",
            "code": "budget_exceeded", "param": "budget_limit", "limit": "1"}});
        let response = Response::builder()
            .status(402)
            .header("retry-after", "3")
            .body(Body::from(openai.to_string()))
            .unwrap();
        let response = from_openai(response).await;
        assert_eq!(response.headers()["retry-after"], "3");
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            body,
            json!({"type": "error", "error": {"type": "billing_error", "message": "no",
                "code": "budget_exceeded", "limit": "1"}})
        );
        let theirs = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}"#;
        let response = Response::builder()
            .status(400)
            .body(Body::from(theirs))
            .unwrap();
        let bytes = axum::body::to_bytes(from_openai(response).await.into_body(), 1 << 20)
            .await
            .unwrap();
        assert_eq!(bytes, theirs.as_bytes());
    }
}
