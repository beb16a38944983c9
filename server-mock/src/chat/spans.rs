//! What a gateway request's upstream attempts tell a trace: the client span of each attempt,
//! `chat {model}`, with OpenTelemetry's GenAI attributes (ids and counts; the messages, redacted,
//! only with `--trace-content`).

use std::sync::Arc;

use super::catalogue::Model;
use super::form::Tokens;
use super::request::Checked;
use crate::telemetry::Attributes;

/// The client span's name of an attempt on `deployment`: `chat {model}`.
pub fn name(deployment: &Model) -> Arc<str> {
    deployment
        .traced
        .get_or_init(|| fixed(deployment))
        .0
        .clone()
}

/// The client span's attributes as an attempt on `deployment` starts, asking for at most `cap`
/// tokens (with the messages, redacted, when `content` is recorded).
pub fn started(deployment: &Model, cap: u32, checked: &Checked, content: bool) -> Attributes {
    let (_, fixed) = deployment.traced.get_or_init(|| fixed(deployment));
    // Room for what the answer adds ([`answered`], and `error.type`): the buffer never regrows
    // without content.
    let mut attributes = Attributes::with_capacity(fixed.encoded_len() + 640);
    attributes.extend(fixed);
    attributes.str("gen_ai.request.model", &checked.request.model);
    attributes.int("gen_ai.request.max_tokens", i64::from(cap));
    if let Some(temperature) = checked.request.temperature {
        attributes.float("gen_ai.request.temperature", temperature);
    }
    if let Some(top_p) = checked.request.extra.get("top_p").and_then(|v| v.as_f64()) {
        attributes.float("gen_ai.request.top_p", top_p);
    }
    if content {
        input(&checked.request.messages, &mut attributes);
    }
    attributes
}

/// The name and attributes every attempt on `deployment` shares, made once (its URL parsed for
/// `server.address` and `server.port`) and encoded once: each attempt copies their bytes.
fn fixed(deployment: &Model) -> (Arc<str>, Attributes) {
    let mut attributes = Attributes::with_capacity(256);
    attributes.str("gen_ai.operation.name", "chat");
    attributes.str("gen_ai.provider.name", provider(deployment.named.0.name));
    attributes.str("tokctl.routed_model", &deployment.id);
    if let Some(name) = &deployment.deployment {
        attributes.str("tokctl.deployment", name);
    }
    let url = deployment.base_url.as_deref();
    if let Some(url) = url.and_then(|url| reqwest::Url::parse(url).ok())
        && let Some(host) = url.host_str()
    {
        attributes.str("server.address", host);
        if let Some(port) = url.port_or_known_default() {
            attributes.int("server.port", i64::from(port));
        }
    }
    let name = Arc::<str>::from(format!("chat {}", deployment.upstream_name()));
    (name, attributes)
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
    serde_json::json!({"type": "text", "content": tokctl_secrets::redact(text)})
}

/// `gen_ai.system_instructions` and `gen_ai.input.messages` (JSON text, as the GenAI
/// conventions shape them), every secret-shaped run redacted.
fn input(messages: &[super::request::Message], attributes: &mut Attributes) {
    let (system, turns): (Vec<_>, Vec<_>) = messages
        .iter()
        .partition(|m| m.role == "system" || m.role == "developer");
    let system: Vec<_> = system.iter().map(|m| part(&text_of(&m.content))).collect();
    let turns: Vec<_> = turns
        .iter()
        .map(|m| serde_json::json!({"role": m.role, "parts": [part(&text_of(&m.content))]}))
        .collect();
    let turns = serde_json::Value::Array(turns).to_string();
    attributes.str("gen_ai.input.messages", &turns);
    if !system.is_empty() {
        let system = serde_json::Value::Array(system).to_string();
        attributes.str("gen_ai.system_instructions", &system);
    }
}

/// `gen_ai.output.messages` of a whole answer (JSON text, redacted).
pub fn output(message: &super::answer::Message, finish: &str, attributes: &mut Attributes) {
    attributes.str("gen_ai.output.messages", &output_messages(message, finish));
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
pub fn streamed_output(messages: &str, attributes: &mut Attributes) {
    attributes.str("gen_ai.output.messages", messages);
}

/// The attributes of an answer `id` from `deployment` that ended for `finish` after `tokens`.
pub fn answered(
    deployment: &Model,
    id: &str,
    finish: &str,
    tokens: &Tokens,
    attributes: &mut Attributes,
) {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    attributes.str("gen_ai.response.model", deployment.upstream_name());
    attributes.str("gen_ai.response.id", id);
    attributes.strs("gen_ai.response.finish_reasons", &[finish]);
    attributes.int("gen_ai.usage.input_tokens", count(tokens.prompt));
    attributes.int("gen_ai.usage.output_tokens", count(tokens.completion));
    let cache_read = count(tokens.cache_read);
    attributes.int("gen_ai.usage.cache_read.input_tokens", cache_read);
    let cache_creation = count(tokens.cache_write.saturating_add(tokens.cache_write_1h));
    attributes.int("gen_ai.usage.cache_creation.input_tokens", cache_creation);
    let reasoning = count(tokens.reasoning);
    attributes.int("gen_ai.usage.reasoning.output_tokens", reasoning);
}

/// What a request's server span learns once a model answered: the model, why it was chosen,
/// and the credits the answer consumed (exact, as text).
pub fn settled(
    model: &Model,
    reason: &str,
    credits: crate::credits::Credits,
    attributes: &mut Attributes,
) {
    attributes.str("tokctl.routed_model", &model.id);
    attributes.str("tokctl.route_reason", reason);
    let mut text = [0; 32];
    attributes.str("tokctl.credits_consumed", credits.decimal(&mut text));
}

/// The admission span's attributes: how many candidates routing left, the request's own
/// budget, whether an x402 payment covers it.
pub fn admitted(
    candidates: usize,
    budget: Option<crate::credits::Credits>,
    paid: bool,
    attributes: &mut Attributes,
) {
    attributes.int("tokctl.candidates", candidates as i64);
    attributes.bool("tokctl.x402", paid);
    if let Some(budget) = budget {
        attributes.str("tokctl.budget_limit", &budget.to_string());
    }
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
