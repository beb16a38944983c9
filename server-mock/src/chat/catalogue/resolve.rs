//! What a catalogue model resolves to: its provider's preset with the model's own fields over
//! it (where requests go, how the key is sent, the quirks), and the same written out for
//! `tokctl-server catalogue check`.

use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use hyper::header::{HeaderName, HeaderValue};

use super::presets::{CapField, Quirks};
use super::{Catalogue, Model, ProviderKind};
use crate::chat::upstream::Target;

/// Checks that `model`'s fields fit its provider.
pub(super) fn check(model: &Model) -> Result<(), String> {
    let preset = model.named.0;
    if model.provider == ProviderKind::Simulated
        && (model.base_url.is_some() || model.ca_file.is_some() || model.api_key_env.is_some())
    {
        return Err("base_url, ca_file and api_key_env are for upstream providers".into());
    }
    if model.provider == ProviderKind::Openai && model.base_url.is_none() {
        preset
            .base_url(model.region.as_deref(), model.resource.as_deref())?
            .ok_or("the openai provider needs base_url")?;
    }
    for (field, given) in [("region", &model.region), ("resource", &model.resource)] {
        if given.is_some() && (!preset.needs(field) || model.base_url.is_some()) {
            return Err(format!(
                "{field} fills a preset's base URL (the {} provider's has none{})",
                preset.name,
                match model.base_url.is_some() {
                    true => " once base_url is given",
                    false => "",
                }
            ));
        }
    }
    if model.provider != ProviderKind::Anthropic
        && (model.anthropic_version.is_some()
            || !model.anthropic_beta.is_empty()
            || model.structured_outputs
            || !model.sampling_parameters)
    {
        return Err("anthropic_version, anthropic_beta, structured_outputs and sampling_parameters are for the anthropic provider".into());
    }
    if model.provider != ProviderKind::Openai
        && (model.responses
            || model.reasoning_effort
            || model.max_tokens_field.is_some()
            || model.stream_usage.is_some()
            || model.text_content.is_some())
    {
        return Err("responses, reasoning_effort, max_tokens_field, stream_usage and text_content are for OpenAI-compatible providers".into());
    }
    Ok(())
}

/// Fills in `model`'s target and quirks; a `ca_file` is relative to `dir`, the catalogue
/// file's.
pub(super) fn upstream(model: &mut Model, dir: &Path) -> anyhow::Result<()> {
    let preset = model.named.0;
    model.quirks = Quirks {
        cap: model.max_tokens_field.unwrap_or(preset.quirks.cap),
        stream_usage: model.stream_usage.unwrap_or(preset.quirks.stream_usage),
        text_content: model.text_content.unwrap_or(preset.quirks.text_content),
    };
    let (base_url, own) = match &model.base_url {
        Some(url) => (url.clone(), true),
        None => match preset
            .base_url(model.region.as_deref(), model.resource.as_deref())
            .map_err(|why| anyhow::anyhow!(why))?
        {
            Some(url) => (url, false),
            None => return Ok(()),
        },
    };
    let key_env = match (&model.api_key_env, own) {
        (Some(var), _) => Some(var.as_str()),
        (None, false) => preset.key_env,
        (None, true) => None,
    };
    let key = model.key_header.unwrap_or(preset.key);
    let ca_file = model.ca_file.as_ref().map(|file| dir.join(file));
    let (path, headers) = match model.provider {
        ProviderKind::Anthropic => ("/v1/messages", anthropic_headers(model)?),
        _ => ("/chat/completions", Vec::new()),
    };
    let target = Target::new(&base_url, path, (key, key_env), headers, ca_file.as_deref())?;
    model.target = Some(Arc::new(target));
    Ok(())
}

