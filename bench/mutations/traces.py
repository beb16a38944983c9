"""Mutations of traces (issue 40): each breaks one rule; `bench/mutate.py` shows that the named
tests then fail. (name, file, text, replacement, cargo test arguments)
"""

T = "server-mock/src/telemetry/traces.rs"
M = [
 ("a traceparent is joined", T, "let parent = inner.propagator.extract(&HeaderExtractor(headers));", "let parent = { let _ = HeaderExtractor(headers); Context::new() };", "--test traces"),
 ("the span carries the answer's status", T, "            i64::from(status),\n", "            i64::from(status + 1),\n", "--test traces"),
 ("the span is named by the route's template", T, 'format!("{method} {route}")', 'format!("{method}")', "--test traces"),
 ("spans of a failed export are counted", T, "self.dropped.increment(spans);", "let _ = spans;", "--test traces"),
]
