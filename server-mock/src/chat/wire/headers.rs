//! The gateway's headers on an answer in a dialect whose body has no `platform` object
//! (Anthropic's Messages, OpenAI's Responses): who answered and why, what it cost, what the
//! translation dropped.

use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;

use crate::chat::Platform;
use crate::chat::catalogue::Model;
use crate::chat::dialect;
use crate::chat::request::Inbound;

/// The model that answered.
pub const ROUTED_MODEL: HeaderName = HeaderName::from_static("x-tokctl-routed-model");
/// Why it was chosen.
pub const ROUTE_REASON: HeaderName = HeaderName::from_static("x-tokctl-route-reason");
/// What a whole answer cost, in credits.
pub const CREDITS_CONSUMED: HeaderName = HeaderName::from_static("x-tokctl-credits-consumed");
/// What the translation for a model of another dialect left out, comma-separated.
pub const DROPPED: HeaderName = HeaderName::from_static("x-tokctl-dropped");

/// The gateway's headers on an answer from `model`: who answered and why, what it cost (once
/// known: `platform`), and what the translation dropped (for a model that does not speak the
/// client's dialect).
pub(crate) fn write(
    response: &mut Response,
    model: &Model,
    platform: Option<&Platform>,
    inbound: &Inbound,
) {
    let headers = response.headers_mut();
    if let Ok(id) = HeaderValue::from_str(&model.id) {
        headers.insert(ROUTED_MODEL, id);
    }
    if let Some(platform) = platform {
        if let Ok(reason) = HeaderValue::from_str(&platform.route_reason) {
            headers.insert(ROUTE_REASON, reason);
        }
        let credits = platform.credits_consumed.to_string();
        if let Ok(credits) = HeaderValue::from_str(&credits) {
            headers.insert(CREDITS_CONSUMED, credits);
        }
    }
    if let Some(original) = inbound.original()
        && !dialect::relayed_to(inbound, model)
    {
        let dropped = dialect::dropped_for(original, model);
        if !dropped.is_empty()
            && let Ok(dropped) = HeaderValue::from_str(&dropped.join(", "))
        {
            headers.insert(DROPPED, dropped);
        }
    }
}
