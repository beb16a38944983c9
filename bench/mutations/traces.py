"""Mutations of traces (issue 40): each breaks one rule; `bench/mutate.py` shows that the named
tests then fail. (name, file, text, replacement, cargo test arguments)
"""

T = "server-mock/src/telemetry/traces.rs"
S = "server-mock/src/telemetry/traces/span.rs"
O = "server-mock/src/telemetry/traces/otlp.rs"
M = [
 ("a traceparent is joined", T, "let parent = inner.propagator.extract(&HeaderExtractor(headers));", "let parent = { let _ = HeaderExtractor(headers); opentelemetry::Context::new() };", "--test traces"),
 ("the span carries the answer's status", S, "            i64::from(status),\n", "            i64::from(status + 1),\n", "--test traces"),
 ("the span is named by the route's template", T, 'format!("{method} {template}")', 'format!("{method}")', "--test traces"),
 ("spans of a failed export are counted", "server-mock/src/telemetry/traces/export.rs", "self.shared.dropped.increment(spans.len() as u64);", "let _ = spans.len();", "--test traces collector_down"),
 ("an attempt's span is under the request's", S, ".start_with_context(tracer, &self.cx);", ".start(tracer);", "--test traces"),
 ("an attempt's usage on its span", "server-mock/src/chat/spans.rs", 'KeyValue::new("gen_ai.usage.input_tokens", count(tokens.prompt)),', 'KeyValue::new("gen_ai.usage.input_tokens", count(tokens.completion)),', "--test traces"),
 ("a failed attempt's error type", "server-mock/src/chat/health/attempt.rs", "(Some(span), Some((outcome, why))) => span.failed(outcome.label(), why),", "(Some(span), Some(_)) => span.end(),", "--test traces"),
 ("a stream's first token is an event", "server-mock/src/chat/health/attempt.rs", 'span.event("gen_ai.first_token");', "let _ = span;", "--test traces"),
 ("an attempt's span is traced at all", "server-mock/src/chat/tries.rs", "attempt.traced(span);", "let _ = span;", "--test traces"),
 ("an agent's session is the conversation", T, '.filter(|id| !id.is_empty() && id.len() <= SESSION_MAX)', '.filter(|_| false)', "--test traces"),
]
M += [
 ("the upstream gets the attempt's traceparent", "server-mock/src/chat/tries.rs", "outgoing.with_header(header);", "let _ = header;", "--test traces"),
 ("the credential is named on the request's span", S, "traced.set_one(KeyValue::new(name, id.clone()));", "let _ = traced;", "--test traces"),
 ("a refusal ends the admission span as failed", S, 'self.0.failed(code, format!("refused: {status}"));', "let _ = (code, status);\n        self.0.end();", "--test trace_refusals refused"),
 ("authentication's refusal ends the admission span as failed", "server-mock/src/auth/mod.rs", 'span.failed("unauthorized", denied.message.into());', "span.end();", "--test trace_refusals refused"),
 ("a gateway request's admission span covers admission", "server-mock/src/auth/mod.rs", "request.extensions_mut().insert(Handoff::new(span));", "span.end();", "--test traces each_upstream_attempt"),
 ("the answer's cost on the request's span", "server-mock/src/chat/spans.rs", 'KeyValue::new("tokctl.credits_consumed", credits.to_string()),', 'KeyValue::new("tokctl.credits", credits.to_string()),', "--test traces"),
 ("a stream's server span covers its body", S, "            i64::from(status),\n        ));\n", "            i64::from(status),\n        ));\n        span.end();\n", "--test traces"),
 ("top_p is recorded", "server-mock/src/chat/spans.rs", 'KeyValue::new("gen_ai.request.top_p", top_p)', 'KeyValue::new("gen_ai.request.top", top_p)', "--test traces"),
]
M += [
 ("spans refused at a full queue are counted", "server-mock/src/telemetry/traces/export.rs", "if pending.spans.len() >= shared.queue || pending.stop {", "if pending.stop {", "--test traces hangs"),
 ("spans waiting when the server stops are sent", "server-mock/src/telemetry/traces/export.rs", "for batch in spans.chunks(shared.batch) {", "for batch in spans.chunks(shared.batch).filter(|_| !stop) {", "--test traces spans_still_waiting"),
 ("a span's parent is encoded", O, "self.bytes(4, &span.parent_span_id.to_bytes());", "let _ = span.parent_span_id;", "--test traces"),
 ("a long message's length is widened", O, "self.0.splice(at..=at, prefix.0);", "self.0[at] = prefix.0[0];", "--lib otlp"),
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
