//! A whole answer in the form written as Anthropic's `message` (issue 38's `/v1/messages` for a
//! model that is not Anthropic's; not routed yet): thinking, text and `tool_use` blocks, the
//! finish reason as a `stop_reason`, usage with the cached prompt tokens apart from
//! `input_tokens`. An OpenAI-compatible upstream's message is read into the form first
//! ([`Said::from_chat_message`]).

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Finish, Said, SaidCall, Tokens};

impl Said {
    /// A chat completions assistant `message` (`content`, `reasoning_content`, `tool_calls`) in
    /// the form; what it lacks is empty.
    pub fn from_chat_message(message: &Value) -> Said {
        let text = |value: &Value| match value {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
            _ => String::new(),
        };
        let field = |call: &Value, path: &[&str]| {
            path.iter()
                .try_fold(call, |v, key| v.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Said {
            text: text(message.get("content").unwrap_or(&Value::Null)),
            reasoning: message
                .get("reasoning_content")
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
                .map(str::to_string),
            tool_calls: message
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|call| SaidCall {
                    id: field(call, &["id"]),
                    name: field(call, &["function", "name"]),
                    arguments: field(call, &["function", "arguments"]),
                })
                .collect(),
        }
    }

    /// This answer as Anthropic's `message` with `id`, from `model`, written straight from
    /// its parts.
    pub fn to_message<'a>(
        &'a self,
        id: &'a str,
        model: &'a str,
        finish: &'a Finish,
        tokens: &Tokens,
    ) -> MessageOut<'a> {
        let mut content = Vec::with_capacity(2 + self.tool_calls.len());
        if let Some(thinking) = &self.reasoning {
            content.push(Block::Thinking {
                thinking,
                signature: "",
            });
        }
        if !self.text.is_empty() {
            content.push(Block::Text { text: &self.text });
        }
        for call in &self.tool_calls {
            content.push(Block::ToolUse {
                id: &call.id,
                name: &call.name,
                input: Input(&call.arguments),
            });
        }
        MessageOut {
            id,
            kind: "message",
            role: "assistant",
            model,
            content,
            stop_reason: stop_reason(finish),
            stop_sequence: None,
            usage: usage(tokens),
        }
    }
}

/// Anthropic's `message`, borrowed from the answer it writes.
#[derive(Serialize)]
pub struct MessageOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'static str,
    model: &'a str,
    content: Vec<Block<'a>>,
    stop_reason: &'a str,
    stop_sequence: Option<&'a str>,
    usage: Usage,
}

/// A content block of a written message.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Thinking {
        thinking: &'a str,
        signature: &'static str,
    },
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Input<'a>,
    },
}

/// A tool call's arguments as its `input` object: the JSON text itself when it is an object,
/// else `{}`.
struct Input<'a>(&'a str);

impl Serialize for Input<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match serde_json::from_str::<&RawValue>(self.0) {
            Ok(raw) if raw.get().trim_start().starts_with('{') => raw.serialize(serializer),
            _ => Map::<String, Value>::new().serialize(serializer),
        }
    }
}

/// A finish reason in Anthropic's words: the provider's own when it gave one.
pub fn stop_reason(finish: &Finish) -> &str {
    if let Some(own) = &finish.provider_reason {
        return own;
    }
    match finish.reason.as_str() {
        "length" => "max_tokens",
        "tool_calls" | "function_call" => "tool_use",
        "content_filter" => "refusal",
        _ => "end_turn",
    }
}

/// Anthropic's `usage`: `input_tokens` without the cached ones, which are counted apart.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation: CacheCreation,
    pub output_tokens: u64,
}

/// The cache writes by how long they last.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CacheCreation {
    pub ephemeral_5m_input_tokens: u64,
    pub ephemeral_1h_input_tokens: u64,
}

/// The usage `tokens` make.
pub fn usage(tokens: &Tokens) -> Usage {
    let written = tokens.cache_write + tokens.cache_write_1h;
    Usage {
        input_tokens: tokens.prompt.saturating_sub(tokens.cache_read + written),
        cache_creation_input_tokens: written,
        cache_read_input_tokens: tokens.cache_read,
        cache_creation: CacheCreation {
            ephemeral_5m_input_tokens: tokens.cache_write,
            ephemeral_1h_input_tokens: tokens.cache_write_1h,
        },
        output_tokens: tokens.completion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::form::Detail;
    use serde_json::json;

    #[test]
    fn an_openai_answer_becomes_anthropics_message() {
        let message = json!({"role": "assistant", "content": "Running ls.", "reasoning_content": "list first",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}}]});
        let said = Said::from_chat_message(&message);
        let detail = Detail {
            cache_read: 30,
            cache_write: 20,
            ..Detail::default()
        };
        let tokens = Tokens::with(100, 7, detail);
        let finish = Finish::plain("tool_calls");
        let written =
            serde_json::to_value(said.to_message("msg_1", "m", &finish, &tokens)).unwrap();
        assert_eq!(
            written,
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [
                    {"type": "thinking", "thinking": "list first", "signature": ""},
                    {"type": "text", "text": "Running ls."},
                    {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls"}}
                ],
                "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 50, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30,
                          "cache_creation": {"ephemeral_5m_input_tokens": 20, "ephemeral_1h_input_tokens": 0},
                          "output_tokens": 7}
            })
        );
    }

    #[test]
    fn finish_reasons_go_back_to_anthropics_words() {
        let cases = [
            ("stop", "end_turn"),
            ("length", "max_tokens"),
            ("tool_calls", "tool_use"),
            ("content_filter", "refusal"),
        ];
        for (reason, expected) in cases {
            assert_eq!(stop_reason(&Finish::plain(reason)), expected);
        }
        let own = Finish {
            reason: "stop".into(),
            provider_reason: Some("pause_turn".into()),
        };
        assert_eq!(stop_reason(&own), "pause_turn");
    }
}
