//! The `openai` provider: any OpenAI-compatible upstream. The request goes through unchanged
//! (`temperature`, `tools`, `tool_choice` and unknown fields included) except for the model
//! name, our extensions, and `max_tokens`, which is always set so the budget holds. Streams are
//! forwarded chunk by chunk as they arrive. An upstream serving the Responses API itself
//! (`responses = true`) takes a Responses client's own request instead (`relay.rs`).

pub mod relay;

use std::borrow::Cow;
use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sse_core::{SseEvent, SseStream, SseStreamError};

use super::answer::{self, Completion, Detail, Failure, Item, ItemStream};
use super::form::Finish;
use super::request::{ChatRequest, Message};
use super::upstream::{Extra, Reply};
use crate::chat::catalogue::Model;
use crate::chat::catalogue::presets::{CapField, Quirks};

/// Longest upstream error text quoted in our messages.
const QUOTE: usize = 200;
/// How long an upstream may take to start answering, unless its catalogue entry says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `work` within `model`'s time limit.
async fn in_time<T>(
    model: &Model,
    work: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    let limit = model
        .timeout_ms
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    tokio::time::timeout(limit, work)
        .await
        .unwrap_or_else(|_| Err(Failure::timeout()))
}

/// The request as the upstream gets it, written straight from the client's request (no JSON
/// tree is built): our extensions left out, the model's upstream name, and always a cap on the
/// completion tokens so the budget holds.
#[derive(Serialize)]
struct UpstreamRequest<'a> {
    model: &'a str,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'a Value>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<IncludeUsage>,
    /// The fields the gateway does not read (`top_p`, `n`, `stop`, ...), unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

#[derive(Serialize)]
struct IncludeUsage {
    include_usage: bool,
}

/// The messages as the client sent them, or with text-only content lists as one string for a
/// provider that takes no lists ([`Quirks::text_content`]).
#[derive(Serialize)]
#[serde(untagged)]
enum Messages<'a> {
    AsSent(&'a [Message]),
    Flattened(Vec<TextContent<'a>>),
}

/// A message whose text-only content list is written as one string.
#[derive(Serialize)]
struct TextContent<'a> {
    role: &'a str,
    content: Cow<'a, Value>,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

impl<'a> Messages<'a> {
    fn new(messages: &'a [Message], quirks: Quirks) -> Self {
        let listed = |m: &Message| m.content.is_array();
        if !quirks.text_content || !messages.iter().any(listed) {
            return Messages::AsSent(messages);
        }
        let flattened = messages.iter().map(|message| TextContent {
            role: &message.role,
            content: match joined_text(&message.content) {
                Some(text) => Cow::Owned(Value::String(text)),
                None => Cow::Borrowed(&message.content),
            },
            extra: &message.extra,
        });
        Messages::Flattened(flattened.collect())
    }
}

/// A content list made only of text parts, as one string; `None` for anything else (a string
/// already, or a list holding an image or audio, which goes as it came).
fn joined_text(content: &Value) -> Option<String> {
    let parts = content.as_array()?;
    let mut text = String::new();
    for part in parts {
        let part = part.as_object()?;
        if part.get("type").and_then(Value::as_str) != Some("text") {
            return None;
        }
        text.push_str(part.get("text")?.as_str()?);
    }
    Some(text)
}

/// The request's body for `model`'s upstream, asking for at most `cap` tokens (and for
/// `effort` as `reasoning_effort`, when a request of another dialect asked for one).
pub fn encode(
    model: &Model,
    cap: u32,
    request: &ChatRequest,
    stream: bool,
    effort: Option<&str>,
) -> Vec<u8> {
    let mut body = body(model, cap, request, stream);
    body.reasoning_effort = effort;
    // Strings, numbers and JSON values always serialise.
    serde_json::to_vec(&body).unwrap_or_default()
}

fn body<'a>(
    model: &'a Model,
    cap: u32,
    request: &'a ChatRequest,
    stream: bool,
) -> UpstreamRequest<'a> {
    let quirks = model.quirks;
    let newer = match quirks.cap {
        CapField::AsSent => request.max_completion_tokens.is_some(),
        CapField::MaxTokens => false,
        CapField::MaxCompletionTokens => true,
    };
    UpstreamRequest {
        model: model.upstream_name(),
        messages: Messages::new(&request.messages, quirks),
        max_tokens: (!newer).then_some(cap),
        max_completion_tokens: newer.then_some(cap),
        temperature: request.temperature,
        tools: request.tools.as_ref(),
        tool_choice: request.tool_choice.as_ref(),
        stream,
        stream_options: (stream && quirks.stream_usage).then_some(IncludeUsage {
            include_usage: true,
        }),
        reasoning_effort: None,
        extra: &request.extra,
    }
}

