"""Mutations of traces (issue 40): each breaks one rule; `bench/mutate.py` shows that the named
tests then fail. (name, file, text, replacement, cargo test arguments)
"""

T = "server-mock/src/telemetry/traces.rs"
S = "server-mock/src/telemetry/traces/span.rs"
O = "server-mock/src/telemetry/traces/otlp.rs"
M = [
 ('a traceparent is joined', 'server-mock/src/telemetry/traces.rs', 'let parent = context::extract(headers);', 'let parent: Option<context::Ids> = None;', '--test traces'),
 ("the span carries the answer's status", 'server-mock/src/telemetry/traces/span.rs', 'attributes.int("http.response.status_code", i64::from(status));', 'attributes.int("http.response.status_code", i64::from(status + 1));', '--test traces'),
 ("the span is named by the route's template", T, 'format!("{method} {template}")', 'format!("{method}")', "--test traces"),
 ("spans of a failed export are counted", "server-mock/src/telemetry/traces/export.rs", "self.shared.dropped.increment(count as u64);\n                let retry_at", "let retry_at", "--test traces collector_down"),
 ("an attempt's span is under the request's", 'server-mock/src/telemetry/traces/span.rs', 'let under = Some((parent.ids.span, false));', 'let under = None;', '--test traces'),
 ("an attempt's usage on its span", 'server-mock/src/chat/spans.rs', 'attributes.int("gen_ai.usage.input_tokens", count(tokens.prompt));', 'attributes.int("gen_ai.usage.input_tokens", count(tokens.completion));', '--test traces'),
 ("a failed attempt's error type", "server-mock/src/chat/health/attempt.rs", "(Some(span), Some((outcome, why))) => span.failed(outcome.label(), why),", "(Some(span), Some(_)) => span.end(),", "--test traces"),
 ("a stream's first token is an event", "server-mock/src/chat/health/attempt.rs", 'span.event("gen_ai.first_token");', "let _ = span;", "--test traces"),
 ("an attempt's span is traced at all", "server-mock/src/chat/tries.rs", "attempt.traced(span);", "let _ = span;", "--test traces"),
 ("an agent's session is the conversation", T, '.filter(|id| !id.is_empty() && id.len() <= SESSION_MAX)', '.filter(|_| false)', "--test traces"),
]
M += [
 ("the upstream gets the attempt's traceparent", "server-mock/src/chat/tries.rs", "outgoing.with_header(header);", "let _ = header;", "--test traces"),
 ("the credential is named on the request's span", 'server-mock/src/telemetry/traces/span.rs', 'traced.0.open.with(|record| record.attributes.str(name, id));', 'let _ = traced;', '--test traces'),
 ("a refusal ends the admission span as failed", S, 'self.0.failed(code, format!("refused: {status}"));', "let _ = (code, status);\n        self.0.end();", "--test trace_refusals refused"),
 ("authentication's refusal ends the admission span as failed", "server-mock/src/auth/mod.rs", 'span.failed("unauthorized", denied.message.into());', "span.end();", "--test trace_refusals refused"),
 ("a gateway request's admission span covers admission", 'server-mock/src/auth/mod.rs', 'traced.hand_on(span);', 'span.end();', '--test traces each_upstream_attempt'),
 ("the answer's cost on the request's span", 'server-mock/src/chat/spans.rs', 'attributes.str("tokctl.credits_consumed", credits.decimal(&mut text));', 'attributes.str("tokctl.credits", credits.decimal(&mut text));', '--test traces'),
 ("a stream's server span covers its body", 'server-mock/src/telemetry/traces/span.rs', 'record.end = now();', 'record.end = record.start;', '--test traces'),
 ('top_p is recorded', 'server-mock/src/chat/spans.rs', 'attributes.float("gen_ai.request.top_p", top_p);', 'attributes.float("gen_ai.request.top", top_p);', '--test traces'),
]
M += [
 ("spans refused at a full queue are counted", "server-mock/src/telemetry/traces/export.rs", "if pending.ends.len() >= shared.queue || pending.stop {", "if pending.stop {", "--test traces hangs"),
 ("spans waiting when the server stops are sent", "server-mock/src/telemetry/traces/export.rs", "self.export(spans, count);", "if !stop {\n                    self.export(spans, count);\n                }", "--test traces spans_still_waiting"),
 ("spans past a batch when the batcher stops all leave", "server-mock/src/telemetry/traces/export.rs", "if stop && drained {", "if stop {", "--lib export"),
 ("a span's parent is encoded", 'server-mock/src/telemetry/traces/otlp.rs', 'field[2..].copy_from_slice(parent);\n            self.0.extend_from_slice(&field);', 'field[2..].copy_from_slice(parent);\n            let _ = field;', '--test traces'),
 ("a span's length is the bytes written", O, 'let flags = 6;', 'let flags = 5;', '--lib otlp'),
 ("a status message's length is the bytes written", O, 'string_len(description) + 2', 'string_len(description) + 1', '--lib otlp'),
 ("more spans than a batch leave a batch at a time", "server-mock/src/telemetry/traces/export.rs", "let count = self.ends.len().min(batch);", "let count = self.ends.len();", "--lib export"),
]
M += [
 ("content only when asked", "server-mock/src/chat/tries.rs", "let content = traced.content();", "let content = true;", "--test trace_content"),
 ("content is redacted", "server-mock/src/chat/spans.rs", 'serde_json::json!({"type": "text", "content": crate::redact::redact(text)})', 'serde_json::json!({"type": "text", "content": text})', "--test trace_content"),
 ("provider keys are redacted", "server-mock/src/redact.rs", r'r"|\bsk-(?:ant-|proj-|svcacct-|admin-)?[0-9A-Za-z_-]{20,}",', r'r"|\bsk-(?:ant-|svcacct-|admin-)[0-9A-Za-z_-]{20,}",', "--test trace_content"),
]
C = "server-mock/src/chat/mod.rs"
M += [
 ("a dialect's refusal of the body ends the admission span as failed", C, "Ok(body) => check(body, headers).map_err(IntoResponse::into_response),", "Ok(body) => match check(body, headers) {\n            Ok(checked) => Ok(checked),\n            Err(refusal) => return refusal.into_response(),\n        },", "--test trace_refusals dialect"),
 ("a body refused by its extractor ends the admission span as failed", C, "Err(rejected) => Err(rejected.into_response()),", "Err(rejected) => return rejected.into_response(),", "--test trace_refusals not_a_request"),
]
M += [
 ("a stream's text is kept for its span", "server-mock/src/chat/stream.rs", "kept.piece(piece);", "let _ = (kept, piece);", "--test trace_content streamed"),
]
X = "server-mock/src/telemetry/traces/context.rs"
M += [
 ("new traces are kept at the ratio", X, "sampled: sampled(&trace, ratio),", "sampled: true,", "--test trace_sampling"),
 ("a caller's decision is followed", X, "return parent.child();", "return Ids { sampled: true, ..parent.child() };", "--test trace_sampling"),
 ("a trace not kept records nothing", S, "let record = ids.sampled.then(|| {", "let record = true.then(|| {", "--test trace_sampling"),
 ("a traceparent of version 00 has nothing after it", X, "(version == 0 && longer)", "false", "--lib context"),
]
