//! The model catalogue the gateway routes over: a TOML file, or the built-in simulated models.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use super::breaker::Policy;
use super::upstream::{KeyHeader, Target};
use crate::credits::Price;
use presets::{CapField, Named, Quirks};

mod deployments;
pub mod presets;
mod prices;
mod resolve;

/// The catalogue used when no `--models` file is given: four simulated models spread over
/// price, quality and latency, so everything runs offline.
pub const DEFAULT_CATALOGUE: &str = r#"
[[models]]
id = "sim-mini"
provider = "simulated"
prompt_price = 0.05
completion_price = 0.1
quality = 0.55
latency_ms = 150

[[models]]
id = "sim-fast"
provider = "simulated"
prompt_price = 0.3
completion_price = 0.6
quality = 0.7
latency_ms = 60

[[models]]
id = "sim-balanced"
provider = "simulated"
prompt_price = 0.5
completion_price = 1.5
quality = 0.82
latency_ms = 400

[[models]]
id = "sim-pro"
provider = "simulated"
prompt_price = 3.0
completion_price = 9.0
quality = 0.95
latency_ms = 900
"#;

/// The API a model's provider speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Built in: deterministic text derived from the prompt.
    #[default]
    Simulated,
    /// Any OpenAI-compatible upstream.
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