/// Sends `body` to `model`'s upstream; an answer that is not a success is a failure quoting
/// what the upstream said.
async fn send(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<Reply, Failure> {
    let target = model
        .target
        .as_ref()
        .ok_or_else(|| Failure::other("the model has no upstream"))?;
    let reply = target.post_with(extra, body).await?;
    if !reply.status.is_success() {
        let (status, retry_after) = (reply.status.as_u16(), reply.retry_after);
        let text = reply.bytes().await.unwrap_or_default();
        let message = format!(
            "HTTP {status}: {}",
            crate::http::error::truncate(&String::from_utf8_lossy(&text), QUOTE)
        );
        return Err(Failure::status(status, retry_after, message).with_body(text));
    }
    Ok(reply)
}

/// What is read of an upstream's whole answer; anything else in it is ignored.
#[derive(Deserialize)]
struct UpstreamAnswer<'a> {
    #[serde(default, borrow)]
    choices: Vec<UpstreamChoice<'a>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
}

/// What is read of an upstream's streamed chunk.
#[derive(Deserialize)]
struct UpstreamChunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<UpstreamChoice<'a>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    /// Some upstreams report a failure mid-stream as a chunk holding `error`.
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// One choice: `message` in a whole answer, `delta` in a chunk, kept as raw JSON.
#[derive(Deserialize)]
struct UpstreamChoice<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default, borrow)]
    delta: Option<&'a RawValue>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

/// An `error` in a chunk: OpenAI's object with `message`, or plain text.
#[derive(Deserialize)]
#[serde(untagged)]
enum UpstreamError {
    Object { message: String },
    Text(String),
}

/// Token counts an upstream reported. Counts it wrote oddly (not whole numbers) are treated as
/// missing rather than failing an answer that is otherwise fine.
#[derive(Deserialize)]
struct UpstreamUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    /// `cached_tokens`: prompt tokens read from the upstream's cache.
    prompt_tokens_details: Option<PromptDetails>,
    /// `reasoning_tokens`: completion tokens spent reasoning.
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

impl UpstreamUsage {
    fn read(raw: Option<&RawValue>) -> Option<Self> {
        raw.and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// What it says of the cache and reasoning (OpenAI has no cache writes).
    fn detail(&self) -> Detail {
        Detail {
            cache_read: self
                .prompt_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0),
            reasoning: self
                .completion_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
            ..Detail::default()
        }
    }
}

/// The first choice; an upstream asked for several (`n`) also sends the others.
fn first<'c, 'a>(choices: &'c [UpstreamChoice<'a>]) -> Option<&'c UpstreamChoice<'a>> {
    choices.iter().find(|choice| choice.index == 0)
}

