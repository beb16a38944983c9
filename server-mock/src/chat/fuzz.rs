//! Property tests over what the gateway reads from outside: upstream SSE bodies, chat request
//! bodies and model catalogues. The suite runs each with proptest's default cases;
//! `bench/fuzz.sh` runs them for minutes. A failing input is written to `proptest-regressions/`
//! and replayed first from then on.

use bytes::Bytes;
use futures::StreamExt;
use proptest::prelude::*;
use proptest::strategy::ValueTree as _;
use serde_json::{Value, json};

use super::openai::items;
use super::request::{ChatRequest, Checked, MAX_BUDGET_CREDITS, ROLES};
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

/// A field's JSON value, and whether the documented bounds allow it.
type Field = (Value, bool);

fn allowed(value: Value) -> Field {
    (value, true)
}

fn refused(value: Value) -> Field {
    (value, false)
}

/// One message of the right shape: a known role with text or text parts (or an assistant's
/// null content), now and then an unknown role or a null content where it is not allowed.
fn well_shaped_message() -> impl Strategy<Value = Field> {
    let content = prop_oneof![
        "\\PC{0,20}".prop_map(Value::from),
        prop::collection::vec(
            "\\PC{0,8}".prop_map(|text| json!({"type": "text", "text": text})),
            0..3
        )
        .prop_map(Value::from),
    ];
    prop_oneof![
        60 => (prop::sample::select(ROLES.to_vec()), content)
            .prop_map(|(role, content)| allowed(json!({"role": role, "content": content}))),
        1 => Just(allowed(json!({"role": "assistant", "content": null}))),
        1 => Just(refused(json!({"role": "user", "content": null}))),
        1 => "(x|users|User|)".prop_map(|role| refused(json!({"role": role, "content": "hi"}))),
    ]
}

/// A request body whose every field has the type the API takes (so it always decodes), with
/// values mostly within the documented bounds and now and then just outside; and whether all
/// of them are within.
fn well_shaped_request() -> impl Strategy<Value = (Value, bool)> {
    let model = prop_oneof![
        30 => "(auto|auto-fast|auto-cheap|sim-mini|[a-z][a-z0-9.-]{0,12})".prop_map(|m| allowed(m.into())),
        1 => " {0,3}".prop_map(|m| refused(m.into())),
    ];
    let messages = prop_oneof![
        30 => prop::collection::vec(well_shaped_message(), 1..4).prop_map(|messages| {
            let ok = messages.iter().all(|(_, ok)| *ok);
            (messages.into_iter().map(|(m, _)| m).collect(), ok)
        }),
        1 => Just(refused(json!([]))),
    ];
    let tokens = || {
        prop_oneof![
            16 => (1i64..100_000).prop_map(|n| allowed(n.into())),
            // JSON Schema's integer allows a whole number written with a point.
            3 => (1u32..1_000).prop_map(|n| allowed(f64::from(n).into())),
            1 => (-100i64..=0).prop_map(|n| refused(n.into())),
        ]
    };
    let temperature = prop_oneof![
        18 => (0.0f64..=2.0).prop_map(|t| allowed(t.into())),
        1 => (-10.0f64..-0.001).prop_map(|t| refused(t.into())),
        1 => (2.001f64..10.0).prop_map(|t| refused(t.into())),
    ];
    let tool =
        "[a-z_]{1,10}".prop_map(|name| json!({"type": "function", "function": {"name": name}}));
    let tools = prop_oneof![
        18 => prop::collection::vec(tool, 0..3).prop_map(|tools| allowed(tools.into())),
        1 => Just(refused(json!([1]))),
        1 => Just(refused(json!({"type": "function"}))),
    ];
    let tool_choice = prop_oneof![
        9 => "(auto|none|required)".prop_map(|c| allowed(c.into())),
        9 => "[a-z_]{1,10}".prop_map(|name| allowed(json!({"type": "function", "function": {"name": name}}))),
        1 => Just(refused(json!(1))),
        1 => Just(refused(json!(["auto"]))),
    ];
    let weight = || prop::option::of(0.0f64..=1.0);
    let route_strategy = prop_oneof![
        18 => (weight(), weight()).prop_map(|(cost, quality)| {
            let mut strategy = serde_json::Map::new();
            if let Some(cost) = cost {
                strategy.insert("cost_weight".into(), cost.into());
            }
            if let Some(quality) = quality {
                strategy.insert("quality_weight".into(), quality.into());
            }
            // A missing weight is 0.5: only two zeros sum to nothing.
            (Value::Object(strategy), cost.unwrap_or(0.5) + quality.unwrap_or(0.5) > 0.0)
        }),
        1 => Just(refused(json!({"cost_weight": 0.0, "quality_weight": 0.0}))),
        1 => (1.001f64..5.0).prop_map(|w| refused(json!({"cost_weight": w}))),
    ];
    let budget_limit = prop_oneof![
        9 => (1..=MAX_BUDGET_CREDITS).prop_map(|credits| allowed(credits.into())),
        // Millionths of a credit, written with a point; a division rounds to the double nearest
        // the decimal, which serde_json writes back as that decimal.
        9 => (1u32..1_000_000).prop_map(|n| allowed((f64::from(n) / 1e6).into())),
        1 => Just(allowed(json!(1e-9))),
        1 => Just(refused(json!(0))),
        1 => Just(refused(json!(1e-10))),
        1 => (MAX_BUDGET_CREDITS + 1..u64::MAX / 1_000_000_000).prop_map(|credits| refused(credits.into())),
    ];
    let agent_wallet = prop_oneof![
        18 => "0x[0-9a-fA-F]{40}".prop_map(|w| allowed(w.into())),
        1 => "0x[0-9a-f]{39}".prop_map(|w| refused(w.into())),
        1 => "[0-9a-f]{42}".prop_map(|w| refused(w.into())),
    ];
    let optional = |name: &'static str, field: BoxedStrategy<Field>| {
        prop::option::of(field).prop_map(move |field| (name, field))
    };
    let fields = vec![
        optional(
            "stream",
            any::<bool>().prop_map(|b| allowed(b.into())).boxed(),
        ),
        optional(
            "stream_options",
            any::<bool>()
                .prop_map(|b| allowed(json!({"include_usage": b})))
                .boxed(),
        ),
        optional("max_tokens", tokens().boxed()),
        optional("max_completion_tokens", tokens().boxed()),
        optional("temperature", temperature.boxed()),
        optional("tools", tools.boxed()),
        optional("tool_choice", tool_choice.boxed()),
        optional("route_strategy", route_strategy.boxed()),
        optional("budget_limit", budget_limit.boxed()),
        optional("agent_wallet", agent_wallet.boxed()),
        optional(
            "top_p",
            (0.0f64..=1.0).prop_map(|p| allowed(p.into())).boxed(),
        ),
    ];
    (model, messages, fields).prop_map(|(model, messages, fields)| {
        let mut body = serde_json::Map::new();
        let mut within = true;
        let present = fields
            .into_iter()
            .filter_map(|(name, field)| field.map(|field| (name, field)));
        for (name, (value, ok)) in [("model", model), ("messages", messages)]
            .into_iter()
            .chain(present)
        {
            within &= ok;
            body.insert(name.into(), value);
        }
        (Value::Object(body), within)
    })
}

