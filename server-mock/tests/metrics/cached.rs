//! Cached prompt tokens in `gen_ai_client_token_usage`: their own token types, within `input`.

use reqwest::StatusCode;
use serde_json::json;
use wiremock::MockServer;

use super::{ask, samples, scrape, value, with_metrics};
use crate::common::upstream::{KEY_VAR, answering, catalogue};

#[tokio::test]
async fn cached_prompt_tokens_are_counted_by_their_own_token_type() {
    let upstream = MockServer::start().await;
    let usage = json!({"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100,
        "prompt_tokens_details": {"cached_tokens": 1500}});
    answering(&upstream, "cached", usage).await;
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "m");
    let (server, metrics) = with_metrics(&["--models", &models], vec![(KEY_VAR, "k")]);
    for stream in [false, true] {
        let response = server
            .post(
                "/v1/chat/completions",
                &server.admin_key,
                &ask("upstream", stream),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.text().await.unwrap();
    }
    let all = samples(&scrape(&metrics).await);
    let tokens = |kind, part| {
        let labels = [
            ("gen_ai_operation_name", "chat"),
            ("gen_ai_response_model", "upstream"),
            ("gen_ai_token_type", kind),
        ];
        value(&all, &format!("gen_ai_client_token_usage_{part}"), &labels)
    };
    assert_eq!(
        (tokens("input", "sum"), tokens("cache_read", "sum")),
        (4000.0, 3000.0)
    );
    assert_eq!(
        (
            tokens("cache_read", "count"),
            tokens("cache_creation", "count")
        ),
        (2.0, 0.0)
    );
    // The local model reported no cache: nothing recorded of that type, the series there at 0.
    let local = [
        ("gen_ai_operation_name", "chat"),
        ("gen_ai_response_model", "local"),
        ("gen_ai_token_type", "cache_read"),
    ];
    assert!(all.contains_key(&{
        let mut labels: Vec<String> = local.iter().map(|(k, v)| format!("{k}=\"{v}")).collect();
        labels.sort();
        format!("gen_ai_client_token_usage_count{{{}}}", labels.join(","))
    }));
}
