"""Mutations of the coding agents' dialects (issue 38: /v1/messages, /v1/responses): each breaks
one rule; `bench/mutate.py` shows that the named tests then fail.
(name, file, text, replacement, cargo test arguments)
"""

S = "server-mock/src/"
C = S + "chat/"
MSG = "--test messages"
RSP = "--test responses"
M = [
 ("x-api-key is a credential", S+"auth/mod.rs", "None => headers.get(&X_API_KEY),", 'None => headers.get("x-api-key-off"),', MSG),
 ("402 is billing_error", S+"http/anthropic.rs", '402 => "billing_error",', '402 => "invalid_request_error",', MSG),
 ("system turns among the messages are read", C+"form/messages.rs", "system_texts(message.get(\"content\").unwrap_or(&Value::Null), &mut read)?;\n                    continue;", "continue;", "--lib " + MSG),
 ("anthropic-beta goes on to Claude", C+"messages/read.rs", 'HeaderName::from_static("anthropic-beta"),', 'HeaderName::from_static("anthropic-version"),', MSG),
 ("a relayed body passes through (thinking, include kept)", C+"upstream/relayed.rs", 'if key != "model" && key != self.cap_field && key != "stream" {', 'if key != "model" && key != self.cap_field && key != "stream" && key != "thinking" && key != "include" {', MSG + " " + RSP),
 ("Claude's errors come back unchanged", C+"failures.rs", "Inbound::Messages(_) => self.relayable[0].take(),", "Inbound::Messages(_) => None,", MSG),
 ("GET /v1/models in Anthropic's shape", C+"models.rs", 'if headers.contains_key("anthropic-version") {', "if false {", MSG),
 ("agents' bodies up to 32 MiB", S+"http/extract.rs", "pub const MAX_AGENT_BODY_BYTES: usize = 32 * 1024 * 1024;", "pub const MAX_AGENT_BODY_BYTES: usize = 64 * 1024;", MSG),
 ("x-tokctl-request-id on the gateway's answers", S+"http/edge.rs", "if *this.agents {", "if false {", MSG + " " + RSP),
 ("x-tokctl-dropped names what was dropped", C+"wire/headers.rs", "headers.insert(DROPPED, dropped);", "let _ = dropped;", MSG + " " + RSP),
 ("store: true refused", C+"responses/mod.rs", 'if body.get("store") == Some(&Value::Bool(true)) {', "if false {", "--lib"),
 ("a namespace's function goes back under its own name", C+"wire/responses/object.rs", ".and_then(|rest| rest.strip_prefix(JOIN))", '.and_then(|rest| rest.strip_prefix("::"))', "--lib"),
 ("events numbered in order", C+"wire/responses.rs", "*sequence += 1;", "*sequence += 2;", "--lib"),
 ("cached tokens in Responses usage", C+"wire/responses/object.rs", "t.number(tokens.cache_read);", "t.number(0);", "--lib"),
 ("Responses passes through to /responses", C+"openai/relay.rs", 'pub const PATH: &str = "/responses";', 'pub const PATH: &str = "/chat/completions";', RSP),
 ("a relayed Responses stream is billed from its usage", C+"openai/relay.rs", "completion: usage.output_tokens,", "completion: 0,", RSP),
 ("response.completed held and then sent", C+"stream.rs", "Item::Event(event) if is_final(&event) => *held = Some(event),", "Item::Event(event) if is_final(&event) => drop(event),", RSP),
 ("the upstream's Responses errors come back unchanged", C+"failures.rs", "Inbound::Responses(_) => self.relayable[1].take(),", "Inbound::Responses(_) => None,", RSP),
 ("a thinking budget is an effort", C+"form/messages.rs", '(None, Some(budget)) if budget < 24_000 => "medium",', '(None, Some(budget)) if budget < 24_000 => "high",', "--lib " + RSP),
 ("a ping while a translated Messages stream waits", C+"stream.rs", 'Err(_) => return Some(Event::named("ping", events::ping())),', "Err(_) => continue,", MSG),
 ("the effort only to a model that takes it", C+"dialect.rs", "let effort = original.effort.as_ref().filter(|_| model.reasoning_effort);", "let effort = original.effort.as_ref();", RSP),
 ("unknown top-level fields are named dropped", C+"form/mod.rs", "None => others.push(key.as_str()),", "None => {}", "--lib"),
 ("fields read elsewhere are not named dropped", C+"form/mod.rs", "None if elsewhere.contains(&key.as_str()) => {}", "None if false => {}", "--lib"),
]
