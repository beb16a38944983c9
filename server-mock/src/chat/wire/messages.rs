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
use serde_json::json;

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
        let start = json!({"type": "message_start", "message": {
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": prompt, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 0},
        }});
        out.push_back(Event::named("message_start", start.to_string()));
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
        let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
        self.start(Kind::Tool(index), block, out);
    }

    /// `piece` in the open block of `kind`, which is opened first when another is open.
    fn delta(&mut self, kind: Kind, piece: Piece<'_>, out: &mut VecDeque<Event>) {
        let index = match self.open {
            Some((index, open)) if open == kind => index,
            _ => {
                let block = match kind {
                    Kind::Text => json!({"type": "text", "text": ""}),
                    Kind::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
                    // Arguments of a call whose start was not seen: a block with no id.
                    Kind::Tool(_) => json!({"type": "tool_use", "id": "", "name": "", "input": {}}),
                };
                self.start(kind, block, out)
            }
        };
        let delta = BlockDelta {
            kind: "content_block_delta",
            index,
            delta: piece,
        };
        // Strings and numbers always serialise.
        let data = serde_json::to_string(&delta).unwrap_or_default();
        out.push_back(Event::named("content_block_delta", data));
    }

    /// Closes the open block and opens `block`; its index.
    fn start(&mut self, kind: Kind, block: serde_json::Value, out: &mut VecDeque<Event>) -> u32 {
        self.stop(out);
        let index = self.blocks;
        self.blocks += 1;
        self.open = Some((index, kind));
        let start = json!({"type": "content_block_start", "index": index, "content_block": block});
        out.push_back(Event::named("content_block_start", start.to_string()));
        index
    }

    fn stop(&mut self, out: &mut VecDeque<Event>) {
        if let Some((index, _)) = self.open.take() {
            let stop = json!({"type": "content_block_stop", "index": index});
            out.push_back(Event::named("content_block_stop", stop.to_string()));
        }
    }

    /// The end: the open block closed, `message_delta` with `finish` and `tokens`,
    /// `message_stop`.
    pub fn closing(&mut self, finish: &Finish, tokens: &Tokens, out: &mut VecDeque<Event>) {
        self.stop(out);
        let delta = json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason(finish), "stop_sequence": null},
            "usage": usage(tokens)});
        out.push_back(Event::named("message_delta", delta.to_string()));
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
