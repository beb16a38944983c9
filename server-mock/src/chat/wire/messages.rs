//! What the gateway writes to Messages clients: a whole answer as Anthropic's `message` (an
//! Anthropic upstream's as it wrote it), and a streamed answer from a model that is not
//! Anthropic's as Anthropic's events:
//! `message_start` (usage with the cache fields at 0) and a `ping` (another each time the
//! upstream is silent for the gateway's ping interval); each run of text, thinking
//! or a tool call as one content block (`content_block_start`, its `content_block_delta`s,
//! `content_block_stop`); then `message_delta` with the stop reason and the usage as billed,
//! and `message_stop`. A failure after the start is an `error` event.

use std::collections::VecDeque;

use serde::Serialize;

use axum::Json;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};

use crate::chat::answer::{Completion, Event, Item, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::to_message::{stop_reason, usage};
use crate::chat::form::{Finish, Said, Tokens};
use crate::http::anthropic::envelope;

/// What the writer has opened so far.
pub struct Writer {
    id: String,
    model: String,
    /// The open block: its index and what it holds.
    open: Option<(u32, Kind)>,
    /// Blocks opened so far.
    blocks: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    /// Tool call number n of the answer.
    Tool(u32),
}

/// `message_start`'s data: the message so far, nothing in it.
#[derive(Serialize)]
struct Start<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message: StartMessage<'a>,
}

#[derive(Serialize)]
struct StartMessage<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'static str,
    model: &'a str,
    content: [(); 0],
    stop_reason: (),
    stop_sequence: (),
    usage: StartUsage,
}

#[derive(Serialize)]
struct StartUsage {
    input_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
    output_tokens: u64,
}

/// A `content_block_start` event's data.
#[derive(Serialize)]
struct BlockStart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: u32,
    content_block: Block<'a>,
}

/// A block as it starts, empty.
#[derive(Serialize)]
#[serde(tag = "type")]
enum Block<'a> {
    #[serde(rename = "text")]
    Text { text: &'static str },
    #[serde(rename = "thinking")]
    Thinking {
        thinking: &'static str,
        signature: &'static str,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Empty,
    },
}

/// `{}`.
struct Empty;

impl Serialize for Empty {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        serializer.serialize_map(Some(0))?.end()
    }
}

/// `message_delta`'s data: the stop reason and the usage billed.
#[derive(Serialize)]
struct MessageDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    delta: StopDelta<'a>,
    usage: crate::chat::form::to_message::Usage,
}

#[derive(Serialize)]
struct StopDelta<'a> {
    stop_reason: &'a str,
    stop_sequence: (),
}

/// `value` as JSON text (strings and numbers always serialise).
fn text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A `content_block_delta` event's data.
#[derive(Serialize)]
struct BlockDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: u32,
    delta: Piece<'a>,
}

/// A delta's piece, tagged with its type (`text_delta`, ...).
#[derive(Serialize)]
#[serde(tag = "type")]
enum Piece<'a> {
    #[serde(rename = "text_delta")]
    Text { text: &'a str },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: &'a str },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: &'a str },
}

impl Writer {
    /// A writer for the message `id` from `model`.
    pub fn new(id: String, model: String) -> Self {
        Writer {
            id,
            model,
            open: None,
            blocks: 0,
        }
    }

    /// `message_start`, with the prompt's estimated tokens, and a `ping`.
    pub fn opening(&self, prompt: u64, out: &mut VecDeque<Event>) {
        let start = Start {
            kind: "message_start",
            message: StartMessage {
                id: &self.id,
                kind: "message",
                role: "assistant",
                model: &self.model,
                content: [],
                stop_reason: (),
                stop_sequence: (),
                usage: StartUsage {
                    input_tokens: prompt,
                    cache_creation_input_tokens: 0,
                    cache_read_input_tokens: 0,
                    output_tokens: 0,
                },
            },
        };
        out.push_back(Event::named("message_start", text(&start)));
        out.push_back(Event::named("ping", ping()));
    }

    /// The events of a typed `item`; whether it was a piece of the answer (for the bill).
    pub fn piece(&mut self, item: &Item, out: &mut VecDeque<Event>) -> bool {
        match item {
            Item::Text(text) => self.delta(Kind::Text, Piece::Text { text }, out),
            Item::Reasoning(thinking) => {
                self.delta(Kind::Thinking, Piece::Thinking { thinking }, out)
            }
            Item::ToolCall { index, id, name } => self.tool(*index, id, name, out),
            Item::ToolArguments { index, piece } => {
                let partial_json = piece.as_str();
                let piece = Piece::InputJson { partial_json };
                self.delta(Kind::Tool(*index), piece, out);
            }
            _ => return false,
        }
        true
    }

