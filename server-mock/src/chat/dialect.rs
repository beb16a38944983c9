//! What the handlers of the dialects other than chat completions (`messages/`, `responses/`)
//! share: the model, the stream flag and a cap read from a body, and the chat request a
//! conversation in the internal form makes for the one pipeline (`serve`), with the gateway's
//! extensions from headers and the client's own request kept beside it.

use serde_json::{Map, Value};

use super::catalogue::{Model, ProviderKind};
use super::form::Conversation;
use super::request::{Checked, Inbound, Original};
use crate::http::openai::GatewayError;
use axum::http::HeaderMap;

/// `body`'s `model`: a name with something in it.
pub fn model(body: &Map<String, Value>) -> Result<String, GatewayError> {
    match body.get("model") {
        Some(Value::String(model)) if !model.trim().is_empty() => Ok(model.clone()),
        _ => Err(GatewayError::invalid(
            "model",
            "model: a model name is required",
        )),
    }
}

/// `body`'s `stream`: a boolean, false when absent or null.
pub fn stream(body: &Map<String, Value>) -> Result<bool, GatewayError> {
    match body.get("stream") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(stream)) => Ok(*stream),
        Some(_) => Err(GatewayError::invalid("stream", "stream: must be a boolean")),
    }
}

/// `body`'s `field`: a whole number from 1 to i64::MAX, written as an integer or with nothing
/// after the point (`12.0`), as u32 (saturating); `None` when absent or null.
pub fn count(body: &Map<String, Value>, field: &'static str) -> Result<Option<u32>, GatewayError> {
    let whole = match body.get(field) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(n) => Some(n).filter(|n| (1..=i64::MAX as u64).contains(n)),
            None => n
                .as_f64()
                .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n < i64::MAX as f64)
                .map(|n| n as u64),
        },
        Some(_) => None,
    };
    match whole {
        Some(n) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
        None => Err(GatewayError::invalid(
            field,
            format!("{field}: a whole number of at least 1"),
        )),
    }
}

/// The checked chat request `form` makes for `model` (at most `cap` tokens, else the model's
/// own maximum), with the extensions from `headers`, answered in `inbound`'s dialect.
pub fn checked(
    form: &Conversation,
    model: &str,
    (cap, stream): (Option<u32>, bool),
    headers: &HeaderMap,
    inbound: Inbound,
) -> Result<Checked, GatewayError> {
    let mut request = form.to_request(model, cap, stream);
    request.extensions_from(headers)?;
    let mut checked = request.check()?;
    checked.inbound = inbound;
    Ok(checked)
}

/// Whether `model`'s upstream takes the client's own request (and its answer goes back as the
/// upstream wrote it): Anthropic's for Messages, one serving Responses for Responses.
pub fn relayed_to(inbound: &Inbound, model: &Model) -> bool {
    match inbound {
        Inbound::Chat => false,
        Inbound::Messages(_) => model.provider == ProviderKind::Anthropic,
        Inbound::Responses(_) => model.provider == ProviderKind::Openai && model.responses,
    }
}

/// The reasoning effort to send `model` for the request `original`, when it takes one.
pub fn effort_for<'a>(original: &'a Original, model: &Model) -> Option<&'a str> {
    let effort = original.effort.as_ref().filter(|_| model.reasoning_effort);
    effort.map(|effort| effort.level.as_str())
}

/// What the translation of `original` for `model` left out: the dropped settings, and those
/// the effort came from when `model` takes none.
pub fn dropped_for<'a>(original: &'a Original, model: &Model) -> Vec<&'a str> {
    let mut dropped: Vec<&str> = original.dropped.iter().map(String::as_str).collect();
    if effort_for(original, model).is_none() {
        let from = original.effort.iter().flat_map(|effort| effort.from.iter());
        dropped.extend(from.filter(|name| !original.dropped.iter().any(|d| d == *name)));
    }
    dropped
}
