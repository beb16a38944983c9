//! An Anthropic model in the metrics like any other: its attempts by outcome (a 529 is an
//! `http_5xx`), its answers' time to first token, and its cached prompt tokens by type.

use reqwest::StatusCode;
use serde_json::json;

use super::{ask, samples, scrape, value, with_metrics};
use crate::common::anthropic::{Anthropic, KEY, KEY_VAR, Reply, catalogue};

#[tokio::test]
async fn an_anthropic_model_is_measured_like_any_other() {
    let mock = Anthropic::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path(), &mock.url, "");
    let (server, metrics) = with_metrics(
        &["--models", models.to_str().unwrap()],
        vec![(KEY_VAR, KEY)],
    );
    for stream in [false, true] {
        let mut request = ask("claude", stream);
        request["messages"][0]["content"] = json!("cache this");
        let response = server
            .post("/v1/chat/completions", &server.admin_key, &request)
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.text().await.unwrap();
    }
    mock.queue(Reply::Status(529, "overloaded_error", None));
    let response = server
        .post(
            "/v1/chat/completions",
            &server.admin_key,
            &ask("claude", false),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);

    let all = samples(&scrape(&metrics).await);
    let attempts = |outcome| {
        value(
            &all,
            "tokctl_upstream_requests_total",
            &[
                ("model", "claude"),
                ("deployment", "claude"),
                ("outcome", outcome),
            ],
        )
    };
    assert_eq!((attempts("success"), attempts("http_5xx")), (2.0, 1.0));
    let chat = [
        ("gen_ai_operation_name", "chat"),
        ("gen_ai_response_model", "claude"),
    ];
    assert_eq!(
        value(
            &all,
            "gen_ai_server_time_to_first_token_seconds_count",
            &chat
        ),
        2.0
    );
    let tokens = |kind| {
        let labels = [
            ("gen_ai_operation_name", "chat"),
            ("gen_ai_response_model", "claude"),
            ("gen_ai_token_type", kind),
        ];
        value(&all, "gen_ai_client_token_usage_sum", &labels)
    };
    // Each answer: 100 fresh + 2,000 written + 30,000 read prompt tokens, 5 out.
    assert_eq!(
        (
            tokens("input"),
            tokens("cache_read"),
            tokens("cache_creation"),
            tokens("output")
        ),
        (64_200.0, 60_000.0, 4_000.0, 10.0)
    );
}
