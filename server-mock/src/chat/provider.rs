//! Asks the provider of a model: the simulated one built in, or an OpenAI-compatible upstream.

use std::time::Duration;

use super::answer::{Completion, Failure, ItemStream};
use super::catalogue::{Model, ProviderKind};
use super::request::ChatRequest;
use super::{openai, simulated};

/// Asks `model` for a whole completion of at most `cap` tokens. `Err` means it failed before
/// producing anything, so another model may be tried.
pub async fn complete(
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<Completion, Failure> {
    match model.provider {
        ProviderKind::Simulated => Ok(simulated::complete(model, cap, request)),
        ProviderKind::Openai => openai::complete(model, cap, request).await,
    }
}

/// Opens a stream from `model` (simulated ones wait `sim_token_delay` between tokens). `Err`
/// means it failed before its first byte.
pub async fn stream(
    sim_token_delay: Duration,
    model: &Model,
    cap: u32,
    request: &ChatRequest,
) -> Result<ItemStream, Failure> {
    match model.provider {
        ProviderKind::Simulated => Ok(simulated::stream(model, cap, request, sim_token_delay)),
        ProviderKind::Openai => openai::stream(model, cap, request).await,
    }
}
