//! A Messages client's own request to an Anthropic upstream, and the answer back as it came:
//! the body unchanged but for the model's upstream name and the cap (unknown blocks,
//! `thinking`, `cache_control`, `context_management`, tools of any type go through), the
//! client's `anthropic-version` and `anthropic-beta` with it; the whole answer relayed byte for
//! byte, a stream event by event, each read on the way for the bill. An error status's body
//! stays on the failure, so the client gets it unchanged when no other model answers.

use futures::StreamExt;
use serde_json::{Map, Value};
use sse_core::{SseEvent, SseStream, SseStreamError};

use super::reply;
use crate::chat::answer::{Completion, Event, Failure, Item, ItemStream, Message};
use crate::chat::catalogue::Model;
use crate::chat::openai::{open, whole};
use crate::chat::upstream::{BodyStream, Extra, relayed};

/// The client's `body` for `model`: its upstream name, at most `cap` tokens, streamed or not;
/// every other field as the client wrote it, in its order.
pub fn body(model: &Model, cap: u32, body: &Map<String, Value>, stream: bool) -> Vec<u8> {
    relayed::body(model.upstream_name(), ("max_tokens", cap), body, stream)
}

/// A whole answer, kept as the upstream wrote it.
pub async fn complete(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<Completion, Failure> {
    let bytes = whole(model, extra, body).await?;
    let (answer, raw): (reply::Answer, _) = relayed::read(&bytes)?;
    let usage = answer.usage.unwrap_or_default();
    let said = answer.said();
    let completion_tokens = usage
        .completion()
        .unwrap_or_else(|| (said.text.chars().count() as u64).div_ceil(4));
    Ok(Completion {
        message: Message::Whole(raw),
        finish: reply::finish(answer.stop_reason.as_deref()),
        prompt_tokens: usage.prompt(),
        completion_tokens,
        detail: usage.detail(),
    })
}

/// The upstream's events, each relayed ([`Item::Event`]) and followed by what it gives the
/// bill (`message_stop` is held by the relay until the answer is recorded), and an
/// `error` event is the failure, its data kept as the failure's body.
pub async fn stream(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<ItemStream, Failure> {
    open(model, extra, body, items).await
}

fn items(body: BodyStream) -> ItemStream {
    let mut decoder = reply::Decoder::default();
    let items = SseStream::new(body)
        .map(move |event| match event {
            Ok(SseEvent::Message(event)) => {
                let read = match event.data.trim() {
                    "" => [None, None],
                    data => decoder.read(data),
                };
                match event.event.as_ref() {
                    "error" => {
                        let [first, _] = read;
                        let failure = match first {
                            Some(Err(failure)) => failure,
                            _ => Failure::invalid("the upstream sent an error event"),
                        };
                        let body = bytes::Bytes::from(event.data);
                        [Some(Err(failure.with_body(body))), None, None]
                    }
                    _ => {
                        let [first, second] = read;
                        let relayed = Event::relayed(Some(event.event), event.data);
                        [Some(Ok(Item::Event(relayed))), first, second]
                    }
                }
            }
            Ok(SseEvent::Retry(_)) => [None, None, None],
            Err(SseStreamError::Inner(failure)) => [Some(Err(failure)), None, None],
            Err(err) => {
                let why = format!("the upstream stream broke: {err}");
                [Some(Err(Failure::other(why))), None, None]
            }
        })
        .flat_map(|items| futures::stream::iter(items.into_iter().flatten()));
    Box::pin(items)
}
