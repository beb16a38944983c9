//! The chat gateway with the built-in simulated models: shapes, streaming, routing, budgets,
//! validation, the ledger, and a client that hangs up.

mod common;

use common::both;

use common::{Options, Server, chat_json as chat, fast, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The `data:` payloads of an SSE body, in order.
async fn sse_data(response: reqwest::Response) -> Vec<String> {
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .map(str::to_string)
        .collect()
}

fn hello(model: &str) -> Value {
    json!({"model": model, "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello gateway"}]})
}

both! {
    #[tokio::test]
    async fn a_completion_has_the_openai_shape_and_the_platform_object() {
        let server = fast();
        let (status, answer) = chat(&server, hello("sim-fast")).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["object"], "chat.completion");
        assert!(answer["id"].as_str().unwrap().starts_with("chatcmpl-"));
        assert_eq!(answer["model"], "sim-fast");
        assert_eq!(answer["choices"][0]["message"]["role"], "assistant");
        assert_eq!(answer["choices"][0]["finish_reason"], "stop");
        let usage = &answer["usage"];
        assert_eq!(
            usage["total_tokens"].as_u64(),
            Some(
                usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap()
            )
        );
        let platform = &answer["platform"];
        assert_eq!(platform["routed_model"], "sim-fast");
        assert_eq!(platform["route_reason"], "requested model sim-fast");
        // sim-fast: 0.3 / 0.6 credits per 1k prompt / completion tokens, unrounded.
        let expected = (usage["prompt_tokens"].as_f64().unwrap() * 0.3
            + usage["completion_tokens"].as_f64().unwrap() * 0.6)
            / 1000.0;
        assert!((platform["credits_consumed"].as_f64().unwrap() - expected).abs() < 1e-12);
        assert!(
            platform["credits_consumed"].as_f64().unwrap() < 1.0,
            "fractions of a credit"
        );
        assert!(
            platform["cost_saved_credits"].as_f64().unwrap() > 0.0,
            "cheaper than sim-pro"
        );

        let (_, again) = chat(&server, hello("sim-fast")).await;
        assert_eq!(
            again["choices"][0]["message"], answer["choices"][0]["message"],
            "deterministic"
        );
    }
}

both! {
    #[tokio::test]
    async fn max_tokens_is_honoured() {
        let server = fast();
        let (_, answer) = chat(&server, json!({"model": "sim-pro", "max_tokens": 3, "messages": [{"role": "user", "content": "hi"}]})).await;
        assert_eq!(answer["usage"]["completion_tokens"], 3);
        assert_eq!(answer["choices"][0]["finish_reason"], "length");
    }
}

both! {
    #[tokio::test]
    async fn a_stream_sends_chunks_in_order_then_the_final_chunk_usage_and_done() {
        let server = fast();
        let (_, whole) = chat(&server, hello("sim-balanced")).await;
        let mut body = hello("sim-balanced");
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
        let response = server
            .post("/v1/chat/completions", &server.admin_key, &body)
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let events = sse_data(response).await;
        assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|e| serde_json::from_str(e).unwrap())
            .collect();
        assert!(
            chunks
                .iter()
                .all(|c| c["object"] == "chat.completion.chunk")
        );
        let text: String = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
            .collect();
        assert_eq!(
            text,
            whole["choices"][0]["message"]["content"].as_str().unwrap(),
            "same text, in order"
        );

        let usage_chunk = &chunks[chunks.len() - 1];
        assert_eq!(usage_chunk["choices"], json!([]));
        assert_eq!(usage_chunk["usage"], whole["usage"]);
        let last = &chunks[chunks.len() - 2];
        assert_eq!(last["choices"][0]["delta"], json!({}));
        assert_eq!(last["choices"][0]["finish_reason"], "stop");
        assert_eq!(
            last["platform"]["credits_consumed"],
            whole["platform"]["credits_consumed"]
        );

        // Without include_usage there is no usage chunk.
        body["stream_options"] = json!(null);
        let events = sse_data(
            server
                .post("/v1/chat/completions", &server.admin_key, &body)
                .await,
        )
        .await;
        let before_done: Value = serde_json::from_str(&events[events.len() - 2]).unwrap();
        assert!(before_done.get("platform").is_some());
    }
}

