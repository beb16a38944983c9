//! Anthropic's answers in the internal form: a whole `message` (text blocks joined, thinking
//! kept apart, `tool_use` blocks as tool calls), and a stream's events as `Item`s, in order.
//! Usage counts every prompt token: Anthropic's `input_tokens` leaves out the cached ones.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::chat::answer::{Detail, Failure, Item};
use crate::chat::form::{Finish, Said, SaidCall};

/// A whole answer's fields the gateway reads.
#[derive(Deserialize)]
pub struct Answer {
    #[serde(default)]
    pub content: Vec<Block>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// A content block; kinds the gateway does not show (redacted thinking, server tools' calls
/// and results) are read as `Other` and left out.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Option<Value>,
    },
    #[serde(other)]
    Other,
}

/// Anthropic's `usage`: counts it wrote oddly are read as missing.
#[derive(Deserialize, Default, Clone, Copy)]
pub struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    /// The cache writes split by lifetime, when Anthropic says.
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    ephemeral_1h_input_tokens: Option<u64>,
}

impl Usage {
    /// Every prompt token: fresh, written to the cache and read from it.
    pub fn prompt(&self) -> Option<u64> {
        let input = self.input_tokens?;
        let cached = self.cache_creation_input_tokens.unwrap_or(0)
            + self.cache_read_input_tokens.unwrap_or(0);
        Some(input + cached)
    }

    pub fn completion(&self) -> Option<u64> {
        self.output_tokens
    }

    /// What it says of the cache: the writes by lifetime when split, else all 5-minute.
    pub fn detail(&self) -> Detail {
        let written = self.cache_creation_input_tokens.unwrap_or(0);
        let (five, hour) = match self.cache_creation {
            Some(split) => (
                split.ephemeral_5m_input_tokens.unwrap_or(0),
                split.ephemeral_1h_input_tokens.unwrap_or(0),
            ),
            None => (written, 0),
        };
        Detail {
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            cache_write: five,
            cache_write_1h: hour,
            reasoning: 0,
        }
    }

    /// These counts, with those `later` has over them (a `message_delta`'s usage repeats or
    /// revises the start's; its output count is cumulative).
    fn merge(self, later: Usage) -> Usage {
        Usage {
            input_tokens: later.input_tokens.or(self.input_tokens),
            output_tokens: later.output_tokens.or(self.output_tokens),
            cache_creation_input_tokens: later
                .cache_creation_input_tokens
                .or(self.cache_creation_input_tokens),
            cache_read_input_tokens: later
                .cache_read_input_tokens
                .or(self.cache_read_input_tokens),
            cache_creation: later.cache_creation.or(self.cache_creation),
        }
    }
}

/// `stop_reason` in chat completions' words; a reason the gateway does not know is `stop`,
/// with the provider's word kept.
pub fn finish(stop_reason: Option<&str>) -> Finish {
    match stop_reason {
        None | Some("end_turn" | "stop_sequence" | "pause_turn") => Finish::plain("stop"),
        Some("max_tokens") => Finish::plain("length"),
        Some("tool_use") => Finish::plain("tool_calls"),
        Some("refusal") => Finish::plain("content_filter"),
        Some(other) => Finish {
            reason: "stop".into(),
            provider_reason: Some(other.to_string()),
        },
    }
}

impl Answer {
    /// What it said.
    pub fn said(&self) -> Said {
        let mut said = Said::default();
        for block in &self.content {
            match block {
                Block::Text { text } => said.text.push_str(text),
                Block::Thinking { thinking } => {
                    said.reasoning.get_or_insert_default().push_str(thinking);
                }
                Block::ToolUse { id, name, input } => said.tool_calls.push(SaidCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: input
                        .as_ref()
                        .map_or_else(|| "{}".to_string(), Value::to_string),
                }),
                Block::Other => {}
            }
        }
        said
    }
}

/// One streamed event's fields the gateway reads, borrowed from its data where they hold no
/// escapes (no JSON tree is built for an event).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    message: Option<StartMessage>,
    #[serde(default, borrow)]
    content_block: Option<Fields<'a>>,
    #[serde(default, borrow)]
    delta: Option<Fields<'a>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

