//! Providers by name: one table of presets, each filling in where a provider's API lives, how
//! it takes its key, and the small ways it differs from OpenAI's chat completions
//! ([`Quirks`]). Every value stays overridable from the catalogue; docs/api.md lists each
//! quirk with the provider's page that documents it.

use serde::Deserialize;

use super::ProviderKind;
use crate::chat::upstream::KeyHeader;

/// A provider the catalogue may name.
#[derive(Debug)]
pub struct Preset {
    /// The name `provider = "..."` gives.
    pub name: &'static str,
    /// The API it speaks.
    pub kind: ProviderKind,
    /// Where the API lives; `{region}` or `{resource}` is filled from the model's field of
    /// that name.
    pub base_url: Option<&'static str>,
    /// How the key is sent.
    pub key: KeyHeader,
    /// The environment variable read for the key when the catalogue names none and the
    /// base URL is the preset's own (a key is never sent to a host the catalogue chose
    /// without naming the key).
    pub key_env: Option<&'static str>,
    pub quirks: Quirks,
}

/// How an OpenAI-compatible provider's chat completions differ from OpenAI's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// The name the completion cap goes under.
    pub cap: CapField,
    /// Whether a stream asks for its usage with `stream_options.include_usage` (a provider that
    /// refuses the field reports usage in its last chunk unasked, or not at all).
    pub stream_usage: bool,
    /// Whether a message's content made only of text parts is sent as one string (for a
    /// provider that takes no content lists).
    pub text_content: bool,
}

/// Where a request's completion cap goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapField {
    /// Under the name the client used (`max_tokens` when it set neither).
    AsSent,
    /// Always `max_tokens`.
    MaxTokens,
    /// Always `max_completion_tokens`.
    MaxCompletionTokens,
}

/// OpenAI's own behaviour: what the generic `openai` provider assumes.
pub const OPENAI: Quirks = Quirks {
    cap: CapField::AsSent,
    stream_usage: true,
    text_content: false,
};

const fn quirks(cap: CapField, stream_usage: bool, text_content: bool) -> Quirks {
    Quirks {
        cap,
        stream_usage,
        text_content,
    }
}

const fn openai_compatible(
    name: &'static str,
    base_url: &'static str,
    key_env: &'static str,
    quirks: Quirks,
) -> Preset {
    Preset {
        name,
        kind: ProviderKind::Openai,
        base_url: Some(base_url),
        key: KeyHeader::Bearer,
        key_env: Some(key_env),
        quirks,
    }
}

use CapField::{MaxCompletionTokens, MaxTokens};

/// Every provider by name. The sources of each row are in docs/api.md ("Providers by name").
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "simulated",
        kind: ProviderKind::Simulated,
        base_url: None,
        key: KeyHeader::Bearer,
        key_env: None,
        quirks: OPENAI,
    },
    Preset {
        name: "openai",
        kind: ProviderKind::Openai,
        base_url: None,
        key: KeyHeader::Bearer,
        key_env: None,
        quirks: OPENAI,
    },
    Preset {
        name: "anthropic",
        kind: ProviderKind::Anthropic,
        base_url: Some("https://api.anthropic.com"),
        key: KeyHeader::ApiKey,
        key_env: Some("ANTHROPIC_API_KEY"),
        quirks: OPENAI,
    },
    openai_compatible(
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "GEMINI_API_KEY",
        quirks(MaxTokens, true, false),
    ),
    openai_compatible(
        "groq",
        "https://api.groq.com/openai/v1",
        "GROQ_API_KEY",
        quirks(MaxCompletionTokens, true, false),
    ),
    openai_compatible(
        "deepseek",
        "https://api.deepseek.com",
        "DEEPSEEK_API_KEY",
        quirks(MaxTokens, true, true),
    ),
    openai_compatible(
        "mistral",
        "https://api.mistral.ai/v1",
        "MISTRAL_API_KEY",
        quirks(MaxTokens, false, false),
    ),
    openai_compatible(
        "together",
        "https://api.together.ai/v1",
        "TOGETHER_API_KEY",
        quirks(MaxTokens, true, false),
    ),
    openai_compatible(
        "xai",
        "https://api.x.ai/v1",
        "XAI_API_KEY",
        quirks(MaxTokens, true, false),
    ),
    openai_compatible(
        "fireworks",
        "https://api.fireworks.ai/inference/v1",
        "FIREWORKS_API_KEY",
        quirks(MaxTokens, true, false),
    ),
    openai_compatible(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
        quirks(MaxTokens, false, false),
    ),
    Preset {
        name: "azure",
        kind: ProviderKind::Openai,
        base_url: Some("https://{resource}.openai.azure.com/openai/v1"),
        key: KeyHeader::AzureApiKey,
        key_env: Some("AZURE_OPENAI_API_KEY"),
        quirks: quirks(MaxCompletionTokens, true, false),
    },
    openai_compatible(
        "bedrock",
        "https://bedrock-runtime.{region}.amazonaws.com/openai/v1",
        "AWS_BEARER_TOKEN_BEDROCK",
        quirks(MaxCompletionTokens, true, false),
    ),
];

/// The preset named `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// Every preset's name, for an error naming what may be given.
pub fn names() -> String {
    let names: Vec<&str> = PRESETS.iter().map(|preset| preset.name).collect();
    names.join(", ")
}

/// A provider's name as the catalogue writes it, checked against the table.
#[derive(Debug, Clone, Copy)]
pub struct Named(pub &'static Preset);

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        find(&name).map(Named).ok_or_else(|| {
            serde::de::Error::custom(format!("unknown provider {name:?}; one of: {}", names()))
        })
    }
}

impl Preset {
    /// The base URL with its `{region}` or `{resource}` filled in; `None` when the preset has
    /// none; `Err` naming the field the preset needs.
    pub fn base_url(
        &self,
        region: Option<&str>,
        resource: Option<&str>,
    ) -> Result<Option<String>, String> {
        let Some(url) = self.base_url else {
            return Ok(None);
        };
        for (field, value) in [("region", region), ("resource", resource)] {
            let hole = format!("{{{field}}}");
            if !url.contains(&hole) {
                continue;
            }
            let value = value.ok_or_else(|| {
                format!(
                    "the {} provider needs {field} (or base_url), e.g. {url}",
                    self.name
                )
            })?;
            let fits = !value.is_empty()
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if !fits {
                return Err(format!(
                    "{field} {value:?} must be letters, digits and dashes"
                ));
            }
            return Ok(Some(url.replace(&hole, value)));
        }
        Ok(Some(url.to_string()))
    }

    /// Whether the base URL needs `field` (`region`, `resource`).
    pub fn needs(&self, field: &str) -> bool {
        self.base_url
            .is_some_and(|url| url.contains(&format!("{{{field}}}")))
    }
}

impl Default for Quirks {
    fn default() -> Self {
        OPENAI
    }
}
