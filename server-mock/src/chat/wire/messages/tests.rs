use std::collections::VecDeque;

use serde_json::{Value, json};

use super::*;
use crate::chat::form::Detail;

/// Each event as (name, data).
fn written(out: &VecDeque<Event>) -> Vec<(String, Value)> {
    out.iter()
        .map(|e| {
            let name = e.name.as_deref().unwrap_or_default().to_string();
            (name, serde_json::from_str(&e.data).unwrap())
        })
        .collect()
}

#[test]
fn text_then_a_tool_call_are_two_blocks_between_start_and_stop() {
    let mut writer = Writer::new("msg_1".into(), "m".into());
    let mut out = VecDeque::new();
    writer.opening(12, &mut out);
    for item in [
        Item::Text("Running".into()),
        Item::Text(" ls.".into()),
        Item::ToolCall {
            index: 0,
            id: "call_1".into(),
            name: "Bash".into(),
        },
        Item::ToolArguments {
            index: 0,
            piece: "{\"command\":".into(),
        },
        Item::ToolArguments {
            index: 0,
            piece: "\"ls\"}".into(),
        },
    ] {
        assert!(writer.piece(&item, &mut out));
    }
    assert!(!writer.piece(&Item::Finish(Finish::plain("tool_calls")), &mut out));
    let tokens = Tokens::with(12, 5, Detail::default());
    writer.closing(&Finish::plain("tool_calls"), &tokens, &mut out);
    let events = written(&out);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let start = &events[0].1["message"];
    assert_eq!(start["usage"]["input_tokens"], 12);
    assert_eq!(start["usage"]["cache_read_input_tokens"], 0);
    assert_eq!(start["usage"]["cache_creation_input_tokens"], 0);
    assert_eq!(
        events[3].1,
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Running"}})
    );
    assert_eq!(
        events[6].1["content_block"],
        json!({"type": "tool_use", "id": "call_1", "name": "Bash", "input": {}})
    );
    assert_eq!(events[6].1["index"], 1);
    assert_eq!(
        events[8].1["delta"],
        json!({"type": "input_json_delta", "partial_json": "\"ls\"}"})
    );
    assert_eq!(events[10].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(events[10].1["usage"]["output_tokens"], 5);
}

#[test]
fn an_openai_upstreams_deltas_are_read_into_blocks() {
    let mut writer = Writer::new("msg_1".into(), "m".into());
    let mut out = VecDeque::new();
    let deltas = [
        r#"{"reasoning_content":"hmm"}"#,
        r#"{"content":"ok"}"#,
        r#"{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"Bash","arguments":""}}]}"#,
        r#"{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}"#,
    ];
    for delta in deltas {
        let raw = serde_json::value::RawValue::from_string(delta.into()).unwrap();
        let pieces = Item::typed(&raw);
        assert!(!pieces.is_empty(), "{delta}");
        for piece in &pieces {
            assert!(writer.piece(piece, &mut out), "{delta}");
        }
    }
    let events = written(&out);
    let kinds: Vec<String> = events
        .iter()
        .map(|(name, data)| match name.as_str() {
            "content_block_start" => {
                format!("start {}", data["content_block"]["type"].as_str().unwrap())
            }
            "content_block_delta" => format!("delta {}", data["delta"]["type"].as_str().unwrap()),
            other => other.to_string(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "start thinking",
            "delta thinking_delta",
            "content_block_stop",
            "start text",
            "delta text_delta",
            "content_block_stop",
            "start tool_use",
            "delta input_json_delta"
        ]
    );
}

#[test]
fn an_error_is_the_upstreams_own_when_it_gave_one() {
    let status = axum::http::StatusCode::BAD_GATEWAY;
    let ours = error(status, "the upstream failed", None);
    assert_eq!(ours.name.as_deref(), Some("error"));
    let ours: Value = serde_json::from_str(&ours.data).unwrap();
    assert_eq!(
        ours,
        json!({"type": "error", "error": {"type": "api_error", "message": "the upstream failed"}})
    );
    let theirs = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    assert_eq!(error(status, "x", Some(theirs.as_bytes())).data, theirs);
}

#[test]
fn the_streamed_usage_is_the_whole_answers_usage_and_odd_text_survives() {
    let mut writer = Writer::new("msg_1".into(), "a \"quoted\" model".into());
    let mut out = VecDeque::new();
    writer.opening(3, &mut out);
    let odd = "line\nbreak, \"quote\", back\\slash, \u{1}, é";
    assert!(writer.piece(&Item::Text(odd.into()), &mut out));
    assert!(writer.piece(&Item::Reasoning(odd.into()), &mut out));
    let tokens = Tokens::with(
        20,
        7,
        Detail {
            cache_read: 4,
            cache_write: 3,
            cache_write_1h: 2,
            reasoning: 1,
        },
    );
    writer.closing(&Finish::plain("stop"), &tokens, &mut out);
    let events = written(&out);
    assert_eq!(events[0].1["message"]["model"], "a \"quoted\" model");
    assert_eq!(events[3].1["delta"]["text"], odd);
    assert_eq!(events[6].1["delta"]["thinking"], odd);
    let delta = events
        .iter()
        .find(|(name, _)| name == "message_delta")
        .unwrap();
    assert_eq!(
        delta.1["usage"],
        serde_json::to_value(usage(&tokens)).unwrap(),
        "the stream's usage as the whole answer's"
    );
}
