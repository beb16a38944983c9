//! What the gateway writes to clients: `chat.completion`, `chat.completion.chunk` and `usage`,
//! fields in OpenAI's order, and SSE frames. They are serialised straight from borrowed parts; a message or delta
//! that came from an upstream is copied through as raw JSON text, never rebuilt as a tree.

use bytes::{BufMut, Bytes, BytesMut};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

pub mod headers;
pub mod messages;
pub mod responses;
pub mod text;

use super::Platform;
use super::answer::{Event, Item, Message, Tokens};
use super::form::Said;

/// OpenAI's `usage` object; the details only when the provider reported cached or reasoning
/// tokens.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Usage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_tokens_details: Option<CompletionDetails>,
}

/// `usage.prompt_tokens_details`: prompt tokens read from the cache, and (beyond OpenAI's
/// fields, for providers that bill them) written to it.
#[derive(Debug, Clone, Copy, serde::Serialize)]
struct PromptDetails {
    cached_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_write_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_write_1h_tokens: u64,
}

/// `usage.completion_tokens_details`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
struct CompletionDetails {
    reasoning_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// The counts of `tokens`.
    pub fn new(tokens: &Tokens) -> Self {
        let cached = tokens.cache_read + tokens.cache_write + tokens.cache_write_1h;
        Usage {
            prompt_tokens: tokens.prompt,
            completion_tokens: tokens.completion,
            total_tokens: tokens.prompt + tokens.completion,
            prompt_tokens_details: (cached > 0).then_some(PromptDetails {
                cached_tokens: tokens.cache_read,
                cache_write_tokens: tokens.cache_write,
                cache_write_1h_tokens: tokens.cache_write_1h,
            }),
            completion_tokens_details: (tokens.reasoning > 0).then_some(CompletionDetails {
                reasoning_tokens: tokens.reasoning,
            }),
        }
    }
}

/// A whole answer: `chat.completion` with one choice.
#[derive(serde::Serialize)]
pub struct Answer<'a> {
    pub id: &'a str,
    pub object: &'static str,
    pub created: i64,
    pub model: &'a str,
    pub choices: [AnswerChoice<'a>; 1],
    pub usage: Usage,
    pub platform: &'a Platform,
}

/// The one choice of a whole answer.
#[derive(serde::Serialize)]
pub struct AnswerChoice<'a> {
    pub index: u32,
    pub message: &'a Message,
    pub finish_reason: &'a str,
}

/// One `chat.completion.chunk` of a streamed answer.
#[derive(serde::Serialize)]
pub struct Chunk<'a> {
    pub id: &'a str,
    pub object: &'static str,
    pub created: i64,
    pub model: &'a str,
    pub choices: &'a [ChunkChoice<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<&'a Platform>,
}

/// The one choice of a chunk.
#[derive(serde::Serialize)]
pub struct ChunkChoice<'a> {
    pub index: u32,
    pub delta: Delta<'a>,
    pub finish_reason: Option<&'a str>,
}

/// A chunk's `delta`.
pub enum Delta<'a> {
    /// The opening delta: `{"role": "assistant", "content": ""}`.
    Opening,
    /// A delta as an OpenAI-compatible upstream gave it (text in `content`, or tool calls).
    Raw(&'a RawValue),
    /// `{"content": ...}`.
    Text(&'a str),
    /// `{"reasoning_content": ...}`.
    Reasoning(&'a str),
    /// A tool call's first delta: its index, id, `"type": "function"`, the name and empty
    /// arguments.
    ToolCall {
        index: u32,
        id: &'a str,
        name: &'a str,
    },
    /// A piece of tool call `index`'s arguments.
    ToolArguments { index: u32, piece: &'a str },
    /// `{}`, in the final chunk.
    Empty,
}

impl<'a> Delta<'a> {
    /// The delta that carries `item`, a piece of the answer; `None` for a finish reason or
    /// usage, which are not deltas.
    pub fn of(item: &'a Item) -> Option<Self> {
        Some(match item {
            Item::Delta(raw) => Delta::Raw(raw),
            Item::Text(text) => Delta::Text(text),
            Item::Reasoning(text) => Delta::Reasoning(text),
            Item::ToolCall { index, id, name } => Delta::ToolCall {
                index: *index,
                id,
                name,
            },
            Item::ToolArguments { index, piece } => Delta::ToolArguments {
                index: *index,
                piece,
            },
            Item::Finish(_) | Item::Usage { .. } | Item::Event(_) => return None,
        })
    }
}

impl Serialize for Delta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Delta::Raw(raw) => raw.serialize(serializer),
            Delta::Opening => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", "")?;
                map.end()
            }
            Delta::Text(text) => single(serializer, "content", text),
            Delta::Reasoning(text) => single(serializer, "reasoning_content", text),
            Delta::ToolCall { index, id, name } => {
                let call = CallDelta {
                    index: *index,
                    id: Some(id),
                    kind: Some("function"),
                    function: FunctionDelta {
                        name: Some(name),
                        arguments: "",
                    },
                };
                single(serializer, "tool_calls", &[call])
            }
            Delta::ToolArguments { index, piece } => {
                let call = CallDelta {
                    index: *index,
                    id: None,
                    kind: None,
                    function: FunctionDelta {
                        name: None,
                        arguments: piece,
                    },
                };
                single(serializer, "tool_calls", &[call])
            }
            Delta::Empty => serializer.serialize_map(Some(0))?.end(),
        }
    }
}

