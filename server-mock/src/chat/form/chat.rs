//! Chat completions in: a checked `ChatRequest` in the internal form. Built only for an upstream
//! that does not speak chat completions (an OpenAI-compatible one takes the request as it came).

use serde_json::{Map, Value};

use super::{
    Conversation, Image, Part, Refusal, ResponseFormat, Role, Tool, ToolCall, ToolChoice,
    ToolResult, Turn,
};
use crate::chat::request::{ChatRequest, Message};

/// The top-level fields read into the form's own places; the rest go to `other`.
const READ: [&str; 6] = [
    "top_p",
    "stop",
    "user",
    "parallel_tool_calls",
    "response_format",
    "safety_identifier",
];

impl Conversation {
    /// `request` in the internal form, or the part of it the form cannot hold.
    pub fn from_chat(request: &ChatRequest) -> Result<Self, Refusal> {
        let mut form = Conversation::default();
        for (index, message) in request.messages.iter().enumerate() {
            read_message(&mut form, index, message)?;
        }
        if let Some(tools) = &request.tools {
            form.tools = tools
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, tool)| read_tool(i, tool))
                .collect::<Result<_, _>>()?;
        }
        form.tool_choice = request.tool_choice.as_ref().map(read_choice).transpose()?;
        form.temperature = request.temperature;
        let extra = &request.extra;
        form.top_p = number(extra, "top_p")?;
        form.stop = match extra.get("stop") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| Refusal::new("stop", "stop must be a string or strings"))?,
            Some(_) => return Err(Refusal::new("stop", "stop must be a string or strings")),
        };
        for param in ["user", "safety_identifier"] {
            match extra.get(param) {
                None | Some(Value::Null) => {}
                Some(Value::String(user)) => form.user = Some(user.clone()),
                Some(_) => return Err(Refusal::new(param, format!("{param} must be a string"))),
            }
        }
        form.parallel_tool_calls = match extra.get("parallel_tool_calls") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(on)) => Some(*on),
            Some(_) => {
                let why = "parallel_tool_calls must be true or false";
                return Err(Refusal::new("parallel_tool_calls", why));
            }
        };
        form.response_format = match extra.get("response_format") {
            None | Some(Value::Null) => None,
            Some(format) => Some(read_format(format)?),
        };
        form.other = extra
            .iter()
            .filter(|(key, _)| !READ.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        Ok(form)
    }
}

fn number(extra: &Map<String, Value>, param: &'static str) -> Result<Option<f64>, Refusal> {
    match extra.get(param) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .map(Some)
            .ok_or_else(|| Refusal::new(param, format!("{param} must be a number"))),
    }
}

fn read_message(form: &mut Conversation, index: usize, message: &Message) -> Result<(), Refusal> {
    let at = |what: &str| Refusal::new("messages", format!("messages[{index}]: {what}"));
    match message.role.as_str() {
        "system" | "developer" => {
            for part in parts(&message.content).map_err(|why| at(&why))? {
                match part {
                    Part::Text(text) if text.is_empty() => {}
                    Part::Text(text) => form.system.push(text),
                    _ => return Err(at("a system message holds text only")),
                }
            }
        }
        "user" => {
            let parts = parts(&message.content).map_err(|why| at(&why))?;
            form.turns.push(Turn {
                role: Role::User,
                parts,
            });
        }
        "assistant" => {
            let mut parts = match &message.content {
                Value::Null => Vec::new(),
                content => parts(content).map_err(|why| at(&why))?,
            };
            if message.extra.contains_key("function_call") {
                return Err(at(
                    "function_call is the old form of tool_calls: send tool_calls",
                ));
            }
            if let Some(calls) = message.extra.get("tool_calls").filter(|c| !c.is_null()) {
                let calls = calls
                    .as_array()
                    .ok_or_else(|| at("tool_calls must be an array"))?;
                for (i, call) in calls.iter().enumerate() {
                    let call =
                        read_call(call).map_err(|why| at(&format!("tool_calls[{i}]: {why}")))?;
                    parts.push(Part::ToolCall(call));
                }
            }
            form.turns.push(Turn {
                role: Role::Assistant,
                parts,
            });
        }
        "tool" => {
            let call_id = message
                .extra
                .get("tool_call_id")
                .and_then(Value::as_str)
                .ok_or_else(|| at("a tool message needs tool_call_id"))?
                .to_string();
            let content = parts(&message.content).map_err(|why| at(&why))?;
            form.turns.push(Turn {
                role: Role::User,
                parts: vec![Part::ToolResult(ToolResult { call_id, content })],
            });
        }
        role => return Err(at(&format!("role {role} is not one the form knows"))),
    }
    Ok(())
}