/// One model of the catalogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// The id clients ask for.
    pub id: String,
    /// Other names that route to this model (for any provider): a request naming one is
    /// answered by this model, and `platform.routed_model` gives its id.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Who serves it, by name: `simulated`, `openai` (any OpenAI-compatible upstream),
    /// `anthropic`, or a preset of [`presets::PRESETS`].
    #[serde(rename = "provider")]
    pub named: Named,
    /// The API the provider speaks (from `named`).
    #[serde(skip)]
    pub provider: ProviderKind,
    /// Credits per 1,000 prompt tokens (kept per token, in nano-credits).
    pub prompt_price: Price,
    /// Credits per 1,000 completion tokens (kept per token, in nano-credits).
    pub completion_price: Price,
    /// Credits per 1,000 prompt tokens read from the provider's prompt cache (default:
    /// `prompt_price`).
    #[serde(default)]
    pub cache_read_price: Option<Price>,
    /// Credits per 1,000 prompt tokens written to the provider's prompt cache (Anthropic's
    /// 5-minute cache; default: `prompt_price`).
    #[serde(default)]
    pub cache_write_price: Option<Price>,
    /// Credits per 1,000 prompt tokens written to a 1-hour cache (default: `prompt_price`).
    #[serde(default)]
    pub cache_write_1h_price: Option<Price>,
    /// Quality score, 0 to 1.
    pub quality: f64,
    /// Typical latency to the first token, in milliseconds.
    pub latency_ms: u64,
    /// Most completion tokens one request may produce (the default when a request sets none).
    #[serde(default = "default_max_output")]
    pub max_output_tokens: u32,
    /// `openai`: the upstream base URL, e.g. `https://api.openai.com/v1` (`/chat/completions`
    /// is added); `anthropic`: default `https://api.anthropic.com` (`/v1/messages` is added).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The `{region}` of a preset's base URL (`bedrock`).
    #[serde(default)]
    pub region: Option<String>,
    /// The `{resource}` of a preset's base URL (`azure`).
    #[serde(default)]
    pub resource: Option<String>,
    /// The environment variable holding the upstream key (default: the preset's, when
    /// `base_url` is the preset's own).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// How the key is sent: `bearer` (`Authorization: Bearer`), `x-api-key` or `api-key`
    /// (default: the preset's).
    #[serde(default)]
    pub key_header: Option<KeyHeader>,
    /// OpenAI-compatible: the name the completion cap goes under, `as_sent`, `max_tokens` or
    /// `max_completion_tokens` (default: the preset's).
    #[serde(default)]
    pub max_tokens_field: Option<CapField>,
    /// OpenAI-compatible: whether a stream asks for usage with `stream_options` (default: the
    /// preset's).
    #[serde(default)]
    pub stream_usage: Option<bool>,
    /// OpenAI-compatible: whether text-only content lists are sent as one string (default:
    /// the preset's).
    #[serde(default)]
    pub text_content: Option<bool>,
    /// `openai`, `anthropic`: the model name upstream (default: `id`).
    #[serde(default)]
    pub upstream_model: Option<String>,
    /// `anthropic`: the `anthropic-version` header (default `2023-06-01`).
    #[serde(default)]
    pub anthropic_version: Option<String>,
    /// `anthropic`: `anthropic-beta` features, sent as one comma-separated header.
    #[serde(default)]
    pub anthropic_beta: Vec<String>,
    /// `anthropic`: the model takes structured outputs (`output_config.format`), so a
    /// `json_schema` response format is sent to it rather than refused.
    #[serde(default)]
    pub structured_outputs: bool,
    /// `anthropic`: the model takes `temperature`, `top_p` and `top_k` (default true; current
    /// Claude models refuse them, and a request setting one is then refused before it is sent).
    #[serde(default = "yes")]
    pub sampling_parameters: bool,
    /// `openai`: the upstream serves OpenAI's Responses API (`/responses`), so a Responses
    /// client's request is passed through to it as the client wrote it.
    #[serde(default)]
    pub responses: bool,
    /// `openai`: the model takes `reasoning_effort`, so a Messages thinking budget or effort and
    /// a Responses `reasoning.effort` are sent to it as that rather than dropped.
    #[serde(default)]
    pub reasoning_effort: bool,
    /// `openai`, `anthropic`: how long the upstream may take to start a stream or to give a whole answer,
    /// in milliseconds (default 60,000); past it the next candidate is tried.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// `openai` over https: a PEM file of CA certificates trusted besides the platform's roots,
    /// for an upstream behind a private CA (relative to the catalogue file's directory).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// `[models.breaker]`: this model's own circuit-breaker settings.
    #[serde(default)]
    pub breaker: BreakerSettings,
    /// Where requests go, worked out from the fields above when the catalogue loads (`None`
    /// for a simulated model).
    #[serde(skip)]
    pub target: Option<Arc<Target>>,
    /// How the upstream's chat completions differ from OpenAI's, from the preset and the
    /// fields above.
    #[serde(skip)]
    pub quirks: Quirks,
    /// Models tried in order when every deployment of this one is open or failed before its
    /// first byte.
    #[serde(default)]
    pub fallbacks: Vec<String>,
    /// In a `[[models.deployments]]` table: the deployment's name, unique within its model
    /// (default: its provider's name).
    #[serde(default)]
    pub name: Option<String>,
    /// A deployment's share of its model's requests, relative to the others' (default 1).
    #[serde(default)]
    pub weight: Option<u32>,
    /// A deployment's own limit of requests per minute (on each instance).
    #[serde(default)]
    pub rpm: Option<u32>,
    /// A deployment's own limit of tokens per minute (on each instance): each request counts
    /// its prompt estimate and its completion cap when it is sent.
    #[serde(default)]
    pub tpm: Option<u64>,
    /// Where the model's requests go: its `[[models.deployments]]`, each resolved as a model
    /// of its own (the model's fields with the deployment's over them), or the model itself
    /// when it lists none. A deployment lists none.
    #[serde(skip)]
    pub deployments: Vec<Arc<Model>>,
    /// A listed deployment's name (`None`: the model is its own one deployment).
    #[serde(skip)]
    pub deployment: Option<String>,
    /// A listed deployment's weight and the sum of its model's deployments' weights.
    #[serde(skip)]
    pub share: (u32, u32),
    /// Where the model (its catalogue position) and the deployment (its position among the
    /// model's) keep their health.
    #[serde(skip)]
    pub slot: (usize, usize),
    /// Every traced attempt's span name (`chat {model}`) and what it tells its span (provider,
    /// model, deployment, server address), made by the first one (`chat::spans`).
    #[serde(skip)]
    pub traced: std::sync::OnceLock<(Arc<str>, crate::telemetry::Attributes)>,
}

