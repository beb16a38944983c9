//! Anthropic Messages in (issue 38's `POST /v1/messages`, not routed yet): a Messages request
//! body in the internal form, for a model that is not Anthropic's. What coding agents send on
//! every request is never refused: settings with no place in the form (`thinking`,
//! `context_management`, `output_config.effort`, `cache_control`, server tools, thinking blocks
//! passed back) are dropped and named, for the `x-tokctl-dropped` header.

use serde_json::{Map, Value};

use super::{
    Conversation, Image, Part, Refusal, ResponseFormat, Role, Tool, ToolCall, ToolChoice,
    ToolResult, Turn,
};
use crate::chat::request::Effort;

/// A request read into the form: the form, the reasoning effort asked for, and the names of
/// what was dropped (each once, in the order met).
#[derive(Debug, Default, PartialEq)]
pub struct Read {
    pub form: Conversation,
    pub effort: Option<Effort>,
    pub dropped: Vec<String>,
}

impl Read {
    /// Names `what` as dropped (once).
    pub(super) fn drop(&mut self, what: &str) {
        if !self.dropped.iter().any(|d| d == what) {
            self.dropped.push(what.to_string());
        }
    }
}

/// The top-level fields the form is read from.
const TOP: [&str; 11] = [
    "system",
    "messages",
    "tools",
    "tool_choice",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "metadata",
    "output_config",
    "thinking",
];

/// A field, its value, the kind of value it takes, and the test of that kind.
type Shape<'a> = (
    &'static str,
    Option<&'a Value>,
    &'static str,
    fn(&Value) -> bool,
);

