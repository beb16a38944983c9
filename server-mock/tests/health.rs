//! Upstream health: a failing upstream's circuit opens, routing skips it and says so, a request
//! with nowhere to go gets 503 with `Retry-After` at once, and a probe closes it again. Health
//! is kept per instance, in memory, so these tests run on one backend.

mod common;

use std::time::Duration;

use common::hooks::eventually;
use common::upstream::{KEY_VAR, catalogue_with, chat, delta, gateway, sse};
use common::{Options, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn ask(model: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": "hi"}]})
}

/// Quality first, so `auto` ranks the upstream (quality 0.99) before the simulated model.
fn quality_first() -> Value {
    json!({"model": "auto", "route_strategy": {"cost_weight": 0, "quality_weight": 1},
           "messages": [{"role": "user", "content": "hi"}]})
}

/// An upstream giving every request `response`.
async fn answering(response: ResponseTemplate) -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&upstream)
        .await;
    upstream
}

/// An upstream whose streams stop after two deltas, with no finish_reason and no [DONE].
async fn cutting() -> MockServer {
    let cut: String = [delta("half"), delta(" an answer")]
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect();
    answering(ResponseTemplate::new(200).set_body_raw(cut, "text/event-stream")).await
}

/// How many requests reached `upstream`.
async fn reached(upstream: &MockServer) -> usize {
    upstream.received_requests().await.unwrap_or_default().len()
}

/// A gateway whose `upstream` model is `upstream`, its catalogue entry ending with `extra`,
/// started with the extra `serve` arguments `args`.
fn gateway_with(upstream: &MockServer, extra: &str, args: &[&str]) -> (tempfile::TempDir, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue_with(tmp.path(), &format!("{}/v1", upstream.uri()), "m", extra);
    let mut all = vec!["--models", &models, "--sim-token-delay-ms", "0"];
    all.extend_from_slice(args);
    let server = Server::start_with(Options {
        env: vec![(KEY_VAR, "k")],
        args: all.into_iter().map(String::from).collect(),
        ..Default::default()
    });
    (tmp, server)
}

/// A 503 `upstreams_unavailable` in OpenAI's envelope: its `Retry-After` seconds, its message.
async fn unavailable(response: reqwest::Response) -> (u64, String) {
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let wait = retry_after(&response);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstreams_unavailable");
    assert_eq!(body["error"]["type"], "api_error");
    (wait, body["error"]["message"].as_str().unwrap().to_string())
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn three_failures_open_the_circuit_and_a_probe_closes_it() {
    let upstream = answering(ResponseTemplate::new(500).set_body_string("boom")).await;
    let (_tmp, server) = gateway_with(&upstream, "", &["--breaker-cooldown", "300ms"]);

    for _ in 0..3 {
        let response = chat(&server, ask("upstream")).await;
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    }
    assert_eq!(reached(&upstream).await, 3);

    // Open: the named model is refused at once, without a call upstream.
    let (wait, message) = unavailable(chat(&server, ask("upstream")).await).await;
    assert_eq!(wait, 1, "300 ms, rounded up to a second");
    assert!(
        message
            .contains("upstream skipped: open for 1 s after 3 failures in a row, last: HTTP 500"),
        "{message}"
    );
    assert_eq!(reached(&upstream).await, 3);
    let logged = |what: &'static str| {
        let server = &server;
        eventually(what, move || async move {
            let logs = server.logs();
            logs.lines()
                .any(|l| l.contains(what) && l.contains("model=\"upstream\""))
                .then_some(())
        })
    };
    logged("circuit opened").await;

    // `auto` passes over it to the next candidate and says why, whole and streamed.
    let answer: Value = chat(&server, quality_first()).await.json().await.unwrap();
    assert_eq!(answer["platform"]["routed_model"], "local");
    let reason = answer["platform"]["route_reason"].as_str().unwrap();
    assert!(
        reason.contains("; upstream skipped: open for 1 s after 3 failures in a row, last: HTTP 500; fell back to local"),
        "{reason}"
    );
    let mut streamed = quality_first();
    streamed["stream"] = json!(true);
    let text = chat(&server, streamed).await.text().await.unwrap();
    assert!(text.contains("upstream skipped: open for"), "{text}");
    assert_eq!(reached(&upstream).await, 3);

    // The upstream recovers; once the cooldown is over the next request is its probe, and
    // the circuit is closed again.
    upstream.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "back"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}
        })))
        .mount(&upstream)
        .await;
    let answer: Value = eventually("the probe to be let through", || async {
        let response = chat(&server, ask("upstream")).await;
        match response.status() {
            StatusCode::OK => Some(response.json().await.unwrap()),
            status => {
                assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
                None
            }
        }
    })
    .await;
    assert_eq!(answer["choices"][0]["message"]["content"], "back");
    assert_eq!(reached(&upstream).await, 1, "only the probe was sent");
    logged("circuit closed").await;
    for _ in 0..3 {
        assert_eq!(
            chat(&server, ask("upstream")).await.status(),
            StatusCode::OK
        );
    }
    assert_eq!(reached(&upstream).await, 4);
}

