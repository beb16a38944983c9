//! The internal form out as a chat completions request: what an OpenAI-compatible upstream is
//! sent when the client spoke another dialect. A chat completions client's own request goes to
//! such an upstream as it came (`chat/openai.rs`), so this is never on that path; reading a
//! chat request into the form and writing it back here gives the same request for everything
//! the form holds, and the settings it has no place for (`other`) unchanged.

use serde_json::{Map, Value, json};

use super::{Conversation, Image, Part, ResponseFormat, Role, ToolChoice, ToolResult};
use crate::chat::request::{ChatRequest, Message, StreamOptions};

impl Conversation {
    /// The chat request for `model`, asking for at most `cap` tokens (else the model's own
    /// maximum): what a chat completions client would have sent. Turns with nothing the form
    /// keeps (empty text, dropped blocks) leave one empty user turn.
    pub fn to_request(&self, model: &str, cap: Option<u32>, stream: bool) -> ChatRequest {
        let mut messages: Vec<Message> = self
            .system
            .iter()
            .map(|text| said("system", json!(text)))
            .collect();
        for turn in &self.turns {
            turn_messages(turn.role, &turn.parts, &mut messages);
        }
        if messages.is_empty() {
            messages.push(said("user", json!("")));
        }
        let mut extra = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                extra.insert(key.into(), value);
            }
        };
        put("top_p", self.top_p.map(Value::from));
        put("stop", (!self.stop.is_empty()).then(|| json!(self.stop)));
        put("user", self.user.as_ref().map(|user| json!(user)));
        put(
            "parallel_tool_calls",
            self.parallel_tool_calls.map(Value::Bool),
        );
        put("response_format", self.response_format.as_ref().map(format));
        for (key, value) in &self.other {
            extra.entry(key.clone()).or_insert_with(|| value.clone());
        }
        ChatRequest {
            model: model.to_string(),
            messages,
            stream: stream.then_some(true),
            stream_options: stream.then_some(StreamOptions {
                include_usage: true,
            }),
            max_tokens: cap.map(i64::from),
            temperature: self.temperature,
            tools: (!self.tools.is_empty()).then(|| tools(self)),
            tool_choice: self.tool_choice.as_ref().map(choice),
            extra,
            ..ChatRequest::default()
        }
    }
}

/// A message of `role` saying `content`.
fn said(role: &str, content: Value) -> Message {
    Message {
        role: role.to_string(),
        content,
        extra: Map::new(),
    }
}

/// One turn as chat messages, onto `messages`: a user turn's tool results become `tool`
/// messages (before its other parts), an assistant turn's tool calls its `tool_calls`.
fn turn_messages(role: Role, parts: &[Part], messages: &mut Vec<Message>) {
    let mut content = Vec::new();
    let mut calls = Vec::new();
    for part in parts {
        match part {
            // A result with nothing in it is an empty string: only an assistant's content
            // may be null.
            Part::ToolResult(ToolResult { call_id, content }) => {
                let mut extra = Map::new();
                extra.insert("tool_call_id".into(), json!(call_id));
                messages.push(Message {
                    role: "tool".into(),
                    content: match content_of(content) {
                        Value::Null => json!(""),
                        content => content,
                    },
                    extra,
                });
            }
            Part::ToolCall(call) => calls.push(json!({
                "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": Value::Object(call.input.clone()).to_string()},
            })),
            part => content.push(part),
        }
    }
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    if !content.is_empty() || !calls.is_empty() {
        // Only an assistant's content may be null (a user turn holding nothing but tool calls
        // is not one a client should send, but it is not refused here).
        let content = match (content_of_parts(&content), role) {
            (Value::Null, "user") => json!(""),
            (content, _) => content,
        };
        let mut message = said(role, content);
        if !calls.is_empty() {
            message
                .extra
                .insert("tool_calls".into(), Value::Array(calls));
        }
        messages.push(message);
    }
}

fn content_of(parts: &[Part]) -> Value {
    content_of_parts(&parts.iter().collect::<Vec<_>>())
}

/// Text alone as a string, anything else as a list of parts; nothing as null.
fn content_of_parts(parts: &[&Part]) -> Value {
    match parts {
        [] => Value::Null,
        [Part::Text(text)] => json!(text),
        parts => Value::Array(parts.iter().filter_map(|part| part_of(part)).collect()),
    }
}

fn part_of(part: &Part) -> Option<Value> {
    match part {
        Part::Text(text) => Some(json!({"type": "text", "text": text})),
        Part::Image(Image::Url(url)) => {
            Some(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        Part::Image(Image::Base64 { media_type, data }) => Some(json!({
            "type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")},
        })),
        Part::ToolCall(_) | Part::ToolResult(_) => None,
    }
}

fn tools(form: &Conversation) -> Value {
    let tools: Vec<Value> = form
        .tools
        .iter()
        .map(|tool| {
            let mut function = json!({"name": tool.name, "parameters": tool.parameters});
            if let Some(description) = &tool.description {
                function["description"] = json!(description);
            }
            json!({"type": "function", "function": function})
        })
        .collect();
    Value::Array(tools)
}

fn choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Required => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Named(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

fn format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::Text => json!({"type": "text"}),
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema } => {
            json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request `form` makes, as the JSON a client would have sent.
    fn to_chat(form: &Conversation, model: &str, cap: u32, stream: bool) -> Value {
        let request = form.to_request(model, Some(cap), stream);
        let mut body = request.extra.clone();
        body.insert("model".into(), json!(request.model));
        body.insert("messages".into(), json!(request.messages));
        body.insert("max_tokens".into(), json!(request.max_tokens));
        let typed = [
            ("temperature", request.temperature.map(Value::from)),
            ("tools", request.tools),
            ("tool_choice", request.tool_choice),
            ("stream", request.stream.map(Value::Bool)),
            (
                "stream_options",
                request
                    .stream_options
                    .map(|o| json!({"include_usage": o.include_usage})),
            ),
        ];
        for (key, value) in typed {
            if let Some(value) = value {
                body.insert(key.into(), value);
            }
        }
        Value::Object(body)
    }

    #[test]
    fn a_chat_request_read_into_the_form_and_written_back_is_the_same_request() {
        let request = json!({
            "model": "m",
            "max_tokens": 300,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What are these?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
                ]},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{\"q\":1}"}}
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "a cat"},
                {"role": "user", "content": "and now?"}
            ],
            "tools": [{"type": "function", "function": {"name": "look", "description": "Looks", "parameters": {"type": "object"}}}],
            "tool_choice": {"type": "function", "function": {"name": "look"}},
            "parallel_tool_calls": false,
            "temperature": 0.5, "top_p": 0.9, "stop": ["END"], "user": "u-1",
            "response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}}},
            "seed": 7, "logit_bias": {"1": 2}
        });
        let read: ChatRequest = serde_json::from_value(request.clone()).unwrap();
        let form = Conversation::from_chat(&read).unwrap();
        assert_eq!(to_chat(&form, "m", 300, false), request);
        let streamed = to_chat(&form, "m", 300, true);
        assert_eq!(
            (
                streamed["stream"].clone(),
                streamed["stream_options"].clone()
            ),
            (json!(true), json!({"include_usage": true}))
        );
        // And the form read back from what it wrote is the form.
        let again: ChatRequest = serde_json::from_value(to_chat(&form, "m", 300, false)).unwrap();
        assert_eq!(Conversation::from_chat(&again).unwrap(), form);
    }
}