/// A message's content: a string, or an array of text, image and refusal parts. Empty text
/// parts are left out.
fn parts(content: &Value) -> Result<Vec<Part>, String> {
    let list = match content {
        Value::String(text) if text.is_empty() => return Ok(Vec::new()),
        Value::String(text) => return Ok(vec![Part::Text(text.clone())]),
        Value::Array(list) => list,
        _ => return Err("content must be a string or an array of parts".into()),
    };
    let mut parts = Vec::with_capacity(list.len());
    for (i, part) in list.iter().enumerate() {
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
        let text = |field: &str| part.get(field).and_then(Value::as_str);
        match kind {
            "text" | "refusal" => match text(kind) {
                Some("") => {}
                Some(text) => parts.push(Part::Text(text.to_string())),
                None => return Err(format!("content[{i}] needs its {kind}")),
            },
            "image_url" => {
                let url = part
                    .get("image_url")
                    .and_then(|image| image.get("url").or(Some(image)))
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("content[{i}] needs image_url.url"))?;
                parts.push(Part::Image(
                    image(url).map_err(|why| format!("content[{i}]: {why}"))?,
                ));
            }
            other => {
                return Err(format!(
                    "content[{i}] of type {other:?} cannot be sent to this model"
                ));
            }
        }
    }
    Ok(parts)
}

/// An image URL: a base64 data URI, or an http(s) address.
fn image(url: &str) -> Result<Image, String> {
    if let Some(data) = url.strip_prefix("data:") {
        let (head, data) = data
            .split_once(',')
            .ok_or("a data URI needs a comma before its data")?;
        let media_type = head
            .strip_suffix(";base64")
            .ok_or("only base64 data URIs can be sent")?;
        return Ok(Image::Base64 {
            media_type: media_type.to_string(),
            data: data.to_string(),
        });
    }
    if url.starts_with("https://") || url.starts_with("http://") {
        return Ok(Image::Url(url.to_string()));
    }
    Err("an image URL must be an http(s) address or a base64 data URI".into())
}

/// An assistant's tool call: its arguments must be a JSON object.
fn read_call(call: &Value) -> Result<ToolCall, String> {
    let field = |name: &str| call.get(name).and_then(Value::as_str);
    let function = call.get("function").ok_or("it needs a function")?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or("it needs function.name")?;
    let arguments = function
        .get("arguments")
        .and_then(Value::as_str)
        .unwrap_or("{}");
    let input = match serde_json::from_str(if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    }) {
        Ok(Value::Object(input)) => input,
        _ => return Err("function.arguments must be the JSON text of an object".into()),
    };
    Ok(ToolCall {
        id: field("id").ok_or("it needs an id")?.to_string(),
        name: name.to_string(),
        input,
    })
}

fn read_tool(index: usize, tool: &Value) -> Result<Tool, Refusal> {
    let at = |what: &str| Refusal::new("tools", format!("tools[{index}]: {what}"));
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return Err(at("only function tools can be sent to this model"));
    }
    let function = tool
        .get("function")
        .ok_or_else(|| at("it needs a function"))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| at("it needs function.name"))?;
    Ok(Tool {
        name: name.to_string(),
        description: function
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        parameters: function
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
    })
}

