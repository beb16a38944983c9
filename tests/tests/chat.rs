//! The SDK's chat, models and usage against the real gateway.

mod common;

use common::TestServer;
use futures::StreamExt;
use tokctl_sdk::{ChatMessage, ChatRequest};

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
    assert!(platform.credits_consumed > 0.0 && platform.credits_consumed < 0.01);
}

#[tokio::test]
async fn a_stream_yields_the_same_text_then_platform_and_usage_and_is_sent_once() {
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

    // The SSE client never re-POSTs after the stream ends: two completions in the ledger.
    let report = client.usage().get().await.unwrap();
    assert_eq!(report.totals.requests, 2);
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
        .create(&hello("auto").budget_limit(0.000_001))
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
    assert!((report.totals.credits - answer.platform.unwrap().credits_consumed).abs() < 1e-12);
}
