//! Providers by name: what each preset resolves to, and what a catalogue may override.

use super::presets::{CapField, PRESETS, Quirks};
use super::*;

fn entry(provider: &str, extra: &str) -> String {
    format!(
        "[[models]]\nid = \"m\"\nprovider = \"{provider}\"\nprompt_price = 1\n\
         completion_price = 1\nquality = 0.5\nlatency_ms = 1\n{extra}"
    )
}

fn one(provider: &str, extra: &str) -> Arc<Model> {
    match Catalogue::parse(&entry(provider, extra)) {
        Ok(catalogue) => catalogue.models()[0].clone(),
        Err(err) => panic!("{provider} {extra:?}: {err}"),
    }
}

/// A preset, the fields it needs, its URL, key header and variable, and quirks.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    KeyHeader,
    &'static str,
    CapField,
    bool,
    bool,
);

/// Written from the providers' pages (docs/api.md cites them), not from the table.
const EXPECTED: &[Row] = &[
    (
        "gemini",
        "",
        "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
        KeyHeader::Bearer,
        "GEMINI_API_KEY",
        CapField::MaxTokens,
        true,
        false,
    ),
    (
        "groq",
        "",
        "https://api.groq.com/openai/v1/chat/completions",
        KeyHeader::Bearer,
        "GROQ_API_KEY",
        CapField::MaxCompletionTokens,
        true,
        false,
    ),
    (
        "deepseek",
        "",
        "https://api.deepseek.com/chat/completions",
        KeyHeader::Bearer,
        "DEEPSEEK_API_KEY",
        CapField::MaxTokens,
        true,
        true,
    ),
    (
        "mistral",
        "",
        "https://api.mistral.ai/v1/chat/completions",
        KeyHeader::Bearer,
        "MISTRAL_API_KEY",
        CapField::MaxTokens,
        false,
        false,
    ),
    (
        "together",
        "",
        "https://api.together.ai/v1/chat/completions",
        KeyHeader::Bearer,
        "TOGETHER_API_KEY",
        CapField::MaxTokens,
        true,
        false,
    ),
    (
        "xai",
        "",
        "https://api.x.ai/v1/chat/completions",
        KeyHeader::Bearer,
        "XAI_API_KEY",
        CapField::MaxTokens,
        true,
        false,
    ),
    (
        "fireworks",
        "",
        "https://api.fireworks.ai/inference/v1/chat/completions",
        KeyHeader::Bearer,
        "FIREWORKS_API_KEY",
        CapField::MaxTokens,
        true,
        false,
    ),
    (
        "openrouter",
        "",
        "https://openrouter.ai/api/v1/chat/completions",
        KeyHeader::Bearer,
        "OPENROUTER_API_KEY",
        CapField::MaxTokens,
        false,
        false,
    ),
    (
        "azure",
        "resource = \"contoso\"",
        "https://contoso.openai.azure.com/openai/v1/chat/completions",
        KeyHeader::AzureApiKey,
        "AZURE_OPENAI_API_KEY",
        CapField::MaxCompletionTokens,
        true,
        false,
    ),
    (
        "bedrock",
        "region = \"eu-west-1\"",
        "https://bedrock-runtime.eu-west-1.amazonaws.com/openai/v1/chat/completions",
        KeyHeader::Bearer,
        "AWS_BEARER_TOKEN_BEDROCK",
        CapField::MaxCompletionTokens,
        true,
        false,
    ),
];

#[test]
fn each_preset_fills_in_its_url_key_and_quirks() {
    for &(name, extra, url, key, var, cap, stream_usage, text_content) in EXPECTED {
        let model = one(name, extra);
        let target = model.target.as_ref().expect(name);
        assert_eq!(target.url(), url, "{name}");
        assert_eq!(target.key(), Some((key, var)), "{name}");
        let quirks = Quirks {
            cap,
            stream_usage,
            text_content,
        };
        assert_eq!(model.quirks, quirks, "{name}");
        assert_eq!(model.provider, ProviderKind::Openai, "{name}");
    }
    let claude = one("anthropic", "");
    let target = claude.target.as_ref().unwrap();
    assert_eq!(target.url(), "https://api.anthropic.com/v1/messages");
    assert_eq!(target.key(), Some((KeyHeader::ApiKey, "ANTHROPIC_API_KEY")));
    // Every preset but the three kinds is checked above.
    assert_eq!(PRESETS.len(), EXPECTED.len() + 3);
}

#[test]
fn everything_a_preset_fills_in_can_be_overridden() {
    let own = one(
        "azure",
        "base_url = \"http://127.0.0.1:9/openai/v1\"\napi_key_env = \"MY_KEY\"\n\
         key_header = \"bearer\"\nmax_tokens_field = \"as_sent\"\nstream_usage = false\n\
         text_content = true",
    );
    let target = own.target.as_ref().unwrap();
    assert_eq!(
        target.url(),
        "http://127.0.0.1:9/openai/v1/chat/completions"
    );
    assert_eq!(target.key(), Some((KeyHeader::Bearer, "MY_KEY")));
    let quirks = Quirks {
        cap: CapField::AsSent,
        stream_usage: false,
        text_content: true,
    };
    assert_eq!(own.quirks, quirks);
    // A key goes to a host the catalogue chose only when the catalogue names it.
    let elsewhere = one("groq", "base_url = \"http://127.0.0.1:9/openai/v1\"");
    assert_eq!(elsewhere.target.as_ref().unwrap().key(), None);
    let sent = one("anthropic", "key_header = \"bearer\"");
    let sent = sent.target.as_ref().unwrap().key();
    assert_eq!(sent, Some((KeyHeader::Bearer, "ANTHROPIC_API_KEY")));
    // The generic provider keeps OpenAI's own behaviour and sends no key unasked.
    let generic = one("openai", "base_url = \"http://127.0.0.1:9/v1\"");
    assert_eq!(generic.quirks, presets::OPENAI);
    assert_eq!(generic.target.as_ref().unwrap().key(), None);
}

#[test]
fn what_a_preset_needs_or_cannot_take_is_named() {
    let refused = |provider: &str, extra: &str| {
        Catalogue::parse(&entry(provider, extra))
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let why = refused("azure", "");
    assert!(why.contains("the azure provider needs resource"), "{why}");
    let why = refused("bedrock", "");
    assert!(why.contains("the bedrock provider needs region"), "{why}");
    for bad in ["", "eu/west", "a.b", "x y", "evil.com#"] {
        let why = refused("bedrock", &format!("region = {bad:?}"));
        assert!(why.contains("letters, digits and dashes"), "{bad:?}: {why}");
    }
    let why = refused("groq", "region = \"us\"");
    assert!(why.contains("region fills a preset's base URL"), "{why}");
    let why = refused("azure", "resource = \"r\"\nbase_url = \"http://h/v1\"");
    assert!(why.contains("once base_url is given"), "{why}");
    let why = refused("gemni", "");
    assert!(
        why.contains("unknown provider \"gemni\"") && why.contains("openrouter"),
        "{why}"
    );
    let why = refused("anthropic", "stream_usage = false");
    assert!(why.contains("are for OpenAI-compatible providers"), "{why}");
    let why = refused("simulated", "api_key_env = \"K\"");
    assert!(why.contains("are for upstream providers"), "{why}");
    let why = refused("groq", "key_header = \"basic\"");
    assert!(why.contains("key_header"), "{why}");
    let why = refused("groq", "max_tokens_field = \"max_output_tokens\"");
    assert!(why.contains("max_tokens_field"), "{why}");
}
