//! Property tests over what the gateway reads from outside: upstream SSE bodies, chat request
//! bodies and model catalogues. The suite runs each with proptest's default cases;
//! `bench/fuzz.sh` runs them for minutes. A failing input is written to `proptest-regressions/`
//! and replayed first from then on.

use bytes::Bytes;
use futures::StreamExt;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::openai::items;
use super::request::ChatRequest;
use crate::chat::catalogue::Catalogue;

/// What the gateway makes of an upstream body arriving in `chunks`, written out.
fn read(chunks: Vec<Vec<u8>>) -> Vec<String> {
    let body = futures::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from(c))));
    let items = items(Box::pin(body));
    futures::executor::block_on(items.map(|item| format!("{item:?}")).collect())
}

/// `bytes` cut at `cuts` (positions taken modulo its length).
fn split(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    at.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for to in at.into_iter().chain([bytes.len()]) {
        chunks.push(bytes[from..to].to_vec());
        from = to;
    }
    chunks
}

/// One SSE event an upstream might send: a text delta, a finish, usage, a keep-alive, a
/// comment, a `retry:`, an `event:` line, or `[DONE]`.
fn event() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,12}".prop_map(|text| format!(
            "data: {}",
            json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
        )),
        "[a-z_]{1,8}".prop_map(|reason| format!(
            "data: {}",
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
        )),
        (0u64..10_000, 0u64..10_000).prop_map(|(p, c)| format!(
            "data: {}",
            json!({"choices": [], "usage": {"prompt_tokens": p, "completion_tokens": c}})
        )),
        Just("data:".to_string()),
        "\\PC{0,10}".prop_map(|c| format!(": {c}")),
        (0u32..100_000).prop_map(|ms| format!("retry: {ms}")),
        "[a-z]{0,6}".prop_map(|e| format!("event: {e}")),
        Just("data: [DONE]".to_string()),
    ]
}

/// Events written with one kind of line end, as an SSE body.
fn body() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(event(), 0..12),
        prop::sample::select(vec!["\n", "\r\n", "\r"]),
    )
        .prop_map(|(events, end)| {
            let mut text = String::new();
            for event in events {
                text.push_str(&event);
                text.push_str(end);
                text.push_str(end);
            }
            text.into_bytes()
        })
}

/// A JSON value of any shape, small.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A request body: the fields the gateway knows, each present or not, with values of any shape
/// or of the right one, and fields it does not know.
fn request() -> impl Strategy<Value = Value> {
    let known = [
        "model",
        "messages",
        "stream",
        "stream_options",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "tools",
        "tool_choice",
        "route_strategy",
        "budget_limit",
        "agent_wallet",
    ];
    let field = (prop::sample::select(known.to_vec()), json_value());
    let message = ("(user|assistant|system|tool|x)", "\\PC{0,20}")
        .prop_map(|(role, content)| json!({"role": role, "content": content}));
    (
        prop::collection::vec(field, 0..8),
        prop::collection::vec(message, 0..3),
        "(auto|auto-cheap|sim-mini|\\PC{0,6})",
        prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..3),
    )
        .prop_map(|(fields, messages, model, unknown)| {
            let mut body = serde_json::Map::new();
            body.insert("model".into(), model.into());
            body.insert("messages".into(), messages.into());
            body.extend(unknown);
            body.extend(
                fields
                    .into_iter()
                    .map(|(name, value)| (name.to_string(), value)),
            );
            Value::Object(body)
        })
}

proptest! {
    #[test]
    fn fuzz_upstream_sse_reads_the_same_however_the_bytes_are_cut(
        body in body(),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let whole = read(vec![body.clone()]);
        prop_assert_eq!(read(split(&body, &cuts)), whole);
    }

    #[test]
    fn fuzz_upstream_sse_of_any_bytes_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let items = read(split(&bytes, &cuts));
        prop_assert!(items.len() <= bytes.len() * 3 + 1);
    }

    #[test]
    fn fuzz_chat_request_bytes_are_read_or_refused_never_a_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        if let Ok(request) = serde_json::from_slice::<ChatRequest>(&bytes) {
            let _ = request.check();
        }
    }

    #[test]
    fn fuzz_a_chat_request_that_passes_its_checks_holds_every_documented_bound(body in request()) {
        let text = serde_json::to_vec(&body).unwrap();
        let Ok(request) = serde_json::from_slice::<ChatRequest>(&text) else {
            return Ok(());
        };
        let Ok(checked) = request.check() else {
            return Ok(());
        };
        let r = &checked.request;
        prop_assert!(!r.model.trim().is_empty());
        prop_assert!(!r.messages.is_empty());
        prop_assert!(r.temperature.is_none_or(|t| (0.0..=2.0).contains(&t)));
        prop_assert!(r.max_tokens.is_none_or(|n| n >= 1));
        prop_assert!(r.max_completion_tokens.is_none_or(|n| n >= 1));
        prop_assert!(r.budget_limit.is_none_or(|b| b.nanos() >= 1));
        prop_assert!(r.tools.as_ref().is_none_or(Value::is_array));
        let (cost, quality) = checked.weights;
        prop_assert!((cost + quality - 1.0).abs() < 1e-9);
    }

    #[test]
    fn fuzz_catalogue_text_is_read_or_refused_never_a_panic(text in "\\PC{0,300}") {
        let _ = Catalogue::parse(&text);
    }

    #[test]
    fn fuzz_catalogue_prices_are_kept_exactly_or_refused(
        whole in 0u64..1_000_000,
        fraction in "[0-9]{0,9}",
        quality in 0.0f64..=1.0,
    ) {
        let price = if fraction.is_empty() { whole.to_string() } else { format!("{whole}.{fraction}") };
        let text = format!(
            "[[models]]\nid = \"m\"\nprovider = \"simulated\"\nprompt_price = {price}\n\
             completion_price = \"{price}\"\nquality = {quality}\nlatency_ms = 1\n"
        );
        let significant = fraction.trim_end_matches('0');
        match Catalogue::parse(&text) {
            Ok(catalogue) => {
                prop_assert!(significant.len() <= 6, "{price} accepted");
                let model = &catalogue.models()[0];
                let written = if significant.is_empty() { whole.to_string() } else { format!("{whole}.{significant}") };
                prop_assert_eq!(model.prompt_price.per_1k().to_string(), written.clone());
                prop_assert_eq!(model.completion_price.per_1k().to_string(), written);
            }
            Err(err) => {
                prop_assert!(significant.len() > 6, "{price} refused: {err}");
                prop_assert!(err.to_string().contains("model \"m\""), "{err}");
            }
        }
    }
}
