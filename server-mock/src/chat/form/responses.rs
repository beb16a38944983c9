//! OpenAI Responses in (issue 38's `POST /v1/responses`, stateless): a Responses request body in
//! the internal form, for a model that does not serve Responses itself. `input` as a string or
//! items (`message`, `function_call`, `function_call_output`; `reasoning` items passed back are
//! dropped), `instructions`, function tools, `namespace` tools flattened into functions whose
//! names join the namespace's and the function's with [`JOIN`] (and are split back on the way
//! out), `tool_choice`, `parallel_tool_calls`, sampling and `text.format`. What Codex sends on
//! every request that has no place (hosted tools, `reasoning`, `include`, `prompt_cache_key`,
//! ...) is dropped and named, never refused; what only a stateful API could honour is for the
//! handler to refuse.

use serde_json::{Map, Value};

use super::messages::Read;
use super::{
    Conversation, Image, Part, Refusal, ResponseFormat, Role, Tool, ToolCall, ToolChoice,
    ToolResult, Turn,
};
use crate::chat::request::Effort;

/// Between a namespace's name and its function's in a flattened tool's name.
pub const JOIN: &str = "__";

/// The top-level fields the form is read from.
const TOP: [&str; 11] = [
    "instructions",
    "input",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "text",
    "reasoning",
    "safety_identifier",
    "user",
];

/// Top-level fields read elsewhere (the model, the cap, the stream flag, statefulness).
const ELSEWHERE: [&str; 5] = [
    "model",
    "max_output_tokens",
    "stream",
    "store",
    "previous_response_id",
];

impl Conversation {
    /// A Responses request `body` in the internal form; refused only when it is not one.
    pub fn from_responses(body: &Map<String, Value>) -> Result<Read, Refusal> {
        let (found, unknown) = super::fields(body, TOP, &ELSEWHERE);
        let [
            instructions,
            input,
            tools,
            tool_choice,
            parallel_tool_calls,
            temperature,
            top_p,
            text,
            reasoning,
            safety_identifier,
            user,
        ] = found;
        let mut read = Read::default();
        match instructions {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.is_empty() => {}
            Some(Value::String(text)) => read.form.system.push(text.clone()),
            Some(_) => {
                return Err(Refusal::new(
                    "instructions",
                    "instructions must be a string",
                ));
            }
        }
        match input {
            Some(Value::String(text)) => read.form.turns.push(Turn {
                role: Role::User,
                parts: vec![Part::Text(text.clone())],
            }),
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    read_item(item, &mut read)
                        .map_err(|why| Refusal::new("input", format!("input.{index}: {why}")))?;
                }
            }
            _ => {
                return Err(Refusal::new(
                    "input",
                    "input must be a string or an array of items",
                ));
            }
        }
        read_tools(tools, tool_choice, &mut read)?;
        let form = &mut read.form;
        for (name, value, slot) in [
            ("temperature", temperature, &mut form.temperature),
            ("top_p", top_p, &mut form.top_p),
        ] {
            match value {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => *slot = n.as_f64(),
                Some(_) => return Err(Refusal::new(name, format!("{name} must be a number"))),
            }
        }
        match parallel_tool_calls {
            None | Some(Value::Null) => {}
            Some(Value::Bool(parallel)) => form.parallel_tool_calls = Some(*parallel),
            Some(_) => {
                return Err(Refusal::new(
                    "parallel_tool_calls",
                    "parallel_tool_calls must be a boolean",
                ));
            }
        }
        form.user = [safety_identifier, user]
            .into_iter()
            .find_map(|value| value.and_then(Value::as_str))
            .map(str::to_string);
        read_text(text, &mut read)?;
        let reasoning = reasoning.filter(|value| !value.is_null());
        match reasoning
            .and_then(|r| r.get("effort"))
            .and_then(Value::as_str)
        {
            Some(level) => {
                read.effort = Some(Effort {
                    level: level.to_string(),
                    from: vec!["reasoning"],
                });
            }
            None if reasoning.is_some() => read.drop("reasoning"),
            None => {}
        }
        for key in unknown {
            read.drop(key);
        }
        Ok(read)
    }
}

