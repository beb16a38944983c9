//! What every provider gives the gateway: a whole completion, or a stream of deltas, or the
//! failure that stopped it.

use std::borrow::Cow;
use std::pin::Pin;
use std::time::Duration;

use futures::Stream;
use serde::Deserialize;
use serde_json::value::RawValue;

pub use super::form::{Detail, Tokens};
use super::form::{Finish, Said};
use crate::telemetry::Outcome;

/// One event of an answer's stream, in the internal form: typed pieces, or a chat completions
/// delta as an OpenAI-compatible upstream wrote it (passed through, not rebuilt).
#[derive(Debug, Clone)]
pub enum Item {
    /// A `delta` object as raw JSON, forwarded as is (text in `content`, or tool calls).
    Delta(Box<RawValue>),
    /// A piece of the answer's text.
    Text(String),
    /// A piece of the model's thinking, kept apart from the text.
    Reasoning(String),
    /// A tool call begins: its place among the answer's calls, its id and the tool's name.
    ToolCall {
        index: u32,
        id: String,
        name: String,
    },
    /// A piece of the JSON text of tool call `index`'s arguments.
    ToolArguments { index: u32, piece: String },
    /// Why the answer ended.
    Finish(Finish),
    /// Token counts the upstream reported (the prompt's when it did).
    Usage {
        prompt: Option<u64>,
        completion: u64,
        detail: Detail,
    },
    /// An event of an upstream that speaks the client's own dialect, relayed as it came (the
    /// pieces, finish and usage read from it follow as items of their own, for the bill).
    Event(Event),
}

impl Item {
    /// A chat completions delta as an OpenAI-compatible upstream wrote it, in typed pieces:
    /// reasoning, text, then each tool call's start and arguments (for a client of another
    /// dialect, whose writer takes typed pieces only).
    pub fn typed(raw: &RawValue) -> Vec<Item> {
        let Ok(delta) = serde_json::from_str::<ChatDelta>(raw.get()) else {
            return Vec::new();
        };
        let some = |text: &Option<Cow<'_, str>>| {
            text.as_deref()
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let mut items = Vec::new();
        items.extend(some(&delta.reasoning_content).map(Item::Reasoning));
        items.extend(some(&delta.content).map(Item::Text));
        for call in delta.tool_calls {
            let function = call.function.as_ref();
            if let Some(id) = call.id {
                let name = function.and_then(|f| f.name.as_deref()).unwrap_or_default();
                items.push(Item::ToolCall {
                    index: call.index,
                    id: id.into_owned(),
                    name: name.to_string(),
                });
            }
            if let Some(piece) = function.and_then(|f| some(&f.arguments)) {
                items.push(Item::ToolArguments {
                    index: call.index,
                    piece,
                });
            }
        }
        items
    }
}

/// What is read of an OpenAI-compatible upstream's chat delta.
#[derive(Deserialize)]
struct ChatDelta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Vec<CallDelta<'a>>,
}

#[derive(Deserialize)]
struct CallDelta<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

/// A server-sent event: its name (none for chat completions' unnamed events) and its data.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: Option<Cow<'static, str>>,
    pub data: String,
    /// Whether `data` holds line breaks (an upstream's text may): each line then goes out as a
    /// `data:` line of its own. The gateway's own JSON text is always one line.
    pub multiline: bool,
}

impl Event {
    /// An unnamed event of the gateway's own: `data` is one line of JSON text.
    pub fn data(data: String) -> Self {
        Event::own(None, data)
    }

    /// The event `name` of the gateway's own, `data` one line of JSON text.
    pub fn named(name: &'static str, data: String) -> Self {
        Event::own(Some(Cow::Borrowed(name)), data)
    }

    fn own(name: Option<Cow<'static, str>>, data: String) -> Self {
        debug_assert!(!data.contains('\n'), "not one line: {data}");
        Event {
            name,
            data,
            multiline: false,
        }
    }

