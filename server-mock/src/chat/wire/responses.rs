//! What the gateway writes to Responses clients from a model that does not serve Responses
//! itself: a whole answer as a `response` object, and a stream as the Responses events, each
//! with its `sequence_number`: `response.created`, `response.in_progress`; per output item
//! `response.output_item.added`, its pieces (`response.content_part.added`,
//! `response.output_text.delta`/`.done`, `response.content_part.done`; a function call's
//! `response.function_call_arguments.delta`/`.done`; reasoning's summary text), and
//! `response.output_item.done`; then `response.completed` (usage with cached and reasoning
//! details) or `response.failed`. A function whose name joins a namespace's of the request's
//! tools (`form/responses.rs`) goes back under its own name with that `namespace`.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use axum::Json;
use axum::response::{IntoResponse, Response};

use crate::chat::answer::{Completion, Event, Item, Message};
use crate::chat::catalogue::Model;
use crate::chat::form::responses::JOIN;
use crate::chat::form::{Finish, Said, Tokens};
use crate::chat::request::Original;

/// The answer's output items so far, and which is open.
pub struct Writer {
    id: String,
    model: String,
    /// The request as the client wrote it, echoed in the `response` object.
    original: Arc<Original>,
    created: i64,
    sequence: u64,
    /// Items written so far, the open one last.
    output: Vec<Value>,
    /// Whether the last item is still open, and tool call indexes to output indexes.
    open: bool,
    calls: Vec<(u32, usize)>,
}

/// A `response` object for `id` from `model`: the request's settings echoed, `output`, the
/// status the finish reason gives, and usage.
pub fn response(request: &Map<String, Value>, id: &str, model: &str, created: i64) -> Value {
    let setting = |key: &str, default: Value| match request.get(key) {
        Some(value) if !value.is_null() => value.clone(),
        _ => default,
    };
    json!({
        "id": id, "object": "response", "created_at": created, "status": "in_progress",
        "error": null, "incomplete_details": null,
        "instructions": setting("instructions", Value::Null),
        "max_output_tokens": setting("max_output_tokens", Value::Null),
        "model": model, "output": [],
        "parallel_tool_calls": setting("parallel_tool_calls", json!(true)),
        "previous_response_id": null,
        "reasoning": {"effort": null, "summary": null},
        "store": false,
        "temperature": setting("temperature", json!(1.0)),
        "text": setting("text", json!({"format": {"type": "text"}})),
        "tool_choice": setting("tool_choice", json!("auto")),
        "tools": setting("tools", json!([])),
        "top_p": setting("top_p", json!(1.0)),
        "truncation": "disabled",
        "usage": null,
        "metadata": setting("metadata", json!({})),
    })
}

/// Responses' `usage`: cached input and reasoning output apart.
pub fn usage(tokens: &Tokens) -> Value {
    json!({
        "input_tokens": tokens.prompt,
        "input_tokens_details": {"cached_tokens": tokens.cache_read},
        "output_tokens": tokens.completion,
        "output_tokens_details": {"reasoning_tokens": tokens.reasoning},
        "total_tokens": tokens.prompt + tokens.completion,
    })
}