impl Model {
    /// The model's id, and the deployment's name when it is one of its model's listed
    /// deployments: `gpt-4o (east)`.
    pub fn label(&self) -> String {
        match &self.deployment {
            Some(name) => format!("{} ({name})", self.id),
            None => self.id.clone(),
        }
    }

    /// The model's name upstream: `upstream_model`, else its id.
    pub fn upstream_name(&self) -> &str {
        self.upstream_model.as_deref().unwrap_or(&self.id)
    }
}

fn default_max_output() -> u32 {
    1024
}

fn yes() -> bool {
    true
}

/// A model's own circuit-breaker settings (`[models.breaker]`); what it leaves out follows the
/// server's `--breaker-*` flags. Durations are written as `10s`, `5m`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakerSettings {
    pub failures: Option<u32>,
    pub failure_rate: Option<f64>,
    pub min_requests: Option<u32>,
    #[serde(default, deserialize_with = "duration")]
    pub window: Option<Duration>,
    #[serde(default, deserialize_with = "duration")]
    pub cooldown: Option<Duration>,
    #[serde(default, deserialize_with = "duration")]
    pub max_cooldown: Option<Duration>,
}

impl BreakerSettings {
    /// `defaults` with these settings over them.
    pub fn over(&self, defaults: Policy) -> Policy {
        Policy {
            failures: self.failures.unwrap_or(defaults.failures),
            failure_rate: self.failure_rate.unwrap_or(defaults.failure_rate),
            min_requests: self.min_requests.unwrap_or(defaults.min_requests),
            window: self.window.unwrap_or(defaults.window),
            cooldown: self.cooldown.unwrap_or(defaults.cooldown),
            max_cooldown: self.max_cooldown.unwrap_or(defaults.max_cooldown),
        }
    }
}

fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(deserializer)?;
    humantime::parse_duration(&text)
        .map(Some)
        .map_err(|err| serde::de::Error::custom(format!("{text:?}: {err}")))
}

impl Model {
    /// Whether a request naming `name` is for this model: its id or one of its aliases.
    pub fn answers(&self, name: &str) -> bool {
        self.id == name || self.aliases.iter().any(|alias| alias == name)
    }
}

/// A model's (or a deployment's) table read as a [`Model`]; an error starts with `what`.
fn read_model(table: toml::Table, what: &str) -> anyhow::Result<Model> {
    toml::Value::Table(table)
        .try_into()
        .map_err(|err| anyhow::anyhow!("{what}: {}", err.to_string().trim().replace('\n', " ")))
}

/// Each model is read from its own table, so that an error can name the model.
#[derive(Deserialize)]
struct CatalogueFile {
    models: Vec<toml::Table>,
}

/// The models the gateway can route to.
#[derive(Debug, Clone)]
pub struct Catalogue {
    models: Vec<Arc<Model>>,
}

impl Catalogue {
    /// The built-in default.
    pub fn builtin() -> Self {
        Catalogue::parse(DEFAULT_CATALOGUE).unwrap_or(Catalogue { models: Vec::new() })
    }

