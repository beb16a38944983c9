//! The internal form out as an Anthropic Messages request: system text blocks, turns of
//! content blocks (consecutive turns of one role merged), tools and tool choice, sampling, stop
//! sequences, the completion cap, structured output. What Anthropic has no place for is
//! refused naming the parameter and the model, never dropped, except the few settings that only
//! concern OpenAI's own platform (listed in [`DROPPED`]).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::chat::catalogue::Model;
use crate::chat::form::{
    Conversation, Image, Part, Refusal, ResponseFormat, Role, ToolChoice, ToolResult,
};

/// Chat completions settings that only concern OpenAI's platform (storing completions, their
/// tags, the processing tier, predicted output): they change nothing in an answer, and are not
/// sent.
pub const DROPPED: [&str; 4] = ["store", "metadata", "service_tier", "prediction"];

/// A Messages request.
#[derive(Serialize)]
pub struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<TextBlock<'a>>,
    messages: Vec<Turn<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Metadata<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Turn<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    Image {
        source: Source<'a>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Map<String, Value>,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        content: Vec<Block<'a>>,
    },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Source<'a> {
    Base64 { media_type: &'a str, data: &'a str },
    Url { url: &'a str },
}

#[derive(Serialize)]
struct Metadata<'a> {
    user_id: &'a str,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct Choice<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    disable_parallel_tool_use: bool,
}

/// `form` as a Messages request to `model`, asking for at most `cap` tokens.
pub fn body<'a>(
    model: &'a Model,
    cap: u32,
    form: &'a Conversation,
    stream: bool,
) -> Result<Body<'a>, Refusal> {
    let top_k = settings(model, &form.other)?;
    let (temperature, top_p) = sampling(model, form, top_k)?;
    let messages = turns(form);
    if messages.is_empty() {
        let why = format!(
            "{} needs a user or assistant message with content",
            named(model)
        );
        return Err(Refusal::new("messages", why));
    }
    let output_config = match &form.response_format {
        None | Some(ResponseFormat::Text) => None,
        Some(ResponseFormat::JsonSchema { schema, .. }) if model.structured_outputs => {
            Some(serde_json::json!({"format": {"type": "json_schema", "schema": schema}}))
        }
        Some(format) => {
            let kind = match format {
                ResponseFormat::JsonObject => "json_object",
                _ => "json_schema",
            };
            let why = format!(
                "{} cannot take response_format {kind} (structured outputs are not enabled for it in the catalogue)",
                named(model)
            );
            return Err(Refusal::new("response_format", why));
        }
    };
    let tools: Vec<Tool> = form
        .tools
        .iter()
        .map(|tool| Tool {
            name: &tool.name,
            description: tool.description.as_deref(),
            input_schema: &tool.parameters,
        })
        .collect();
    let single = form.parallel_tool_calls == Some(false);
    let tool_choice = match (&form.tool_choice, tools.is_empty()) {
        (_, true) => None,
        (None, false) if !single => None,
        (choice, false) => {
            let (kind, name) = match choice {
                None | Some(ToolChoice::Auto) => ("auto", None),
                Some(ToolChoice::Required) => ("any", None),
                Some(ToolChoice::None) => ("none", None),
                Some(ToolChoice::Named(name)) => ("tool", Some(name.as_str())),
            };
            Some(Choice {
                kind,
                name,
                disable_parallel_tool_use: single && kind != "none",
            })
        }
    };
    Ok(Body {
        model: model.upstream_name(),
        max_tokens: cap,
        system: form
            .system
            .iter()
            .map(|text| TextBlock { kind: "text", text })
            .collect(),
        messages,
        stop_sequences: &form.stop,
        temperature,
        top_p,
        top_k: top_k.filter(|_| model.sampling_parameters),
        metadata: form.user.as_deref().map(|user_id| Metadata { user_id }),
        tools,
        tool_choice,
        output_config,
        stream,
    })
}