both! {
    #[tokio::test]
    async fn routing_modes_and_weights_choose_as_documented() {
        let server = fast();
        let routed = |answer: &Value| {
            answer["platform"]["routed_model"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            routed(&chat(&server, hello("auto-fast")).await.1),
            "sim-fast"
        );
        assert_eq!(
            routed(&chat(&server, hello("auto-cheap")).await.1),
            "sim-mini"
        );
        let mut body = hello("auto");
        body["route_strategy"] = json!({"cost_weight": 0, "quality_weight": 1});
        let (_, answer) = chat(&server, body.clone()).await;
        assert_eq!(routed(&answer), "sim-pro");
        assert!(
            answer["platform"]["route_reason"]
                .as_str()
                .unwrap()
                .contains("best score")
        );
        assert_eq!(
            answer["platform"]["cost_saved_credits"], 0.0,
            "already the best model"
        );
        body["route_strategy"] = json!({"cost_weight": 1, "quality_weight": 0});
        assert_eq!(routed(&chat(&server, body).await.1), "sim-mini");
    }
}

both! {
    #[tokio::test]
    async fn budgets_bound_the_worst_case_and_402_when_nothing_fits() {
        let server = fast();
        let ask = |budget: f64| {
            json!({
                "model": "auto", "max_tokens": 100, "budget_limit": budget,
                "route_strategy": {"cost_weight": 0, "quality_weight": 1},
                "messages": [{"role": "user", "content": "hi"}]
            })
        };
        // Prompt "hi" is 1 + 4 + 3 = 8 tokens; sim-pro's worst case is (8 * 3 + 100 * 9) / 1000.
        let (_, answer) = chat(&server, ask(0.924)).await;
        assert_eq!(
            answer["platform"]["routed_model"], "sim-pro",
            "an exact fit is allowed"
        );
        assert!(answer["platform"]["credits_consumed"].as_f64().unwrap() <= 0.924);
        let (_, answer) = chat(&server, ask(0.923)).await;
        assert_eq!(answer["platform"]["routed_model"], "sim-balanced");
        assert!(
            answer["platform"]["route_reason"]
                .as_str()
                .unwrap()
                .contains("3 of 4 models fit budget")
        );

        let (status, error) = chat(&server, ask(0.000_01)).await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
        assert_eq!(error["error"]["code"], "budget_exceeded");
        let mut explicit = ask(0.5);
        explicit["model"] = json!("sim-pro");
        assert_eq!(
            chat(&server, explicit).await.0,
            StatusCode::PAYMENT_REQUIRED
        );
    }
}

both! {
    #[tokio::test]
    async fn the_ledger_totals_equal_the_sum_of_responses() {
        let server = fast();
        let mut credits = 0.0;
        let mut completion = 0;
        for (n, model) in ["auto", "auto-cheap", "sim-pro", "auto-fast", "auto"]
            .iter()
            .enumerate()
        {
            let mut body = json!({"model": model, "messages": [{"role": "user", "content": format!("question {n}")}]});
            if n == 4 {
                body["agent_wallet"] = json!("0x52908400098527886E0F7030069857D2E4169EE7");
            }
            let (_, answer) = chat(&server, body).await;
            credits += answer["platform"]["credits_consumed"].as_f64().unwrap();
            completion += answer["usage"]["completion_tokens"].as_u64().unwrap();
        }
        let usage: Value = server
            .get("/v1/usage", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        let totals = &usage["totals"];
        assert_eq!(totals["requests"], 5);
        assert_eq!(totals["completion_tokens"], completion);
        assert!(
            (totals["credits"].as_f64().unwrap() - credits).abs() < 1e-9,
            "{totals} vs {credits}"
        );
        let rows = usage["data"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["date"].as_str().unwrap().len() == 10));
        let by_rows: u64 = rows.iter().map(|r| r["requests"].as_u64().unwrap()).sum();
        assert_eq!(by_rows, 5);
        let reader = secret(&server.create_token("reader", &["tokens:read"]).await);
        assert_eq!(
            server.get("/v1/usage", &reader).await.status(),
            StatusCode::FORBIDDEN
        );
    }
}

both! {
    #[tokio::test]
    async fn a_client_that_hangs_up_stops_generation_and_pays_only_for_what_it_got() {
        let server = Server::start_with(Options {
            args: vec!["--sim-token-delay-ms".into(), "100".into()],
            ..Default::default()
        });
        let mut body = hello("sim-pro");
        body["stream"] = json!(true);
        let mut response = server
            .post("/v1/chat/completions", &server.admin_key, &body)
            .await;
        // Read the first two chunks (role, then the first token), then hang up.
        let mut seen = String::new();
        while seen.matches("data: ").count() < 2 {
            seen.push_str(&String::from_utf8_lossy(
                &response.chunk().await.unwrap().unwrap(),
            ));
        }
        drop(response);

        // The full answer is at least 12 tokens, 100 ms apart; the ledger shows far fewer.
        let (_, whole) = chat(&server, {
            let mut b = hello("sim-pro");
            b["stream"] = json!(false);
            b
        })
        .await;
        let full = whole["usage"]["completion_tokens"].as_u64().unwrap();
        // The ledger is written every second; wait for both records, up to 20 s.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut billed = None;
        while billed.is_none() && std::time::Instant::now() < deadline {
            let usage: Value = server
                .get("/v1/usage", &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            if usage["totals"]["requests"] == 2 {
                billed = Some(usage["totals"]["completion_tokens"].as_u64().unwrap() - full);
            }
        }
        let billed = billed.expect("the cancelled stream was recorded");
        assert!(
            billed <= 3,
            "billed {billed} tokens of a {full}-token answer"
        );
    }
}

both! {
    #[tokio::test]
    async fn models_are_listed_with_prices() {
        let server = fast();
        let models: Value = server
            .get("/v1/models", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(models["object"], "list");
        let data = models["data"].as_array().unwrap();
        assert!(data.len() >= 4);
        for model in data {
            assert_eq!(model["object"], "model");
            for field in ["prompt_price", "completion_price", "quality", "latency_ms"] {
                assert!(model[field].is_number(), "{field} in {model}");
            }
        }
    }
}
