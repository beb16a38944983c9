//! What a gateway request's upstream attempts tell a trace: the client span of each attempt,
//! `chat {model}`, with OpenTelemetry's GenAI attributes (ids and counts; the messages, redacted,
//! only with `--trace-content`).

use std::sync::Arc;

use opentelemetry::{Array, KeyValue, StringValue, Value};

use super::catalogue::Model;
use super::form::Tokens;
use super::request::Checked;

/// The client span's name and its attributes as an attempt on `deployment` starts, asking for
/// at most `cap` tokens (with the messages, redacted, when `content` is recorded).
pub fn started(
    deployment: &Model,
    cap: u32,
    checked: &Checked,
    content: bool,
) -> (String, Vec<KeyValue>) {
    let fixed = deployment.traced.get_or_init(|| fixed(deployment));
    // Room for what the answer adds ([`answered`], and `error.type`): the list never regrows.
    let mut attributes = Vec::with_capacity(fixed.len() + 6 + 9);
    attributes.extend_from_slice(fixed);
    attributes.push(KeyValue::new(
        "gen_ai.request.model",
        checked.request.model.clone(),
    ));
    attributes.push(KeyValue::new("gen_ai.request.max_tokens", i64::from(cap)));
    if let Some(temperature) = checked.request.temperature {
        attributes.push(KeyValue::new("gen_ai.request.temperature", temperature));
    }
    if let Some(top_p) = checked.request.extra.get("top_p").and_then(|v| v.as_f64()) {
        attributes.push(KeyValue::new("gen_ai.request.top_p", top_p));
    }
    if content {
        attributes.extend(input(&checked.request.messages));
    }
    (format!("chat {}", deployment.upstream_name()), attributes)
}

/// The attributes every attempt on `deployment` shares, made once (its URL parsed for
/// `server.address` and `server.port`); strings shared, so each attempt copies pointers.
fn fixed(deployment: &Model) -> Arc<[KeyValue]> {
    let shared = |text: &str| Value::String(StringValue::from(Arc::<str>::from(text)));
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", "chat"),
        KeyValue::new("gen_ai.provider.name", provider(deployment.named.0.name)),
        KeyValue::new("tokctl.routed_model", shared(&deployment.id)),
    ];
    if let Some(name) = &deployment.deployment {
        attributes.push(KeyValue::new("tokctl.deployment", shared(name)));
    }
    let url = deployment.base_url.as_deref();
    if let Some(url) = url.and_then(|url| reqwest::Url::parse(url).ok())
        && let Some(host) = url.host_str()
    {
        attributes.push(KeyValue::new("server.address", shared(host)));
        if let Some(port) = url.port_or_known_default() {
            attributes.push(KeyValue::new("server.port", i64::from(port)));
        }
    }
    attributes.into()
}

