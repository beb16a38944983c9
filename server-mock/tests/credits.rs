//! Exact credits: amounts are written as exact decimals, the ledger's total is the exact sum
//! of what each answer said it cost, budgets are compared to the nano-credit, and catalogue
//! prices finer than a nano-credit per token are refused at start.

mod common;

use common::both;

use common::upstream::{catalogue_with, chat, events, gateway};
use common::{Options, Server};
use futures::StreamExt;
use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokctl_server::credits::Credits;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// What the tests read of an answer: its amounts, from their JSON text.
#[derive(Deserialize)]
struct Billed {
    platform: Amounts,
}

#[derive(Deserialize)]
struct Amounts {
    credits_consumed: Credits,
}

/// A catalogue of one simulated model at 0.15 / 0.6 credits per 1k tokens, and its gateway.
fn priced_gateway() -> (tempfile::TempDir, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("models.toml");
    std::fs::write(
        &path,
        "[[models]]\nid = \"mini\"\nprovider = \"simulated\"\nprompt_price = 0.15\n\
         completion_price = 0.6\nquality = 0.6\nlatency_ms = 100\n",
    )
    .unwrap();
    let server = Server::start_with(Options {
        args: vec![
            "--models".into(),
            path.display().to_string(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        rate_limit: Some(1_000_000),
        ..Default::default()
    });
    (tmp, server)
}

both! {
    #[tokio::test]
    async fn twenty_prompt_and_twelve_completion_tokens_at_0_15_and_0_6_cost_exactly_0_0102() {
        let upstream = MockServer::start().await;
        let usage = json!({"prompt_tokens": 20, "completion_tokens": 12, "total_tokens": 32});
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": "up", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "twelve tokens of answer"}, "finish_reason": "stop"}],
                "usage": usage
            })))
            .mount(&upstream)
            .await;
        let tmp = tempfile::tempdir().unwrap();
        let prices = "prompt_price = 0.15\ncompletion_price = 0.6";
        let catalogue = catalogue_with(tmp.path(), &format!("{}/v1", upstream.uri()), "m", "");
        let text = std::fs::read_to_string(&catalogue).unwrap();
        let priced = text.replace("prompt_price = 1.0\ncompletion_price = 2.0", prices);
        assert_ne!(text, priced);
        std::fs::write(&catalogue, priced).unwrap();
        let server = gateway(&catalogue, "k");

        let body = json!({"model": "upstream", "messages": [{"role": "user", "content": "hi"}]});
        let response = chat(&server, body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        assert!(text.contains(r#""credits_consumed":0.0102,"#), "{text}");
        // The reference (the best model, this one) costs the same: nothing saved.
        assert!(text.contains(r#""cost_saved_credits":0}"#), "{text}");

        let usage = server.get("/v1/usage", &server.admin_key).await;
        let text = usage.text().await.unwrap();
        assert!(text.contains(r#""credits":0.0102"#), "{text}");
    }
}

both! {
    #[tokio::test]
    async fn ten_thousand_answers_of_mixed_sizes_add_up_to_the_ledger_total_exactly() {
        let (_tmp, server) = priced_gateway();
        let server = &server;
        let requests = (0..10_000u32).map(|i| async move {
            // Prompts of 1 to 97 characters, answers capped at 1 to 40 tokens.
            let prompt = "abcdefghij".repeat(10)[..(1 + (i * 7) % 97) as usize].to_string();
            let body = json!({"model": "mini", "max_tokens": 1 + i % 40,
                              "messages": [{"role": "user", "content": prompt}]});
            let response = chat(server, body).await;
            assert_eq!(response.status(), StatusCode::OK);
            let billed: Billed = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            billed.platform.credits_consumed.nanos()
        });
        let charges: Vec<u64> = futures::stream::iter(requests)
            .buffer_unordered(16)
            .collect()
            .await;
        let sum: u64 = charges.iter().sum();
        let distinct: std::collections::BTreeSet<_> = charges.iter().collect();
        assert!(
            distinct.len() > 100,
            "mixed sizes: {} distinct charges",
            distinct.len()
        );

        let (status, usage) = {
            let response = server.get("/v1/usage", &server.admin_key).await;
            (response.status(), response.bytes().await.unwrap())
        };
        assert_eq!(status, StatusCode::OK);
        #[derive(Deserialize)]
        struct Totals {
            requests: u64,
            credits: Credits,
        }
        #[derive(Deserialize)]
        struct Usage {
            totals: Totals,
        }
        let usage: Usage = serde_json::from_slice(&usage).unwrap();
        assert_eq!(usage.totals.requests, 10_000);
        assert_eq!(usage.totals.credits, Credits::from_nanos(sum));
    }
}

both! {
    #[tokio::test]
    async fn a_budget_of_exactly_the_worst_case_is_admitted_and_one_nano_credit_less_is_402() {
        let (_tmp, server) = priced_gateway();
        let ask = |budget: &str| {
            let body = format!(
                r#"{{"model": "mini", "max_tokens": 12, "budget_limit": {budget},
                     "messages": [{{"role": "user", "content": "hello"}}]}}"#
            );
            server
                .request(
                    reqwest::Method::POST,
                    "/v1/chat/completions",
                    &server.admin_key,
                )
                .header("content-type", "application/json")
                .body(body)
                .send()
        };
        // 9 prompt tokens (5 characters, message and reply framing) at 0.15 per 1k and at most 12
        // completion tokens at 0.6 per 1k: 0.00135 + 0.0072.
        let refused = ask("0.000000001").await.unwrap();
        assert_eq!(refused.status(), StatusCode::PAYMENT_REQUIRED);
        let body: Value = refused.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("could cost up to 0.00855 credits"),
            "{message}"
        );

        let admitted = ask("0.00855").await.unwrap();
        assert_eq!(admitted.status(), StatusCode::OK);
        let billed: Billed = serde_json::from_slice(&admitted.bytes().await.unwrap()).unwrap();
        assert!(billed.platform.credits_consumed <= Credits::parse_floor("0.00855").unwrap());

        let short = ask("0.008549999").await.unwrap();
        assert_eq!(short.status(), StatusCode::PAYMENT_REQUIRED);
        let body: Value = short.json().await.unwrap();
        assert_eq!(body["error"]["code"], "budget_exceeded");
        // Written with more digits than a nano-credit holds, the budget is cut to the nano-credit.
        let cut = ask("0.0085499999999").await.unwrap();
        assert_eq!(cut.status(), StatusCode::PAYMENT_REQUIRED);
    }
}

/// The prices of [`priced_gateway`]'s model in nano-credits a token: 0.15 and 0.6 credits per
/// 1k tokens.
const PROMPT_NANOS: u64 = 150_000;
const COMPLETION_NANOS: u64 = 600_000;

/// `nanos` nano-credits as exact decimal text without trailing zeros (`0.0102`, `3`), written
/// here rather than taken from the server's `Credits`, so the server is not checked by itself.
fn decimal(nanos: u64) -> String {
    let whole = nanos / 1_000_000_000;
    let fraction = format!("{:09}", nanos % 1_000_000_000);
    match fraction.trim_end_matches('0') {
        "" => whole.to_string(),
        fraction => format!("{whole}.{fraction}"),
    }
}

/// An answer's (or final chunk's) `platform.credits_consumed` exactly as written on the wire.
fn consumed_text(json: &str) -> String {
    #[derive(Deserialize)]
    struct Answer {
        platform: RawAmounts,
    }
    #[derive(Deserialize)]
    struct RawAmounts {
        credits_consumed: Box<RawValue>,
    }
    let answer: Answer = serde_json::from_str(json).unwrap();
    answer.platform.credits_consumed.get().to_string()
}

/// What `usage` (prompt and completion tokens) costs at the model's prices, as decimal text.
fn cost_of(usage: &Value) -> String {
    let prompt = usage["prompt_tokens"].as_u64().unwrap();
    let completion = usage["completion_tokens"].as_u64().unwrap();
    assert!(prompt > 0 && (1..=12).contains(&completion), "{usage}");
    decimal(prompt * PROMPT_NANOS + completion * COMPLETION_NANOS)
}

#[test]
fn decimal_writes_nano_credits_exactly() {
    assert_eq!(decimal(10_200_000), "0.0102");
    assert_eq!(decimal(8_550_000), "0.00855");
    assert_eq!(decimal(1), "0.000000001");
    assert_eq!(decimal(3_000_000_000), "3");
    assert_eq!(decimal(1_000_000_001), "1.000000001");
}

both! {
    #[tokio::test]
    async fn streamed_answers_carry_exact_amounts_too() {
        let (_tmp, server) = priced_gateway();
        let body = json!({"model": "mini", "stream": true, "max_tokens": 12,
                          "stream_options": {"include_usage": true},
                          "messages": [{"role": "user", "content": "hello"}]});
        let response = chat(&server, body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        // The final chunk carries `platform`, then the usage chunk, then `[DONE]`.
        let events = events(&text);
        let [.., last, usage, done] = events[..] else {
            panic!("too few events: {text}");
        };
        assert_eq!(done, "[DONE]", "{text}");
        let usage: Value = serde_json::from_str(usage).unwrap();
        let streamed = consumed_text(last);
        assert_eq!(streamed, cost_of(&usage["usage"]), "{text}");

        let response = chat(
            &server,
            json!({"model": "mini", "max_tokens": 12, "messages": [{"role": "user", "content": "hello"}]}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        let whole: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(consumed_text(&text), cost_of(&whole["usage"]), "{text}");
        // The same question answered whole or streamed is billed the same.
        assert_eq!(consumed_text(&text), streamed);
    }
}

#[test]
fn a_catalogue_price_finer_than_a_nano_credit_per_token_is_refused_naming_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("models.toml");
    std::fs::write(
        &path,
        "[[models]]\nid = \"ok\"\nprovider = \"simulated\"\nprompt_price = 0.000001\n\
         completion_price = 1\nquality = 0.5\nlatency_ms = 10\n\n\
         [[models]]\nid = \"too-fine\"\nprovider = \"simulated\"\nprompt_price = 0.0000001\n\
         completion_price = 1\nquality = 0.5\nlatency_ms = 10\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
        .args(["serve", "--listen", "127.0.0.1:0", "--models"])
        .arg(&path)
        .arg("--data-dir")
        .arg(tmp.path().join("data"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(r#"model "too-fine""#), "{stderr}");
    assert!(
        stderr.contains("0.0000001 is finer than 10^-9 credit per token"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