#[tokio::test]
async fn a_429_with_retry_after_opens_it_for_that_long() {
    let upstream = answering(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "30")
            .set_body_string("slow down"),
    )
    .await;
    let (_tmp, server) = gateway_with(&upstream, "", &[]);
    assert_eq!(
        chat(&server, ask("upstream")).await.status(),
        StatusCode::BAD_GATEWAY
    );
    let (wait, message) = unavailable(chat(&server, ask("upstream")).await).await;
    assert!((29..=30).contains(&wait), "Retry-After {wait}");
    assert!(
        message.contains("after the upstream asked for 30 s (429 Retry-After)"),
        "{message}"
    );
    assert_eq!(reached(&upstream).await, 1);
}

#[tokio::test]
async fn the_clients_own_errors_never_open_it() {
    let upstream = answering(ResponseTemplate::new(400).set_body_string("bad tool schema")).await;
    let (_tmp, server) = gateway_with(&upstream, "", &[]);
    for _ in 0..6 {
        let response = chat(&server, ask("upstream")).await;
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    }
    assert_eq!(reached(&upstream).await, 6, "every request was sent");
}

#[tokio::test]
async fn streams_cut_before_their_end_count_as_failures() {
    let upstream = cutting().await;
    let (_tmp, server) = gateway_with(&upstream, "", &[]);
    let mut request = ask("upstream");
    request["stream"] = json!(true);
    for _ in 0..3 {
        let text = chat(&server, request.clone()).await.text().await.unwrap();
        assert!(text.contains("the upstream failed mid-stream"), "{text}");
    }
    let (_, message) = unavailable(chat(&server, request).await).await;
    assert!(
        message
            .contains("3 failures in a row, last: the upstream closed the stream before finishing"),
        "{message}"
    );
    assert_eq!(reached(&upstream).await, 3);
}

#[tokio::test]
async fn a_streamed_probe_that_is_cut_reopens_the_circuit_at_once_for_twice_as_long() {
    let upstream = cutting().await;
    let (_tmp, server) = gateway_with(&upstream, "", &["--breaker-cooldown", "1s"]);
    let mut request = ask("upstream");
    request["stream"] = json!(true);
    for _ in 0..3 {
        chat(&server, request.clone()).await.text().await.unwrap();
    }
    // Once the cooldown is over, a streamed request is the probe: its first token came (the
    // circuit closed), then its stream was cut, which opens it again at once.
    let text = eventually("the probe to be let through", || async {
        let response = chat(&server, request.clone()).await;
        (response.status() == StatusCode::OK).then_some(response)
    })
    .await
    .text()
    .await
    .unwrap();
    assert!(text.contains("the upstream failed mid-stream"), "{text}");
    assert_eq!(reached(&upstream).await, 4);
    let (wait, message) = unavailable(chat(&server, request).await).await;
    assert!(message.contains("its probe failed mid-stream"), "{message}");
    assert_eq!(wait, 2, "twice the 1 s cooldown");
    assert_eq!(reached(&upstream).await, 4);
}