/// The turn a part of `role` goes in: the last one when it is that role's, else a new one.
fn turn(read: &mut Read, role: Role) -> &mut Vec<Part> {
    let turns = &mut read.form.turns;
    if turns.last().is_none_or(|last| last.role != role) {
        turns.push(Turn {
            role,
            parts: Vec::new(),
        });
    }
    // Just made sure there is one.
    &mut turns.last_mut().expect("a turn").parts
}

fn read_item(item: &Value, read: &mut Read) -> Result<(), String> {
    let Some(fields) = item.as_object() else {
        return Err("an item must be an object".into());
    };
    let text = |name: &str| fields.get(name).and_then(Value::as_str);
    let kind = match fields.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("an item's type must be a string".into()),
        None if fields.contains_key("role") => "message",
        None => "",
    };
    match kind {
        "message" => {
            let role = match text("role") {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                Some("system" | "developer") => {
                    let parts = content(fields.get("content").unwrap_or(&Value::Null), read)?;
                    for part in parts {
                        match part {
                            Part::Text(text) => read.form.system.push(text),
                            _ => return Err("system and developer messages hold text only".into()),
                        }
                    }
                    return Ok(());
                }
                _ => return Err("role must be user, assistant, system or developer".into()),
            };
            let parts = content(fields.get("content").unwrap_or(&Value::Null), read)?;
            turn(read, role).extend(parts);
        }
        "function_call" => {
            let (Some(call_id), Some(name)) = (text("call_id"), text("name")) else {
                return Err("a function_call needs its call_id and name".into());
            };
            let name = match text("namespace") {
                Some(namespace) => format!("{namespace}{JOIN}{name}"),
                None => name.to_string(),
            };
            // Arguments that are not the JSON text of an object (a model's slip, passed back)
            // cannot be sent on as one: empty, and named.
            let input = match fields.get("arguments") {
                Some(Value::String(arguments)) => match serde_json::from_str(arguments) {
                    Ok(Value::Object(input)) => input,
                    _ => {
                        read.drop("function_call.arguments");
                        Map::new()
                    }
                },
                None | Some(Value::Null) => Map::new(),
                Some(_) => return Err("function_call arguments must be a string".into()),
            };
            let call = ToolCall {
                id: call_id.to_string(),
                name,
                input,
            };
            turn(read, Role::Assistant).push(Part::ToolCall(call));
        }
        "function_call_output" => {
            let call_id = text("call_id").ok_or("a function_call_output needs its call_id")?;
            let output = content(fields.get("output").unwrap_or(&Value::Null), read)?;
            let result = ToolResult {
                call_id: call_id.to_string(),
                content: output,
            };
            turn(read, Role::User).push(Part::ToolResult(result));
        }
        // Reasoning passed back (encrypted or summarised), hosted tools' calls: no place.
        "" => read.drop("input.item"),
        other => read.drop(&format!("input.{other}")),
    }
    Ok(())
}

/// A message's content or a call's output: a string, or parts.
fn content(value: &Value, read: &mut Read) -> Result<Vec<Part>, String> {
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::String(text) if text.is_empty() => return Ok(Vec::new()),
        Value::String(text) => return Ok(vec![Part::Text(text.clone())]),
        Value::Array(list) => list,
        _ => return Err("content must be a string or an array of parts".into()),
    };
    let mut parts = Vec::with_capacity(list.len());
    for (i, part) in list.iter().enumerate() {
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |name: &str| part.get(name).and_then(Value::as_str);
        match kind {
            "input_text" | "output_text" => match field("text") {
                Some("") => {}
                Some(text) => parts.push(Part::Text(text.to_string())),
                None => return Err(format!("content.{i}: a {kind} part needs its text")),
            },
            "input_image" => match field("image_url") {
                Some(url) => parts.push(Part::Image(image(url))),
                None => read.drop("input_image.file_id"),
            },
            "" => read.drop("content.part"),
            other => read.drop(&format!("content.{other}")),
        }
    }
    Ok(parts)
}

