//! Anthropic's answers as chat completions: text blocks joined, `tool_use` as `tool_calls`,
//! thinking apart, stop reasons, cached usage priced exactly; streams chunk by chunk.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::common::anthropic::{
    Anthropic, Reply, end_events, message, start, text_block, text_events, tool_events, usage,
};
use super::common::upstream::{chunks, events};
use super::{chat, gateway};

fn ask(text: &str) -> Value {
    json!({"model": "claude", "messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn a_whole_answer_keeps_text_tool_calls_and_thinking_apart() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let blocks = vec![
        json!({"type": "thinking", "thinking": "Paris, then Rome.", "signature": "EqQB"}),
        json!({"type": "redacted_thinking", "data": "EmwKAhgB"}),
        text_block("Checking "),
        text_block("both."),
        json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}),
    ];
    mock.queue(Reply::Message(message(
        &Value::Null,
        blocks,
        "tool_use",
        usage(30, 20, 0, 0),
    )));
    let (status, body) = chat(&server, ask("weather?")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    let said = &choice["message"];
    assert_eq!(said["role"], "assistant");
    assert_eq!(said["content"], "Checking both.");
    assert_eq!(said["reasoning_content"], "Paris, then Rome.");
    let calls = said["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "toolu_1");
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    let arguments: Value =
        serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris"}));
    assert_eq!(calls[1]["function"]["arguments"], "{}");
    assert_eq!(body["usage"]["prompt_tokens"], 30);
    assert_eq!(body["usage"]["completion_tokens"], 20);

    // Only tool calls: `content` is null, as OpenAI writes it.
    let only = vec![json!({"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}})];
    mock.queue(Reply::Message(message(
        &Value::Null,
        only,
        "tool_use",
        usage(3, 2, 0, 0),
    )));
    let (_, body) = chat(&server, ask("x")).await;
    assert_eq!(body["choices"][0]["message"]["content"], Value::Null);
}

#[tokio::test]
async fn stop_reasons_become_finish_reasons_and_a_new_one_is_kept_in_platform() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let cases = [
        ("end_turn", "stop", None),
        ("stop_sequence", "stop", None),
        ("pause_turn", "stop", None),
        ("max_tokens", "length", None),
        ("tool_use", "tool_calls", None),
        ("refusal", "content_filter", None),
        (
            "model_context_window_exceeded",
            "stop",
            Some("model_context_window_exceeded"),
        ),
    ];
    for (stop_reason, finish, kept) in cases {
        for stream in [false, true] {
            let reply = message(
                &Value::Null,
                vec![text_block("ok")],
                stop_reason,
                usage(5, 1, 0, 0),
            );
            mock.queue(Reply::Message(reply));
            let mut request = ask("hi");
            request["stream"] = json!(stream);
            let response = server
                .post("/v1/chat/completions", &server.admin_key, &request)
                .await;
            assert_eq!(response.status(), StatusCode::OK);
            let text = response.text().await.unwrap();
            let (reason, platform) = match stream {
                false => {
                    let body: Value = serde_json::from_str(&text).unwrap();
                    (
                        body["choices"][0]["finish_reason"].clone(),
                        body["platform"].clone(),
                    )
                }
                true => {
                    let last = chunks(&text).last().unwrap().clone();
                    (
                        last["choices"][0]["finish_reason"].clone(),
                        last["platform"].clone(),
                    )
                }
            };
            assert_eq!(reason, finish, "{stop_reason}, stream {stream}");
            assert_eq!(
                platform["upstream_finish_reason"].as_str(),
                kept,
                "{stop_reason}"
            );
        }
    }
}

#[tokio::test]
async fn cached_prompt_tokens_are_counted_and_priced_exactly() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    for stream in [false, true] {
        let mut request = ask("cache this");
        request["stream"] = json!(stream);
        request["stream_options"] = json!({"include_usage": true});
        if !stream {
            request.as_object_mut().unwrap().remove("stream_options");
        }
        let response = server
            .post("/v1/chat/completions", &server.admin_key, &request)
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        let (usage, platform) = match stream {
            false => {
                let body: Value = serde_json::from_str(&text).unwrap();
                (body["usage"].clone(), body["platform"].clone())
            }
            true => {
                let chunks = chunks(&text);
                let usage = chunks.iter().find(|c| !c["usage"].is_null()).unwrap()["usage"].clone();
                let platform =
                    chunks.iter().find(|c| !c["platform"].is_null()).unwrap()["platform"].clone();
                (usage, platform)
            }
        };
        // 100 fresh + 2,000 written + 30,000 read: Anthropic's input_tokens leaves the last two out.
        assert_eq!(usage["prompt_tokens"], 32_100, "stream {stream}: {usage}");
        assert_eq!(usage["completion_tokens"], 5);
        assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 30_000);
        assert_eq!(usage["prompt_tokens_details"]["cache_write_tokens"], 2_000);
        // 100 x 3/1k + 2,000 x 3.75/1k + 30,000 x 0.3/1k + 5 x 15/1k = 0.3 + 7.5 + 9 + 0.075.
        assert_eq!(
            platform["credits_consumed"].to_string(),
            "16.875",
            "stream {stream}"
        );
    }
}

#[tokio::test]
async fn a_stream_becomes_chunks_with_text_tool_calls_and_usage() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let model = json!("claude-sonnet-4-5");
    let mut script = vec![start(&model, &usage(40, 1, 0, 0)), json!({"type": "ping"})];
    script.extend(text_events(0, &["Checking", " both."]));
    script.push(json!({"type": "ping"}));
    script.extend(tool_events(
        1,
        "toolu_a",
        "get_weather",
        &["{\"city\":", " \"Paris\"}"],
    ));
    script.extend(tool_events(
        2,
        "toolu_b",
        "get_weather",
        &["{\"city\": \"Rome\"}"],
    ));
    script.extend(end_events("tool_use", 57));
    mock.queue(Reply::Events(script));
    let mut request = ask("weather in both?");
    request["stream"] = json!(true);
    request["stream_options"] = json!({"include_usage": true});
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &request)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let chunks = chunks(&text);
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );
    let deltas: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"].get(0))
        .map(|c| &c["delta"])
        .collect();
    let content: String = deltas
        .iter()
        .filter_map(|d| d["content"].as_str())
        .collect();
    assert_eq!(content, "Checking both.");
    let calls: Vec<&Value> = deltas
        .iter()
        .filter_map(|d| d["tool_calls"].get(0))
        .collect();
    // Each call opens with its id, type and name, then its argument pieces; its index is its
    // place among the calls (0, 1), not its block's (1, 2).
    assert_eq!(
        calls[0],
        &json!({"index": 0, "id": "toolu_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}})
    );
    let arguments = |index: u64| -> Value {
        let text: String = calls
            .iter()
            .filter(|c| c["index"] == index)
            .filter_map(|c| c["function"]["arguments"].as_str())
            .collect();
        serde_json::from_str(&text).unwrap()
    };
    assert_eq!(arguments(0), json!({"city": "Paris"}));
    assert_eq!(arguments(1), json!({"city": "Rome"}));
    assert!(
        calls
            .iter()
            .any(|c| c["index"] == 1 && c["id"] == "toolu_b")
    );
    let finish = chunks
        .iter()
        .find(|c| c["choices"][0]["finish_reason"].is_string())
        .unwrap();
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(
        (
            usage["prompt_tokens"].as_u64(),
            usage["completion_tokens"].as_u64()
        ),
        (Some(40), Some(57)),
        "the output count is cumulative"
    );
    assert_eq!(events(&text).last(), Some(&"[DONE]"));
}

#[tokio::test]
async fn thinking_streams_apart_from_the_text() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let mut request = ask("think of a number");
    request["stream"] = json!(true);
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &request)
        .await;
    let chunks = chunks(&response.text().await.unwrap());
    let field = |name: &str| -> String {
        chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"][name].as_str())
            .collect()
    };
    assert_eq!(field("reasoning_content"), "The user wants a number.");
    assert_eq!(field("content"), "42");
}
