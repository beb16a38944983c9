//! Spending limits on tokens (docs/api.md, "Spending limits"): set, shown, changed and audited;
//! enforced exactly under concurrency, through two instances on PostgreSQL; periods that turn
//! on the UTC calendar (crossed with the test clock, no waiting). The notices at 80, 95 and
//! 100 % are in `limits/notices.rs`.

#[path = "limits/at_once.rs"]
mod at_once;
#[path = "limits/auto.rs"]
mod auto;
mod common;
#[path = "limits/long.rs"]
mod long;
#[path = "limits/notices.rs"]
mod notices;

use std::path::Path;

use common::both;
use common::{Options, Server, assert_error, id, secret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokctl_server::credits::Credits;

/// The catalogue: one simulated model, `mini`, at 0.15 / 0.6 credits per 1k tokens.
fn catalogue(dir: &Path) -> String {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        "[[models]]\nid = \"mini\"\nprovider = \"simulated\"\nprompt_price = 0.15\n\
         completion_price = 0.6\nquality = 0.6\nlatency_ms = 100\n",
    )
    .unwrap();
    path.display().to_string()
}

fn options(models: &str, clock: Option<&'static str>) -> Options<'static> {
    Options {
        args: vec![
            "--models".into(),
            models.to_string(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        rate_limit: Some(1_000_000),
        env: clock
            .map(|at| vec![("TOKCTL_TEST_CLOCK", at)])
            .unwrap_or_default(),
        ..Default::default()
    }
}

/// A gateway on `mini` (and the directory its catalogue is in).
fn gateway() -> (tempfile::TempDir, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path());
    let server = Server::start_with(options(&models, None));
    (tmp, server)
}

/// The chat request every test sends: `max_tokens` caps the worst case.
fn ask(max_tokens: u32) -> Value {
    json!({"model": "mini", "max_tokens": max_tokens,
           "messages": [{"role": "user", "content": "How are limits kept?"}]})
}

async fn chat(server: &Server, secret: &str, max_tokens: u32) -> reqwest::Response {
    server
        .post("/v1/chat/completions", secret, &ask(max_tokens))
        .await
}

fn credits(value: &Value) -> Credits {
    serde_json::from_str(&value.to_string()).unwrap()
}

/// What one request of `max_tokens` 5 costs: the simulated model always fills 5 tokens, so
/// this is also its worst case.
async fn worst_case(server: &Server) -> Credits {
    let response = chat(server, &server.admin_key, 5).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["usage"]["completion_tokens"], 5, "a full answer");
    credits(&body["platform"]["credits_consumed"])
}

fn times(amount: Credits, n: u64) -> Credits {
    Credits::from_nanos(amount.nanos() * n)
}

async fn limited(server: &Server, name: &str, limit: Credits, reset: &str) -> Value {
    let response = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &json!({"name": name, "scopes": ["chat:write"],
                    "credit_limit": limit.to_string(), "limit_reset": reset}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

async fn shown(server: &Server, id: &str) -> Value {
    let response = server
        .get(&format!("/v1/tokens/{id}"), &server.admin_key)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

async fn patch(server: &Server, id: &str, body: Value) -> reqwest::Response {
    server
        .request(
            Method::PATCH,
            &format!("/v1/tokens/{id}"),
            &server.admin_key,
        )
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn usage_of(server: &Server, id: &str) -> Value {
    let response = server
        .get(&format!("/v1/usage?token_id={id}"), &server.admin_key)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["totals"].clone()
}

both! {
    #[tokio::test]
    async fn a_limit_is_set_shown_changed_audited_and_kept_across_rotation() {
        let (_tmp, server) = gateway();
        let created = server
            .post("/v1/tokens", &server.admin_key, &json!({"name": "ci", "scopes": ["chat:write"],
                "credit_limit": 0.5, "limit_reset": "daily"}))
            .await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let created: Value = created.json().await.unwrap();
        let limits = &created["limits"];
        assert_eq!(limits["credit_limit"], json!(0.5));
        assert_eq!(limits["reset"], "daily");
        assert_eq!((limits["spent"].clone(), limits["reserved"].clone()), (json!(0), json!(0)));
        assert_eq!(limits["remaining"], json!(0.5));
        let today = chrono::Utc::now().date_naive();
        assert_eq!(limits["period_start"], format!("{today}T00:00:00Z"));
        assert_eq!(limits["resets_at"], format!("{}T00:00:00Z", today.succ_opt().unwrap()));
        let id = id(&created);

        for (body, field) in [
            (json!({"limit_reset": "daily"}), "credit_limit"),
            (json!({"credit_limit": 0}), "credit_limit"),
            (json!({"credit_limit": "1.0000000001"}), "credit_limit"),
            (json!({"credit_limit": true}), "credit_limit"),
            (json!({"credit_limit": 1, "limit_reset": "fortnightly"}), "limit_reset"),
        ] {
            let mut body = body;
            body["name"] = json!("refused");
            body["scopes"] = json!(["chat:write"]);
            let response = server.post("/v1/tokens", &server.admin_key, &body).await;
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(message.contains(field), "{message}");
        }

        let changed = patch(&server, &id, json!({"credit_limit": "2.25"})).await;
        assert_eq!(changed.status(), StatusCode::OK);
        let changed: Value = changed.json().await.unwrap();
        assert_eq!(changed["limits"]["credit_limit"], json!(2.25));
        assert_eq!(changed["limits"]["reset"], "daily", "the period is kept");
        let audit: Value = server
            .get(&format!("/v1/audit?token_id={id}&action=token.limit_changed"), &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(audit["data"][0]["details"], json!({
            "before": {"credit_limit": 0.5, "limit_reset": "daily"},
            "after": {"credit_limit": 2.25, "limit_reset": "daily"},
        }));

        for (body, field) in [
            (json!({"name": "renamed"}), "name"),
            (json!({"expires_at": "2099-01-01T00:00:00Z"}), "expires_at"),
            (json!({}), "credit_limit"),
            (json!({"limit_reset": "hourly"}), "limit_reset"),
        ] {
            let message = assert_error(patch(&server, &id, body).await, 422, "unprocessable_entity").await;
            assert!(message.contains(field), "{message}");
        }
        assert_error(patch(&server, "tok_000000000000000000000000", json!({"credit_limit": 1})).await, 404, "not_found").await;

        let rotated = server
            .post(&format!("/v1/tokens/{id}/rotate"), &server.admin_key, &json!({}))
            .await;
        let rotated: Value = rotated.json().await.unwrap();
        assert_eq!(rotated["limits"]["credit_limit"], json!(2.25), "rotation keeps the limit");

        let listed: Value = server.get("/v1/tokens", &server.admin_key).await.json().await.unwrap();
        assert_eq!(listed["data"][0]["limits"]["credit_limit"], json!(2.25));

        let removed: Value = patch(&server, &id, json!({"credit_limit": null})).await.json().await.unwrap();
        assert!(removed.get("limits").is_none(), "{removed}");
        // The token has no limit now: a period alone is a conflict with what it is.
        let message = assert_error(patch(&server, &id, json!({"limit_reset": "weekly"})).await, 409, "conflict").await;
        assert!(message.contains("credit_limit"), "{message}");

        let revoked = server.delete(&format!("/v1/tokens/{id}"), &server.admin_key).await;
        assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
        assert_error(patch(&server, &id, json!({"credit_limit": 1})).await, 404, "not_found").await;
    }
}

both! {
    #[tokio::test]
    async fn fifty_concurrent_requests_against_ten_worst_cases_admit_exactly_ten() {
        let (_tmp, server) = gateway();
        // On PostgreSQL, half of the requests go through a second instance.
        let second = server.database.as_ref().map(|_| {
            let models = catalogue(&server.dir);
            server.another(options(&models, None))
        });
        let instances: Vec<&Server> = std::iter::once(&server).chain(second.as_ref()).collect();
        let worst = worst_case(&server).await;
        let limit = times(worst, 10);
        let agent = limited(&server, "agent", limit, "monthly").await;
        let (agent_id, agent_secret) = (id(&agent), secret(&agent));

        let answers = futures::future::join_all((0..50).map(|i| {
            let (server, secret) = (instances[i % instances.len()], agent_secret.clone());
            async move {
                let response = chat(server, &secret, 5).await;
                let status = response.status();
                let retry_after = response.headers().get("retry-after").cloned();
                (status, retry_after, response.json::<Value>().await.unwrap())
            }
        }))
        .await;
        let admitted: Vec<&Value> = answers
            .iter()
            .filter(|(status, _, _)| *status == StatusCode::OK)
            .map(|(_, _, body)| body)
            .collect();
        let refused: Vec<_> = answers.iter().filter(|(status, _, _)| *status == StatusCode::PAYMENT_REQUIRED).collect();
        eprintln!(
            "{} instance(s): 50 tried, {} admitted, {} refused; limit {limit} credits (10 worst cases of {worst})",
            instances.len(),
            admitted.len(),
            refused.len()
        );
        assert_eq!((admitted.len(), refused.len()), (10, 40), "every answer is one or the other");
        for (_, retry_after, body) in &refused {
            assert_eq!(body["error"]["code"], "credit_limit_reached");
            assert_eq!(credits(&body["error"]["credit_limit"]), limit);
            assert!(body["error"]["resets_at"].as_str().unwrap().ends_with("-01T00:00:00Z"));
            let seconds: u64 = retry_after.as_ref().unwrap().to_str().unwrap().parse().unwrap();
            assert!((1..=31 * 86_400).contains(&seconds), "{seconds}");
        }
        let charged: u64 = admitted.iter().map(|b| credits(&b["platform"]["credits_consumed"]).nanos()).sum();
        for server in &instances {
            let totals = usage_of(server, &agent_id).await;
            assert_eq!(totals["requests"], 10, "exactly the admitted requests are charged");
            assert_eq!(credits(&totals["credits"]).nanos(), charged);
            let limits = shown(server, &agent_id).await["limits"].clone();
            assert_eq!(credits(&limits["spent"]), limit, "spent to the nano-credit, not past it");
            assert_eq!((credits(&limits["reserved"]), credits(&limits["remaining"])), (Credits::ZERO, Credits::ZERO));
        }

        // Answers that cost less than their worst case leave room for more, never past the limit:
        // fifty at once, then one after another until one is refused, exactly when what remains
        // is less than its worst case.
        let big = limited(&server, "agent-2", times(worst_case(&server).await, 100), "never").await;
        let (big_id, big_secret) = (id(&big), secret(&big));
        let answers = futures::future::join_all((0..50).map(|i| {
            let (server, secret) = (instances[i % instances.len()], big_secret.clone());
            async move {
                let response = chat(server, &secret, 40).await;
                (response.status(), response.json::<Value>().await.unwrap())
            }
        }))
        .await;
        let mut admitted: Vec<Value> = answers.iter().filter(|(s, _)| *s == StatusCode::OK).map(|(_, b)| b.clone()).collect();
        assert!(answers.iter().all(|(s, _)| *s == StatusCode::OK || *s == StatusCode::PAYMENT_REQUIRED));
        let at_once = admitted.len();
        let refusal = loop {
            let response = chat(instances[admitted.len() % instances.len()], &big_secret, 40).await;
            let status = response.status();
            let body: Value = response.json().await.unwrap();
            match status {
                StatusCode::OK => admitted.push(body),
                StatusCode::PAYMENT_REQUIRED => break body["error"].clone(),
                other => panic!("{other}: {body}"),
            }
        };
        let (spent, reserved) = (credits(&refusal["spent"]), credits(&refusal["reserved"]));
        let (limit, worst) = (credits(&refusal["credit_limit"]), credits(&refusal["worst_case"]));
        assert_eq!(reserved, Credits::ZERO, "nothing in flight");
        assert!(spent.nanos() + worst.nanos() > limit.nanos(), "refused only when it does not fit: {refusal}");
        let totals = usage_of(&server, &big_id).await;
        assert_eq!(totals["requests"], admitted.len());
        let charged: u64 = admitted.iter().map(|b| credits(&b["platform"]["credits_consumed"]).nanos()).sum();
        assert_eq!(credits(&totals["credits"]).nanos(), charged);
        let limits = shown(&server, &big_id).await["limits"].clone();
        eprintln!(
            "cheaper answers: 50 tried at once, {at_once} admitted; {} admitted in all, spent {} of {} credits, refused when {} remained for a worst case of {worst}",
            admitted.len(),
            limits["spent"],
            limits["credit_limit"],
            limits["remaining"],
        );
        assert!(credits(&limits["spent"]) <= credits(&limits["credit_limit"]), "{limits}");
        assert!(limits.get("resets_at").is_none(), "never resets: {limits}");
    }
}

both! {
    #[tokio::test]
    async fn periods_turn_at_utc_midnight_mondays_and_the_first_of_the_month() {
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue(tmp.path());
        let dir = tmp.path().join("data");
        // Sunday 29 November 2026, a minute before midnight.
        let mut server = Server::start_in(&dir, options(&models, Some("2026-11-29T23:59:00Z")));
        let worst = worst_case(&server).await;
        let mut tokens = Vec::new();
        for reset in ["daily", "weekly", "monthly", "never"] {
            let token = limited(&server, reset, times(worst, 2), reset).await;
            for _ in 0..2 {
                assert_eq!(chat(&server, &secret(&token), 5).await.status(), StatusCode::OK);
            }
            let refused = chat(&server, &secret(&token), 5).await;
            limit_refusal(refused).await;
            tokens.push((reset, token));
        }
        let daily = shown(&server, &id(&tokens[0].1)).await;
        assert_eq!(daily["limits"]["resets_at"], "2026-11-30T00:00:00Z");

        // Monday 30 November: a new day and a new week, the same month.
        assert!(server.stop());
        let mut server = Server::start_in(&dir, options(&models, Some("2026-11-30T00:00:30Z")));
        for (reset, token) in &tokens {
            let limits = token_limits(&server, token).await;
            let fresh = matches!(*reset, "daily" | "weekly");
            assert_eq!(credits(&limits["spent"]) == Credits::ZERO, fresh, "{reset}: {limits}");
            assert_eq!(admitted(&server, token).await, fresh, "{reset}");
            if fresh {
                assert_eq!(limits["period_start"], "2026-11-30T00:00:00Z");
            }
        }

        // Tuesday 1 December: a new month; `never` never turns.
        assert!(server.stop());
        let server = Server::start_in(&dir, options(&models, Some("2026-12-01T00:00:30Z")));
        let monthly = token_limits(&server, &tokens[2].1).await;
        assert_eq!(monthly["period_start"], "2026-12-01T00:00:00Z");
        assert_eq!(monthly["resets_at"], "2027-01-01T00:00:00Z");
        assert!(admitted(&server, &tokens[2].1).await, "monthly");
        assert!(!admitted(&server, &tokens[3].1).await, "never");
        // Changing the period never carries stale spend over: `never` made daily starts at 0.
        let never = id(&tokens[3].1);
        let changed: Value = patch(&server, &never, json!({"limit_reset": "daily"})).await.json().await.unwrap();
        assert_eq!(credits(&changed["limits"]["spent"]), Credits::ZERO, "{changed}");
        assert!(admitted(&server, &tokens[3].1).await, "never, made daily");
    }
}

/// Asserts a refusal for the limit, in OpenAI's envelope; returns its message.
async fn limit_refusal(response: reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::PAYMENT_REQUIRED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "credit_limit_reached", "{body}");
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    body["error"]["message"].as_str().unwrap().to_string()
}

/// Whether a request of the token is admitted.
async fn admitted(server: &Server, token: &Value) -> bool {
    chat(server, &secret(token), 5).await.status() == StatusCode::OK
}

async fn token_limits(server: &Server, token: &Value) -> Value {
    shown(server, &id(token)).await["limits"].clone()
}

both! {
    #[tokio::test]
    async fn an_upstream_that_reports_more_than_the_worst_case_is_charged_only_the_reservation() {
        let upstream = wiremock::MockServer::start().await;
        let usage = json!({"prompt_tokens": 100_000, "completion_tokens": 5, "total_tokens": 100_005});
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
                "id": "up", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "five"}, "finish_reason": "length"}],
                "usage": usage
            })))
            .mount(&upstream)
            .await;
        let (_tmp, server) = common::upstream::gateway_for(&upstream);
        let token = limited(&server, "agent", Credits::from_nanos(1_000_000_000), "never").await;
        let body = json!({"model": "upstream", "max_tokens": 5,
                          "messages": [{"role": "user", "content": "hi"}]});
        let response = server.post("/v1/chat/completions", &secret(&token), &body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let answer: Value = response.json().await.unwrap();
        // The worst case reserved: 8 prompt tokens (the estimate) at 1 and 5 at 2 credits per
        // 1,000; the upstream's 100,000 prompt tokens would have cost 100 credits.
        assert_eq!(credits(&answer["platform"]["credits_consumed"]), Credits::from_nanos(18_000_000));
        let limits = shown(&server, &id(&token)).await["limits"].clone();
        assert_eq!(credits(&limits["spent"]), Credits::from_nanos(18_000_000));
    }
}