    /// An upstream's event as it came, its `data` perhaps over several lines.
    pub fn relayed(name: Option<Cow<'static, str>>, data: String) -> Self {
        let multiline = data.contains('\n');
        Event {
            name,
            data,
            multiline,
        }
    }
}

/// Deltas as they arrive; an `Err` is the upstream failing mid-stream.
pub type ItemStream = Pin<Box<dyn Stream<Item = Result<Item, Failure>> + Send>>;

/// Why an upstream gave no (or no more) answer.
#[derive(Debug, Clone)]
pub struct Failure {
    /// What kind of failure, for the metrics' `outcome` label.
    kind: Outcome,
    /// It did not answer in time (a 504 when every candidate timed out).
    pub timed_out: bool,
    /// The HTTP status it answered with, when it answered with an error.
    pub status: Option<u16>,
    /// How long it asked to be left alone (`Retry-After`), when it said.
    pub retry_after: Option<Duration>,
    /// The body of an error status, as the upstream wrote it (relayed unchanged to a client
    /// that speaks the upstream's own dialect).
    pub body: Option<bytes::Bytes>,
    message: String,
}

impl Failure {
    /// Any failure but a timeout, an error status or an unreadable answer: the connection
    /// (refused, reset, closed early, TLS).
    pub fn other(message: impl Into<String>) -> Self {
        let message = message.into();
        Failure {
            // The TLS words all start so (see `outbound`).
            kind: match message.starts_with("TLS") {
                true => Outcome::Tls,
                false => Outcome::Connection,
            },
            timed_out: false,
            status: None,
            retry_after: None,
            body: None,
            message,
        }
    }

    /// An answer that could not be read.
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure {
            kind: Outcome::InvalidResponse,
            ..Failure::other(message)
        }
    }

    /// No answer in time.
    pub fn timeout() -> Self {
        Failure {
            kind: Outcome::Timeout,
            timed_out: true,
            ..Failure::other("timed out")
        }
    }

    /// An error status (with `Retry-After` when it came with one); `message` quotes the body.
    pub fn status(status: u16, retry_after: Option<Duration>, message: String) -> Self {
        Failure {
            kind: match status {
                408 => Outcome::Timeout,
                429 => Outcome::RateLimited,
                400..=499 => Outcome::ClientError,
                _ => Outcome::ServerError,
            },
            status: Some(status),
            retry_after,
            ..Failure::other(message)
        }
    }

    /// The same failure, keeping the error status's `body`.
    pub fn with_body(self, body: bytes::Bytes) -> Self {
        Failure {
            body: Some(body),
            ..self
        }
    }

    /// Whether it counts against the upstream's health: everything but a 4xx other than 408
    /// and 429, which is about the request, not the upstream.
    pub fn counts(&self) -> bool {
        !matches!(self.status, Some(s @ 400..=499) if s != 408 && s != 429)
    }

    /// What kind of failure it was (for a stream that had answered, the caller says
    /// [`Outcome::StreamCut`] instead).
    pub fn outcome(&self) -> Outcome {
        self.kind
    }

    /// The failure in a few words, for the reason a circuit opened: "HTTP 503", "timed out".
    pub fn cause(&self) -> String {
        match self.status {
            Some(status) => format!("HTTP {status}"),
            None => self.message.clone(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A whole answer's message.
#[derive(Debug, Clone)]
pub enum Message {
    /// A chat completions `message` object as an OpenAI-compatible upstream wrote it.
    Raw(Box<RawValue>),
    /// What the provider said, in the internal form.
    Said(Said),
    /// An upstream's whole answer in the client's own dialect, relayed as it came.
    Whole(Box<RawValue>),
}

/// A whole answer.
#[derive(Debug, Clone)]
pub struct Completion {
    pub message: Message,
    pub finish: Finish,
    /// Reported by the upstream, when it did.
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: u64,
    /// What it said of its cache and reasoning.
    pub detail: Detail,
}