fn read_choice(choice: &Value) -> Result<ToolChoice, Refusal> {
    match choice {
        Value::String(word) => match word.as_str() {
            "auto" => Ok(ToolChoice::Auto),
            "required" => Ok(ToolChoice::Required),
            "none" => Ok(ToolChoice::None),
            _ => Err(Refusal::new(
                "tool_choice",
                "tool_choice must be auto, required, none or a named function",
            )),
        },
        named => named
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .map(|name| ToolChoice::Named(name.to_string()))
            .ok_or_else(|| Refusal::new("tool_choice", "a named tool_choice needs function.name")),
    }
}

fn read_format(format: &Value) -> Result<ResponseFormat, Refusal> {
    let refuse = |why: &str| Refusal::new("response_format", why.to_string());
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(ResponseFormat::Text),
        Some("json_object") => Ok(ResponseFormat::JsonObject),
        Some("json_schema") => {
            let spec = format
                .get("json_schema")
                .ok_or_else(|| refuse("a json_schema response_format needs json_schema"))?;
            Ok(ResponseFormat::JsonSchema {
                name: spec
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("response")
                    .to_string(),
                schema: spec
                    .get("schema")
                    .cloned()
                    .ok_or_else(|| refuse("json_schema needs its schema"))?,
            })
        }
        _ => Err(refuse(
            "response_format.type must be text, json_object or json_schema",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(body: Value) -> Result<Conversation, Refusal> {
        let request: ChatRequest = serde_json::from_value(body).unwrap();
        Conversation::from_chat(&request)
    }

    #[test]
    fn every_part_of_a_chat_request_finds_its_place() {
        let form = form(json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "developer", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "use tools"}]},
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
                ]},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": "{\"q\":1}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a cat"}
            ],
            "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}],
            "tool_choice": {"type": "function", "function": {"name": "look"}},
            "parallel_tool_calls": false, "stop": "END", "user": "u-1", "top_p": 0.5, "seed": 3
        }))
        .unwrap();
        assert_eq!(form.system, ["be brief", "use tools"]);
        assert_eq!(form.turns.len(), 3);
        assert_eq!(
            form.turns[0].parts[1],
            Part::Image(Image::Base64 {
                media_type: "image/png".into(),
                data: "iVBO".into()
            })
        );
        assert_eq!(
            form.turns[0].parts[2],
            Part::Image(Image::Url("https://example.com/a.png".into()))
        );
        let Part::ToolCall(call) = &form.turns[1].parts[0] else {
            panic!()
        };
        assert_eq!(
            (call.id.as_str(), call.input["q"].clone()),
            ("call_1", json!(1))
        );
        assert_eq!(form.turns[2].role, Role::User);
        assert_eq!(form.tool_choice, Some(ToolChoice::Named("look".into())));
        assert_eq!(form.parallel_tool_calls, Some(false));
        assert_eq!(
            (form.stop, form.user, form.top_p),
            (vec!["END".to_string()], Some("u-1".into()), Some(0.5))
        );
        assert_eq!(form.other.keys().collect::<Vec<_>>(), ["seed"]);
    }

    #[test]
    fn what_the_form_cannot_hold_is_refused_naming_it() {
        let call = |arguments: &str| {
            json!({"model": "m", "messages": [{"role": "assistant", "content": null, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]}]})
        };
        let refused = form(call("[1]")).unwrap_err();
        assert_eq!(refused.param, "messages");
        assert!(
            refused
                .message
                .contains("arguments must be the JSON text of an object"),
            "{refused:?}"
        );
        assert!(form(call("{\"a\": 1}")).is_ok());
        let audio = json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "input_audio"}]}]});
        assert!(form(audio).unwrap_err().message.contains("input_audio"));
        let url = json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "ftp://x"}}]}]});
        assert!(form(url).unwrap_err().message.contains("http(s)"));
        let tool = json!({"model": "m", "messages": [{"role": "tool", "content": "x"}]});
        assert!(form(tool).unwrap_err().message.contains("tool_call_id"));
    }
}
