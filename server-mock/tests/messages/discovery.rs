//! What Claude Code asks besides messages: `count_tokens` (Claude's upstream asked, any other
//! model estimated, no credits spent) and `GET /v1/models` in Anthropic's list shape.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::anthropic::Anthropic;
use crate::{agent_turn, gateway, send};

#[tokio::test]
async fn count_tokens_asks_claude_and_estimates_the_rest() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let mut request = agent_turn("claude-sonnet", "count me");
    request.as_object_mut().unwrap().remove("max_tokens");
    let response = send(
        &server,
        "/v1/messages/count_tokens",
        &request,
        &[("anthropic-beta", "token-counting-2024-11-01")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let counted: Value = response.json().await.unwrap();
    let seen = &mock.seen()[0];
    assert_eq!(seen.body["model"], "claude-sonnet-4-5");
    assert_eq!(seen.headers["anthropic-beta"], "token-counting-2024-11-01");
    let sent = serde_json::to_string(&seen.body).unwrap();
    assert_eq!(
        counted,
        json!({"input_tokens": sent.len() / 4}),
        "the upstream's count, relayed"
    );

    request["model"] = json!("local");
    let short = send(&server, "/v1/messages/count_tokens", &request, &[]).await;
    let short: Value = short.json().await.unwrap();
    let mut longer = request.clone();
    longer["messages"][1]["content"][0]["text"] = json!("count me ".repeat(100));
    let long = send(&server, "/v1/messages/count_tokens", &longer, &[]).await;
    let long: Value = long.json().await.unwrap();
    let (short, long) = (
        short["input_tokens"].as_u64().unwrap(),
        long["input_tokens"].as_u64().unwrap(),
    );
    assert!(short > 0 && long >= short + 200, "{short} then {long}");
    assert_eq!(mock.seen().len(), 1, "estimated without an upstream");

    // No credits are spent counting.
    let usage: Value = server
        .get("/v1/usage", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert!(!usage.to_string().contains("\"claude\""), "{usage}");
}

#[tokio::test]
async fn models_are_listed_in_anthropics_shape_for_its_clients() {
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock);
    let listed: Value = server
        .request(reqwest::Method::GET, "/v1/models", &server.admin_key)
        .header("anthropic-version", "2023-06-01")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["claude", "local", "claude-sonnet"]);
    assert_eq!(listed["data"][0]["type"], "model");
    assert_eq!(listed["has_more"], false);
    assert_eq!(listed["first_id"], "claude");
    assert_eq!(listed["last_id"], "claude-sonnet");
    let openai: Value = server
        .get("/v1/models", &server.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        openai["object"], "list",
        "without the header: OpenAI's shape"
    );
}
