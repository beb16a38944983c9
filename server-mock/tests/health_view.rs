//! What the gateway has seen of each upstream, where users see it: `auto-fast` routes on the
//! time to first token its upstreams show today (the catalogue's figure only until enough
//! answers are in), and `GET /v1/models` shows each model's circuit and speed.

mod common;

use std::time::Duration;

use common::upstream::{KEY_VAR, catalogue_with, chat};
use common::{Options, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn ask(model: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": "hi"}]})
}

/// An upstream answering every request whole, after `delay`.
async fn answering_after(delay: Duration) -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1}
                }))
                .set_delay(delay),
        )
        .mount(&upstream)
        .await;
    upstream
}

fn gateway(models: &std::path::Path) -> Server {
    Server::start_with(Options {
        env: vec![(KEY_VAR, "k")],
        args: vec!["--models".into(), models.display().to_string()],
        ..Default::default()
    })
}

async fn models(server: &Server) -> Value {
    let response = server.get("/v1/models", &server.admin_key).await;
    assert_eq!(response.status(), StatusCode::OK);
    let list: Value = response.json().await.unwrap();
    list["data"].clone()
}

fn health<'a>(models: &'a Value, id: &str) -> &'a Value {
    let model = models
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap();
    &model["health"]
}

#[tokio::test]
async fn auto_fast_routes_on_the_first_token_times_it_observes() {
    // On paper `brisk` is the fast one; in fact it takes 300 ms and `steady` answers at once.
    let brisk = answering_after(Duration::from_millis(300)).await;
    let steady = answering_after(Duration::ZERO).await;
    let tmp = tempfile::tempdir().unwrap();
    let entry = |id: &str, upstream: &MockServer, latency_ms: u64| {
        format!(
            "[[models]]\nid = \"{id}\"\nprovider = \"openai\"\nbase_url = \"{}/v1\"\n\
             prompt_price = 1.0\ncompletion_price = 1.0\nquality = 0.5\nlatency_ms = {latency_ms}\n\n",
            upstream.uri()
        )
    };
    let path = tmp.path().join("models.toml");
    std::fs::write(
        &path,
        entry("brisk", &brisk, 50) + &entry("steady", &steady, 900),
    )
    .unwrap();
    let server = gateway(&path);

    let reason = |answer: &Value| {
        answer["platform"]["route_reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let answer: Value = chat(&server, ask("auto-fast")).await.json().await.unwrap();
    assert_eq!(answer["platform"]["routed_model"], "brisk");
    assert!(
        reason(&answer).starts_with("auto-fast: brisk has the lowest time to first token (50 ms typical, from the catalogue)"),
        "{}",
        reason(&answer)
    );
    for model in ["brisk", "brisk", "steady", "steady", "steady"] {
        assert_eq!(chat(&server, ask(model)).await.status(), StatusCode::OK);
    }
    // Both have 3 answers now: what they showed replaces what the catalogue says.
    let answer: Value = chat(&server, ask("auto-fast")).await.json().await.unwrap();
    assert_eq!(answer["platform"]["routed_model"], "steady");
    let text = reason(&answer);
    assert!(
        text.starts_with("auto-fast: steady has the lowest time to first token (")
            && text.contains(" ms, observed over 3 answers)"),
        "{text}"
    );

    let listed = models(&server).await;
    let (brisk, steady) = (health(&listed, "brisk"), health(&listed, "steady"));
    assert_eq!(brisk["samples"], 3);
    assert_eq!(steady["samples"], 4);
    assert_eq!(brisk["first_token_observed"], true);
    assert!(
        brisk["first_token_ms_p50"].as_f64().unwrap() >= 300.0,
        "{brisk}"
    );
    assert!(
        brisk["first_token_ms"].as_f64().unwrap() >= 300.0,
        "{brisk}"
    );
    assert!(
        steady["first_token_ms_p50"].as_f64().unwrap() < 300.0,
        "{steady}"
    );
    assert_eq!(steady["state"], "closed");
    assert_eq!(steady["recent_requests"], 4);
    assert_eq!(steady["error_rate"], 0.0);
}

#[tokio::test]
async fn models_show_an_open_circuit_with_until_when_and_why() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&upstream)
        .await;
    let tmp = tempfile::tempdir().unwrap();
    let path = catalogue_with(tmp.path(), &format!("{}/v1", upstream.uri()), "m", "");
    let server = gateway(std::path::Path::new(&path));
    let before = chrono::Utc::now();
    for _ in 0..3 {
        chat(&server, ask("upstream")).await;
    }
    let listed = models(&server).await;
    let open = health(&listed, "upstream");
    assert_eq!(open["state"], "open");
    assert_eq!(open["opened_after"], "3 failures in a row, last: HTTP 500");
    assert_eq!(open["failures_in_a_row"], 3);
    assert_eq!(
        (&open["recent_requests"], &open["recent_failures"]),
        (&json!(3), &json!(3))
    );
    assert_eq!(open["error_rate"], 1.0);
    let until: chrono::DateTime<chrono::Utc> =
        open["open_until"].as_str().unwrap().parse().unwrap();
    let after = chrono::Utc::now();
    assert!(
        until > before + chrono::Duration::seconds(9)
            && until <= after + chrono::Duration::seconds(10),
        "{until}"
    );
    // No answer was seen, so the catalogue's figure stands.
    assert_eq!(open["samples"], 0);
    assert_eq!(
        (&open["first_token_ms"], &open["first_token_observed"]),
        (&json!(500.0), &json!(false))
    );

    // A simulated model answers at once whatever it plays: its figure is the catalogue's.
    for _ in 0..3 {
        assert_eq!(chat(&server, ask("local")).await.status(), StatusCode::OK);
    }
    let listed = models(&server).await;
    let local = health(&listed, "local");
    assert_eq!(local["state"], "closed");
    assert_eq!(local["open_until"], Value::Null);
    assert_eq!(
        (&local["first_token_ms"], &local["samples"]),
        (&json!(50.0), &json!(0))
    );
    assert_eq!(local["recent_requests"], 3);
}

#[tokio::test]
async fn a_streamed_answer_shows_its_first_token_time_and_output_speed() {
    let body = common::upstream::sse(&[
        common::upstream::delta("one"),
        common::upstream::delta(" two"),
        common::upstream::delta(" three"),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]);
    let (_upstream, _tmp, server) = common::upstream::behind_sse(body).await;
    let mut streamed = ask("upstream");
    streamed["stream"] = json!(true);
    let text = chat(&server, streamed).await.text().await.unwrap();
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    let listed = models(&server).await;
    let seen = health(&listed, "upstream");
    assert_eq!(seen["samples"], 1);
    assert!(seen["first_token_ms_p50"].is_number(), "{seen}");
    assert!(seen["tokens_per_second"].as_f64().unwrap() > 0.0, "{seen}");
    assert_eq!(
        (&seen["recent_requests"], &seen["recent_failures"]),
        (&json!(1), &json!(0))
    );
}
