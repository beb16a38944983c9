//! The SDK's chat, models and usage against the real gateway.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::routing::post;
use axum::{Json, Router};
use common::TestServer;
use futures::StreamExt;
use serde_json::{Value, json};
use tokctl_sdk::{ChatMessage, ChatRequest, Client, Decimal};
use tokctl_server::{ServeConfig, spawn};

fn hello(model: &str) -> ChatRequest {
    ChatRequest::new(model)
        .message(ChatMessage::system("Be brief."))
        .message(ChatMessage::user("hello from the sdk"))
}

#[tokio::test]
async fn create_returns_text_usage_and_platform() {
    let server = TestServer::start().await;
    let client = server.admin();
    let answer = client
        .chat()
        .create(&hello("auto-cheap").max_tokens(8))
        .await
        .unwrap();
    assert_eq!(answer.object, "chat.completion");
    assert!(answer.text().starts_with("[sim-mini]"));
    assert_eq!(answer.usage.completion_tokens, 8);
    assert_eq!(answer.choices[0].finish_reason.as_deref(), Some("length"));
    let platform = answer.platform.expect("platform");
    assert_eq!(platform.routed_model, "sim-mini");
    assert!(platform.route_reason.starts_with("auto-cheap"));
    assert!(
        platform.credits_consumed > Decimal::ZERO && platform.credits_consumed < Decimal::new(1, 2)
    );
}

#[tokio::test]
async fn a_stream_yields_the_same_text_then_platform_and_usage_and_is_billed() {
    let server = TestServer::start().await;
    let client = server.admin();
    let whole = client.chat().create(&hello("sim-fast")).await.unwrap();

    let mut stream = client
        .chat()
        .create_stream(&hello("sim-fast"))
        .await
        .unwrap();
    let mut text = String::new();
    let mut platform = None;
    let mut usage = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        text.push_str(chunk.text().unwrap_or_default());
        platform = platform.or(chunk.platform);
        usage = usage.or(chunk.usage);
    }
    assert_eq!(text, whole.text());
    assert_eq!(platform.unwrap().routed_model, "sim-fast");
    assert_eq!(usage.unwrap(), whole.usage);

    // Both completions are in the ledger. (A stream ends at [DONE] here, so this cannot show
    // that the SDK never re-POSTs one: sdk/tests/chat.rs does, with a stream cut before [DONE].)
    let report = client.usage().all().await.unwrap();
    assert_eq!(report.totals.requests, 2);
    assert_eq!(report.data.len(), 1);
    assert_eq!(report.data[0].model.as_deref(), Some("sim-fast"));
}

#[tokio::test]
async fn gateway_errors_map_to_sdk_errors() {
    let server = TestServer::start().await;
    let client = server.admin();
    let err = client
        .chat()
        .create(&hello("no-such-model"))
        .await
        .unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(err.code(), Some("model_not_found"));
    let err = client
        .chat()
        .create(&hello("auto").budget_limit(Decimal::new(1, 6)))
        .await
        .unwrap_err();
    assert_eq!(
        (err.status(), err.code()),
        (Some(402), Some("budget_exceeded"))
    );
    let err = client
        .chat()
        .create_stream(&hello("auto").temperature(9.0))
        .await;
    let err = match err {
        Err(err) => err,
        Ok(mut stream) => stream.next().await.expect("an item").unwrap_err(),
    };
    assert_eq!(err.status(), Some(400), "{err:?}");
    let err = server
        .client("tka_wrong")
        .chat()
        .create(&hello("auto"))
        .await
        .unwrap_err();
    assert!(err.is_unauthorized());
}

#[tokio::test]
async fn models_and_usage() {
    let server = TestServer::start().await;
    let client = server.admin();
    let models = client.models().list().await.unwrap();
    assert!(models.iter().any(|m| m.id == "sim-pro" && m.quality > 0.9));
    let wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
    let answer = client
        .chat()
        .create(&hello("auto").agent_wallet(wallet).route_strategy(1.0, 0.0))
        .await
        .unwrap();
    let report = client.usage().get().await.unwrap();
    assert_eq!(report.totals.requests, 1);
    assert_eq!(
        report.totals.credits,
        answer.platform.unwrap().credits_consumed
    );
}

/// An OpenAI-compatible upstream on 127.0.0.1:0 that records every request body: it calls
/// the `weather` tool, then answers once the conversation holds the tool's result.
async fn upstream(seen: Arc<Mutex<Vec<Value>>>) -> String {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| async move {
            let answered = body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .is_some_and(|m| m["role"] == "tool");
            seen.lock().unwrap().push(body);
            let message = if answered {
                json!({"role": "assistant", "content": "12°C and clear in Oslo."})
            } else {
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
                    "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]})
            };
            Json(json!({"id": "up", "object": "chat.completion", "created": 1, "model": "gpt",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn a_tool_calling_conversation_round_trips_through_the_gateway() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let upstream_url = upstream(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let catalogue = dir.path().join("models.toml");
    std::fs::write(
        &catalogue,
        format!(
            "[[models]]\nid = \"upstream\"\nprovider = \"openai\"\nbase_url = \"{upstream_url}\"\n\
             prompt_price = 1.0\ncompletion_price = 2.0\nquality = 0.9\nlatency_ms = 100\n"
        ),
    )
    .unwrap();
    let data_dir = dir.path().join("data");
    let running = spawn(ServeConfig {
        models: Some(catalogue),
        sim_token_delay: Duration::ZERO,
        ..ServeConfig::new("127.0.0.1:0", &data_dir)
    })
    .await
    .unwrap();
    let key = std::fs::read_to_string(data_dir.join("admin.key")).unwrap();
    let client = Client::builder()
        .base_url(format!("http://{}/v1", running.addr))
        .api_key(key.trim())
        .build()
        .unwrap();

    let tools = json!([{"type": "function", "function": {"name": "weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    let question = ChatMessage::user("Weather in Oslo?").name("ada");
    let ask = |messages: Vec<ChatMessage>| {
        ChatRequest::new("upstream")
            .messages(messages)
            .tools(tools.clone())
    };
    let first = client
        .chat()
        .create(&ask(vec![question.clone()]))
        .await
        .unwrap();
    let called = first.choices[0].message.clone();
    let calls = called
        .tool_calls
        .clone()
        .expect("the gateway passes tool calls back");
    assert_eq!(calls[0]["id"], "call_1");
    assert_eq!(called.content, None);

    let result = ChatMessage::tool("call_1", "12°C, clear");
    let second = client
        .chat()
        .create(&ask(vec![question, called, result]))
        .await
        .unwrap();
    assert_eq!(second.text(), "12°C and clear in Oslo.");

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1]["messages"],
        json!([
            {"role": "user", "content": "Weather in Oslo?", "name": "ada"},
            {"role": "assistant", "content": null, "tool_calls": calls},
            {"role": "tool", "content": "12°C, clear", "tool_call_id": "call_1"},
        ])
    );
    running.stop().await.unwrap();
}
