//! What the gateway writes to Messages clients: a whole answer as Anthropic's `message` (an
//! Anthropic upstream's as it wrote it), and a streamed answer from a model that is not
//! Anthropic's as Anthropic's events:
//! `message_start` (usage with the cache fields at 0) and a `ping` (another each time the
//! upstream is silent for the gateway's ping interval); each run of text, thinking
//! or a tool call as one content block (`content_block_start`, its `content_block_delta`s,
//! `content_block_stop`); then `message_delta` with the stop reason and the usage as billed,
//! and `message_stop`. A failure after the start is an `error` event.

use std::collections::VecDeque;

use axum::Json;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};

use crate::chat::answer::{Completion, Event, Item, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::to_message::{Usage, stop_reason, usage};
use crate::chat::form::{Finish, Said, Tokens};
use crate::chat::wire::text::Text;
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

/// A delta's piece: `text_delta`, `thinking_delta` or `input_json_delta`.
enum Piece<'a> {
    Text(&'a str),
    Thinking(&'a str),
    InputJson(&'a str),
}

/// A block as it starts, empty.
enum Block<'a> {
    Text,
    Thinking,
    ToolUse { id: &'a str, name: &'a str },
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
        let mut t = Text::with_capacity(320);
        t.raw(r#"{"type":"message_start","message":{"id":"#)
            .id(&self.id);
        t.raw(r#","type":"message","role":"assistant","model":"#);
        t.string(&self.model);
        t.raw(r#","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":"#);
        t.number(prompt);
        t.raw(
            r#","cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}"#,
        );
        out.push_back(Event::named("message_start", t.finish()));
        out.push_back(Event::named("ping", ping()));
    }

    /// The events of a typed `item`; whether it was a piece of the answer (for the bill).
    pub fn piece(&mut self, item: &Item, out: &mut VecDeque<Event>) -> bool {
        match item {
            Item::Text(text) => self.delta(Kind::Text, Piece::Text(text), out),
            Item::Reasoning(thinking) => self.delta(Kind::Thinking, Piece::Thinking(thinking), out),
            Item::ToolCall { index, id, name } => self.tool(*index, id, name, out),
            Item::ToolArguments { index, piece } => {
                self.delta(Kind::Tool(*index), Piece::InputJson(piece), out);
            }
            _ => return false,
        }
        true
    }

    /// Tool call `index` begins: a `tool_use` block.
    fn tool(&mut self, index: u32, id: &str, name: &str, out: &mut VecDeque<Event>) {
        self.start(Kind::Tool(index), Block::ToolUse { id, name }, out);
    }

    /// `piece` in the open block of `kind`, which is opened first when another is open.
    fn delta(&mut self, kind: Kind, piece: Piece<'_>, out: &mut VecDeque<Event>) {
        let index = match self.open {
            Some((index, open)) if open == kind => index,
            _ => {
                let block = match kind {
                    Kind::Text => Block::Text,
                    Kind::Thinking => Block::Thinking,
                    // Arguments of a call whose start was not seen: a block with no id.
                    Kind::Tool(_) => Block::ToolUse { id: "", name: "" },
                };
                self.start(kind, block, out)
            }
        };
        let mut t = Text::with_capacity(128);
        t.raw(r#"{"type":"content_block_delta","index":"#)
            .number(index);
        let (kind, piece) = match piece {
            Piece::Text(text) => (r#","delta":{"type":"text_delta","text":"#, text),
            Piece::Thinking(text) => (r#","delta":{"type":"thinking_delta","thinking":"#, text),
            Piece::InputJson(json) => (
                r#","delta":{"type":"input_json_delta","partial_json":"#,
                json,
            ),
        };
        t.raw(kind).string(piece).raw("}}");
        out.push_back(Event::named("content_block_delta", t.finish()));
    }

    /// Closes the open block and opens `block`; its index.
    fn start(&mut self, kind: Kind, block: Block<'_>, out: &mut VecDeque<Event>) -> u32 {
        self.stop(out);
        let index = self.blocks;
        self.blocks += 1;
        self.open = Some((index, kind));
        let mut t = Text::with_capacity(128);
        t.raw(r#"{"type":"content_block_start","index":"#)
            .number(index);
        match block {
            Block::Text => t.raw(r#","content_block":{"type":"text","text":""}}"#),
            Block::Thinking => {
                t.raw(r#","content_block":{"type":"thinking","thinking":"","signature":""}}"#)
            }
            Block::ToolUse { id, name } => {
                t.raw(r#","content_block":{"type":"tool_use","id":"#)
                    .string(id);
                t.raw(r#","name":"#).string(name).raw(r#","input":{}}}"#)
            }
        };
        out.push_back(Event::named("content_block_start", t.finish()));
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
        let mut t = Text::with_capacity(256);
        t.raw(r#"{"type":"message_delta","delta":{"stop_reason":"#);
        t.string(stop_reason(finish))
            .raw(r#","stop_sequence":null},"usage":"#);
        write_usage(&usage(tokens), &mut t);
        t.raw("}");
        out.push_back(Event::named("message_delta", t.finish()));
        out.push_back(Event::named("message_stop", stop_event()));
    }
}

/// Anthropic's `usage` as JSON text, as it serialises.
fn write_usage(usage: &Usage, t: &mut Text) {
    t.raw(r#"{"input_tokens":"#).number(usage.input_tokens);
    t.raw(r#","cache_creation_input_tokens":"#);
    t.number(usage.cache_creation_input_tokens);
    t.raw(r#","cache_read_input_tokens":"#)
        .number(usage.cache_read_input_tokens);
    let cache = &usage.cache_creation;
    t.raw(r#","cache_creation":{"ephemeral_5m_input_tokens":"#);
    t.number(cache.ephemeral_5m_input_tokens);
    t.raw(r#","ephemeral_1h_input_tokens":"#);
    t.number(cache.ephemeral_1h_input_tokens);
    t.raw(r#"},"output_tokens":"#)
        .number(usage.output_tokens)
        .raw("}");
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
    let name = Some(std::borrow::Cow::Borrowed("error"));
    match body.and_then(|body| std::str::from_utf8(body).ok()) {
        Some(body) => Event::relayed(name, body.to_string()),
        None => Event::named(
            "error",
            envelope(status, message, Default::default()).to_string(),
        ),
    }
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
