//! A whole answer in the form written as Anthropic's `message` (issue 38's `/v1/messages` for a
//! model that is not Anthropic's; not routed yet): thinking, text and `tool_use` blocks, the
//! finish reason as a `stop_reason`, usage with the cached prompt tokens apart from
//! `input_tokens`. An OpenAI-compatible upstream's message is read into the form first
//! ([`Said::from_chat_message`]).

use serde_json::{Map, Value, json};

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

    /// This answer as Anthropic's `message` with `id`, from `model`.
    pub fn to_message(&self, id: &str, model: &str, finish: &Finish, tokens: &Tokens) -> Value {
        let mut content = Vec::new();
        if let Some(thinking) = &self.reasoning {
            content.push(json!({"type": "thinking", "thinking": thinking, "signature": ""}));
        }
        if !self.text.is_empty() {
            content.push(json!({"type": "text", "text": self.text}));
        }
        for call in &self.tool_calls {
            let input = match serde_json::from_str(&call.arguments) {
                Ok(Value::Object(input)) => input,
                _ => Map::new(),
            };
            content.push(
                json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
            );
        }
        json!({
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason(finish),
            "stop_sequence": null,
            "usage": usage(tokens),
        })
    }
}

/// A finish reason in Anthropic's words: the provider's own when it gave one.
pub fn stop_reason(finish: &Finish) -> String {
    if let Some(own) = &finish.provider_reason {
        return own.clone();
    }
    match finish.reason.as_str() {
        "length" => "max_tokens",
        "tool_calls" | "function_call" => "tool_use",
        "content_filter" => "refusal",
        _ => "end_turn",
    }
    .to_string()
}

/// Anthropic's `usage`: `input_tokens` without the cached ones, which are counted apart.
pub fn usage(tokens: &Tokens) -> Value {
    let written = tokens.cache_write + tokens.cache_write_1h;
    json!({
        "input_tokens": tokens.prompt.saturating_sub(tokens.cache_read + written),
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": tokens.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": tokens.cache_write,
            "ephemeral_1h_input_tokens": tokens.cache_write_1h,
        },
        "output_tokens": tokens.completion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::form::Detail;

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
        let written = said.to_message("msg_1", "m", &Finish::plain("tool_calls"), &tokens);
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
