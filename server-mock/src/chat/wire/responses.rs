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

use serde::Serialize;
use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};

use axum::http::{HeaderValue, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

use crate::chat::answer::{Completion, Event, Item, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::{Finish, Said, Tokens};
use crate::chat::request::Original;
use object::{Kind, Object, Output, Part, Status};

/// The answer's output items so far, the open one last.
pub struct Writer {
    id: String,
    model: String,
    /// The request as the client wrote it, its settings echoed in the `response` object.
    original: Arc<Original>,
    created: i64,
    sequence: u64,
    output: Vec<Output>,
    /// Tool call indexes to output indexes.
    calls: Vec<(u32, usize)>,
}

/// An event's data: its type and number, then what it carries.
#[derive(Serialize, Default)]
struct Frame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    sequence_number: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    item_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_index: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_index: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<&'a Output>,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<Part<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delta: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<[(); 0]>,
}

/// `frame` numbered `sequence` (which moves on), as the event it names.
fn emit(sequence: &mut u64, mut frame: Frame<'_>, out: &mut VecDeque<Event>) {
    frame.sequence_number = *sequence;
    *sequence += 1;
    // Strings and numbers always serialise.
    let data = serde_json::to_string(&frame).unwrap_or_default();
    out.push_back(Event::named(frame.kind, data));
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
        request,
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
            original,
            created: chrono::Utc::now().timestamp(),
            sequence: 0,
            output: Vec::new(),
            calls: Vec::new(),
        }
    }

    /// The `response` object as it stands, as JSON text.
    fn object(&self, status: Status<'_>) -> Option<Box<RawValue>> {
        let object = Object {
            request: &self.original.body,
            id: &self.id,
            model: &self.model,
            created: self.created,
            status,
            output: &self.output,
        };
        to_raw_value(&object).ok()
    }

    /// `response.created` and `response.in_progress`.
    pub fn opening(&mut self, out: &mut VecDeque<Event>) {
        let response = self.object(Status::InProgress);
        for kind in ["response.created", "response.in_progress"] {
            let response = response.as_deref();
            let frame = Frame {
                kind,
                response,
                ..Frame::default()
            };
            emit(&mut self.sequence, frame, out);
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
        self.output.push(item);
        let frame = Frame {
            kind: "response.output_item.added",
            output_index: Some(index),
            item: self.output.last(),
            ..Frame::default()
        };
        emit(&mut self.sequence, frame, out);
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
        let frame = Frame {
            kind: added,
            part: Some(item.part()),
            ..at(item, index)
        };
        emit(&mut self.sequence, frame, out);
        index
    }

    fn text(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let index = self.ensure(Kind::Message, out);
        let item = &mut self.output[index];
        item.text.push_str(piece);
        let frame = Frame {
            kind: "response.output_text.delta",
            delta: Some(piece),
            logprobs: Some([]),
            ..at(item, index)
        };
        emit(&mut self.sequence, frame, out);
    }

    fn reasoning(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let index = self.ensure(Kind::Reasoning, out);
        let item = &mut self.output[index];
        item.text.push_str(piece);
        let frame = Frame {
            kind: "response.reasoning_summary_text.delta",
            delta: Some(piece),
            ..at(item, index)
        };
        emit(&mut self.sequence, frame, out);
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
        let frame = Frame {
            kind: "response.function_call_arguments.delta",
            output_index: Some(output_index),
            item_id: Some(&item.id),
            delta: Some(piece),
            ..Frame::default()
        };
        emit(&mut self.sequence, frame, out);
    }

    /// Closes the open item: its pieces' `.done` events, then `response.output_item.done`.
    fn close(&mut self, out: &mut VecDeque<Event>) {
        let index = self.output.len().saturating_sub(1);
        let Some(item) = self.output.last_mut().filter(|last| !last.done) else {
            return;
        };
        let sequence = &mut self.sequence;
        let text = Some(item.text.as_str());
        match &item.kind {
            Kind::Message => {
                let done = Frame {
                    kind: "response.output_text.done",
                    text,
                    logprobs: Some([]),
                    ..at(item, index)
                };
                emit(sequence, done, out);
                let part = Frame {
                    kind: "response.content_part.done",
                    part: Some(item.part()),
                    ..at(item, index)
                };
                emit(sequence, part, out);
            }
            Kind::Reasoning => {
                let done = Frame {
                    kind: "response.reasoning_summary_text.done",
                    text,
                    ..at(item, index)
                };
                emit(sequence, done, out);
                let part = Frame {
                    kind: "response.reasoning_summary_part.done",
                    part: Some(item.part()),
                    ..at(item, index)
                };
                emit(sequence, part, out);
            }
            Kind::Call { name, .. } => {
                let done = Frame {
                    kind: "response.function_call_arguments.done",
                    output_index: Some(index),
                    item_id: Some(&item.id),
                    arguments: text,
                    name: Some(name),
                    ..Frame::default()
                };
                emit(sequence, done, out);
            }
        }
        item.done = true;
        let frame = Frame {
            kind: "response.output_item.done",
            output_index: Some(index),
            item: Some(item),
            ..Frame::default()
        };
        emit(sequence, frame, out);
    }

    /// The end: the open item closed, `response.completed` with the output and usage.
    pub fn closing(&mut self, finish: &Finish, tokens: &Tokens, out: &mut VecDeque<Event>) {
        self.close(out);
        let response = self.object(Status::Ended(finish, tokens));
        let frame = Frame {
            kind: "response.completed",
            response: response.as_deref(),
            ..Frame::default()
        };
        emit(&mut self.sequence, frame, out);
    }

    /// `response.failed`, saying `message`.
    pub fn failed(&mut self, message: &str, out: &mut VecDeque<Event>) {
        let response = self.object(Status::Failed(message));
        let frame = Frame {
            kind: "response.failed",
            response: response.as_deref(),
            ..Frame::default()
        };
        emit(&mut self.sequence, frame, out);
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
        return Event::named(name, data.to_string());
    }
    let error = serde_json::json!({"type": "error", "code": "upstream_error", "message": message, "param": null});
    Event::named("error", error.to_string())
}

/// Where a piece of `item` (at `index`) goes: its id, output index and part index 0.
fn at(item: &Output, index: usize) -> Frame<'_> {
    let first = Some(0);
    let (content_index, summary_index) = match item.kind {
        Kind::Reasoning => (None, first),
        _ => (first, None),
    };
    Frame {
        item_id: Some(&item.id),
        output_index: Some(index),
        content_index,
        summary_index,
        ..Frame::default()
    }
}

#[cfg(test)]
mod tests;
