"""Mutations of providers by name and deployments (issue 39): each breaks one rule;
`bench/mutate.py` shows that the named tests then fail.
(name, file, text, replacement, cargo test arguments)
"""

S = "server-mock/src/"
C = S + "chat/"
P = "--test presets"
LIB = "--lib catalogue"
M = [
 ("a preset's cap field", C+"openai/mod.rs", "CapField::MaxTokens => false,", "CapField::MaxTokens => request.max_completion_tokens.is_some(),", P),
 ("stream usage asked only where taken", C+"openai/mod.rs", "(stream && quirks.stream_usage)", "(stream)", P),
 ("text-only content lists as one string", C+"openai/mod.rs", "if !quirks.text_content || !messages.iter().any(listed) {", "if true {", P),
 ("a list with an image goes as it came", C+"openai/mod.rs", 'Some("text") {\n            return None;', 'Some("text") {\n            continue;', P),
 ("Azure's key in api-key", C+"upstream/mod.rs", 'KeyHeader::AzureApiKey => (HeaderName::from_static("api-key"), secret),', 'KeyHeader::AzureApiKey => (AUTHORIZATION, secret),', P),
 ("no preset key to a host the catalogue chose", C+"catalogue/resolve.rs", "(None, true) => None,", "(None, true) => preset.key_env,", LIB),
 ("a region is letters, digits and dashes", C+"catalogue/presets.rs", ".all(|b| b.is_ascii_alphanumeric() || b == b'-');", ".all(|b| b != b' ');", LIB),
 ("a preset's key overridable", C+"catalogue/resolve.rs", "let key = model.key_header.unwrap_or(preset.key);", "let key = preset.key;", LIB),
 ("catalogue check says when a key's variable is unset", C+"catalogue/resolve.rs", 'Some(_) => "set",', 'Some(_) | None => "set",', P),
]
