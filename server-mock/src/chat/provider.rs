//! Asks the provider of a model: the simulated one built in, an OpenAI-compatible upstream (the
//! client's request as it came, or a Responses client's own to an upstream serving Responses),
//! or Anthropic (the request through the internal form, or a Messages client's own request
//! passed through). Each answers in the internal form's terms
//! (`answer.rs`).

use std::time::Duration;

use hyper::header::{HeaderName, HeaderValue};

use super::answer::{Completion, Failure, ItemStream};
use super::catalogue::{Model, ProviderKind};
use super::form::Refusal;
use super::request::{ChatRequest, Checked, Inbound};
use super::upstream::Extra;
use super::{anthropic, dialect, openai, simulated};

/// What is sent to a model's provider, made before it is tried.
pub enum Outgoing {
    /// The simulated model reads the request itself.
    Simulated,
    /// The body of the upstream request, and headers it carries besides the target's own (a
    /// `traceparent`).
    Body(Vec<u8>, Extra),
    /// The client's own request for an upstream of its dialect, and the headers it brought;
    /// the answer goes back as the upstream wrote it.
    Relay(Vec<u8>, Extra),
}

impl Outgoing {
    /// Carries `header` to the upstream (a `traceparent`, so the upstream's spans join the
    /// trace), replacing one of the same name.
    pub fn with_header(&mut self, header: (HeaderName, HeaderValue)) {
        if let Outgoing::Body(_, extra) | Outgoing::Relay(_, extra) = self {
            extra.headers.retain(|(name, _)| *name != header.0);
            // Room for this one alone (a list grown from nothing has room for four).
            extra.headers.reserve_exact(1);
            extra.headers.push(header);
        }
    }
}

/// What `checked` becomes for `model`, asking for at most `cap` tokens; `Err` when `model`'s
/// provider cannot take it (the model is then not tried).
pub fn prepare(
    model: &Model,
    cap: u32,
    checked: &Checked,
    stream: bool,
) -> Result<Outgoing, Refusal> {
    let request = &checked.request;
    Ok(match (model.provider, &checked.inbound) {
        (ProviderKind::Simulated, _) => Outgoing::Simulated,
        (ProviderKind::Anthropic, Inbound::Messages(original)) => {
            let body = anthropic::relay::body(model, cap, &original.body, stream);
            let extra = Extra {
                headers: original.headers.clone(),
                path: None,
            };
            Outgoing::Relay(body, extra)
        }
        (ProviderKind::Openai, Inbound::Responses(original)) if model.responses => {
            let body = openai::relay::body(model, cap, &original.body, stream);
            let extra = Extra {
                headers: Vec::new(),
                path: Some(openai::relay::PATH),
            };
            Outgoing::Relay(body, extra)
        }
        (ProviderKind::Openai, inbound) => {
            let effort = inbound
                .original()
                .and_then(|o| dialect::effort_for(o, model));
            let body = openai::encode(model, cap, request, stream, effort);
            Outgoing::Body(body, Extra::default())
        }
        (ProviderKind::Anthropic, _) => Outgoing::Body(
            anthropic::encode(model, cap, request, stream)?,
            Extra::default(),
        ),
    })
}

/// Asks `model` for a whole completion of at most `cap` tokens. `Err` means it failed before
/// producing anything, so another model may be tried.
pub async fn complete(
    model: &Model,
    cap: u32,
    request: &ChatRequest,
    outgoing: Outgoing,
) -> Result<Completion, Failure> {
    match (model.provider, outgoing) {
        (_, Outgoing::Simulated) => Ok(simulated::complete(model, cap, request)),
        (ProviderKind::Openai, Outgoing::Relay(body, extra)) => {
            openai::relay::complete(model, &extra, body).await
        }
        (_, Outgoing::Relay(body, extra)) => anthropic::relay::complete(model, &extra, body).await,
        (ProviderKind::Anthropic, Outgoing::Body(body, extra)) => {
            anthropic::complete(model, &extra, body).await
        }
        (_, Outgoing::Body(body, extra)) => openai::complete(model, &extra, body).await,
    }
}

/// Opens a stream from `model` (simulated ones wait `sim_token_delay` between tokens). `Err`
/// means it failed before its first byte.
pub async fn stream(
    sim_token_delay: Duration,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
    outgoing: Outgoing,
) -> Result<ItemStream, Failure> {
    match (model.provider, outgoing) {
        (_, Outgoing::Simulated) => Ok(simulated::stream(model, cap, request, sim_token_delay)),
        (ProviderKind::Openai, Outgoing::Relay(body, extra)) => {
            openai::relay::stream(model, &extra, body).await
        }
        (_, Outgoing::Relay(body, extra)) => anthropic::relay::stream(model, &extra, body).await,
        (ProviderKind::Anthropic, Outgoing::Body(body, extra)) => {
            anthropic::stream(model, &extra, body).await
        }
        (_, Outgoing::Body(body, extra)) => openai::stream(model, &extra, body).await,
    }
}