/// A whole completion, asked for with `body` ([`encode`]).
pub async fn complete(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<Completion, Failure> {
    let bytes = whole(model, extra, body).await?;
    let answer: UpstreamAnswer = serde_json::from_slice(&bytes)
        .map_err(|err| Failure::invalid(format!("the upstream answer could not be read: {err}")))?;
    let choice = first(&answer.choices)
        .ok_or_else(|| Failure::invalid("the upstream answer has no choices"))?;
    let message = match choice.message {
        Some(message) => message.to_owned(),
        None => RawValue::from_string(r#"{"role":"assistant","content":""}"#.into())
            .map_err(|_| Failure::invalid("the upstream answer has no message"))?,
    };
    let usage = UpstreamUsage::read(answer.usage);
    let usage = usage.as_ref();
    let completion_tokens = usage
        .and_then(|u| u.completion_tokens)
        .unwrap_or_else(|| estimate(&message));
    Ok(Completion {
        finish: Finish::plain(choice.finish_reason.as_deref().unwrap_or("stop")),
        message: answer::Message::Raw(message),
        prompt_tokens: usage.and_then(|u| u.prompt_tokens),
        completion_tokens,
        detail: usage.map(UpstreamUsage::detail).unwrap_or_default(),
    })
}

/// A stream of deltas; the connection closes when it is dropped. Its first item, like the
/// answer's head, must come within the model's time limit: an upstream that sends its headers
/// and then nothing (or only keep-alives) has timed out, and the next candidate is tried.
pub async fn stream(model: &Model, extra: &Extra, body: Vec<u8>) -> Result<ItemStream, Failure> {
    open(model, extra, body, items).await
}

/// `model`'s whole answer to `body` (sent with `extra`), within its time limit (any upstream
/// kind).
pub(super) async fn whole(
    model: &Model,
    extra: &Extra,
    body: Vec<u8>,
) -> Result<bytes::Bytes, Failure> {
    in_time(model, async {
        send(model, extra, body).await?.bytes().await
    })
    .await
}

/// `model`'s streamed answer to `body`, read by `items`, once its first item is there (within
/// its time limit, as [`stream`] says; any upstream kind).
pub(super) async fn open(
    model: &Model,
    extra: &Extra,
    body: Vec<u8>,
    items: fn(super::upstream::BodyStream) -> ItemStream,
) -> Result<ItemStream, Failure> {
    in_time(model, async {
        let reply = send(model, extra, body).await?;
        first_item(items(reply.stream())).await
    })
    .await
}

/// `items` once its first item is there: a failure or an end before it is the stream's failure.
async fn first_item(mut items: ItemStream) -> Result<ItemStream, Failure> {
    match items.next().await {
        Some(Ok(first)) => {
            let first = futures::stream::once(async { Ok(first) });
            Ok(Box::pin(first.chain(items)) as ItemStream)
        }
        Some(Err(failure)) => Err(failure),
        None => Err(Failure::invalid(
            "the upstream ended its stream before answering",
        )),
    }
}

/// The deltas, finish reasons, usage and failures an upstream's SSE body holds, in order.
pub(super) fn items(body: super::upstream::BodyStream) -> ItemStream {
    let events = SseStream::new(body);
    let items = events
        .map(|event| match event {
            Ok(SseEvent::Message(event)) => match event.data.trim() {
                // Keep-alives and the end marker carry nothing.
                "" | "[DONE]" => Items::default(),
                data => chunk_items(data),
            },
            Ok(SseEvent::Retry(_)) => Items::default(),
            Err(SseStreamError::Inner(failure)) => failed(failure),
            Err(err) => failed(Failure::other(format!("the upstream stream broke: {err}"))),
        })
        .flat_map(|items| futures::stream::iter(items.into_iter().flatten()));
    Box::pin(items)
}

/// What one upstream chunk gives, in order: a delta, a finish reason and usage, each maybe; or
/// a failure. A fixed array, so reading a chunk allocates nothing besides the delta.
type Items = [Option<Result<Item, Failure>>; 3];

fn failed(failure: Failure) -> Items {
    [Some(Err(failure)), None, None]
}

fn chunk_items(data: &str) -> Items {
    let chunk: UpstreamChunk = match serde_json::from_str(data) {
        Ok(chunk) => chunk,
        Err(err) => {
            return failed(Failure::invalid(format!(
                "the upstream sent a chunk that could not be read: {err}"
            )));
        }
    };
    if let Some(error) = chunk.error {
        let message = match serde_json::from_str(error.get()) {
            Ok(UpstreamError::Object { message } | UpstreamError::Text(message)) => message,
            Err(_) => error.get().to_string(),
        };
        return failed(Failure::other(format!(
            "the upstream failed: {}",
            crate::http::error::truncate(&message, QUOTE)
        )));
    }
    let choice = first(&chunk.choices);
    let delta = choice
        .and_then(|c| c.delta)
        .filter(|delta| carries_something(delta))
        .map(|delta| Ok(Item::Delta(delta.to_owned())));
    let finish = choice
        .and_then(|c| c.finish_reason.as_deref())
        .map(|reason| Ok(Item::Finish(Finish::plain(reason))));
    let usage = UpstreamUsage::read(chunk.usage).map(|usage| {
        Ok(Item::Usage {
            prompt: usage.prompt_tokens,
            completion: usage.completion_tokens.unwrap_or(0),
            detail: usage.detail(),
        })
    });
    [delta, finish, usage]
}

/// Whether `delta` is an object with something in it: `{}` and non-objects are not forwarded.
fn carries_something(delta: &RawValue) -> bool {
    let mut text = delta.get().bytes().filter(|b| !b.is_ascii_whitespace());
    text.next() == Some(b'{') && text.next() != Some(b'}')
}

/// Tokens in a message's text, by the 4-characters rule, when the upstream reports none.
pub fn estimate(message: &RawValue) -> u64 {
    #[derive(Deserialize)]
    struct Text<'a> {
        #[serde(default, borrow)]
        content: Option<Cow<'a, str>>,
    }
    let text = serde_json::from_str::<Text>(message.get())
        .ok()
        .and_then(|m| m.content)
        .unwrap_or_default();
    (text.chars().count() as u64).div_ceil(4)
}