    /// Reads a TOML catalogue file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| anyhow::anyhow!("cannot read {}: {err}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Catalogue::parse_in(&text, dir).map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))
    }

    /// Parses and checks a TOML catalogue; relative `ca_file` paths are read from the current
    /// directory.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        Catalogue::parse_in(text, Path::new("."))
    }

    /// Parses and checks a TOML catalogue whose relative paths start at `dir`.
    fn parse_in(text: &str, dir: &Path) -> anyhow::Result<Self> {
        let file: CatalogueFile = toml::from_str(text)?;
        if file.models.is_empty() {
            anyhow::bail!("the catalogue has no models");
        }
        let mut read: Vec<(Model, toml::Table, Vec<toml::Table>)> = Vec::new();
        for (index, mut table) in file.models.into_iter().enumerate() {
            let name = match table.get("id").and_then(toml::Value::as_str) {
                Some(id) => format!("{id:?}"),
                None => format!("number {}", index + 1),
            };
            let listed = deployments::take(&mut table)
                .map_err(|why| anyhow::anyhow!("model {name}: {why}"))?;
            let mut model = read_model(table.clone(), &format!("model {name}"))?;
            if !(0.0..=1.0).contains(&model.quality) || model.max_output_tokens == 0 {
                anyhow::bail!("model {name}: quality must be 0 to 1, max_output_tokens >= 1");
            }
            if read.iter().any(|(m, ..)| m.id == model.id) {
                anyhow::bail!("model {name} is listed twice");
            }
            for alias in &model.aliases {
                let taken = read.iter().any(|(m, ..)| m.answers(alias));
                if alias.is_empty() || *alias == model.id || taken {
                    anyhow::bail!("model {name}: alias {alias:?} names a model already");
                }
            }
            if let Some((taken, ..)) = read.iter().find(|(m, ..)| m.aliases.contains(&model.id)) {
                anyhow::bail!("model {name} is an alias of {:?}", taken.id);
            }
            if let Some(reserved) = std::iter::once(&model.id)
                .chain(&model.aliases)
                .find(|name| matches!(name.as_str(), "auto" | "auto-fast" | "auto-cheap"))
            {
                anyhow::bail!("model {name}: {reserved:?} is reserved for routing");
            }
            if model.name.is_some() {
                anyhow::bail!("model {name}: name is a deployment's, in [[models.deployments]]");
            }
            model.provider = model.named.0.kind;
            if listed.is_empty() {
                resolve::check(&model).map_err(|why| anyhow::anyhow!("model {name}: {why}"))?;
            }
            read.push((model, table, listed));
        }
        for (model, ..) in &read {
            deployments::check_fallbacks(model, |name| {
                read.iter()
                    .find(|(m, ..)| m.answers(name))
                    .map(|(m, ..)| m.id.as_str())
            })
            .map_err(|why| anyhow::anyhow!("model {:?}: {why}", model.id))?;
        }
        let mut models = Vec::with_capacity(read.len());
        for (index, (mut model, table, listed)) in read.into_iter().enumerate() {
            model.slot = (index, 0);
            model.deployments = deployments::expand(&mut model, &table, listed, dir)
                .map_err(|err| anyhow::anyhow!("model {:?}: {err}", model.id))?;
            models.push(Arc::new(model));
        }
        Ok(Catalogue { models })
    }

    /// Checks each model's circuit-breaker policy: `defaults` with its own settings over them.
    pub fn check_breakers(&self, defaults: Policy) -> anyhow::Result<()> {
        for deployment in self.models.iter().flat_map(|m| &m.deployments) {
            if let Err(why) = deployment.breaker.over(defaults).check() {
                let id = &deployment.id;
                match &deployment.deployment {
                    Some(name) => {
                        anyhow::bail!("model {id:?}: deployment {name:?}: breaker: {why}")
                    }
                    None => anyhow::bail!("model {id:?}: breaker: {why}"),
                }
            }
        }
        Ok(())
    }

    /// Every model, in catalogue order.
    pub fn models(&self) -> &[Arc<Model>] {
        &self.models
    }

    /// The model with this id or alias.
    pub fn get(&self, name: &str) -> Option<&Arc<Model>> {
        self.models.iter().find(|m| m.answers(name))
    }

    /// The highest-quality model (the reference for `cost_saved_credits`).
    pub fn best(&self) -> Option<&Arc<Model>> {
        self.models
            .iter()
            .max_by(|a, b| a.quality.total_cmp(&b.quality))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_deployments;
#[cfg(test)]
mod tests_presets;