/// `anthropic-version` and `anthropic-beta`, as `model` sets them.
fn anthropic_headers(model: &Model) -> anyhow::Result<Vec<(HeaderName, HeaderValue)>> {
    let version = model.anthropic_version.as_deref().unwrap_or("2023-06-01");
    let mut headers = vec![(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_str(version)
            .map_err(|_| anyhow::anyhow!("anthropic_version {version:?} is not a header value"))?,
    )];
    if !model.anthropic_beta.is_empty() {
        let beta = model.anthropic_beta.join(",");
        let value = HeaderValue::from_str(&beta)
            .map_err(|_| anyhow::anyhow!("anthropic_beta {beta:?} is not a header value"))?;
        headers.push((HeaderName::from_static("anthropic-beta"), value));
    }
    Ok(headers)
}

impl Catalogue {
    /// What each model resolves to, for a person checking a catalogue: where its requests go,
    /// how its key is sent and whether the key's variable is set, its upstream name and its
    /// quirks.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for model in self.models() {
            describe_model(&mut out, model);
        }
        out
    }
}

fn describe_model(out: &mut String, model: &Model) {
    let _ = writeln!(out, "{} ({})", model.id, model.named.0.name);
    if !model.fallbacks.is_empty() {
        let _ = writeln!(out, "  fallbacks, in order: {}", model.fallbacks.join(", "));
    }
    let listed: Vec<&Model> = model
        .deployments
        .iter()
        .filter(|d| d.deployment.is_some())
        .map(|d| d.as_ref())
        .collect();
    if listed.is_empty() {
        return describe_upstream(out, model, "  ");
    }
    for deployment in listed {
        let (weight, total) = deployment.share;
        let mut line = format!(
            "  deployment {} ({}): weight {weight} of {total}",
            deployment.deployment.as_deref().unwrap_or_default(),
            deployment.named.0.name
        );
        if let Some(rpm) = deployment.rpm {
            let _ = write!(line, ", {rpm} requests a minute");
        }
        if let Some(tpm) = deployment.tpm {
            let _ = write!(line, ", {tpm} tokens a minute");
        }
        let (prompt, completion) = (deployment.prompt_price, deployment.completion_price);
        if (prompt, completion) != (model.prompt_price, model.completion_price) {
            let _ = write!(
                line,
                ", its own prices {} and {} per 1k",
                prompt.per_1k(),
                completion.per_1k()
            );
        }
        let _ = writeln!(out, "{line}");
        describe_upstream(out, deployment, "    ");
    }
}

/// Where `model`'s requests go, how its key is sent, its upstream name and its quirks, each
/// line after `indent`.
fn describe_upstream(out: &mut String, model: &Model, indent: &str) {
    let Some(target) = &model.target else {
        let _ = writeln!(out, "{indent}built in: answered by the gateway itself");
        return;
    };
    let _ = writeln!(out, "{indent}POST {}", target.url());
    let _ = match target.key() {
        Some((header, var)) => {
            let set = match std::env::var_os(var) {
                Some(_) => "set",
                None => "NOT SET: requests will fail until it is",
            };
            writeln!(out, "{indent}key: {header} from ${var} ({set})")
        }
        None => match model.named.0.key_env {
            Some(var) => writeln!(
                out,
                "{indent}key: none sent (base_url is your own; api_key_env = \"{var}\" would send it)"
            ),
            None => writeln!(out, "{indent}key: none sent"),
        },
    };
    let _ = writeln!(out, "{indent}upstream model: {}", model.upstream_name());
    if model.provider == ProviderKind::Openai {
        let quirks = model.quirks;
        let cap = match quirks.cap {
            CapField::AsSent => "as the client named it",
            CapField::MaxTokens => "as max_tokens",
            CapField::MaxCompletionTokens => "as max_completion_tokens",
        };
        let usage = match quirks.stream_usage {
            true => "asked with stream_options.include_usage",
            false => "not asked (no stream_options sent)",
        };
        let content = match quirks.text_content {
            true => "text-only content lists sent as one string",
            false => "content as sent",
        };
        let _ = writeln!(out, "{indent}cap {cap}; stream usage {usage}; {content}");
    }
}
