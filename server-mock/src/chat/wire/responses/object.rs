//! The Responses API's `response` object and its output items, written from borrowed parts
//! (no JSON tree per answer): the request's settings echoed as the client sent them, the items
//! as the writer keeps them, and usage with cached and reasoning details.

use std::sync::LazyLock;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value, json};

use crate::chat::form::responses::JOIN;
use crate::chat::form::{Finish, Tokens};

/// An output item: a message, reasoning or a function call, with its text so far.
pub struct Output {
    pub id: String,
    pub kind: Kind,
    /// The message's text, the reasoning's summary or the call's arguments.
    pub text: String,
    pub done: bool,
}

/// What an output item is.
pub enum Kind {
    Message,
    Reasoning,
    Call {
        call_id: String,
        name: String,
        /// The request's namespace the function was flattened out of.
        namespace: Option<String>,
    },
}

impl Output {
    /// A function call `name` (a flattened namespace's function back under its own name and
    /// that namespace, going by the `request`'s tools).
    pub fn call(request: &Map<String, Value>, id: String, call_id: &str, name: &str) -> Self {
        let namespaces = request
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|tool| tool["type"] == "namespace")
            .filter_map(|tool| tool["name"].as_str());
        let mut kind = Kind::Call {
            call_id: call_id.to_string(),
            name: name.to_string(),
            namespace: None,
        };
        for namespace in namespaces {
            if let Some(own) = name
                .strip_prefix(namespace)
                .and_then(|rest| rest.strip_prefix(JOIN))
            {
                kind = Kind::Call {
                    call_id: call_id.to_string(),
                    name: own.to_string(),
                    namespace: Some(namespace.to_string()),
                };
                break;
            }
        }
        Output::new(id, kind)
    }

    /// An open item of `kind`, nothing in it yet.
    pub fn new(id: String, kind: Kind) -> Self {
        Output {
            id,
            kind,
            text: String::new(),
            done: false,
        }
    }

    /// Its status word.
    pub fn status(&self) -> &'static str {
        match self.done {
            true => "completed",
            false => "in_progress",
        }
    }

    /// Its one content part (a message's text, a reasoning's summary), as written when done.
    pub fn part(&self) -> Part<'_> {
        Part {
            summary: matches!(self.kind, Kind::Reasoning),
            text: &self.text,
        }
    }
}

/// A message's `output_text` part or a reasoning's `summary_text`.
pub struct Part<'a> {
    summary: bool,
    text: &'a str,
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.summary {
            map.serialize_entry("type", "summary_text")?;
            map.serialize_entry("text", self.text)?;
        } else {
            map.serialize_entry("type", "output_text")?;
            map.serialize_entry("text", self.text)?;
            map.serialize_entry("annotations", &[(); 0])?;
        }
        map.end()
    }
}

impl Serialize for Output {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        // An open message or reasoning shows no part yet; a done one its one part.
        let parts: &[Part] = &[self.part()];
        let parts = if self.done { parts } else { &[] };
        match &self.kind {
            Kind::Message => {
                map.serialize_entry("type", "message")?;
                map.serialize_entry("id", &self.id)?;
                map.serialize_entry("status", self.status())?;
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", parts)?;
            }
            Kind::Reasoning => {
                map.serialize_entry("type", "reasoning")?;
                map.serialize_entry("id", &self.id)?;
                if !self.done {
                    map.serialize_entry("status", self.status())?;
                }
                map.serialize_entry("summary", parts)?;
            }
            Kind::Call {
                call_id,
                name,
                namespace,
            } => {
                map.serialize_entry("type", "function_call")?;
                map.serialize_entry("id", &self.id)?;
                map.serialize_entry("call_id", call_id)?;
                map.serialize_entry("name", name)?;
                if let Some(namespace) = namespace {
                    map.serialize_entry("namespace", namespace)?;
                }
                map.serialize_entry("arguments", &self.text)?;
                map.serialize_entry("status", self.status())?;
            }
        }
        map.end()
    }
}

/// Responses' `usage`: cached input and reasoning output apart.
pub struct Usage<'a>(pub &'a Tokens);

impl Serialize for Usage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tokens = self.0;
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("input_tokens", &tokens.prompt)?;
        map.serialize_entry(
            "input_tokens_details",
            &Detail("cached_tokens", tokens.cache_read),
        )?;
        map.serialize_entry("output_tokens", &tokens.completion)?;
        map.serialize_entry(
            "output_tokens_details",
            &Detail("reasoning_tokens", tokens.reasoning),
        )?;
        map.serialize_entry("total_tokens", &(tokens.prompt + tokens.completion))?;
        map.end()
    }
}

/// `{name: count}`.
struct Detail(&'static str, u64);

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}

/// How a response stands: in progress, ended (completed, or incomplete when cut at the cap)
/// or failed with a message.
pub enum Status<'a> {
    InProgress,
    Ended(&'a Finish, &'a Tokens),
    Failed(&'a str),
}

/// A `response` object.
pub struct Object<'a> {
    pub request: &'a Map<String, Value>,
    pub id: &'a str,
    pub model: &'a str,
    pub created: i64,
    pub status: Status<'a>,
    pub output: &'a [Output],
}

/// What the object echoes when the request left a setting out.
struct Defaults {
    settings: [(&'static str, Value); 10],
}

static DEFAULTS: LazyLock<Defaults> = LazyLock::new(|| Defaults {
    settings: [
        ("instructions", Value::Null),
        ("max_output_tokens", Value::Null),
        ("parallel_tool_calls", json!(true)),
        ("reasoning", json!({"effort": null, "summary": null})),
        ("temperature", json!(1.0)),
        ("text", json!({"format": {"type": "text"}})),
        ("tool_choice", json!("auto")),
        ("tools", json!([])),
        ("top_p", json!(1.0)),
        ("metadata", json!({})),
    ],
});

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("object", "response")?;
        map.serialize_entry("created_at", &self.created)?;
        let (status, error, cut) = match &self.status {
            Status::InProgress => ("in_progress", None, false),
            Status::Ended(finish, _) if finish.reason == "length" => ("incomplete", None, true),
            Status::Ended(..) => ("completed", None, false),
            Status::Failed(message) => ("failed", Some(*message), false),
        };
        map.serialize_entry("status", status)?;
        match error {
            Some(message) => map.serialize_entry(
                "error",
                &ErrorBody {
                    code: "server_error",
                    message,
                },
            )?,
            None => map.serialize_entry("error", &())?,
        }
        match cut {
            true => map.serialize_entry(
                "incomplete_details",
                &Cut {
                    reason: "max_output_tokens",
                },
            )?,
            false => map.serialize_entry("incomplete_details", &())?,
        }
        map.serialize_entry("model", self.model)?;
        map.serialize_entry("output", self.output)?;
        map.serialize_entry("previous_response_id", &())?;
        map.serialize_entry("store", &false)?;
        map.serialize_entry("truncation", "disabled")?;
        for (key, default) in &DEFAULTS.settings {
            let value = match self.request.get(*key) {
                Some(value) if !value.is_null() => value,
                _ => default,
            };
            map.serialize_entry(key, value)?;
        }
        match &self.status {
            Status::Ended(_, tokens) => map.serialize_entry("usage", &Usage(tokens))?,
            _ => map.serialize_entry("usage", &())?,
        }
        map.end()
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct Cut {
    reason: &'static str,
}

impl Object<'_> {
    /// The object as JSON text (strings and numbers always serialise).
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
