//! `POST /v1/messages`: Anthropic's Messages API on the gateway's rules, for Claude Code and
//! the Anthropic SDKs. The request is read into the internal form and on to the chat request
//! the gateway routes (`read.rs`); what the body cannot carry comes as headers
//! (`x-tokctl-budget-limit`, `x-tokctl-route-strategy`, `x-tokctl-agent-wallet`). An Anthropic
//! model is sent the client's own body (`chat/anthropic/relay.rs`) and its answer comes back as
//! it was written; any other model's answer is written as Anthropic's `message`, or as its
//! events (`chat/wire/messages.rs`). Errors are in Anthropic's envelope. `POST /v1/messages/count_tokens`
//! is in `count.rs`.

mod count;
mod read;
pub mod schema;

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value};

use super::{Caller, Gateway, serve};
use crate::http::anthropic::from_openai;
use crate::http::error::ApiError;
use crate::http::extract::AgentJson;
use crate::http::routes::Routes;
use crate::store::Store;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Gateway>: FromRef<S>,
{
    Routes::new()
        .post("/v1/messages", create)
        .post("/v1/messages/count_tokens", count::count_tokens)
}

/// Create a message (Anthropic's Messages API), streamed as Anthropic's events when `stream` is
/// true.
pub async fn create(
    State(gateway): State<Arc<Gateway>>,
    caller: Caller,
    headers: HeaderMap,
    body: Result<AgentJson<Map<String, Value>>, ApiError>,
) -> Response {
    let body = body.map(|AgentJson(body)| body);
    from_openai(serve(&gateway, caller, &headers, body, read::checked).await).await
}