impl Conversation {
    /// A Messages request `body` in the internal form; refused only when it is not one (no
    /// `messages` array, a turn that is not an object with a role, a block without its fields).
    pub fn from_messages(body: &Map<String, Value>) -> Result<Read, Refusal> {
        let (found, unknown) = super::fields(body, TOP, &["model", "max_tokens", "stream"]);
        let [
            system,
            messages,
            tools,
            tool_choice,
            stop_sequences,
            temperature,
            top_p,
            top_k,
            metadata,
            output_config,
            thinking,
        ] = found;
        let mut read = Read::default();
        match system {
            None | Some(Value::Null) => {}
            Some(system) => system_texts(system, &mut read)?,
        }
        let messages = messages
            .and_then(Value::as_array)
            .filter(|turns| !turns.is_empty())
            .ok_or_else(|| {
                Refusal::new("messages", "messages must be a non-empty array of turns")
            })?;
        // Fields whose kind of value is refused when it is another (null is always taken).
        let shapes: [Shape; 4] = [
            ("temperature", temperature, "a number", Value::is_number),
            ("top_p", top_p, "a number", Value::is_number),
            ("tools", tools, "an array of tools", Value::is_array),
            ("tool_choice", tool_choice, "an object", Value::is_object),
        ];
        for (name, value, shape, fits) in shapes {
            if value.is_some_and(|value| !value.is_null() && !fits(value)) {
                return Err(Refusal::new(name, format!("{name} must be {shape}")));
            }
        }
        for (index, message) in messages.iter().enumerate() {
            let at = |what: &str| Refusal::new("messages", format!("messages.{index}: {what}"));
            let role = message.get("role").and_then(Value::as_str);
            let role = match role {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                // Claude Code puts system turns among the messages too.
                Some("system") => {
                    system_texts(message.get("content").unwrap_or(&Value::Null), &mut read)?;
                    continue;
                }
                _ => return Err(at("role must be user, assistant or system")),
            };
            let content = message.get("content").unwrap_or(&Value::Null);
            let parts = blocks(content, &mut read).map_err(|why| at(&why))?;
            read.form.turns.push(Turn { role, parts });
        }
        read_tools(tools, tool_choice, &mut read)?;
        let form = &mut read.form;
        form.stop = match stop_sequences {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        form.temperature = temperature.and_then(Value::as_f64);
        form.top_p = top_p.and_then(Value::as_f64);
        if let Some(top_k) = top_k.filter(|v| !v.is_null()) {
            form.other.insert("top_k".into(), top_k.clone());
        }
        form.user = metadata
            .and_then(|m| m.get("user_id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut effort = None;
        if let Some(config) = output_config.and_then(Value::as_object) {
            for (key, value) in config {
                match (key.as_str(), value.get("type").and_then(Value::as_str)) {
                    ("effort", _) if value.is_string() => effort = value.as_str(),
                    ("format", Some("json_schema")) => {
                        read.form.response_format = Some(ResponseFormat::JsonSchema {
                            name: "response".into(),
                            schema: value.get("schema").cloned().unwrap_or_default(),
                        });
                    }
                    (key, _) => read.drop(&format!("output_config.{key}")),
                }
            }
        }
        read_effort(thinking, effort, &mut read);
        for key in unknown {
            read.drop(key);
        }
        Ok(read)
    }
}

/// `output_config.effort` and `thinking` as a reasoning effort: the effort as said (`max` as
/// `high`), else an enabled thinking budget's size (under 8,000 tokens `low`, under 24,000
/// `medium`, else `high`: Claude Code's "think", "think hard" and "ultrathink"). Thinking with
/// neither (adaptive, disabled) has no equivalent and is dropped.
fn read_effort(thinking: Option<&Value>, said: Option<&str>, read: &mut Read) {
    let thinking = thinking.filter(|value| !value.is_null());
    let budget = thinking
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("enabled"))
        .and_then(|t| t.get("budget_tokens"))
        .and_then(Value::as_u64);
    let level = match (said, budget) {
        (Some("max"), _) => "high",
        (Some(level), _) => level,
        (None, Some(budget)) if budget < 8_000 => "low",
        (None, Some(budget)) if budget < 24_000 => "medium",
        (None, Some(_)) => "high",
        (None, None) => {
            if thinking.is_some() {
                read.drop("thinking");
            }
            return;
        }
    };
    let mut from = Vec::new();
    if said.is_some() {
        from.push("output_config.effort");
    }
    if thinking.is_some() {
        from.push("thinking");
    }
    read.effort = Some(Effort {
        level: level.to_string(),
        from,
    });
}

/// `system`: a string, or text blocks (their `cache_control` dropped).
fn system_texts(system: &Value, read: &mut Read) -> Result<(), Refusal> {
    let parts = blocks(system, read).map_err(|why| Refusal::new("system", why))?;
    for part in parts {
        match part {
            Part::Text(text) => read.form.system.push(text),
            _ => return Err(Refusal::new("system", "system holds text blocks only")),
        }
    }
    Ok(())
}

/// A turn's content: a string, or blocks. Empty text is left out; blocks the form has no place
/// for are dropped and named.
fn blocks(content: &Value, read: &mut Read) -> Result<Vec<Part>, String> {
    let list = match content {
        Value::Null => return Ok(Vec::new()),
        Value::String(text) if text.is_empty() => return Ok(Vec::new()),
        Value::String(text) => return Ok(vec![Part::Text(text.clone())]),
        Value::Array(list) => list,
        _ => return Err("content must be a string or an array of blocks".into()),
    };
    let mut parts = Vec::with_capacity(list.len());
    for (i, block) in list.iter().enumerate() {
        if block.get("cache_control").is_some() {
            read.drop("cache_control");
        }
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |name: &str| block.get(name).and_then(Value::as_str);
        match kind {
            "text" => match field("text") {
                Some("") => {}
                Some(text) => parts.push(Part::Text(text.to_string())),
                None => return Err(format!("content.{i}: a text block needs its text")),
            },
            "image" => parts.push(Part::Image(
                image(block).map_err(|why| format!("content.{i}: {why}"))?,
            )),
            "tool_use" => {
                let input = match block.get("input") {
                    Some(Value::Object(input)) => input.clone(),
                    None | Some(Value::Null) => Map::new(),
                    Some(_) => {
                        return Err(format!("content.{i}: tool_use input must be an object"));
                    }
                };
                let (Some(id), Some(name)) = (field("id"), field("name")) else {
                    return Err(format!("content.{i}: tool_use needs its id and name"));
                };
                parts.push(Part::ToolCall(ToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    input,
                }));
            }
            "tool_result" => {
                let call_id = field("tool_use_id")
                    .ok_or_else(|| format!("content.{i}: tool_result needs its tool_use_id"))?;
                if block.get("is_error").and_then(Value::as_bool) == Some(true) {
                    read.drop("tool_result.is_error");
                }
                let content = blocks(block.get("content").unwrap_or(&Value::Null), read)?;
                parts.push(Part::ToolResult(ToolResult {
                    call_id: call_id.to_string(),
                    content,
                }));
            }
            other => read.drop(other),
        }
    }
    Ok(parts)
}

fn image(block: &Value) -> Result<Image, String> {
    let source = block
        .get("source")
        .ok_or("an image block needs its source")?;
    let field = |name: &str| source.get(name).and_then(Value::as_str).map(str::to_string);
    match field("type").as_deref() {
        Some("base64") => Ok(Image::Base64 {
            media_type: field("media_type").ok_or("a base64 image needs its media_type")?,
            data: field("data").ok_or("a base64 image needs its data")?,
        }),
        Some("url") => Ok(Image::Url(field("url").ok_or("a url image needs its url")?)),
        _ => Err("an image source must be base64 or url".into()),
    }
}

/// `tools` (custom tools into the form, server tools dropped and named) and `tool_choice`.
fn read_tools(
    tools: Option<&Value>,
    choice: Option<&Value>,
    read: &mut Read,
) -> Result<(), Refusal> {
    for tool in tools.and_then(Value::as_array).into_iter().flatten() {
        let kind = tool.get("type").and_then(Value::as_str).unwrap_or("custom");
        if kind != "custom" {
            read.drop(&format!("tools.{kind}"));
            continue;
        }
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Refusal::new("tools", "a tool needs its name"))?;
        if tool.get("cache_control").is_some() {
            read.drop("cache_control");
        }
        read.form.tools.push(Tool {
            name: name.to_string(),
            description: tool
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            parameters: tool.get("input_schema").cloned().unwrap_or_default(),
        });
    }
    let Some(choice) = choice.and_then(Value::as_object) else {
        return Ok(());
    };
    let form = &mut read.form;
    form.tool_choice = match choice.get("type").and_then(Value::as_str) {
        Some("auto") => Some(ToolChoice::Auto),
        Some("any") => Some(ToolChoice::Required),
        Some("none") => Some(ToolChoice::None),
        Some("tool") => choice
            .get("name")
            .and_then(Value::as_str)
            .map(|name| ToolChoice::Named(name.to_string())),
        _ => {
            return Err(Refusal::new(
                "tool_choice",
                "tool_choice.type must be auto, any, tool or none",
            ));
        }
    };
    if choice
        .get("disable_parallel_tool_use")
        .and_then(Value::as_bool)
        == Some(true)
    {
        form.parallel_tool_calls = Some(false);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: Value) -> Result<Read, Refusal> {
        Conversation::from_messages(body.as_object().unwrap())
    }

