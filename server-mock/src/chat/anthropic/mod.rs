//! The `anthropic` provider: Anthropic's Messages API (`POST {base}/v1/messages` with
//! `x-api-key` and `anthropic-version`). The client's request goes through the internal form
//! (`chat/form/`) into a Messages request (`request.rs`); the answer, whole or streamed, comes
//! back as the internal form's message and items (`reply.rs`), which the client's dialect
//! writes. An error event before any content is a failure like a 5xx, so another model may be
//! tried; after content it ends the stream as any upstream failure does.

pub mod relay;
mod reply;
pub mod request;

use futures::StreamExt;
use sse_core::{SseEvent, SseStream, SseStreamError};

use super::answer::{Completion, Failure, ItemStream, Message};
use super::catalogue::Model;
use super::form::{Conversation, Refusal};
use super::openai::{open, whole};
use super::request::ChatRequest;
use super::upstream::{BodyStream, Extra};

/// The body of `request`'s Messages request to `model`, asking for at most `cap` tokens, or
/// what in it Anthropic cannot take.
pub fn encode(
    model: &Model,
    cap: u32,
    request: &ChatRequest,
    stream: bool,
) -> Result<Vec<u8>, Refusal> {
    let form = Conversation::from_chat(request)?;
    let body = request::body(model, cap, &form, stream)?;
    // Strings, numbers and JSON values always serialise.
    Ok(serde_json::to_vec(&body).unwrap_or_default())
}

/// A whole answer.
pub async fn complete(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<Completion, Failure> {
    let bytes = whole(model, extra, body).await?;
    let answer: reply::Answer = serde_json::from_slice(&bytes)
        .map_err(|err| Failure::invalid(format!("the upstream answer could not be read: {err}")))?;
    let said = answer.said();
    let usage = answer.usage.unwrap_or_default();
    let completion_tokens = usage.completion().unwrap_or_else(|| {
        let text = said.text.chars().count()
            + said
                .tool_calls
                .iter()
                .map(|c| c.arguments.len())
                .sum::<usize>();
        (text as u64).div_ceil(4)
    });
    Ok(Completion {
        message: Message::Said(said),
        finish: reply::finish(answer.stop_reason.as_deref()),
        prompt_tokens: usage.prompt(),
        completion_tokens,
        detail: usage.detail(),
    })
}

/// A stream of the answer's items; the connection closes when it is dropped. Nothing is an
/// item until the first content (or the end): an error event before it fails the stream.
pub async fn stream(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<ItemStream, Failure> {
    open(model, extra, body, items).await
}

/// The items an Anthropic SSE body holds, in order.
fn items(body: BodyStream) -> ItemStream {
    let mut decoder = reply::Decoder::default();
    let items = SseStream::new(body)
        .map(move |event| match event {
            Ok(SseEvent::Message(event)) => match event.data.trim() {
                "" => [None, None],
                data => decoder.read(data),
            },
            Ok(SseEvent::Retry(_)) => [None, None],
            Err(SseStreamError::Inner(failure)) => [Some(Err(failure)), None],
            Err(err) => {
                let why = format!("the upstream stream broke: {err}");
                [Some(Err(Failure::other(why))), None]
            }
        })
        .flat_map(|items| futures::stream::iter(items.into_iter().flatten()));
    Box::pin(items)
}
