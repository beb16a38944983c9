//! One model, several deployments (each a mock upstream): requests spread by weight, a failure
//! before the first byte retried once on another deployment, a 429's `Retry-After` honoured,
//! a deployment's own limits and prices, named fallbacks, and `GET /v1/models` showing each
//! deployment's health.

mod common;

use common::both;
use common::upstream::answering;
use common::{Options, Server};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A mock upstream answering "from NAME" with 10 prompt and 5 completion tokens.
async fn healthy(name: &str) -> MockServer {
    let upstream = MockServer::start().await;
    answering(
        &upstream,
        &format!("from {name}"),
        json!({"prompt_tokens": 10, "completion_tokens": 5}),
    )
    .await;
    upstream
}

/// A mock upstream answering every request with `status` (and `Retry-After: retry_after`).
async fn failing(status: u16, retry_after: Option<&str>) -> MockServer {
    let upstream = MockServer::start().await;
    let mut reply = ResponseTemplate::new(status).set_body_string("no");
    if let Some(wait) = retry_after {
        reply = reply.insert_header("retry-after", wait);
    }
    Mock::given(method("POST"))
        .respond_with(reply)
        .mount(&upstream)
        .await;
    upstream
}

/// An address nothing listens on: a deployment there is refused at once.
fn refusing() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// A `[[models.deployments]]` table for an openai deployment `name` at `url`, with `extra`.
fn deployment(name: &str, url: &str, extra: &str) -> String {
    format!(
        "[[models.deployments]]\nname = \"{name}\"\nprovider = \"openai\"\nbase_url = \"{url}\"\n{extra}\n"
    )
}

/// A gateway whose model `m` (prices 1 and 2, `m_extra` lines) has `deployments`, with a
/// simulated model `local` besides.
fn gateway(dir: &std::path::Path, m_extra: &str, deployments: &[String]) -> Server {
    let file = dir.join("models.toml");
    let text = format!(
        "[[models]]\nid = \"m\"\nprompt_price = 1\ncompletion_price = 2\nquality = 0.9\n\
         latency_ms = 100\n{m_extra}\n{}\n\
         [[models]]\nid = \"local\"\nprovider = \"simulated\"\nprompt_price = 0.1\n\
         completion_price = 0.1\nquality = 0.5\nlatency_ms = 10\n",
        deployments.concat()
    );
    std::fs::write(&file, text).unwrap();
    Server::start_with(Options {
        args: vec![
            "--models".into(),
            file.display().to_string(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    })
}

async fn ask(server: &Server, model: &str) -> Value {
    let body = json!({"model": model, "messages": [{"role": "user", "content": "hi"}]});
    let (status, answer) = common::chat_json(server, body).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

fn text(answer: &Value) -> &str {
    answer["choices"][0]["message"]["content"].as_str().unwrap()
}

fn reason(answer: &Value) -> &str {
    answer["platform"]["route_reason"].as_str().unwrap()
}

async fn received(upstream: &MockServer) -> usize {
    upstream.received_requests().await.unwrap().len()
}

#[tokio::test]
async fn requests_spread_by_weight_and_the_reason_names_the_deployment() {
    let (a, b, c) = (healthy("a").await, healthy("b").await, healthy("c").await);
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        tmp.path(),
        "",
        &[
            deployment("a", &a.uri(), "weight = 2"),
            deployment("b", &b.uri(), ""),
            deployment("c", &c.uri(), "prompt_price = 3\ncompletion_price = 4"),
        ],
    );
    let mut by = std::collections::HashMap::new();
    for _ in 0..40 {
        let answer = ask(&server, "m").await;
        *by.entry(text(&answer).to_string()).or_insert(0) += 1;
        assert_eq!(answer["platform"]["routed_model"], "m");
        let name = text(&answer).trim_start_matches("from ");
        let weight = if name == "a" { 2 } else { 1 };
        assert!(
            reason(&answer).ends_with(&format!("deployment {name} by weight ({weight} of 4)")),
            "{}",
            reason(&answer)
        );
        // Each deployment's own prices: c's are 3 and 4 per 1k, the model's 1 and 2.
        let credits = answer["platform"]["credits_consumed"].as_f64().unwrap();
        let expected = match name {
            "c" => (10.0 * 3.0 + 5.0 * 4.0) / 1000.0,
            _ => (10.0 * 1.0 + 5.0 * 2.0) / 1000.0,
        };
        assert!((credits - expected).abs() < 1e-12, "{name}: {credits}");
    }
    assert_eq!(by["from a"], 20, "{by:?}");
    assert_eq!((by["from b"], by["from c"]), (10, 10), "{by:?}");
    assert_eq!(
        (received(&a).await, received(&b).await, received(&c).await),
        (20, 10, 10)
    );

    let models = server.get("/v1/models", &server.admin_key).await;
    let models: Value = models.json().await.unwrap();
    let m = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "m")
        .unwrap();
    let names: Vec<&str> = m["deployments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(m["deployments"][0]["weight"], 2);
    assert_eq!(m["deployments"][2]["prompt_price"], 3.0);
    assert_eq!(m["deployments"][1]["health"]["state"], "closed");
    assert_eq!(m["deployments"][1]["health"]["recent_requests"], 10);
    let local = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "local")
        .unwrap();
    assert!(
        local.get("deployments").is_none(),
        "a model of one upstream lists none"
    );
}

#[tokio::test]
async fn a_failure_before_the_first_byte_is_retried_once_on_another_deployment() {
    let broken = failing(500, None).await;
    let good = healthy("good").await;
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        tmp.path(),
        "",
        &[
            deployment("broken", &broken.uri(), "weight = 5"),
            deployment("good", &good.uri(), ""),
        ],
    );
    let answer = ask(&server, "m").await;
    assert_eq!(text(&answer), "from good");
    let why = reason(&answer);
    assert!(
        why.contains(
            "fell back to m (good) after m (broken) (HTTP 500: no) failed before answering"
        ),
        "{why}"
    );
    // Streamed: the same, before the first byte.
    let body =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let streamed = server
        .post("/v1/chat/completions", &server.admin_key, &body)
        .await;
    let streamed = streamed.text().await.unwrap();
    assert!(
        streamed.contains("from good") && streamed.ends_with("data: [DONE]\n\n"),
        "{streamed}"
    );
}