    #[test]
    fn what_a_coding_agent_sends_is_read_and_what_has_no_place_is_named() {
        let read = read(json!({
            "model": "claude-sonnet-4-6",
            "max_tokens": 32000,
            "stream": true,
            "system": [{"type": "text", "text": "You are an agent.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "system", "content": "Stay in the repo."},
                {"role": "user", "content": [{"type": "text", "text": "list files"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "ls", "signature": "x"},
                    {"type": "text", "text": "Running ls."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs\nb.rs"}]}
            ],
            "tools": [
                {"name": "Bash", "description": "Runs a command", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search"}
            ],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
            "metadata": {"user_id": "user_abc"},
            "thinking": {"type": "adaptive"},
            "context_management": {"edits": []},
            "output_config": {"effort": "high"},
            "temperature": 1
        }))
        .unwrap();
        let form = &read.form;
        assert_eq!(form.system, ["You are an agent.", "Stay in the repo."]);
        assert_eq!(form.turns.len(), 3);
        assert_eq!(
            form.turns[1].parts.len(),
            2,
            "the thinking block is dropped"
        );
        assert_eq!(
            form.turns[2].parts[0],
            Part::ToolResult(ToolResult {
                call_id: "toolu_1".into(),
                content: vec![Part::Text("a.rs\nb.rs".into())]
            })
        );
        assert_eq!(form.tools.len(), 1);
        assert_eq!(form.tool_choice, Some(ToolChoice::Required));
        assert_eq!(form.parallel_tool_calls, Some(false));
        assert_eq!(
            (form.user.as_deref(), form.temperature),
            (Some("user_abc"), Some(1.0))
        );
        assert_eq!(
            read.dropped,
            [
                "cache_control",
                "thinking",
                "tools.web_search_20250305",
                "context_management"
            ],
            "the thinking block passed back is dropped"
        );
        let effort = read.effort.unwrap();
        assert_eq!(effort.level, "high");
        assert_eq!(effort.from, ["output_config.effort", "thinking"]);
    }

    #[test]
    fn a_thinking_budget_is_an_effort_and_adaptive_thinking_alone_is_dropped() {
        let turn = json!([{"role": "user", "content": "hi"}]);
        for (budget, level) in [(1024, "low"), (10_000, "medium"), (31_999, "high")] {
            let thinking = json!({"type": "enabled", "budget_tokens": budget});
            let read = read(json!({"messages": turn, "thinking": thinking})).unwrap();
            let effort = read.effort.unwrap();
            assert_eq!(
                (effort.level.as_str(), effort.from),
                (level, vec!["thinking"])
            );
        }
        let max = json!({"messages": turn, "output_config": {"effort": "max"}});
        assert_eq!(read(max).unwrap().effort.unwrap().level, "high");
        let adaptive = read(json!({"messages": turn, "thinking": {"type": "adaptive"}})).unwrap();
        assert_eq!(
            (adaptive.effort, adaptive.dropped),
            (None, vec!["thinking".to_string()])
        );
    }

    #[test]
    fn only_what_is_not_a_messages_request_is_refused() {
        assert_eq!(read(json!({"model": "m"})).unwrap_err().param, "messages");
        let bad_role = read(json!({"messages": [{"role": "tool", "content": "x"}]})).unwrap_err();
        assert!(bad_role.message.contains("messages.0"), "{bad_role:?}");
        let bad_input = json!({"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}]}]});
        assert!(
            read(bad_input)
                .unwrap_err()
                .message
                .contains("input must be an object")
        );
    }
}