/// An image by its URL: a `data:` URI inline, anything else by address.
fn image(url: &str) -> Image {
    let inline = url
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"));
    match inline {
        Some((media_type, data)) => Image::Base64 {
            media_type: media_type.to_string(),
            data: data.to_string(),
        },
        None => Image::Url(url.to_string()),
    }
}

/// `tools` (functions, and namespaces' functions flattened; hosted tools dropped and named)
/// and `tool_choice`.
fn read_tools(
    tools: Option<&Value>,
    choice: Option<&Value>,
    read: &mut Read,
) -> Result<(), Refusal> {
    let tools = match tools {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(Refusal::new("tools", "tools must be an array of tools")),
    };
    for tool in tools {
        match tool.get("type").and_then(Value::as_str) {
            Some("function") => read.form.tools.push(function(tool, None)?),
            Some("namespace") => {
                let namespace = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Refusal::new("tools", "a namespace needs its name"))?;
                let inner = tool.get("tools").and_then(Value::as_array);
                for inner in inner.into_iter().flatten() {
                    match inner.get("type").and_then(Value::as_str) {
                        Some("function") => read.form.tools.push(function(inner, Some(namespace))?),
                        other => read.drop(&format!("tools.{}", other.unwrap_or("tool"))),
                    }
                }
            }
            Some(other) => read.drop(&format!("tools.{other}")),
            None => return Err(Refusal::new("tools", "a tool needs its type")),
        }
    }
    read.form.tool_choice = match choice {
        None | Some(Value::Null) => None,
        Some(Value::String(choice)) => Some(match choice.as_str() {
            "auto" => ToolChoice::Auto,
            "required" => ToolChoice::Required,
            "none" => ToolChoice::None,
            _ => {
                return Err(Refusal::new(
                    "tool_choice",
                    "tool_choice must be auto, required, none or a function",
                ));
            }
        }),
        Some(Value::Object(choice)) => match choice.get("type").and_then(Value::as_str) {
            Some("function") => choice
                .get("name")
                .and_then(Value::as_str)
                .map(|name| ToolChoice::Named(name.to_string())),
            _ => {
                read.drop("tool_choice");
                None
            }
        },
        Some(_) => {
            return Err(Refusal::new(
                "tool_choice",
                "tool_choice must be a string or an object",
            ));
        }
    };
    Ok(())
}

/// A function tool, its name joined to `namespace`'s when it is in one.
fn function(tool: &Value, namespace: Option<&str>) -> Result<Tool, Refusal> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::new("tools", "a function tool needs its name"))?;
    Ok(Tool {
        name: match namespace {
            Some(namespace) => format!("{namespace}{JOIN}{name}"),
            None => name.to_string(),
        },
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        parameters: tool
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
    })
}

/// `text.format` into the response format; `text.verbosity` and the rest dropped.
fn read_text(text: Option<&Value>, read: &mut Read) -> Result<(), Refusal> {
    let Some(text) = text.filter(|t| !t.is_null()) else {
        return Ok(());
    };
    let text = text
        .as_object()
        .ok_or_else(|| Refusal::new("text", "text must be an object"))?;
    for (key, value) in text {
        if key != "format" {
            read.drop(&format!("text.{key}"));
            continue;
        }
        read.form.response_format = match value.get("type").and_then(Value::as_str) {
            Some("text") => Some(ResponseFormat::Text),
            Some("json_object") => Some(ResponseFormat::JsonObject),
            Some("json_schema") => Some(ResponseFormat::JsonSchema {
                name: value
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("response")
                    .to_string(),
                schema: value.get("schema").cloned().unwrap_or_default(),
            }),
            _ => {
                return Err(Refusal::new(
                    "text",
                    "text.format.type must be text, json_object or json_schema",
                ));
            }
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests;