#[tokio::test]
async fn after_two_deployments_fail_the_named_fallbacks_answer_in_order() {
    let (one, two) = (failing(500, None).await, failing(502, None).await);
    let spare = healthy("spare").await;
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        tmp.path(),
        "fallbacks = [\"local\"]",
        &[
            deployment("one", &one.uri(), "weight = 3"),
            deployment("two", &two.uri(), "weight = 2"),
            deployment("spare", &spare.uri(), ""),
            deployment("gone", &refusing(), ""),
        ],
    );
    let answer = ask(&server, "m").await;
    assert_eq!(answer["platform"]["routed_model"], "local");
    assert_eq!(
        (
            received(&one).await,
            received(&two).await,
            received(&spare).await
        ),
        (1, 1, 0),
        "one retry on another deployment, then the model counts as failed"
    );
    let why = reason(&answer);
    assert!(
        why.starts_with("requested model m; fell back to local after m (one)"),
        "{why}"
    );
    assert!(why.contains("m (two) (HTTP 502: no)"), "{why}");
}

#[tokio::test]
async fn a_deployment_that_answered_429_is_left_alone_for_its_retry_after() {
    let limited = failing(429, Some("30")).await;
    let other = healthy("other").await;
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        tmp.path(),
        "",
        &[
            deployment("limited", &limited.uri(), "weight = 10"),
            deployment("other", &other.uri(), ""),
        ],
    );
    for _ in 0..20 {
        assert_eq!(text(&ask(&server, "m").await), "from other");
    }
    assert_eq!(
        received(&limited).await,
        1,
        "nothing inside its Retry-After"
    );
    let answer = ask(&server, "m").await;
    let why = reason(&answer);
    assert!(why.contains("passed over: limited open for"), "{why}");
}