/// The sampling settings to send: `temperature` within 0 to 1; to a model that takes none, none
/// (a request setting one is refused, except `temperature: 1`, the model's own default).
fn sampling(
    model: &Model,
    form: &Conversation,
    top_k: Option<u64>,
) -> Result<(Option<f64>, Option<f64>), Refusal> {
    if let Some(t) = form.temperature
        && !(0.0..=1.0).contains(&t)
    {
        let why = format!("temperature must be between 0 and 1 for {}", named(model));
        return Err(Refusal::new("temperature", why));
    }
    if model.sampling_parameters {
        return Ok((form.temperature, form.top_p));
    }
    let set = [
        ("temperature", form.temperature.filter(|t| *t != 1.0)),
        ("top_p", form.top_p),
        ("top_k", top_k.map(|k| k as f64)),
    ];
    match set.into_iter().find(|(_, value)| value.is_some()) {
        None => Ok((None, None)),
        Some((param, _)) => {
            let why = format!(
                "{} takes no sampling parameters ({param}): leave it out",
                named(model)
            );
            Err(Refusal::new(param, why))
        }
    }
}

/// "model M (anthropic)", for the refusals.
fn named(model: &Model) -> String {
    format!("model {} (anthropic)", model.id)
}

/// Checks the settings the form has no place for: `top_k` is sent; those Anthropic does not
/// have are refused unless they ask for what it does anyway (`n: 1`, `logprobs: false`, a zero
/// penalty); OpenAI's platform settings are dropped; anything else is refused.
fn settings(model: &Model, other: &Map<String, Value>) -> Result<Option<u64>, Refusal> {
    let mut top_k = None;
    for (name, value) in other {
        let neutral = match name.as_str() {
            "top_k" => {
                top_k = value.as_u64();
                top_k.is_some() || value.is_null()
            }
            "n" => value.is_null() || value.as_u64() == Some(1),
            "logprobs" => value.is_null() || value == &Value::Bool(false),
            "frequency_penalty" | "presence_penalty" => {
                value.is_null() || value.as_f64() == Some(0.0)
            }
            "logit_bias" => value.is_null() || value.as_object().is_some_and(Map::is_empty),
            "modalities" => value.is_null() || value == &serde_json::json!(["text"]),
            name if DROPPED.contains(&name) => true,
            _ => false,
        };
        if !neutral {
            let param = KNOWN
                .iter()
                .find(|known| **known == name.as_str())
                .copied()
                .unwrap_or("");
            let why = format!(
                "{} has no parameter {name} (or not with this value): leave it out",
                named(model)
            );
            return Err(Refusal::new(param, why));
        }
    }
    Ok(top_k)
}

/// Chat completions parameters a refusal can name (others are named in its message only).
const KNOWN: [&str; 14] = [
    "top_k",
    "n",
    "logprobs",
    "top_logprobs",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "modalities",
    "audio",
    "reasoning_effort",
    "web_search_options",
    "functions",
    "function_call",
];

/// The turns as Messages turns: consecutive turns of one role merged into one (a run of tool
/// results becomes one user turn of `tool_result` blocks), turns with nothing in them left out.
fn turns(form: &Conversation) -> Vec<Turn<'_>> {
    let mut turns: Vec<Turn> = Vec::with_capacity(form.turns.len());
    for turn in &form.turns {
        if turn.parts.is_empty() {
            continue;
        }
        let role = match turn.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let blocks = turn.parts.iter().map(block);
        match turns.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => turns.push(Turn {
                role,
                content: blocks.collect(),
            }),
        }
    }
    turns
}

fn block(part: &Part) -> Block<'_> {
    match part {
        Part::Text(text) => Block::Text { text },
        Part::Image(Image::Base64 { media_type, data }) => Block::Image {
            source: Source::Base64 { media_type, data },
        },
        Part::Image(Image::Url(url)) => Block::Image {
            source: Source::Url { url },
        },
        Part::ToolCall(call) => Block::ToolUse {
            id: &call.id,
            name: &call.name,
            input: &call.input,
        },
        Part::ToolResult(ToolResult { call_id, content }) => Block::ToolResult {
            tool_use_id: call_id,
            content: content.iter().map(block).collect(),
        },
    }
}
