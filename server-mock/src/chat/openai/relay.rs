//! A Responses client's own request to an upstream that serves the Responses API itself
//! (catalogue `responses = true`), and the answer back as it came: the body unchanged but for
//! the model's upstream name, the cap and the stream flag (hosted tools, `reasoning`,
//! `include`, namespaces go through); the whole answer relayed byte for byte, a stream event by
//! event, each read on the way for the bill. `response.completed` is held until the answer is
//! recorded; `response.failed` and `error` events are the failure, relayed as they came.

use std::borrow::Cow;

use futures::StreamExt;
use serde::Deserialize;
use serde_json::{Map, Value};
use sse_core::{SseEvent, SseStream, SseStreamError};

use super::{open, whole};
use crate::chat::answer::{Completion, Detail, Event, Failure, Item, ItemStream, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::Finish;
use crate::chat::upstream::{BodyStream, Extra, relayed};

/// Where the request goes, after the upstream's base URL.
pub const PATH: &str = "/responses";

/// The events that end an answer: held until it is recorded.
pub const FINAL: [&str; 2] = ["response.completed", "response.incomplete"];

/// The client's `body` for `model`: its upstream name, at most `cap` tokens, streamed or not;
/// every other field as the client wrote it, in its order.
pub fn body(model: &Model, cap: u32, body: &Map<String, Value>, stream: bool) -> Vec<u8> {
    relayed::body(
        model.upstream_name(),
        ("max_output_tokens", cap),
        body,
        stream,
    )
}

/// What the bill needs of a `response` object.
#[derive(Deserialize, Default)]
struct Response {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    output: Vec<OutputItem>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct OutputItem {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    content: Vec<Part>,
}

#[derive(Deserialize)]
struct Part {
    #[serde(default)]
    text: String,
}

#[derive(Deserialize, Default)]
struct Usage {
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: u64,
    input_tokens_details: Option<Cached>,
    output_tokens_details: Option<Reasoning>,
}

#[derive(Deserialize)]
struct Cached {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct Reasoning {
    #[serde(default)]
    reasoning_tokens: u64,
}

impl Response {
    /// Why it ended: cut at the cap, calling tools, or done.
    fn finish(&self) -> Finish {
        match self.status.as_deref() {
            Some("incomplete") => Finish::plain("length"),
            _ if self.output.iter().any(|item| item.kind == "function_call") => {
                Finish::plain("tool_calls")
            }
            _ => Finish::plain("stop"),
        }
    }

    fn detail(&self) -> Detail {
        let usage = self.usage.as_ref();
        Detail {
            cache_read: usage
                .and_then(|u| u.input_tokens_details.as_ref())
                .map_or(0, |d| d.cached_tokens),
            reasoning: usage
                .and_then(|u| u.output_tokens_details.as_ref())
                .map_or(0, |d| d.reasoning_tokens),
            ..Detail::default()
        }
    }

    /// Completion tokens: the upstream's count, else the text's estimate.
    fn completion(&self) -> u64 {
        match &self.usage {
            Some(usage) => usage.output_tokens,
            None => {
                let parts = self.output.iter().flat_map(|item| &item.content);
                let chars: usize = parts.map(|part| part.text.chars().count()).sum();
                (chars as u64).div_ceil(4)
            }
        }
    }
}

/// A whole answer, kept as the upstream wrote it.
pub async fn complete(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<Completion, Failure> {
    let bytes = whole(model, extra, body).await?;
    let (answer, raw): (Response, _) = relayed::read(&bytes)?;
    Ok(Completion {
        message: Message::Whole(raw),
        finish: answer.finish(),
        prompt_tokens: answer.usage.as_ref().and_then(|u| u.input_tokens),
        completion_tokens: answer.completion(),
        detail: answer.detail(),
    })
}

/// The upstream's events, each relayed ([`Item::Event`]) after what it gives the bill.
pub async fn stream(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<ItemStream, Failure> {
    open(model, extra, body, items).await
}

/// An event's data, as far as the bill reads it.
#[derive(Deserialize)]
struct Data {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    response: Option<Response>,
    #[serde(default)]
    message: Option<String>,
}

fn items(body: BodyStream) -> ItemStream {
    let items = SseStream::new(body)
        .map(|event| match event {
            Ok(SseEvent::Message(event)) => read(event.event, event.data),
            Ok(SseEvent::Retry(_)) => Vec::new(),
            Err(SseStreamError::Inner(failure)) => vec![Err(failure)],
            Err(err) => {
                let why = format!("the upstream stream broke: {err}");
                vec![Err(Failure::other(why))]
            }
        })
        .flat_map(futures::stream::iter);
    Box::pin(items)
}

/// One event: what it gives the bill, then the event to relay; a failure when it says the
/// answer failed.
fn read(name: Cow<'static, str>, data: String) -> Vec<Result<Item, Failure>> {
    let Ok(read) = serde_json::from_str::<Data>(&data) else {
        let name = Some(name);
        return vec![Ok(Item::Event(Event::relayed(name, data)))];
    };
    let mut items = Vec::with_capacity(3);
    match read.kind.as_str() {
        "response.failed" | "error" => {
            let message = read
                .response
                .as_ref()
                .and_then(|r| r.error.as_ref())
                .and_then(|e| e["message"].as_str().map(str::to_string))
                .or(read.message)
                .unwrap_or_else(|| "the upstream's response failed".into());
            let failure = Failure::invalid(format!("the upstream failed: {message}"));
            return vec![Err(failure.with_body(bytes::Bytes::from(data)))];
        }
        "response.output_text.delta" => items.extend(read.delta.map(Item::Text)),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
            items.extend(read.delta.map(Item::Reasoning))
        }
        "response.function_call_arguments.delta" => items.extend(
            read.delta
                .map(|piece| Item::ToolArguments { index: 0, piece }),
        ),
        kind if FINAL.contains(&kind) => {
            let response = read.response.unwrap_or_default();
            if let Some(usage) = &response.usage {
                items.push(Item::Usage {
                    prompt: usage.input_tokens,
                    completion: usage.output_tokens,
                    detail: response.detail(),
                });
            }
            items.push(Item::Finish(response.finish()));
        }
        _ => {}
    }
    let mut items: Vec<_> = items.into_iter().map(Ok).collect();
    let name = match name.as_ref() {
        // An event with no name of its own is named by its type.
        "message" => Cow::Owned(read.kind),
        _ => name,
    };
    items.push(Ok(Item::Event(Event::relayed(Some(name), data))));
    items
}
