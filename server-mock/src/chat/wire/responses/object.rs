//! The Responses API's `response` object and its output items, written as JSON text from
//! borrowed parts (no tree, no serialiser per key: `wire/text.rs`): the request's settings
//! echoed as the client sent them (written once per answer), the items as the writer keeps
//! them, and usage with cached and reasoning details.

use serde_json::{Map, Value};

use crate::chat::form::responses::JOIN;
use crate::chat::form::{Finish, Tokens};
use crate::chat::wire::text::Text;

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

    /// `"status":` and its word.
    fn status(&self) -> &'static str {
        match self.done {
            true => r#","status":"completed""#,
            false => r#","status":"in_progress""#,
        }
    }

    /// Its one content part (a message's text, a reasoning's summary), as written when done:
    /// `{"type":"output_text",...}` or `{"type":"summary_text",...}`.
    pub fn part(&self, t: &mut Text) {
        match self.kind {
            Kind::Reasoning => {
                t.raw(r#"{"type":"summary_text","text":"#);
                t.string(&self.text).raw("}");
            }
            _ => {
                t.raw(r#"{"type":"output_text","text":"#);
                t.string(&self.text).raw(r#","annotations":[]}"#);
            }
        }
    }

    /// The item as JSON text: an open message or reasoning shows no part yet, a done one its
    /// one part.
    pub fn write(&self, t: &mut Text) {
        match &self.kind {
            Kind::Message => {
                t.raw(r#"{"type":"message","id":"#).id(&self.id);
                t.raw(self.status())
                    .raw(r#","role":"assistant","content":["#);
                if self.done {
                    self.part(t);
                }
                t.raw("]}");
            }
            Kind::Reasoning => {
                t.raw(r#"{"type":"reasoning","id":"#).id(&self.id);
                if !self.done {
                    t.raw(self.status());
                }
                t.raw(r#","summary":["#);
                if self.done {
                    self.part(t);
                }
                t.raw("]}");
            }
            Kind::Call {
                call_id,
                name,
                namespace,
            } => {
                t.raw(r#"{"type":"function_call","id":"#).id(&self.id);
                t.raw(r#","call_id":"#).string(call_id);
                t.raw(r#","name":"#).string(name);
                if let Some(namespace) = namespace {
                    t.raw(r#","namespace":"#).string(namespace);
                }
                t.raw(r#","arguments":"#).string(&self.text);
                t.raw(self.status()).raw("}");
            }
        }
    }
}

/// Responses' `usage`, cached input and reasoning output apart, as JSON text.
fn usage(tokens: &Tokens, t: &mut Text) {
    t.raw(r#"{"input_tokens":"#).number(tokens.prompt);
    t.raw(r#","input_tokens_details":{"cached_tokens":"#);
    t.number(tokens.cache_read);
    t.raw(r#"},"output_tokens":"#).number(tokens.completion);
    t.raw(r#","output_tokens_details":{"reasoning_tokens":"#);
    t.number(tokens.reasoning);
    t.raw(r#"},"total_tokens":"#);
    t.number(tokens.prompt + tokens.completion).raw("}");
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
    /// The request's settings as the object echoes them ([`echo`]).
    pub echo: &'a str,
    pub id: &'a str,
    pub model: &'a str,
    pub created: i64,
    pub status: Status<'a>,
    pub output: &'a [Output],
}

/// The settings a `response` object echoes, each as the request set it or at its default.
const SETTINGS: [(&str, &str); 10] = [
    ("instructions", "null"),
    ("max_output_tokens", "null"),
    ("parallel_tool_calls", "true"),
    ("reasoning", r#"{"effort":null,"summary":null}"#),
    ("temperature", "1.0"),
    ("text", r#"{"format":{"type":"text"}}"#),
    ("tool_choice", r#""auto""#),
    ("tools", "[]"),
    ("top_p", "1.0"),
    ("metadata", "{}"),
];

/// What every `response` object for `request` echoes of it, as JSON text (members, no braces):
/// the gateway's fixed answers on state, then [`SETTINGS`]. Written once per answer.
pub fn echo(request: &Map<String, Value>) -> String {
    // The request's few fields are met once each, rather than each setting looked up.
    let mut set: [Option<&Value>; SETTINGS.len()] = [None; SETTINGS.len()];
    for (key, value) in request.iter().filter(|(_, value)| !value.is_null()) {
        if let Some(i) = SETTINGS.iter().position(|(setting, _)| setting == key) {
            set[i] = Some(value);
        }
    }
    let mut t = Text::with_capacity(320);
    t.raw(r#""previous_response_id":null,"store":false,"truncation":"disabled""#);
    for ((key, default), value) in SETTINGS.iter().zip(set) {
        t.raw(",\"").raw(key).raw("\":");
        match value {
            Some(value) => t.value(value),
            None => t.raw(default),
        };
    }
    t.finish()
}

impl Object<'_> {
    /// The object as JSON text.
    pub fn write(&self, t: &mut Text) {
        t.raw(r#"{"id":"#).id(self.id);
        t.raw(r#","object":"response","created_at":"#)
            .number(self.created);
        match &self.status {
            Status::InProgress => {
                t.raw(r#","status":"in_progress","error":null,"incomplete_details":null"#)
            }
            Status::Ended(finish, _) if finish.reason == "length" => t.raw(
                r#","status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}"#,
            ),
            Status::Ended(..) => {
                t.raw(r#","status":"completed","error":null,"incomplete_details":null"#)
            }
            Status::Failed(message) => {
                t.raw(r#","status":"failed","error":{"code":"server_error","message":"#);
                t.string(message).raw(r#"},"incomplete_details":null"#)
            }
        };
        t.raw(r#","model":"#)
            .string(self.model)
            .raw(r#","output":["#);
        for (i, item) in self.output.iter().enumerate() {
            if i > 0 {
                t.raw(",");
            }
            item.write(t);
        }
        t.raw("],").raw(self.echo).raw(r#","usage":"#);
        match &self.status {
            Status::Ended(_, tokens) => usage(tokens, t),
            _ => {
                t.raw("null");
            }
        }
        t.raw("}");
    }

    /// The object as JSON text, on its own.
    pub fn text(&self) -> String {
        let mut t = Text::with_capacity(1024);
        self.write(&mut t);
        t.finish()
    }
}
