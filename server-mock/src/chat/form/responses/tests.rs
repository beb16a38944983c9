use serde_json::{Value, json};

use super::*;

fn read(body: Value) -> Result<Read, Refusal> {
    Conversation::from_responses(body.as_object().unwrap())
}

#[test]
fn what_codex_sends_is_read_and_what_has_no_place_is_named() {
    let read = read(json!({
        "model": "gpt-5.1-codex",
        "instructions": "You are Codex.",
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: workspace-write."}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Listing."}]},
            {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{\"command\":[\"ls\"]}"},
            {"type": "function_call", "call_id": "call_2", "namespace": "mcp__github", "name": "list_issues", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "a.rs\nb.rs"},
            {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "none"}]},
            {"role": "user", "content": "and now?"}
        ],
        "tools": [
            {"type": "function", "name": "shell", "description": "Runs a command", "strict": false,
             "parameters": {"type": "object", "properties": {"command": {"type": "array"}}}},
            {"type": "namespace", "name": "mcp__github", "description": "GitHub",
             "tools": [{"type": "function", "name": "list_issues", "parameters": {"type": "object"}}]},
            {"type": "web_search"}
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": false,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "text": {"verbosity": "low"},
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "abc"
    }))
    .unwrap();
    let form = &read.form;
    assert_eq!(form.system, ["You are Codex.", "Sandbox: workspace-write."]);
    let roles: Vec<Role> = form.turns.iter().map(|t| t.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    assert_eq!(
        form.turns[0].parts[1],
        Part::Image(Image::Base64 {
            media_type: "image/png".into(),
            data: "iVBO".into()
        })
    );
    let Part::ToolCall(call) = &form.turns[1].parts[2] else {
        panic!("{:?}", form.turns[1]);
    };
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_2", "mcp__github__list_issues")
    );
    let results = form.turns[2]
        .parts
        .iter()
        .filter(|p| matches!(p, Part::ToolResult(_)))
        .count();
    assert_eq!(results, 2);
    assert_eq!(
        form.turns[2].parts.last(),
        Some(&Part::Text("and now?".into()))
    );
    let names: Vec<&str> = form.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["shell", "mcp__github__list_issues"]);
    assert_eq!(form.tool_choice, Some(ToolChoice::Auto));
    assert_eq!(form.parallel_tool_calls, Some(false));
    for dropped in [
        "input.reasoning",
        "tools.web_search",
        "text.verbosity",
        "include",
        "prompt_cache_key",
    ] {
        assert!(
            read.dropped.iter().any(|d| d == dropped),
            "{dropped}: {:?}",
            read.dropped
        );
    }
    assert!(!read.dropped.iter().any(|d| d == "store" || d == "stream"));
    let effort = read.effort.expect("reasoning.effort read");
    assert_eq!(
        effort.from,
        ["reasoning"],
        "named dropped only for a model without it"
    );
}

#[test]
fn a_string_input_is_one_user_turn_and_formats_are_read() {
    let read = read(json!({"model": "m", "input": "hi",
        "text": {"format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}}}}))
    .unwrap();
    assert_eq!(
        read.form.turns,
        [Turn {
            role: Role::User,
            parts: vec![Part::Text("hi".into())]
        }]
    );
    assert_eq!(
        read.form.response_format,
        Some(ResponseFormat::JsonSchema {
            name: "answer".into(),
            schema: json!({"type": "object"})
        })
    );
}

#[test]
fn only_what_is_not_a_responses_request_is_refused() {
    let cases = [
        (json!({"input": 5}), "input"),
        (json!({"input": [5]}), "input"),
        (
            json!({"input": [{"role": "moderator", "content": "x"}]}),
            "input",
        ),
        (
            json!({"input": [{"type": "function_call", "name": "f"}]}),
            "input",
        ),
        (json!({"input": [{"type": 5, "role": "user"}]}), "input"),
        (
            json!({"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": 5}]}),
            "input",
        ),
        (json!({"input": "x", "instructions": 5}), "instructions"),
        (json!({"input": "x", "tools": {}}), "tools"),
        (json!({"input": "x", "tools": [{"name": "f"}]}), "tools"),
        (
            json!({"input": "x", "tool_choice": "sometimes"}),
            "tool_choice",
        ),
        (json!({"input": "x", "temperature": "hot"}), "temperature"),
        (
            json!({"input": "x", "text": {"format": {"type": "xml"}}}),
            "text",
        ),
    ];
    for (body, param) in cases {
        let refusal = read(body.clone()).unwrap_err();
        assert_eq!(refusal.param, param, "{body}");
    }
    let kept = read(
        json!({"input": [{"type": "web_search_call", "id": "ws"}, {"role": "user", "content": "x"}]}),
    );
    assert_eq!(kept.unwrap().dropped, ["input.web_search_call"]);
}
