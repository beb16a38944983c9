//! Cached and reasoning tokens (issue 37, point 3): prompt tokens an OpenAI-compatible upstream
//! read from its cache are charged at the model's `cache_read_price`, exactly; answers carry the
//! cached and reasoning counts; the ledger holds what the answers said they cost.

mod common;

use common::both;

use common::upstream::{answering, catalogue_with, chat, events, gateway};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokctl_server::credits::Credits;
use wiremock::MockServer;

/// What the upstream reports: 2,000 prompt tokens of which 1,500 were read from its cache, 100
/// completion tokens of which 40 were spent reasoning.
fn usage() -> Value {
    json!({"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100,
           "prompt_tokens_details": {"cached_tokens": 1500, "audio_tokens": 0},
           "completion_tokens_details": {"reasoning_tokens": 40}})
}

async fn upstream() -> MockServer {
    let upstream = MockServer::start().await;
    answering(&upstream, "Cached", usage()).await;
    upstream
}

fn credits(value: &Value) -> Credits {
    serde_json::from_str(&value.to_string()).unwrap()
}

fn ask(stream: bool) -> Value {
    json!({"model": "upstream", "stream": stream, "stream_options": {"include_usage": true},
           "messages": [{"role": "user", "content": "the long, repeated prompt"}]})
}

both! {
    #[tokio::test]
    async fn cached_prompt_tokens_are_charged_at_the_cache_read_price_exactly() {
        let upstream = upstream().await;
        let tmp = tempfile::tempdir().unwrap();
        // upstream: 1 credit per 1k prompt tokens, 2 per 1k completion tokens, 0.1 per 1k read
        // from the cache: 500 x 0.001 + 1500 x 0.0001 + 100 x 0.002 = 0.85 (2.2 all uncached).
        let models = catalogue_with(tmp.path(), &format!("{}/v1", upstream.uri()), "m", "cache_read_price = 0.1");
        let server = gateway(&models, "k");
        let expected = Credits::parse_floor("0.85").unwrap();

        let whole: Value = chat(&server, ask(false)).await.json().await.unwrap();
        assert_eq!(credits(&whole["platform"]["credits_consumed"]), expected, "{whole}");
        assert_eq!(whole["usage"], json!({"prompt_tokens": 2000, "completion_tokens": 100,
            "total_tokens": 2100, "prompt_tokens_details": {"cached_tokens": 1500},
            "completion_tokens_details": {"reasoning_tokens": 40}}));

        let text = chat(&server, ask(true)).await.text().await.unwrap();
        let chunks: Vec<Value> = events(&text).iter().filter(|e| **e != "[DONE]")
            .map(|e| serde_json::from_str(e).unwrap()).collect();
        let last = chunks.iter().find(|c| c.get("platform").is_some()).expect("the platform chunk");
        assert_eq!(credits(&last["platform"]["credits_consumed"]), expected, "{text}");
        let usage = &chunks.last().unwrap()["usage"];
        assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 1500, "{text}");
        assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 40, "{text}");

        // The ledger holds what the answers said, exactly.
        let ledger = server.get("/v1/usage", &server.admin_key).await;
        assert_eq!(ledger.status(), StatusCode::OK);
        let ledger: Value = ledger.json().await.unwrap();
        assert_eq!(credits(&ledger["totals"]["credits"]), Credits::from_nanos(2 * expected.nanos()));
        // The price is shown with the model's others.
        let models: Value = server.get("/v1/models", &server.admin_key).await.json().await.unwrap();
        let shown = models["data"].as_array().unwrap().iter().find(|m| m["id"] == "upstream").unwrap();
        assert_eq!(shown["cache_read_price"], json!(0.1));
        assert!(shown.get("cache_write_price").is_none(), "{shown}");
    }
}

both! {
    #[tokio::test]
    async fn without_a_cache_price_cached_tokens_cost_what_fresh_ones_do() {
        let upstream = upstream().await;
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue_with(tmp.path(), &format!("{}/v1", upstream.uri()), "m", "");
        let server = gateway(&models, "k");
        let whole: Value = chat(&server, ask(false)).await.json().await.unwrap();
        assert_eq!(credits(&whole["platform"]["credits_consumed"]), Credits::parse_floor("2.2").unwrap());
        assert_eq!(whole["usage"]["prompt_tokens_details"]["cached_tokens"], 1500);
    }
}