/// `response` completed (or incomplete, when the answer ran out of tokens) with `output`.
fn finished(mut response: Value, output: Vec<Value>, finish: &Finish, tokens: &Tokens) -> Value {
    let cut = finish.reason == "length";
    response["status"] = json!(if cut { "incomplete" } else { "completed" });
    if cut {
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    response["output"] = Value::Array(output);
    response["usage"] = usage(tokens);
    response
}

/// A function call's item: a flattened namespace's function back under its own name.
fn call_item(
    request: &Map<String, Value>,
    id: &str,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Value {
    let mut item = json!({"type": "function_call", "id": id, "call_id": call_id, "name": name,
                          "arguments": arguments, "status": "completed"});
    let namespaces = request
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|tool| tool["type"] == "namespace")
        .filter_map(|tool| tool["name"].as_str());
    for namespace in namespaces {
        if let Some(own) = name
            .strip_prefix(namespace)
            .and_then(|rest| rest.strip_prefix(JOIN))
        {
            item["name"] = json!(own);
            item["namespace"] = json!(namespace);
            break;
        }
    }
    item
}

fn message_item(id: &str, text: &str) -> Value {
    json!({"type": "message", "id": id, "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

fn reasoning_item(id: &str, text: &str) -> Value {
    json!({"type": "reasoning", "id": id, "summary": [{"type": "summary_text", "text": text}]})
}

/// A whole answer as a `response` object.
pub fn whole(
    request: &Map<String, Value>,
    id: &str,
    model: &str,
    said: &Said,
    finish: &Finish,
    tokens: &Tokens,
) -> Value {
    let mut output = Vec::new();
    if let Some(reasoning) = &said.reasoning {
        output.push(reasoning_item(&format!("rs_{id}"), reasoning));
    }
    if !said.text.is_empty() || said.tool_calls.is_empty() {
        output.push(message_item(&format!("msg_{id}"), &said.text));
    }
    for (i, call) in said.tool_calls.iter().enumerate() {
        let item_id = format!("fc_{id}_{i}");
        output.push(call_item(
            request,
            &item_id,
            &call.id,
            &call.name,
            &call.arguments,
        ));
    }
    let created = chrono::Utc::now().timestamp();
    finished(
        response(request, id, model, created),
        output,
        finish,
        tokens,
    )
}

/// A whole answer as a `response` object for the request `original`.
pub(crate) fn answer(
    id: &str,
    model: &Model,
    answer: &Completion,
    tokens: &Tokens,
    original: &Original,
) -> Response {
    let said = match &answer.message {
        Message::Said(said) => std::borrow::Cow::Borrowed(said),
        Message::Raw(raw) | Message::Whole(raw) => {
            let message = serde_json::from_str(raw.get()).unwrap_or_default();
            std::borrow::Cow::Owned(Said::from_chat_message(&message))
        }
    };
    Json(whole(
        &original.body,
        id,
        &model.id,
        &said,
        &answer.finish,
        tokens,
    ))
    .into_response()
}

impl Writer {
    /// A writer for the response `id` from `model`, answering `request`.
    pub fn new(id: String, model: String, original: Arc<Original>) -> Self {
        Writer {
            id,
            model,
            original,
            created: chrono::Utc::now().timestamp(),
            sequence: 0,
            output: Vec::new(),
            open: false,
            calls: Vec::new(),
        }
    }

    fn event(&mut self, name: &'static str, mut data: Value, out: &mut VecDeque<Event>) {
        data["type"] = json!(name);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        out.push_back(Event::named(name, data.to_string()));
    }

    fn response(&self) -> Value {
        response(&self.original.body, &self.id, &self.model, self.created)
    }

    /// `response.created` and `response.in_progress`.
    pub fn opening(&mut self, out: &mut VecDeque<Event>) {
        let response = self.response();
        self.event("response.created", json!({"response": response}), out);
        self.event("response.in_progress", json!({"response": response}), out);
    }

    /// The events of `item`; whether it was a piece of the answer (for the bill).
    pub fn piece(&mut self, item: &Item, out: &mut VecDeque<Event>) -> bool {
        match item {
            Item::Text(text) => self.text(text, out),
            Item::Reasoning(text) => self.reasoning(text, out),
            Item::ToolCall { index, id, name } => self.call(*index, id, name, out),
            Item::ToolArguments { index, piece } => self.arguments(*index, piece, out),
            Item::Delta(raw) => {
                let pieces = Item::typed(raw);
                for piece in &pieces {
                    self.piece(piece, out);
                }
                return !pieces.is_empty();
            }
            Item::Finish(_) | Item::Usage { .. } | Item::Event(_) => return false,
        }
        true
    }

    /// The open item of `kind`, opened (the one before closed) when another is open.
    fn ensure(
        &mut self,
        kind: &str,
        item: impl FnOnce(&str) -> Value,
        out: &mut VecDeque<Event>,
    ) -> usize {
        let open = self.open && self.output.last().is_some_and(|last| last["type"] == kind);
        if !open {
            self.close(out);
            let index = self.output.len();
            let item = item(&format!("{}_{}_{index}", &kind[..2], self.id));
            self.open_item(item, out);
        }
        self.output.len() - 1
    }

    fn open_item(&mut self, mut item: Value, out: &mut VecDeque<Event>) {
        item["status"] = json!("in_progress");
        let index = self.output.len();
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
            out,
        );
        self.output.push(item);
        self.open = true;
    }

    fn text(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let started = self.open
            && self
                .output
                .last()
                .is_some_and(|last| last["type"] == "message");
        let index = self.ensure(
            "message",
            |id| json!({"type": "message", "id": id, "role": "assistant", "content": []}),
            out,
        );
        let item_id = self.output[index]["id"].clone();
        if !started {
            let part = json!({"type": "output_text", "text": "", "annotations": []});
            self.event("response.content_part.added", json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": part}), out);
            self.output[index]["content"] = json!([part]);
        }
        let text = &mut self.output[index]["content"][0]["text"];
        *text = json!(format!("{}{piece}", text.as_str().unwrap_or_default()));
        self.event("response.output_text.delta", json!({"item_id": item_id, "output_index": index, "content_index": 0, "delta": piece, "logprobs": []}), out);
    }

    fn reasoning(&mut self, piece: &str, out: &mut VecDeque<Event>) {
        let started = self.open
            && self
                .output
                .last()
                .is_some_and(|last| last["type"] == "reasoning");
        let index = self.ensure(
            "reasoning",
            |id| json!({"type": "reasoning", "id": id, "summary": []}),
            out,
        );
        let item_id = self.output[index]["id"].clone();
        if !started {
            let part = json!({"type": "summary_text", "text": ""});
            self.event("response.reasoning_summary_part.added", json!({"item_id": item_id, "output_index": index, "summary_index": 0, "part": part}), out);
            self.output[index]["summary"] = json!([part]);
        }
        let text = &mut self.output[index]["summary"][0]["text"];
        *text = json!(format!("{}{piece}", text.as_str().unwrap_or_default()));
        self.event(
            "response.reasoning_summary_text.delta",
            json!({"item_id": item_id, "output_index": index, "summary_index": 0, "delta": piece}),
            out,
        );
    }

    fn call(&mut self, index: u32, call_id: &str, name: &str, out: &mut VecDeque<Event>) {
        self.close(out);
        let output_index = self.output.len();
        let item_id = format!("fc_{}_{output_index}", self.id);
        let mut item = call_item(&self.original.body, &item_id, call_id, name, "");
        item["status"] = json!("in_progress");
        self.calls.push((index, output_index));
        self.open_item(item, out);
    }

    fn arguments(&mut self, index: u32, piece: &str, out: &mut VecDeque<Event>) {
        let Some(&(_, output_index)) = self.calls.iter().find(|(i, _)| *i == index) else {
            return;
        };
        let item = &mut self.output[output_index];
        item["arguments"] = json!(format!(
            "{}{piece}",
            item["arguments"].as_str().unwrap_or_default()
        ));
        let item_id = item["id"].clone();
        self.event(
            "response.function_call_arguments.delta",
            json!({"item_id": item_id, "output_index": output_index, "delta": piece}),
            out,
        );
    }

    /// Closes the open item: its pieces' `.done` events, then `response.output_item.done`.
    fn close(&mut self, out: &mut VecDeque<Event>) {
        if !std::mem::replace(&mut self.open, false) {
            return;
        }
        let index = self.output.len() - 1;
        self.output[index]["status"] = json!("completed");
        let item = self.output[index].clone();
        let item_id = item["id"].clone();
        match item["type"].as_str() {
            Some("message") => {
                let part = item["content"][0].clone();
                self.event("response.output_text.done", json!({"item_id": item_id, "output_index": index, "content_index": 0, "text": part["text"], "logprobs": []}), out);
                self.event("response.content_part.done", json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": part}), out);
            }
            Some("reasoning") => {
                self.output[index]
                    .as_object_mut()
                    .map(|o| o.remove("status"));
                let part = item["summary"][0].clone();
                self.event("response.reasoning_summary_text.done", json!({"item_id": item_id, "output_index": index, "summary_index": 0, "text": part["text"]}), out);
                self.event("response.reasoning_summary_part.done", json!({"item_id": item_id, "output_index": index, "summary_index": 0, "part": part}), out);
            }
            _ => {
                self.event("response.function_call_arguments.done", json!({"item_id": item_id, "output_index": index, "arguments": item["arguments"], "name": item["name"]}), out);
            }
        }
        let item = self.output[index].clone();
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
            out,
        );
    }

    /// The end: the open item closed, `response.completed` with the output and usage.
    pub fn closing(&mut self, finish: &Finish, tokens: &Tokens, out: &mut VecDeque<Event>) {
        self.close(out);
        let output = std::mem::take(&mut self.output);
        let response = finished(self.response(), output, finish, tokens);
        self.event("response.completed", json!({"response": response}), out);
    }

    /// `response.failed`, saying `message`.
    pub fn failed(&mut self, message: &str, out: &mut VecDeque<Event>) {
        let mut response = self.response();
        response["status"] = json!("failed");
        response["error"] = json!({"code": "server_error", "message": message});
        response["output"] = Value::Array(std::mem::take(&mut self.output));
        self.event("response.failed", json!({"response": response}), out);
    }
}

#[cfg(test)]
mod tests;