/// What every request that passed its checks holds, whatever it was made of.
fn holds_every_documented_bound(checked: &Checked) -> Result<(), TestCaseError> {
    let r = &checked.request;
    prop_assert!(!r.model.trim().is_empty());
    prop_assert!(!r.messages.is_empty());
    prop_assert!(r.temperature.is_none_or(|t| (0.0..=2.0).contains(&t)));
    prop_assert!(r.max_tokens.is_none_or(|n| n >= 1));
    prop_assert!(r.max_completion_tokens.is_none_or(|n| n >= 1));
    prop_assert!(r.budget_limit.is_none_or(|b| b.nanos() >= 1));
    prop_assert!(
        r.budget_limit
            .is_none_or(|b| b.nanos() <= MAX_BUDGET_CREDITS * 1_000_000_000)
    );
    prop_assert!(r.tools.as_ref().is_none_or(Value::is_array));
    prop_assert!(checked.max_tokens.is_none_or(|n| n >= 1));
    let (cost, quality) = checked.weights;
    prop_assert!((0.0..=1.0).contains(&cost) && (0.0..=1.0).contains(&quality));
    prop_assert!((cost + quality - 1.0).abs() < 1e-9);
    Ok(())
}

#[test]
fn most_well_shaped_requests_pass_their_checks() {
    // The property below asserts the bounds only of requests that pass: most must, or it
    // asserts little. Fixed seed, so this counts the same cases on every run.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = well_shaped_request();
    let within = (0..500)
        .filter(|_| strategy.new_tree(&mut runner).unwrap().current().1)
        .count();
    assert!(within >= 250, "{within} of 500 within bounds");
    assert!(
        within <= 450,
        "{within} of 500 within bounds: few refusals tried"
    );
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
        holds_every_documented_bound(&checked)?;
    }

    #[test]
    fn fuzz_a_well_shaped_chat_request_is_read_and_passes_exactly_when_within_bounds(
        (body, within) in well_shaped_request(),
    ) {
        let text = serde_json::to_vec(&body).unwrap();
        let request = serde_json::from_slice::<ChatRequest>(&text);
        prop_assert!(request.is_ok(), "{} not read: {:?}", body, request.err());
        let Ok(request) = request else { unreachable!() };
        let checked = request.check();
        prop_assert_eq!(checked.is_ok(), within, "{}: {:?}", body, checked.as_ref().err());
        if let Ok(checked) = checked {
            holds_every_documented_bound(&checked)?;
            prop_assert_eq!(checked.stream, body["stream"] == json!(true));
            prop_assert_eq!(checked.include_usage, body["stream_options"]["include_usage"] == json!(true));
            prop_assert_eq!(checked.request.messages.len(), body["messages"].as_array().unwrap().len());
            if let Some(limit) = body.get("max_tokens").or(body.get("max_completion_tokens")) {
                prop_assert_eq!(checked.max_tokens.map(u64::from), limit.as_f64().map(|n| n as u64));
            }
            prop_assert_eq!(checked.request.extra.contains_key("top_p"), body.get("top_p").is_some());
        }
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
