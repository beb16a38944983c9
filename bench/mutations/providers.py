"""Mutations of providers by name and deployments (issue 39): each breaks one rule;
`bench/mutate.py` shows that the named tests then fail.
(name, file, text, replacement, cargo test arguments)
"""

S = "server-mock/src/"
C = S + "chat/"
P = "--test presets"
LIB = "--lib catalogue"
D = "--test deployments"
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
 ("round robin gives each its weight's share", C+"spread.rs", "current[best] -= total;", "current[best] -= 1;", "--lib spread " + D),
 ("one retry on another deployment", C+"tries.rs", "const PER_MODEL: usize = 2;", "const PER_MODEL: usize = 1;", D),
 ("no more than one retry", C+"tries.rs", "const PER_MODEL: usize = 2;", "const PER_MODEL: usize = 3;", D),
 ("an open deployment is passed over (Retry-After)", C+"health.rs", "health.breaker.state(at) != State::Open\n", "true\n", D),
 ("a deployment's own limit counts its requests", C+"health.rs", "                health.window.take(minute, tokens);", "", D),
 ("a request's worst case at its dearest deployment", C+"catalogue/prices.rs", "            0 | 1 => own,", "            _ => own,", LIB),
 ("route_reason names the deployment", C+"failures.rs", "if let Some(name) = &chosen.deployment {", "if let Some(name) = None::<&String> {", D),
 ("named fallbacks are candidates", C+"routing.rs", "candidates.extend(fit.into_iter().map(|m| (m, cap(m))));", "let _ = fit;", D),
 ("fallbacks only within the budget", C+"routing.rs", "named.partition(|m| fits(m));", "named.partition(|_| true);", D),
 ("the ledger records the deployment", C+"accounting.rs", "deployment: self.model.deployment.clone(),", "deployment: None,", D),
 ("credits at the answering deployment's prices", C+"accounting.rs", "let cost = self.model.charge(tokens);", "let cost = self.gateway.catalogue.get(&self.model.id).map_or(Credits::ZERO, |m| m.charge(tokens));", D),
 ("metrics by deployment", S+"telemetry/gateway.rs", """                        ("deployment", deployment),
                        ("outcome", outcome.label()),""", """                        ("outcome", outcome.label()),""", "--test metrics"),
 ("a deployment of another API is refused", C+"catalogue/deployments.rs", "if deployment.provider != model.provider {", "if false {", LIB),
]
