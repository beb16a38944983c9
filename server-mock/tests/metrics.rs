//! `GET /metrics` on `--metrics-listen`: after known traffic, every count is exactly what the
//! clients saw; the exposition passes `promtool check metrics`; the public listener never
//! serves it.

#[path = "metrics/anthropic.rs"]
mod anthropic;
#[path = "metrics/cached.rs"]
mod cached;
mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use common::hooks::{eventually, free_addr, receiver, send_test, subscribe};
use common::upstream::{KEY_VAR, catalogue};
use common::{Options, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A server with metrics on (and `args`), and the URL of its `/metrics`.
fn with_metrics(args: &[&str], env: Vec<(&'static str, &'static str)>) -> (Server, String) {
    let mut all = vec![
        "--metrics-listen",
        "127.0.0.1:0",
        "--sim-token-delay-ms",
        "0",
    ];
    all.extend_from_slice(args);
    let server = Server::start_with(Options {
        env,
        args: all.into_iter().map(String::from).collect(),
        ..Default::default()
    });
    let at = server.metrics_url();
    (server, at)
}

/// Every sample of an exposition: `name{label="value",...}` (labels sorted) to its value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    let mut all = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, value) = line.rsplit_once(' ').expect("a sample line");
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => {
                let mut labels: Vec<&str> = rest.trim_end_matches('}').split("\",").collect();
                for label in labels.iter_mut() {
                    *label = label.trim_end_matches('"');
                }
                labels.sort();
                (name, labels.join(","))
            }
            None => (series, String::new()),
        };
        let value = match value {
            "+Inf" => f64::INFINITY,
            v => v.parse().expect("a number"),
        };
        all.insert(format!("{name}{{{labels}}}"), value);
    }
    all
}

/// The value of `name` with exactly `labels` (0 when absent).
fn value(all: &BTreeMap<String, f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    let mut labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}")).collect();
    labels.sort();
    let key = format!("{name}{{{}}}", labels.join(","));
    all.get(&key).copied().unwrap_or(0.0)
}

async fn scrape(url: &str) -> String {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let kind = response.headers()["content-type"].to_str().unwrap();
    assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
    response.text().await.unwrap()
}

/// `promtool check metrics` (Debian's `prometheus` package) on `text`; required under CI.
fn promtool(text: &str) {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "promtool is not installed: CI must lint the exposition"
        );
        eprintln!("SKIPPED: promtool is not installed, the exposition was not linted");
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "promtool check metrics:\n{said}");
}

fn nanos(credits: &Value) -> u64 {
    let text = credits.to_string();
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let frac = format!("{frac:0<9}");
    whole.parse::<u64>().unwrap() * 1_000_000_000 + frac[..9].parse::<u64>().unwrap()
}