fn single<S: Serializer>(
    serializer: S,
    key: &str,
    value: &(impl Serialize + ?Sized),
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(key, value)?;
    map.end()
}

/// One entry of a delta's `tool_calls`.
#[derive(serde::Serialize)]
struct CallDelta<'a> {
    index: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    function: FunctionDelta<'a>,
}

#[derive(serde::Serialize)]
struct FunctionDelta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    arguments: &'a str,
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Raw(raw) => raw.serialize(serializer),
            Message::Said(said) => SaidMessage::new(said).serialize(serializer),
            // Only a client of the upstream's own dialect is relayed a whole answer.
            Message::Whole(raw) => raw.serialize(serializer),
        }
    }
}

/// What a provider said, as chat completions' assistant `message`: `content` is null only
/// when there are tool calls and no text.
#[derive(serde::Serialize)]
struct SaidMessage<'a> {
    role: &'static str,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ToolCallOut<'a>>,
}

impl<'a> SaidMessage<'a> {
    fn new(said: &'a Said) -> Self {
        let calls = &said.tool_calls;
        SaidMessage {
            role: "assistant",
            content: (!said.text.is_empty() || calls.is_empty()).then_some(&said.text),
            reasoning_content: said.reasoning.as_deref(),
            tool_calls: calls
                .iter()
                .map(|call| ToolCallOut {
                    id: &call.id,
                    kind: "function",
                    function: FunctionOut {
                        name: &call.name,
                        arguments: &call.arguments,
                    },
                })
                .collect(),
        }
    }
}

#[derive(serde::Serialize)]
struct ToolCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionOut<'a>,
}

#[derive(serde::Serialize)]
struct FunctionOut<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// Server-sent events as one body frame: each event's name when it has one, and its data. Data
/// with line breaks (an upstream's pretty-printed delta) spans several `data:` lines, which a
/// client joins back with `\n`.
pub fn sse_frame(events: &[Event]) -> Bytes {
    let size = events
        .iter()
        .map(|e| e.data.len() + 8 + e.name.as_ref().map_or(0, |n| n.len() + 8))
        .sum();
    let mut frame = BytesMut::with_capacity(size);
    for event in events {
        if let Some(name) = &event.name {
            frame.put_slice(b"event: ");
            frame.put_slice(name.as_bytes());
            frame.put_u8(b'\n');
        }
        if event.multiline {
            for line in event.data.lines() {
                frame.put_slice(b"data: ");
                frame.put_slice(line.as_bytes());
                frame.put_u8(b'\n');
            }
        } else {
            frame.put_slice(b"data: ");
            frame.put_slice(event.data.as_bytes());
            frame.put_u8(b'\n');
        }
        frame.put_u8(b'\n');
    }
    frame.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_payload_is_one_event_and_line_breaks_become_data_lines() {
        let frame = sse_frame(&[
            Event::data(r#"{"a":1}"#.to_string()),
            Event::relayed(None, "{\n  \"b\": 2\r\n}".to_string()),
            Event::named("ping", "{}".to_string()),
            Event::data("[DONE]".to_string()),
        ]);
        assert_eq!(
            std::str::from_utf8(&frame).unwrap(),
            "data: {\"a\":1}\n\ndata: {\ndata:   \"b\": 2\ndata: }\n\nevent: ping\ndata: {}\n\ndata: [DONE]\n\n"
        );
    }

    #[test]
    fn chunks_keep_openais_field_order_and_leave_out_what_they_lack() {
        let choice = ChunkChoice {
            index: 0,
            delta: Delta::Opening,
            finish_reason: None,
        };
        let chunk = Chunk {
            id: "c",
            object: "chat.completion.chunk",
            created: 7,
            model: "m",
            choices: &[choice],
            usage: None,
            platform: None,
        };
        assert_eq!(
            serde_json::to_string(&chunk).unwrap(),
            r#"{"id":"c","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#
        );
    }
}