/// The fields of an event's content block or delta the gateway reads.
#[derive(Deserialize, Default)]
struct Fields<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    stop_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: Option<Usage>,
}

/// Anthropic's error object.
#[derive(Deserialize)]
pub struct ErrorBody {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub message: String,
}

/// What a stream has said so far that later events need: the usage from `message_start`, and
/// which content block is which tool call.
#[derive(Default)]
pub struct Decoder {
    usage: Usage,
    /// (block index, tool call index) of each `tool_use` block.
    tools: Vec<(u64, u32)>,
}

/// What one event gives, in order: up to two items (a finish reason and usage), or a failure.
pub type Items = [Option<Result<Item, Failure>>; 2];

/// Text that is there and not empty, owned.
fn some(text: Option<Cow<'_, str>>) -> Option<String> {
    text.filter(|t| !t.is_empty()).map(Cow::into_owned)
}

impl Decoder {
    /// The items of the event whose data is `data`.
    pub fn read(&mut self, data: &str) -> Items {
        let event: Event = match serde_json::from_str(data) {
            Ok(event) => event,
            Err(err) => {
                let why = format!("the upstream sent an event that could not be read: {err}");
                return [Some(Err(Failure::invalid(why))), None];
            }
        };
        let one = |item: Option<Item>| [item.map(Ok), None];
        match event.kind.as_ref() {
            "message_start" => {
                if let Some(usage) = event.message.and_then(|m| m.usage) {
                    self.usage = usage;
                }
                [None, None]
            }
            "content_block_start" => {
                let block = event.content_block.unwrap_or_default();
                match block.kind.as_deref() {
                    Some("tool_use") => {
                        let index = self.tools.len() as u32;
                        self.tools.push((event.index.unwrap_or(0), index));
                        one(Some(Item::ToolCall {
                            index,
                            id: block.id.map(Cow::into_owned).unwrap_or_default(),
                            name: block.name.map(Cow::into_owned).unwrap_or_default(),
                        }))
                    }
                    Some("text") => one(some(block.text).map(Item::Text)),
                    _ => [None, None],
                }
            }
            "content_block_delta" => {
                let delta = event.delta.unwrap_or_default();
                match delta.kind.as_deref() {
                    Some("text_delta") => one(some(delta.text).map(Item::Text)),
                    Some("thinking_delta") => one(some(delta.thinking).map(Item::Reasoning)),
                    Some("input_json_delta") => {
                        let block = event.index.unwrap_or(0);
                        let tool = self.tools.iter().find(|(b, _)| *b == block);
                        one(tool
                            .zip(some(delta.partial_json))
                            .map(|((_, index), piece)| Item::ToolArguments {
                                index: *index,
                                piece,
                            }))
                    }
                    _ => [None, None],
                }
            }
            "message_delta" => {
                let usage = self.usage.merge(event.usage.unwrap_or_default());
                self.usage = usage;
                let reason = event.delta.and_then(|delta| delta.stop_reason);
                let tokens = Item::Usage {
                    prompt: usage.prompt(),
                    completion: usage.completion().unwrap_or(0),
                    detail: usage.detail(),
                };
                [
                    Some(Ok(Item::Finish(finish(reason.as_deref())))),
                    Some(Ok(tokens)),
                ]
            }
            "error" => {
                let error = event.error.unwrap_or(ErrorBody {
                    kind: "error".into(),
                    message: String::new(),
                });
                [Some(Err(failure(&error))), None]
            }
            // `ping`, `content_block_stop`, `message_stop` and kinds added later carry nothing.
            _ => [None, None],
        }
    }
}

/// An error event as a failure: `overloaded_error` as the 529 it stands for, the rest as a
/// broken upstream.
pub fn failure(error: &ErrorBody) -> Failure {
    let message = format!(
        "the upstream failed: {}: {}",
        error.kind,
        crate::http::error::truncate(&error.message, 200)
    );
    match error.kind.as_str() {
        "overloaded_error" => Failure::status(529, None, message),
        "rate_limit_error" => Failure::status(429, None, message),
        "api_error" => Failure::status(500, None, message),
        _ => Failure::other(message),
    }
}