fn ask(model: &str, stream: bool) -> Value {
    let mut body =
        json!({"model": model, "messages": [{"role": "user", "content": "hello there"}]});
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

/// Prompt and completion tokens and the credits charged, from a whole or streamed answer.
async fn charged(response: reqwest::Response, stream: bool) -> (u64, u64, u64) {
    assert_eq!(response.status(), StatusCode::OK);
    if !stream {
        let body: Value = response.json().await.unwrap();
        let usage = &body["usage"];
        let credits = nanos(&body["platform"]["credits_consumed"]);
        return (
            usage["prompt_tokens"].as_u64().unwrap(),
            usage["completion_tokens"].as_u64().unwrap(),
            credits,
        );
    }
    let text = response.text().await.unwrap();
    let chunks: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let platform = chunks.iter().find_map(|c| c.get("platform")).unwrap();
    let usage = chunks
        .iter()
        .find_map(|c| c.get("usage").filter(|u| !u.is_null()))
        .unwrap();
    let credits = nanos(&platform["credits_consumed"]);
    (
        usage["prompt_tokens"].as_u64().unwrap(),
        usage["completion_tokens"].as_u64().unwrap(),
        credits,
    )
}

#[tokio::test]
async fn a_scrape_after_known_traffic_counts_it_exactly_and_passes_promtool() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("down"))
        .mount(&upstream)
        .await;
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "m");
    let (server, metrics) = with_metrics(&["--models", &models], vec![(KEY_VAR, "k")]);
    let admin = server.admin_key.clone();

    let mut totals = (0, 0, 0);
    for stream in [false, false, false, true, true] {
        let response = server
            .post("/v1/chat/completions", &admin, &ask("local", stream))
            .await;
        let (prompt, completion, credits) = charged(response, stream).await;
        totals = (totals.0 + prompt, totals.1 + completion, totals.2 + credits);
    }
    // Three 500s open the upstream's circuit; the fourth request is refused without trying it.
    for expected in [502, 502, 502, 503] {
        let response = server
            .post("/v1/chat/completions", &admin, &ask("upstream", false))
            .await;
        assert_eq!(response.status().as_u16(), expected);
    }
    let unknown = server.get("/v1/tokens", "tkt_notavalidsecret").await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    let reader = server.create_token("reader", &["tokens:read"]).await;
    let forbidden = server
        .post(
            "/v1/chat/completions",
            &common::secret(&reader),
            &ask("local", false),
        )
        .await;
    assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
    let missing = server.get("/v1/tokens/tok_nosuchtoken", &admin).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    let text = scrape(&metrics).await;
    promtool(&text);
    let all = samples(&text);
    let http = |method: &str, route: &str, status: &str| {
        let labels = [
            ("http_request_method", method),
            ("http_route", route),
            ("http_response_status_code", status),
        ];
        value(&all, "http_server_request_duration_seconds_count", &labels)
    };
    assert_eq!(http("POST", "/v1/chat/completions", "200"), 5.0);
    assert_eq!(http("POST", "/v1/chat/completions", "502"), 3.0);
    assert_eq!(http("POST", "/v1/chat/completions", "503"), 1.0);
    assert_eq!(http("POST", "/v1/chat/completions", "403"), 1.0);
    assert_eq!(http("GET", "/v1/tokens", "401"), 1.0);
    assert_eq!(http("POST", "/v1/tokens", "201"), 1.0);
    assert_eq!(http("GET", "/v1/tokens/{id}", "404"), 1.0);
    assert_eq!(
        value(
            &all,
            "tokctl_auth_failures_total",
            &[("reason", "unauthenticated")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &all,
            "tokctl_auth_failures_total",
            &[("reason", "forbidden")]
        ),
        1.0
    );

    let outcome = |model, outcome| {
        value(
            &all,
            "tokctl_upstream_requests_total",
            &[
                ("model", model),
                ("deployment", model),
                ("outcome", outcome),
            ],
        )
    };
    assert_eq!(outcome("local", "success"), 5.0);
    assert_eq!(outcome("upstream", "http_5xx"), 3.0);
    assert_eq!(outcome("upstream", "success"), 0.0);
    assert_eq!(
        value(
            &all,
            "tokctl_upstream_skipped_total",
            &[("model", "upstream"), ("deployment", "upstream")]
        ),
        1.0
    );
    let circuit = |model, state| {
        value(
            &all,
            "tokctl_upstream_circuit_state",
            &[("model", model), ("deployment", model), ("state", state)],
        )
    };
    assert_eq!(
        (circuit("upstream", "open"), circuit("upstream", "closed")),
        (1.0, 0.0)
    );
    assert_eq!(
        (circuit("local", "open"), circuit("local", "closed")),
        (0.0, 1.0)
    );

    let chat = [
        ("gen_ai_operation_name", "chat"),
        ("gen_ai_response_model", "local"),
    ];
    assert_eq!(
        value(&all, "gen_ai_server_request_duration_seconds_count", &chat),
        5.0
    );
    assert_eq!(
        value(
            &all,
            "gen_ai_server_time_to_first_token_seconds_count",
            &chat
        ),
        5.0
    );
    let failed = |error_type| {
        let labels = [
            ("gen_ai_operation_name", "chat"),
            ("error_type", error_type),
        ];
        value(
            &all,
            "gen_ai_server_request_duration_seconds_count",
            &labels,
        )
    };
    assert_eq!(
        (failed("upstream_error"), failed("upstreams_unavailable")),
        (3.0, 1.0)
    );
    let tokens = |kind, part| {
        let labels = [chat[0], chat[1], ("gen_ai_token_type", kind)];
        value(&all, &format!("gen_ai_client_token_usage_{part}"), &labels)
    };
    assert_eq!(
        (tokens("input", "count"), tokens("output", "count")),
        (5.0, 5.0)
    );
    assert_eq!(tokens("input", "sum"), totals.0 as f64);
    assert_eq!(tokens("output", "sum"), totals.1 as f64);
    let consumed = value(
        &all,
        "tokctl_credits_consumed_nanocredits_total",
        &[("model", "local"), ("deployment", "local")],
    );
    assert_eq!(consumed, totals.2 as f64);
    // Every chat request that reached the gateway, whole (5 - 2 streamed + 4 upstream) and
    // streamed; the forbidden one never did.
    let overhead = |stream| {
        value(
            &all,
            "tokctl_gateway_overhead_seconds_count",
            &[("stream", stream)],
        )
    };
    assert_eq!((overhead("false"), overhead("true")), (7.0, 2.0));
    assert_eq!(
        value(
            &all,
            "tokctl_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        1.0
    );
    // No label carries a workspace, token or key id, nor a path that is not a route template.
    assert!(
        !text.contains("tok_") && !text.contains("key_") && !text.contains("ws_"),
        "{text}"
    );
}

#[tokio::test]
async fn rate_limit_refusals_and_webhook_deliveries_are_counted_as_clients_saw_them() {
    let (server, metrics) = with_metrics(&["--rate-limit", "4"], Vec::new());
    let addr = free_addr();
    let (mut received, _task) = receiver(addr, 200).await;
    let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
    send_test(&server, endpoint["id"].as_str().unwrap()).await;
    common::hooks::next(&mut received).await;
    let mut refused = 0;
    for _ in 0..4 {
        if server.get("/v1/tokens", &server.admin_key).await.status()
            == StatusCode::TOO_MANY_REQUESTS
        {
            refused += 1;
        }
    }
    // Four a minute: subscribing and the test event took two, so at least two of these are refused
    // (all four if the minute turned meanwhile: the count is what the client saw).
    assert!(refused >= 1, "the limit was never reached");
    let all = eventually("the delivery to be counted", || async {
        let all = samples(&scrape(&metrics).await);
        (value(
            &all,
            "tokctl_webhook_deliveries_total",
            &[("outcome", "delivered")],
        ) == 1.0)
            .then_some(all)
    })
    .await;
    assert_eq!(
        value(
            &all,
            "tokctl_rate_limited_total",
            &[("http_route", "/v1/tokens")]
        ),
        refused as f64
    );
    assert_eq!(value(&all, "tokctl_webhook_outbox_depth", &[]), 0.0);
    assert_eq!(
        value(
            &all,
            "tokctl_webhook_deliveries_total",
            &[("outcome", "retry")]
        ),
        0.0
    );
}

#[tokio::test]
async fn the_public_listener_never_serves_metrics() {
    let (server, metrics) = with_metrics(&[], Vec::new());
    let public = reqwest::get(server.url("/metrics")).await.unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
    assert!(scrape(&metrics).await.contains("tokctl_build_info"));
    let elsewhere = reqwest::get(metrics.replace("/metrics", "/v1/tokens"))
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), StatusCode::NOT_FOUND);
    let off = Server::start();
    assert!(!off.logs().contains("metrics on"), "{}", off.logs());
    let public = reqwest::get(off.url("/metrics")).await.unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
}

common::postgres! {
    #[tokio::test]
    async fn database_pools_are_seen_on_postgresql() {
        let (server, metrics) = with_metrics(&[], Vec::new());
        assert_eq!(server.get("/v1/tokens", &server.admin_key).await.status(), StatusCode::OK);
        let all = samples(&scrape(&metrics).await);
        for pool in ["requests", "fast"] {
            let name = ("db_client_connection_pool_name", pool);
            let max = value(&all, "db_client_connection_max", &[name]);
            let idle = value(&all, "db_client_connection_count", &[name, ("db_client_connection_state", "idle")]);
            let used = value(&all, "db_client_connection_count", &[name, ("db_client_connection_state", "used")]);
            assert!(max >= 1.0 && idle + used <= max, "{pool}: max {max}, idle {idle}, used {used}");
            assert_eq!(value(&all, "db_client_connection_pending_requests", &[name]), 0.0);
        }
        // Nothing waits on an idle server, and the request that used a connection gave it back.
        let name = ("db_client_connection_pool_name", "requests");
        assert!(value(&all, "db_client_connection_count", &[name, ("db_client_connection_state", "idle")]) >= 1.0);
    }
}
