//! What the gateway writes to Responses clients from a model that does not serve Responses
//! itself: a whole answer as a `response` object, and a stream as the Responses events, each
//! with its `sequence_number`: `response.created`, `response.in_progress`; per output item
//! `response.output_item.added`, its pieces (`response.content_part.added`,
//! `response.output_text.delta`/`.done`, `response.content_part.done`; a function call's
//! `response.function_call_arguments.delta`/`.done`; reasoning's summary text), and
//! `response.output_item.done`; then `response.completed` (usage with cached and reasoning
//! details) or `response.failed`. A function whose name joins a namespace's of the request's
//! tools (`form/responses.rs`) goes back under its own name with that `namespace`.

mod object;

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Map, Value};

use axum::http::{HeaderValue, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

use super::text::Text;
use crate::chat::answer::{Completion, Event, Item, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::{Finish, Said, Tokens};
use crate::chat::request::Original;
use object::{Kind, Object, Output, Status, echo};

/// The answer's output items so far, the open one last.
pub struct Writer {
    id: String,
    model: String,
    /// The request as the client wrote it (its namespaces restore a flattened call's name).
    original: Arc<Original>,
    /// Its settings as every `response` object echoes them, written once.
    echo: String,
    created: i64,
    sequence: u64,
    output: Vec<Output>,
    /// Tool call indexes to output indexes.
    calls: Vec<(u32, usize)>,
}

/// An event's data begun: its type and number (which moves on); what it carries follows, in
/// 256 bytes and `room` more (sized up front: growing copies what is written so far).
fn start(kind: &'static str, sequence: &mut u64, room: usize) -> Text {
    let mut t = Text::with_capacity(256 + room);
    t.raw(r#"{"type":""#)
        .raw(kind)
        .raw(r#"","sequence_number":"#);
    t.number(*sequence);
    *sequence += 1;
    t
}

/// The event `kind` with the data `t`, ended.
fn emit(kind: &'static str, mut t: Text, out: &mut VecDeque<Event>) {
    t.raw("}");
    out.push_back(Event::named(kind, t.finish()));
}

/// Where a piece of `item` (at `index`) goes: its id, output index and part index 0.
fn at(item: &Output, index: usize, t: &mut Text) {
    t.raw(r#","item_id":"#).id(&item.id);
    t.raw(r#","output_index":"#).number(index);
    match item.kind {
        Kind::Reasoning => t.raw(r#","summary_index":0"#),
        _ => t.raw(r#","content_index":0"#),
    };
}

/// A whole answer as a `response` object's JSON text.
pub fn whole(
    request: &Map<String, Value>,
    id: &str,
    model: &str,
    said: &Said,
    finish: &Finish,
    tokens: &Tokens,
) -> String {
    let done = |mut item: Output, text: &str| {
        item.text = text.to_string();
        item.done = true;
        item
    };
    let mut output = Vec::new();
    if let Some(reasoning) = &said.reasoning {
        let item = Output::new(format!("rs_{id}"), Kind::Reasoning);
        output.push(done(item, reasoning));
    }
    if !said.text.is_empty() || said.tool_calls.is_empty() {
        let item = Output::new(format!("msg_{id}"), Kind::Message);
        output.push(done(item, &said.text));
    }
    for (i, call) in said.tool_calls.iter().enumerate() {
        let item = Output::call(request, format!("fc_{id}_{i}"), &call.id, &call.name);
        output.push(done(item, &call.arguments));
    }
    let object = Object {
        echo: &echo(request),
        id,
        model,
        created: chrono::Utc::now().timestamp(),
        status: Status::Ended(finish, tokens),
        output: &output,
    };
    object.text()
}

/// A whole answer as a `response` object for the request `original`.
pub(crate) fn answer(
    id: &str,
    model: &Model,
    answer: &Completion,
    tokens: &Tokens,
    original: &Original,
) -> Response {
    let json = [(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
    let said = match &answer.message {
        // An upstream serving Responses: its own object.
        Message::Whole(raw) => return (json, raw.get().to_string()).into_response(),
        Message::Said(said) => std::borrow::Cow::Borrowed(said),
        Message::Raw(raw) => {
            let message = serde_json::from_str(raw.get()).unwrap_or_default();
            std::borrow::Cow::Owned(Said::from_chat_message(&message))
        }
    };
    let body = whole(&original.body, id, &model.id, &said, &answer.finish, tokens);
    (json, body).into_response()
}

impl Writer {
    /// A writer for the response `id` from `model`, answering `original`.
    pub fn new(id: String, model: String, original: Arc<Original>) -> Self {
        Writer {
            id,
            model,
            echo: echo(&original.body),
            original,
            created: chrono::Utc::now().timestamp(),
            sequence: 0,
            output: Vec::new(),
            calls: Vec::new(),
        }
    }

    /// The event `kind` carrying the `response` object as it stands.
    fn object(&mut self, kind: &'static str, status: Status<'_>, out: &mut VecDeque<Event>) {
        // The object's fixed parts and usage, the echo, and each item with its text.
        let items: usize = self.output.iter().map(|item| 320 + item.text.len()).sum();
        let mut t = start(kind, &mut self.sequence, 640 + self.echo.len() + items);
        t.raw(r#","response":"#);
        let object = Object {
            echo: &self.echo,
            id: &self.id,
            model: &self.model,
            created: self.created,
            status,
            output: &self.output,
        };
        object.write(&mut t);
        emit(kind, t, out);
    }

    /// `response.created` and `response.in_progress`.
    pub fn opening(&mut self, out: &mut VecDeque<Event>) {
        let object = Object {
            echo: &self.echo,
            id: &self.id,
            model: &self.model,
            created: self.created,
            status: Status::InProgress,
            output: &[],
        };
        let object = object.text();
        for kind in ["response.created", "response.in_progress"] {
            let mut t = start(kind, &mut self.sequence, object.len());
            t.raw(r#","response":"#).raw(&object);
            emit(kind, t, out);
        }
    }

    /// The events of a typed `item`; whether it was a piece of the answer (for the bill).
    pub fn piece(&mut self, item: &Item, out: &mut VecDeque<Event>) -> bool {
        match item {
            Item::Text(text) => self.text(text, out),
            Item::Reasoning(text) => self.reasoning(text, out),
            Item::ToolCall { index, id, name } => self.call(*index, id, name, out),
            Item::ToolArguments { index, piece } => self.arguments(*index, piece, out),
            _ => return false,
        }
        true
    }

    /// The open item, when it is of `kind`'s sort.
    fn open_as(&self, kind: &Kind) -> Option<usize> {
        let last = self.output.last().filter(|last| !last.done)?;
        let same = std::mem::discriminant(&last.kind) == std::mem::discriminant(kind);
        same.then(|| self.output.len() - 1)
    }

    /// Closes the open item and opens `item`: `response.output_item.added`; its index.
    fn open(&mut self, item: Output, out: &mut VecDeque<Event>) -> usize {
        self.close(out);
        let index = self.output.len();
        let kind = "response.output_item.added";
        let mut t = start(kind, &mut self.sequence, item.text.len());
        t.raw(r#","output_index":"#)
            .number(index)
            .raw(r#","item":"#);
        item.write(&mut t);
        emit(kind, t, out);
        self.output.push(item);
        index
    }

    /// The open item of `kind` (a message or reasoning), opened with its one empty part when
    /// another is open.
    fn ensure(&mut self, kind: Kind, out: &mut VecDeque<Event>) -> usize {
        if let Some(index) = self.open_as(&kind) {
            return index;
        }
        let (prefix, added) = match kind {
            Kind::Reasoning => ("rs", "response.reasoning_summary_part.added"),
            _ => ("msg", "response.content_part.added"),
        };
        let id = format!("{prefix}_{}_{}", self.id, self.output.len());
        let index = self.open(Output::new(id, kind), out);
        let item = &self.output[index];
        let mut t = start(added, &mut self.sequence, 0);
        at(item, index, &mut t);
        t.raw(r#","part":"#);
        item.part(&mut t);
        emit(added, t, out);
        index
    }

    fn text(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let index = self.ensure(Kind::Message, out);
        let item = &mut self.output[index];
        item.text.push_str(piece);
        let kind = "response.output_text.delta";
        let mut t = start(kind, &mut self.sequence, piece.len());
        at(item, index, &mut t);
        t.raw(r#","delta":"#).string(piece).raw(r#","logprobs":[]"#);
        emit(kind, t, out);
    }

    fn reasoning(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let index = self.ensure(Kind::Reasoning, out);
        let item = &mut self.output[index];
        item.text.push_str(piece);
        let kind = "response.reasoning_summary_text.delta";
        let mut t = start(kind, &mut self.sequence, piece.len());
        at(item, index, &mut t);
        t.raw(r#","delta":"#).string(piece);
        emit(kind, t, out);
    }

    fn call(&mut self, index: u32, call_id: &str, name: &str, out: &mut VecDeque<Event>) {
        let id = format!("fc_{}_{}", self.id, self.output.len());
        let item = Output::call(&self.original.body, id, call_id, name);
        let output_index = self.open(item, out);
        self.calls.push((index, output_index));
    }

    fn arguments(&mut self, index: u32, piece: &str, out: &mut VecDeque<Event>) {
        let Some(&(_, output_index)) = self.calls.iter().find(|(i, _)| *i == index) else {
            return;
        };
        let item = &mut self.output[output_index];
        item.text.push_str(piece);
        let kind = "response.function_call_arguments.delta";
        let mut t = start(kind, &mut self.sequence, piece.len());
        t.raw(r#","item_id":"#).id(&item.id);
        t.raw(r#","output_index":"#).number(output_index);
        t.raw(r#","delta":"#).string(piece);
        emit(kind, t, out);
    }

    /// Closes the open item: its pieces' `.done` events, then `response.output_item.done`.
    fn close(&mut self, out: &mut VecDeque<Event>) {
        let index = self.output.len().saturating_sub(1);
        let Some(item) = self.output.last_mut().filter(|last| !last.done) else {
            return;
        };
        let sequence = &mut self.sequence;
        let (done, part) = match &item.kind {
            Kind::Message => (
                "response.output_text.done",
                Some("response.content_part.done"),
            ),
            Kind::Reasoning => (
                "response.reasoning_summary_text.done",
                Some("response.reasoning_summary_part.done"),
            ),
            Kind::Call { .. } => ("response.function_call_arguments.done", None),
        };
        let mut t = start(done, sequence, item.text.len());
        match &item.kind {
            Kind::Call { name, .. } => {
                t.raw(r#","item_id":"#).id(&item.id);
                t.raw(r#","output_index":"#).number(index);
                t.raw(r#","arguments":"#).string(&item.text);
                t.raw(r#","name":"#).string(name);
            }
            Kind::Message => {
                at(item, index, &mut t);
                t.raw(r#","text":"#)
                    .string(&item.text)
                    .raw(r#","logprobs":[]"#);
            }
            Kind::Reasoning => {
                at(item, index, &mut t);
                t.raw(r#","text":"#).string(&item.text);
            }
        }
        emit(done, t, out);
        item.done = true;
        if let Some(part) = part {
            let mut t = start(part, sequence, item.text.len());
            at(item, index, &mut t);
            t.raw(r#","part":"#);
            item.part(&mut t);
            emit(part, t, out);
        }
        let kind = "response.output_item.done";
        let mut t = start(kind, sequence, item.text.len());
        t.raw(r#","output_index":"#)
            .number(index)
            .raw(r#","item":"#);
        item.write(&mut t);
        emit(kind, t, out);
    }

    /// The end: the open item closed, `response.completed` with the output and usage.
    pub fn closing(&mut self, finish: &Finish, tokens: &Tokens, out: &mut VecDeque<Event>) {
        self.close(out);
        self.object("response.completed", Status::Ended(finish, tokens), out);
    }

    /// `response.failed`, saying `message`.
    pub fn failed(&mut self, message: &str, out: &mut VecDeque<Event>) {
        self.object("response.failed", Status::Failed(message), out);
    }
}

/// The event ending a relayed stream that failed: the upstream's own (`response.failed` or
/// `error`, its `body`) when it sent one, else an `error` event saying `message`.
pub fn relayed_error(message: &str, body: Option<&[u8]>) -> Event {
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: String,
    }
    if let Some(body) = body
        && let Ok(data) = std::str::from_utf8(body)
        && let Ok(Kind { kind }) = serde_json::from_str(data)
    {
        let name = match kind.as_str() {
            "response.failed" => "response.failed",
            _ => "error",
        };
        return Event::relayed(Some(std::borrow::Cow::Borrowed(name)), data.to_string());
    }
    let error = serde_json::json!({"type": "error", "code": "upstream_error", "message": message, "param": null});
    Event::named("error", error.to_string())
}

#[cfg(test)]
mod tests;