    /// Tool call `index` begins: a `tool_use` block.
    fn tool(&mut self, index: u32, id: &str, name: &str, out: &mut VecDeque<Event>) {
        let input = Empty;
        self.start(Kind::Tool(index), Block::ToolUse { id, name, input }, out);
    }

    /// `piece` in the open block of `kind`, which is opened first when another is open.
    fn delta(&mut self, kind: Kind, piece: Piece<'_>, out: &mut VecDeque<Event>) {
        let index = match self.open {
            Some((index, open)) if open == kind => index,
            _ => {
                let block = match kind {
                    Kind::Text => Block::Text { text: "" },
                    Kind::Thinking => Block::Thinking {
                        thinking: "",
                        signature: "",
                    },
                    // Arguments of a call whose start was not seen: a block with no id.
                    Kind::Tool(_) => Block::ToolUse {
                        id: "",
                        name: "",
                        input: Empty,
                    },
                };
                self.start(kind, block, out)
            }
        };
        let delta = BlockDelta {
            kind: "content_block_delta",
            index,
            delta: piece,
        };
        out.push_back(Event::named("content_block_delta", text(&delta)));
    }

    /// Closes the open block and opens `block`; its index.
    fn start(&mut self, kind: Kind, block: Block<'_>, out: &mut VecDeque<Event>) -> u32 {
        self.stop(out);
        let index = self.blocks;
        self.blocks += 1;
        self.open = Some((index, kind));
        let start = BlockStart {
            kind: "content_block_start",
            index,
            content_block: block,
        };
        out.push_back(Event::named("content_block_start", text(&start)));
        index
    }

    fn stop(&mut self, out: &mut VecDeque<Event>) {
        if let Some((index, _)) = self.open.take() {
            let stop = format!(r#"{{"type":"content_block_stop","index":{index}}}"#);
            out.push_back(Event::named("content_block_stop", stop));
        }
    }

    /// The end: the open block closed, `message_delta` with `finish` and `tokens`,
    /// `message_stop`.
    pub fn closing(&mut self, finish: &Finish, tokens: &Tokens, out: &mut VecDeque<Event>) {
        self.stop(out);
        let delta = MessageDelta {
            kind: "message_delta",
            delta: StopDelta {
                stop_reason: stop_reason(finish),
                stop_sequence: (),
            },
            usage: usage(tokens),
        };
        out.push_back(Event::named("message_delta", text(&delta)));
        out.push_back(Event::named("message_stop", stop_event()));
    }
}

/// `ping`'s data: sent after `message_start`, and while the upstream is silent.
pub fn ping() -> String {
    r#"{"type":"ping"}"#.to_string()
}

/// `message_stop`'s data.
pub fn stop_event() -> String {
    r#"{"type":"message_stop"}"#.to_string()
}

/// An `error` event: `body` when it is the upstream's own error (relayed), else the gateway's
/// `message` with the type its `status` has.
pub fn error(status: axum::http::StatusCode, message: &str, body: Option<&[u8]>) -> Event {
    let data = match body.and_then(|body| std::str::from_utf8(body).ok()) {
        Some(body) => body.to_string(),
        None => envelope(status, message, serde_json::Map::new()).to_string(),
    };
    Event::named("error", data)
}

/// A whole answer as Anthropic's `message` with `id`: an Anthropic upstream's as it wrote it,
/// any other written from the form.
pub(crate) fn answer(id: &str, model: &Model, answer: &Completion, tokens: &Tokens) -> Response {
    let said = match &answer.message {
        Message::Whole(raw) => {
            let json = [(
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )];
            return (json, raw.get().to_string()).into_response();
        }
        Message::Said(said) => std::borrow::Cow::Borrowed(said),
        Message::Raw(raw) => {
            let message = serde_json::from_str(raw.get()).unwrap_or_default();
            std::borrow::Cow::Owned(Said::from_chat_message(&message))
        }
    };
    Json(said.to_message(id, &model.id, &answer.finish, tokens)).into_response()
}

#[cfg(test)]
mod tests;