#[tokio::test]
async fn a_deployment_at_its_own_limit_is_passed_over_and_all_at_theirs_is_503() {
    let (small, big) = (healthy("small").await, healthy("big").await);
    let tmp = tempfile::tempdir().unwrap();
    let server = gateway(
        tmp.path(),
        "",
        &[
            deployment("small", &small.uri(), "weight = 10\nrpm = 2"),
            deployment("big", &big.uri(), "rpm = 3"),
        ],
    );
    let mut texts = Vec::new();
    for _ in 0..5 {
        texts.push(text(&ask(&server, "m").await).to_string());
    }
    assert_eq!(received(&small).await, 2);
    assert_eq!(received(&big).await, 3);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &body)
        .await;
    assert_eq!(response.status(), 503);
    let error: Value = response.json().await.unwrap();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("small at its limit of 2 requests a minute"),
        "{message}"
    );
    assert!(
        message.contains("big at its limit of 3 requests a minute"),
        "{message}"
    );
}

both! {
    #[tokio::test]
    async fn the_ledger_and_usage_record_the_deployment_that_answered() {
        let (a, b) = (healthy("a").await, healthy("b").await);
        let tmp = tempfile::tempdir().unwrap();
        let server = gateway(
            tmp.path(),
            "",
            &[
                deployment("a", &a.uri(), "weight = 2"),
                deployment("b", &b.uri(), "prompt_price = 3\ncompletion_price = 4"),
            ],
        );
        for _ in 0..6 {
            ask(&server, "m").await;
        }
        ask(&server, "local").await;
        let usage = server.get("/v1/usage", &server.admin_key).await;
        let usage: Value = usage.json().await.unwrap();
        let rows = usage["data"].as_array().unwrap();
        let m = rows.iter().find(|r| r["model"] == "m").expect("a row for m");
        assert_eq!(m["requests"], 6);
        // Four answers by a (10 and 5 tokens at 1 and 2 per 1k), two by b (at 3 and 4).
        assert_eq!(
            m["deployments"],
            json!([
                {"deployment": "a", "requests": 4, "prompt_tokens": 40, "completion_tokens": 20, "credits": 0.08},
                {"deployment": "b", "requests": 2, "prompt_tokens": 20, "completion_tokens": 10, "credits": 0.1},
            ])
        );
        assert_eq!(m["credits"], 0.18);
        let local = rows.iter().find(|r| r["model"] == "local").unwrap();
        assert!(local.get("deployments").is_none(), "{local}");
    }
}

#[tokio::test]
async fn fallbacks_over_the_budget_are_named_and_never_tried() {
    let (broken, pricey) = (failing(500, None).await, healthy("pricey").await);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("models.toml");
    std::fs::write(
        &file,
        format!(
            "[[models]]\nid = \"m\"\nprovider = \"openai\"\nbase_url = \"{}\"\n\
             prompt_price = 1\ncompletion_price = 1\nquality = 0.9\nlatency_ms = 10\n\
             fallbacks = [\"pricey\", \"local\"]\n\n\
             [[models]]\nid = \"pricey\"\nprovider = \"openai\"\nbase_url = \"{}\"\n\
             prompt_price = 1000\ncompletion_price = 1000\nquality = 0.9\nlatency_ms = 10\n\n\
             [[models]]\nid = \"local\"\nprovider = \"simulated\"\nprompt_price = 0.1\n\
             completion_price = 0.1\nquality = 0.5\nlatency_ms = 10\n",
            broken.uri(),
            pricey.uri()
        ),
    )
    .unwrap();
    let server = Server::start_with(Options {
        args: vec!["--models".into(), file.display().to_string()],
        ..Default::default()
    });
    let body = json!({"model": "m", "budget_limit": 1, "max_tokens": 100,
                      "messages": [{"role": "user", "content": "hi"}]});
    let (status, answer) = common::chat_json(&server, body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["platform"]["routed_model"], "local");
    let why = reason(&answer);
    assert!(why.contains("fallbacks over budget_limit: pricey"), "{why}");
    assert!(
        why.contains("fell back to local after m (HTTP 500: no)"),
        "{why}"
    );
    assert_eq!(received(&pricey).await, 0);
}
