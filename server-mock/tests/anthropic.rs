//! The `anthropic` provider (issue 37): chat completions in, Anthropic's Messages API out,
//! against a faithful mock (`common/anthropic/`). This file holds the request's mapping and
//! what is refused; the answers, streams and failures are in `anthropic/`.

#[path = "anthropic/answers.rs"]
mod answers;
mod common;
#[path = "anthropic/failures.rs"]
mod failures;

use common::Server;
pub use common::anthropic::gateway;
use common::anthropic::{Anthropic, KEY};
use reqwest::StatusCode;
use serde_json::{Value, json};

pub async fn chat(server: &Server, body: Value) -> (StatusCode, Value) {
    common::chat_json(server, body).await
}

#[tokio::test]
async fn a_chat_request_reaches_anthropic_in_its_own_shape() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let (status, body) = chat(
        &server,
        json!({
            "model": "claude-sonnet",
            "max_tokens": 300,
            "temperature": 0.5, "top_p": 0.9, "top_k": 40,
            "stop": ["END", "STOP"], "user": "user-7",
            "n": 1, "logprobs": false, "presence_penalty": 0, "store": false,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "developer", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "Use tools."}]},
                {"role": "user", "content": [
                    {"type": "text", "text": "Weather in both?"},
                    {"type": "text", "text": ""},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/paris.jpg", "detail": "high"}}
                ]},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
                {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "24C"}]},
                {"role": "user", "content": "And tomorrow?"}
            ],
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
                       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
            "tool_choice": "required",
            "parallel_tool_calls": false
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["platform"]["routed_model"], "claude");
    let seen = mock.seen();
    assert_eq!(seen.len(), 1);
    let headers = &seen[0].headers;
    assert_eq!(headers["x-api-key"], KEY);
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(
        headers["anthropic-beta"],
        "interleaved-thinking-2025-05-14,context-1m-2025-08-07"
    );
    assert!(headers.get("authorization").is_none());
    let sent = &seen[0].body;
    let expected = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 300,
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools."}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Weather in both?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/paris.jpg"}}
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_b", "name": "get_weather", "input": {"city": "Rome"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_a", "content": [{"type": "text", "text": "18C"}]},
                {"type": "tool_result", "tool_use_id": "call_b", "content": [{"type": "text", "text": "24C"}]},
                {"type": "text", "text": "And tomorrow?"}
            ]}
        ],
        "stop_sequences": ["END", "STOP"],
        "temperature": 0.5, "top_p": 0.9, "top_k": 40,
        "metadata": {"user_id": "user-7"},
        "tools": [{"name": "get_weather", "description": "Weather now",
                   "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": true}
    });
    assert_eq!(sent, &expected, "sent:\n{sent:#}");
}

#[tokio::test]
async fn tool_choice_and_parallel_calls_map_to_anthropics_words() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let tools =
        json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]);
    let cases = [
        (json!("auto"), Value::Null, json!({"type": "auto"})),
        (json!("none"), Value::Null, json!({"type": "none"})),
        (
            json!({"type": "function", "function": {"name": "f"}}),
            json!(true),
            json!({"type": "tool", "name": "f"}),
        ),
        (
            Value::Null,
            json!(false),
            json!({"type": "auto", "disable_parallel_tool_use": true}),
        ),
        (Value::Null, Value::Null, Value::Null),
    ];
    for (choice, parallel, expected) in cases {
        let mut request = json!({"model": "claude", "messages": [{"role": "user", "content": "hi"}], "tools": tools});
        if !choice.is_null() {
            request["tool_choice"] = choice.clone();
        }
        if !parallel.is_null() {
            request["parallel_tool_calls"] = parallel.clone();
        }
        let (status, body) = chat(&server, request).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let sent = mock.last();
        assert_eq!(sent["tool_choice"], expected, "{choice} / {parallel}");
        assert_eq!(sent["max_tokens"], 1024, "the model's cap is always sent");
    }
}