/// A message's text: its content when a string, else its text parts joined, else its JSON.
fn text_of(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One text part as the GenAI conventions write it, redacted.
fn part(text: &str) -> serde_json::Value {
    serde_json::json!({"type": "text", "content": crate::redact::redact(text)})
}

/// `gen_ai.system_instructions` and `gen_ai.input.messages` (JSON text, as the GenAI
/// conventions shape them), every secret-shaped run redacted.
fn input(messages: &[super::request::Message]) -> Vec<KeyValue> {
    let (system, turns): (Vec<_>, Vec<_>) = messages
        .iter()
        .partition(|m| m.role == "system" || m.role == "developer");
    let system: Vec<_> = system.iter().map(|m| part(&text_of(&m.content))).collect();
    let turns: Vec<_> = turns
        .iter()
        .map(|m| serde_json::json!({"role": m.role, "parts": [part(&text_of(&m.content))]}))
        .collect();
    let mut attributes = vec![KeyValue::new(
        "gen_ai.input.messages",
        serde_json::Value::Array(turns).to_string(),
    )];
    if !system.is_empty() {
        let system = serde_json::Value::Array(system).to_string();
        attributes.push(KeyValue::new("gen_ai.system_instructions", system));
    }
    attributes
}

/// `gen_ai.output.messages` of a whole answer (JSON text, redacted).
pub fn output(message: &super::answer::Message, finish: &str) -> KeyValue {
    KeyValue::new("gen_ai.output.messages", output_messages(message, finish))
}

/// A whole answer's message as the GenAI conventions' output messages (JSON text, redacted):
/// also what the request log keeps of an answer.
pub fn output_messages(message: &super::answer::Message, finish: &str) -> String {
    let text = match message {
        super::answer::Message::Said(said) => said.text.clone(),
        super::answer::Message::Raw(raw) | super::answer::Message::Whole(raw) => {
            let value: serde_json::Value = serde_json::from_str(raw.get()).unwrap_or_default();
            let content = value.get("content").cloned().unwrap_or(value);
            text_of(&content)
        }
    };
    text_messages(&text, finish)
}

/// An answer's `text` that ended for `finish` as the GenAI conventions' output messages (JSON
/// text, redacted): a whole answer's, or the text a stream delivered.
pub fn text_messages(text: &str, finish: &str) -> String {
    let messages = serde_json::json!([{
        "role": "assistant", "parts": [part(text)], "finish_reason": finish,
    }]);
    messages.to_string()
}

/// `gen_ai.output.messages` of a streamed answer, `messages` made by [`text_messages`].
pub fn streamed_output(messages: String) -> KeyValue {
    KeyValue::new("gen_ai.output.messages", messages)
}

/// The attributes of an answer `id` from `deployment` that ended for `finish` after `tokens`.
pub fn answered(deployment: &Model, id: &str, finish: &str, tokens: &Tokens) -> Vec<KeyValue> {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let finish: Vec<StringValue> = vec![finish.to_string().into()];
    vec![
        KeyValue::new(
            "gen_ai.response.model",
            deployment.upstream_name().to_string(),
        ),
        KeyValue::new("gen_ai.response.id", id.to_string()),
        KeyValue::new(
            "gen_ai.response.finish_reasons",
            Value::Array(Array::String(finish)),
        ),
        KeyValue::new("gen_ai.usage.input_tokens", count(tokens.prompt)),
        KeyValue::new("gen_ai.usage.output_tokens", count(tokens.completion)),
        KeyValue::new(
            "gen_ai.usage.cache_read.input_tokens",
            count(tokens.cache_read),
        ),
        KeyValue::new(
            "gen_ai.usage.cache_creation.input_tokens",
            count(tokens.cache_write.saturating_add(tokens.cache_write_1h)),
        ),
        KeyValue::new(
            "gen_ai.usage.reasoning.output_tokens",
            count(tokens.reasoning),
        ),
    ]
}

/// What a request's server span learns once a model answered: the model, why it was chosen,
/// and the credits the answer consumed (exact, as text).
pub fn settled(model: &Model, reason: &str, credits: crate::credits::Credits) -> Vec<KeyValue> {
    vec![
        KeyValue::new("tokctl.routed_model", model.id.clone()),
        KeyValue::new("tokctl.route_reason", reason.to_string()),
        KeyValue::new("tokctl.credits_consumed", credits.to_string()),
    ]
}

/// The admission span's attributes: how many candidates routing left, the request's own
/// budget, whether an x402 payment covers it.
pub fn admitted(
    candidates: usize,
    budget: Option<crate::credits::Credits>,
    paid: bool,
) -> Vec<KeyValue> {
    let mut attributes = vec![
        KeyValue::new("tokctl.candidates", candidates as i64),
        KeyValue::new("tokctl.x402", paid),
    ];
    if let Some(budget) = budget {
        attributes.push(KeyValue::new("tokctl.budget_limit", budget.to_string()));
    }
    attributes
}

/// A catalogue provider's name as OpenTelemetry's GenAI conventions spell it.
fn provider(name: &'static str) -> &'static str {
    match name {
        "gemini" => "gcp.gemini",
        "mistral" => "mistral_ai",
        "xai" => "x_ai",
        "azure" => "azure.ai.openai",
        "bedrock" => "aws.bedrock",
        other => other,
    }
}
