//! The gateway's one form of a conversation, between the wire dialects: a request (system
//! instructions, turns of text, image, tool-call and tool-result parts, tools, sampling, stop
//! sequences, the completion cap, the response format) and an answer (text, reasoning, tool
//! calls, a finish reason). The stream events between them are `answer::Item`'s typed
//! variants; the token counts `answer::Tokens`.
//!
//! Each dialect is an adapter to or from this form: chat completions in (`form/chat.rs`) and
//! out as a request (`form/to_chat.rs`, for an OpenAI-compatible upstream when the client spoke
//! another dialect), Anthropic Messages in (`form/messages.rs`) and out (`chat/anthropic/`). An upstream that speaks
//! the client's own dialect takes the client's request as it came instead (`chat/openai.rs`),
//! so fields the form has no place for still reach it unchanged and nothing is rebuilt on the
//! common path.

pub mod chat;
pub mod messages;
pub mod responses;
mod to_chat;
pub mod to_message;

use serde_json::{Map, Value};

/// `body`'s fields named in `names`, in that order, found in one pass over the body (a lookup
/// each would compare keys anew); and the names of the others, in the body's order, leaving out
/// those read `elsewhere` (the model, the cap, the stream flag).
pub(super) fn fields<'a, const N: usize>(
    body: &'a Map<String, Value>,
    names: [&str; N],
    elsewhere: &[&str],
) -> ([Option<&'a Value>; N], Vec<&'a str>) {
    let mut found = [None; N];
    let mut others = Vec::new();
    for (key, value) in body {
        match names.iter().position(|name| name == key) {
            Some(i) => found[i] = Some(value),
            None if elsewhere.contains(&key.as_str()) => {}
            None => others.push(key.as_str()),
        }
    }
    (found, others)
}

/// A request in the internal form.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// System (and developer) instructions, in order, empty ones left out.
    pub system: Vec<String>,
    /// The turns, alternating or not, in order.
    pub turns: Vec<Turn>,
    pub tools: Vec<Tool>,
    pub tool_choice: Option<ToolChoice>,
    /// `Some(false)`: at most one tool call per answer.
    pub parallel_tool_calls: Option<bool>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub stop: Vec<String>,
    pub response_format: Option<ResponseFormat>,
    /// Who the end user is, for the provider's abuse monitoring.
    pub user: Option<String>,
    /// Settings the form has no place for, by their name in the client's dialect: each upstream
    /// adapter refuses or drops them, and says which.
    pub other: Map<String, Value>,
}

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// One turn: a role and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// A part of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Image(Image),
    /// The assistant asks for a tool to be called.
    ToolCall(ToolCall),
    /// What a tool call gave (in a user turn).
    ToolResult(ToolResult),
}

/// An image, inline or by address.
#[derive(Debug, Clone, PartialEq)]
pub enum Image {
    Base64 { media_type: String, data: String },
    Url(String),
}

/// A tool call: its id, the tool's name and its input (a JSON object).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Map<String, Value>,
}

/// A tool's result for the call `call_id`: text and images.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub content: Vec<Part>,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    /// The JSON Schema of its input.
    pub parameters: Value,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolChoice {
    Auto,
    /// Some tool.
    Required,
    None,
    Named(String),
}

/// The shape the answer's text must have.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching `schema`.
    JsonSchema {
        name: String,
        schema: Value,
    },
}

/// A request the form cannot hold, or an upstream adapter cannot send: the parameter (by its
/// name in the client's dialect) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub param: &'static str,
    pub message: String,
}

impl Refusal {
    /// `param` refused because `message`.
    pub fn new(param: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            param,
            message: message.into(),
        }
    }
}

/// An answer in the internal form: what a provider said, for the client's dialect to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Said {
    pub text: String,
    /// Thinking, kept apart from the text.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<SaidCall>,
}

/// A tool call in an answer: its arguments as the JSON text the model wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct SaidCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// Why an answer ended, in chat completions' words, and the provider's own word when it had
/// one of its own that maps to none of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    pub reason: String,
    pub provider_reason: Option<String>,
}

impl Finish {
    /// A finish reason with no word of the provider's beside it.
    pub fn plain(reason: impl Into<String>) -> Self {
        Finish {
            reason: reason.into(),
            provider_reason: None,
        }
    }
}

/// What a provider reported of its prompt cache and of reasoning: counts within the prompt's
/// and the completion's tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Detail {
    /// Prompt tokens read from the cache.
    pub cache_read: u64,
    /// Prompt tokens written to the cache (Anthropic's 5-minute cache).
    pub cache_write: u64,
    /// Prompt tokens written to a 1-hour cache.
    pub cache_write_1h: u64,
    /// Completion tokens spent reasoning.
    pub reasoning: u64,
}

/// An answer's token counts, as billed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Every prompt token, cached ones included.
    pub prompt: u64,
    pub completion: u64,
    /// Of `prompt`: read from the cache.
    pub cache_read: u64,
    /// Of `prompt`: written to the cache (5-minute, 1-hour).
    pub cache_write: u64,
    pub cache_write_1h: u64,
    /// Of `completion`: reasoning.
    pub reasoning: u64,
}

impl Tokens {
    /// `prompt` and `completion` tokens, no cache touched.
    pub fn new(prompt: u64, completion: u64) -> Self {
        Tokens {
            prompt,
            completion,
            ..Tokens::default()
        }
    }

    /// `prompt` and `completion` tokens with what the provider said of them.
    pub fn with(prompt: u64, completion: u64, detail: Detail) -> Self {
        Tokens {
            prompt,
            completion,
            cache_read: detail.cache_read,
            cache_write: detail.cache_write,
            cache_write_1h: detail.cache_write_1h,
            reasoning: detail.reasoning,
        }
    }
}