#[tokio::test]
async fn what_anthropic_has_no_place_for_is_refused_naming_it_and_the_model() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "", &[]);
    let ask = |extra: Value| {
        let mut request =
            json!({"model": "claude", "messages": [{"role": "user", "content": "hi"}]});
        request
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        request
    };
    let cases = [
        (json!({"n": 2}), Some("n")),
        (json!({"logprobs": true}), Some("logprobs")),
        (json!({"top_logprobs": 2}), Some("top_logprobs")),
        (json!({"seed": 7}), Some("seed")),
        (json!({"frequency_penalty": 0.5}), Some("frequency_penalty")),
        (json!({"presence_penalty": -1}), Some("presence_penalty")),
        (json!({"logit_bias": {"50256": -100}}), Some("logit_bias")),
        (
            json!({"reasoning_effort": "high"}),
            Some("reasoning_effort"),
        ),
        (json!({"temperature": 1.5}), Some("temperature")),
        (
            json!({"response_format": {"type": "json_object"}}),
            Some("response_format"),
        ),
        (
            json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}}),
            Some("response_format"),
        ),
        (json!({"frobnicate": true}), None),
    ];
    for (extra, param) in cases {
        let (status, body) = chat(&server, ask(extra.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{extra}: {body}");
        let error = &body["error"];
        assert_eq!(error["type"], "invalid_request_error", "{body}");
        assert_eq!(error["code"], "unsupported_parameter", "{body}");
        assert_eq!(error["param"].as_str(), param, "{body}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("model claude (anthropic)"), "{message}");
        let name = extra.as_object().unwrap().keys().next().unwrap().clone();
        assert!(message.contains(&name), "{message}");
    }
    let call = |arguments: &str| {
        json!({"model": "claude", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "c", "content": "ok"}]})
    };
    let (status, body) = chat(&server, call("[1, 2]")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["param"], "messages");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("JSON text of an object"),
        "{body}"
    );
    assert!(
        mock.seen().is_empty(),
        "nothing refused reached the upstream"
    );

    // With `auto`, a model that cannot take the request is passed over, and the reason says so.
    let mut auto = ask(json!({"seed": 7}));
    auto["model"] = json!("auto");
    auto["route_strategy"] = json!({"quality_weight": 1, "cost_weight": 0});
    let (status, body) = chat(&server, auto).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["platform"]["routed_model"], "local");
    let reason = body["platform"]["route_reason"].as_str().unwrap();
    assert!(
        reason.contains("claude skipped: model claude (anthropic) has no parameter seed"),
        "{reason}"
    );
    assert!(mock.seen().is_empty());
}

#[tokio::test]
async fn a_json_schema_goes_as_structured_output_to_a_model_that_takes_it() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "structured_outputs = true", &[]);
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false});
    let (status, body) = chat(
        &server,
        json!({"model": "claude", "messages": [{"role": "user", "content": "a number"}],
               "response_format": {"type": "json_schema", "json_schema": {"name": "n", "strict": true, "schema": schema}}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        mock.last()["output_config"],
        json!({"format": {"type": "json_schema", "schema": schema}})
    );
    let (status, _) = chat(
        &server,
        json!({"model": "claude", "messages": [{"role": "user", "content": "a number"}], "response_format": {"type": "text"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(mock.last().get("output_config").is_none());
}

#[tokio::test]
async fn a_model_that_takes_no_sampling_parameters_refuses_them_and_is_sent_none() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "sampling_parameters = false", &[]);
    let ask = |field: &str, value: Value| {
        let mut request =
            json!({"model": "claude", "messages": [{"role": "user", "content": "hi"}]});
        request[field] = value;
        request
    };
    for (field, value) in [
        ("temperature", json!(0.2)),
        ("top_p", json!(0.9)),
        ("top_k", json!(5)),
    ] {
        let (status, body) = chat(&server, ask(field, value)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{field}: {body}");
        assert_eq!(body["error"]["param"], field, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("model claude (anthropic) takes no sampling parameters"),
            "{message}"
        );
    }
    assert!(mock.seen().is_empty());
    // `temperature: 1` asks for what the model does anyway: answered, and nothing sent for it.
    let (status, body) = chat(&server, ask("temperature", json!(1))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let sent = mock.last();
    for field in ["temperature", "top_p", "top_k"] {
        assert!(sent.get(field).is_none(), "{sent}");
    }
}
