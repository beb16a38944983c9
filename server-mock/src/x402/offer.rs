//! What the workspace offers for one request (`upto` first, when the facilitator settles it,
//! for the request's worst case, then `exact`, for its first candidate's), and the answers a payment check sends: 402
//! with the offer, 400 for a payment header that cannot be read, 503 when the facilitator
//! cannot be reached.

use alloy_primitives::U256;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::facilitator::Unreachable;
use super::wire::{self, PaymentRequired, Requirements, ResourceInfo};
use crate::http::openai::GatewayError;
use crate::store::X402Settings;

/// How long an `exact` authorization must stay valid (it is settled before the answer).
const EXACT_TIMEOUT_SECONDS: u64 = 300;
/// How long an `upto` authorization must stay valid: settled after the answer, retried after.
const UPTO_TIMEOUT_SECONDS: u64 = 3600;

/// What the workspace offers for one request.
pub(super) struct Offer {
    required: PaymentRequired,
}

impl Offer {
    /// The offer of `upto` for `worst` (when the facilitator has a `settler` address) and of
    /// `exact` for `first`, in atomic units.
    pub(super) fn new(
        settings: &X402Settings,
        (worst, first): (U256, U256),
        settler: Option<&str>,
        resource: ResourceInfo,
    ) -> Self {
        let base = |scheme: &str, amount: U256, timeout: u64, extra| Requirements {
            scheme: scheme.into(),
            network: settings.network.clone(),
            amount: amount.to_string(),
            asset: settings.asset.clone(),
            pay_to: settings.pay_to.clone(),
            max_timeout_seconds: timeout,
            extra,
        };
        let domain = json!({"name": settings.asset_name, "version": settings.asset_version});
        let mut accepts = Vec::new();
        if let Some(settler) = settler {
            let mut extra = domain.clone();
            extra["assetTransferMethod"] = json!("permit2");
            extra["facilitatorAddress"] = json!(settler);
            accepts.push(base("upto", worst, UPTO_TIMEOUT_SECONDS, extra));
        }
        accepts.push(base("exact", first, EXACT_TIMEOUT_SECONDS, domain));
        Offer {
            required: PaymentRequired {
                x402_version: 2,
                error: None,
                resource,
                accepts,
            },
        }
    }

    pub(super) fn get(&self, scheme: &str) -> Option<&Requirements> {
        self.required.accepts.iter().find(|r| r.scheme == scheme)
    }

    /// The schemes offered, for messages: `upto, exact`.
    pub(super) fn schemes(&self) -> String {
        let names: Vec<&str> = self
            .required
            .accepts
            .iter()
            .map(|r| r.scheme.as_str())
            .collect();
        names.join(", ")
    }

    /// 402 with the offer, in the header and in OpenAI's envelope, saying `why`.
    pub(super) fn refuse(&self, code: &'static str, why: &str) -> Response {
        let mut required = self.required.clone();
        required.error = Some(why.to_string());
        let header =
            HeaderValue::from_str(&wire::encode(&required)).unwrap_or(HeaderValue::from_static(""));
        let error = GatewayError {
            status: StatusCode::PAYMENT_REQUIRED,
            message: why.to_string(),
            kind: "invalid_request_error",
            code: Some(code),
            param: None,
            retry_after: None,
        };
        let offer = serde_json::to_value(&required).unwrap_or_default();
        let mut response =
            error.response_with(serde_json::Map::from_iter([("x402".into(), offer)]));
        let headers = response.headers_mut();
        headers.insert(wire::PAYMENT_REQUIRED, header);
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// The resource paid for: this request's URL, as the client addressed it.
pub(super) fn resource(headers: &HeaderMap) -> ResourceInfo {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    ResourceInfo {
        url: format!("{scheme}://{host}/v1/chat/completions"),
        description: "A chat completion, paid for what it costs (at most its worst case)".into(),
        mime_type: "application/json".into(),
    }
}

pub(super) fn refused_by_store(err: crate::store::StoreError) -> Response {
    crate::http::error::ApiError::from(err).into_response()
}

/// 400: the payment header cannot be read.
pub(super) fn invalid(message: String) -> Response {
    invalid_status(StatusCode::BAD_REQUEST, message)
}

pub(super) fn invalid_status(status: StatusCode, message: String) -> Response {
    GatewayError {
        status,
        message,
        kind: "invalid_request_error",
        code: Some("invalid_payment"),
        param: None,
        retry_after: None,
    }
    .into_response()
}

/// 503: the facilitator cannot be reached; no answer is served unpaid.
pub(super) fn facilitator_down(err: &Unreachable) -> Response {
    tracing::warn!(error = %err, "x402: the facilitator cannot be reached");
    unavailable(&format!(
        "The payment cannot be checked or settled now: {err}; retry shortly"
    ))
}

pub(super) fn unavailable(message: &str) -> Response {
    GatewayError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: message.to_string(),
        kind: "api_error",
        code: Some("facilitator_unavailable"),
        param: None,
        retry_after: Some(5),
    }
    .into_response()
}