#[tokio::test]
async fn a_probe_whose_client_leaves_frees_its_slot_at_once() {
    let upstream = MockServer::start().await;
    // A request saying "slow" is held for a minute; anything else fails.
    Mock::given(method("POST"))
        .and(body_string_contains("slow"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(sse(&[delta("late")]), "text/event-stream")
                .set_delay(Duration::from_secs(60)),
        )
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&upstream)
        .await;
    let (_tmp, server) = gateway_with(&upstream, "", &["--breaker-cooldown", "200ms"]);
    for _ in 0..3 {
        chat(&server, ask("upstream")).await;
    }
    assert_eq!(
        chat(&server, ask("upstream")).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );

    // Once half-open, a slow request goes out as the probe; its client gives up.
    let slow = json!({"model": "upstream", "stream": true,
                      "messages": [{"role": "user", "content": "slow"}]});
    let probe = {
        let (server_base, key) = (server.base.clone(), server.admin_key.clone());
        tokio::spawn(async move {
            // Refused (503) until the cooldown is over; then it is the probe, and waits.
            loop {
                let response = reqwest::Client::new()
                    .post(format!("{server_base}/v1/chat/completions"))
                    .bearer_auth(&key)
                    .json(&slow)
                    .send()
                    .await;
                match response {
                    Ok(r) if r.status() == StatusCode::SERVICE_UNAVAILABLE => {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    other => return other,
                }
            }
        })
    };
    let upstream = &upstream;
    eventually("the probe to reach the upstream", || async move {
        (reached(upstream).await == 4).then_some(())
    })
    .await;
    // While it is out, nobody else is let through.
    assert_eq!(
        chat(&server, ask("upstream")).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    probe.abort();
    let _ = probe.await;

    // The slot is free again: the next request is the new probe, with no cooldown to wait.
    eventually(
        "the next request to be let through as the probe",
        || async {
            let status = chat(&server, ask("upstream")).await.status();
            (status == StatusCode::BAD_GATEWAY).then_some(())
        },
    )
    .await;
    assert_eq!(reached(upstream).await, 5);
    // That probe failed: open again, for twice the cooldown.
    let (_, message) = unavailable(chat(&server, ask("upstream")).await).await;
    assert!(message.contains("its probe failed: HTTP 503"), "{message}");
}

#[tokio::test]
async fn when_every_candidate_is_open_auto_gets_503_with_the_soonest_retry() {
    let (first, second) = (MockServer::start().await, MockServer::start().await);
    for upstream in [&first, &second] {
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(502))
            .mount(upstream)
            .await;
    }
    let tmp = tempfile::tempdir().unwrap();
    let models = tmp.path().join("models.toml");
    let entry = |id: &str, upstream: &MockServer, quality: f64, extra: &str| {
        format!(
            "[[models]]\nid = \"{id}\"\nprovider = \"openai\"\nbase_url = \"{}/v1\"\n\
             prompt_price = 1.0\ncompletion_price = 1.0\nquality = {quality}\nlatency_ms = 100\n{extra}\n",
            upstream.uri()
        )
    };
    // The first model opens after one failure, for 40 s; the second after the default three.
    let text = entry(
        "first",
        &first,
        0.9,
        "[models.breaker]\nfailures = 1\ncooldown = \"40s\"",
    ) + &entry("second", &second, 0.8, "");
    std::fs::write(&models, text).unwrap();
    let server = gateway(&models.display().to_string(), "k");

    let auto = quality_first();
    let response = chat(&server, auto.clone()).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    // `first` is open now: the next two tries go to `second` alone, and say why.
    for _ in 0..2 {
        let response = chat(&server, auto.clone()).await;
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        let body: Value = response.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("every candidate model failed: second (HTTP 502")
                && message.contains("first skipped: open for"),
            "{message}"
        );
    }
    assert_eq!((reached(&first).await, reached(&second).await), (1, 3));
    // Both open: 503 at once, `Retry-After` until the sooner of the two (second's 10 s).
    let (wait, message) = unavailable(chat(&server, auto).await).await;
    assert!((9..=10).contains(&wait), "Retry-After {wait}");
    assert!(
        message.contains("first skipped: open for") && message.contains("second skipped: open for"),
        "{message}"
    );
    assert_eq!((reached(&first).await, reached(&second).await), (1, 3));
}

#[test]
fn bad_breaker_settings_are_refused_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    // What `serve` with `args` says as it refuses to start.
    let refused = |args: &[&str]| {
        let output = common::exit_of(
            std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
                .args(["serve", "--listen", "127.0.0.1:0"])
                .args(args)
                .arg("--data-dir")
                .arg(tmp.path().join("data")),
            Duration::from_secs(20),
        );
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let models = catalogue_with(
        tmp.path(),
        "http://127.0.0.1:9/v1",
        "m",
        "[models.breaker]\nfailure_rate = 1.5",
    );
    let stderr = refused(&["--models", &models]);
    assert!(
        stderr.contains("model \"upstream\": breaker: failure_rate must be over 0 and at most 1"),
        "{stderr}"
    );
    let stderr = refused(&["--breaker-cooldown", "1m", "--breaker-max-cooldown", "30s"]);
    assert!(
        stderr.contains("max_cooldown at least cooldown"),
        "{stderr}"
    );
}
