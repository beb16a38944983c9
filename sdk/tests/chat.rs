//! Chat against wiremock: the request body, tool messages, SSE parsing, error events, and one
//! POST only.

mod common;

use common::{client, mock_server};
use futures::StreamExt;
use serde_json::json;
use tokctl_sdk::{ChatMessage, ChatRequest};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, ResponseTemplate};

fn chunk(content: &str) -> String {
    let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
    format!("data: {chunk}\n\n")
}

#[tokio::test]
async fn a_stream_posts_once_with_extensions_and_reports_a_mid_stream_error() {
    let server = mock_server().await;
    let body = format!(
        "{}{}data: {}\n\ndata: [DONE]\n\n",
        chunk("Hel"),
        chunk("lo"),
        json!({"error": {"message": "the upstream failed mid-stream", "type": "api_error", "code": "upstream_error", "param": null}})
    );
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_partial_json(json!({
            "model": "auto", "stream": true, "stream_options": {"include_usage": true},
            "budget_limit": 0.5, "route_strategy": {"cost_weight": 0.2, "quality_weight": 0.8},
            "agent_wallet": "0x52908400098527886E0F7030069857D2E4169EE7", "max_tokens": 9
        })))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .expect(1)
        .mount(&server)
        .await;
    let request = ChatRequest::new("auto")
        .message(ChatMessage::user("hi"))
        .budget_limit(tokctl_sdk::Decimal::new(5, 1))
        .route_strategy(0.2, 0.8)
        .agent_wallet("0x52908400098527886E0F7030069857D2E4169EE7")
        .max_tokens(9);
    let client = client(&server);
    let mut stream = client.chat().create_stream(&request).await.unwrap();
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item);
    }
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap().text(), Some("Hel"));
    let err = items[2].as_ref().unwrap_err();
    assert_eq!(err.code(), Some("upstream_error"));
    assert!(err.to_string().contains("mid-stream"));
}

#[tokio::test]
async fn a_refused_stream_is_an_api_error() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {
            "message": "The model \"x\" does not exist", "type": "invalid_request_error",
            "code": "model_not_found", "param": "model"}})))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    let request = ChatRequest::new("x").message(ChatMessage::user("hi"));
    let first = match client.chat().create_stream(&request).await {
        Ok(mut stream) => stream.next().await.expect("an item").unwrap_err(),
        Err(err) => err,
    };
    assert!(first.is_not_found(), "{first:?}");
    assert_eq!(first.code(), Some("model_not_found"));
}

#[tokio::test]
async fn a_stream_cut_before_done_is_an_error_and_is_not_posted_again() {
    let server = mock_server().await;
    let body = format!("{}{}", chunk("Hel"), chunk("lo"));
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    let request = ChatRequest::new("auto").message(ChatMessage::user("hi"));
    let mut stream = client.chat().create_stream(&request).await.unwrap();
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item);
    }
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(items[1].as_ref().unwrap().text(), Some("lo"));
    let err = items[2].as_ref().unwrap_err();
    assert!(err.is_transport(), "{err:?}");
    assert!(err.to_string().contains("before [DONE]"), "{err}");
    drop(stream);
    // An SSE client that reconnects re-sends the POST as soon as it is polled after the end
    // (the stream was polled to its end above): the server must have seen exactly one.
    let posts = server.received_requests().await.unwrap_or_default();
    assert_eq!(posts.len(), 1, "the completion was POSTed again");
}

#[tokio::test]
async fn tool_messages_serialise_as_openai_expects() {
    let calls = json!([{"id": "call_1", "type": "function",
        "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]);
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": calls}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})))
        .expect(2)
        .mount(&server)
        .await;
    let client = client(&server);
    let question = ChatMessage::user("Weather in Oslo?").name("ada");
    let answer = client
        .chat()
        .create(&ChatRequest::new("auto").message(question.clone()))
        .await
        .unwrap();
    let called = answer.choices[0].message.clone();
    assert_eq!(called, ChatMessage::assistant_tool_calls(calls.clone()));
    let conversation = [question, called, ChatMessage::tool("call_1", "12°C, clear")];
    client
        .chat()
        .create(&ChatRequest::new("auto").messages(conversation))
        .await
        .unwrap();

    let requests = server.received_requests().await.unwrap_or_default();
    let sent: serde_json::Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(
        sent["messages"],
        json!([
            {"role": "user", "content": "Weather in Oslo?", "name": "ada"},
            {"role": "assistant", "content": null, "tool_calls": calls},
            {"role": "tool", "content": "12°C, clear", "tool_call_id": "call_1"},
        ])
    );
}

#[tokio::test]
async fn cached_and_reasoning_token_counts_are_read_when_present() {
    let server = mock_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "hi"}}],
            "usage": {"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100,
                "prompt_tokens_details": {"cached_tokens": 1500},
                "completion_tokens_details": {"reasoning_tokens": 40}}})))
        .mount(&server)
        .await;
    let answer = client(&server)
        .chat()
        .create(&ChatRequest::new("auto").message(ChatMessage::user("again")))
        .await
        .unwrap();
    let usage = answer.usage;
    let prompt = usage.prompt_tokens_details.expect("the cached count");
    assert_eq!((prompt.cached_tokens, prompt.cache_write_tokens), (1500, 0));
    let completion = usage
        .completion_tokens_details
        .expect("the reasoning count");
    assert_eq!(completion.reasoning_tokens, 40);
}
