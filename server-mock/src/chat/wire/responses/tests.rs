use std::collections::VecDeque;

use serde_json::{Value, json};

use super::*;
use crate::chat::form::{Detail, SaidCall};

fn original(body: Value) -> Arc<Original> {
    Arc::new(Original {
        body: body.as_object().unwrap().clone(),
        headers: Vec::new(),
        dropped: Vec::new(),
        effort: None,
    })
}

fn written(out: &VecDeque<Event>) -> Vec<Value> {
    out.iter()
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect()
}

#[test]
fn a_stream_is_items_between_created_and_completed_numbered_in_order() {
    let request = json!({"model": "m", "input": "hi", "tools": [{"type": "namespace", "name": "mcp__github",
        "tools": [{"type": "function", "name": "list_issues"}]}]});
    let mut writer = Writer::new("resp_1".into(), "m".into(), original(request));
    let mut out = VecDeque::new();
    writer.opening(&mut out);
    for item in [
        Item::Reasoning("think".into()),
        Item::Text("Hel".into()),
        Item::Text("lo".into()),
        Item::ToolCall {
            index: 0,
            id: "call_1".into(),
            name: "mcp__github__list_issues".into(),
        },
        Item::ToolArguments {
            index: 0,
            piece: "{}".into(),
        },
    ] {
        assert!(writer.piece(&item, &mut out));
    }
    let tokens = Tokens::with(
        10,
        4,
        Detail {
            cache_read: 3,
            reasoning: 1,
            ..Detail::default()
        },
    );
    writer.closing(&Finish::plain("tool_calls"), &tokens, &mut out);
    let events = written(&out);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], i, "{event}");
    }
    assert_eq!(out[0].name.as_deref(), Some("response.created"));
    let done = &events[12];
    assert_eq!(done["text"], "Hello");
    let completed = &events.last().unwrap()["response"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"][1]["content"][0]["text"], "Hello");
    let call = &completed["output"][2];
    assert_eq!(
        (
            call["name"].clone(),
            call["namespace"].clone(),
            call["call_id"].clone(),
            call["arguments"].clone()
        ),
        (
            json!("list_issues"),
            json!("mcp__github"),
            json!("call_1"),
            json!("{}")
        )
    );
    assert_eq!(
        completed["usage"],
        json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 3},
        "output_tokens": 4, "output_tokens_details": {"reasoning_tokens": 1}, "total_tokens": 14})
    );
}

#[test]
fn a_whole_answer_is_a_response_object_and_a_cut_one_is_incomplete() {
    let request =
        json!({"model": "m", "input": "hi", "instructions": "Be brief.", "max_output_tokens": 5});
    let said = Said {
        text: "Hi.".into(),
        reasoning: None,
        tool_calls: vec![SaidCall {
            id: "call_1".into(),
            name: "shell".into(),
            arguments: "{\"command\":[\"ls\"]}".into(),
        }],
    };
    let body = request.as_object().unwrap();
    let whole = whole(
        body,
        "resp_1",
        "m",
        &said,
        &Finish::plain("length"),
        &Tokens::new(3, 5),
    );
    let whole: Value = serde_json::from_str(&whole).unwrap();
    assert_eq!(whole["object"], "response");
    assert_eq!(whole["status"], "incomplete");
    assert_eq!(whole["incomplete_details"]["reason"], "max_output_tokens");
    assert_eq!(whole["instructions"], "Be brief.");
    assert_eq!(
        whole["output"][0]["content"][0],
        json!({"type": "output_text", "text": "Hi.", "annotations": []})
    );
    assert_eq!(whole["output"][1]["type"], "function_call");
    assert!(whole["output"][1].get("namespace").is_none());
    assert_eq!(whole["usage"]["total_tokens"], 8);
}
