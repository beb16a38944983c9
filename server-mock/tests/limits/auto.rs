//! A limited token with `auto`: candidates whose worst case does not fit what the token has
//! left are skipped, the reservation is the chosen candidate's worst case, a fallback to a
//! dearer candidate re-reserves for it, and 402 comes only when no candidate fits; exact under
//! concurrency, through two instances on PostgreSQL.

use std::path::Path;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokctl_server::credits::Credits;

use super::{credits, limited, options, shown, times, usage_of};
use crate::common::both;
use crate::common::upstream::KEY_VAR;
use crate::common::{Server, id, secret};

/// `mini` as in the other tests; `pro` twenty times dearer and faster, first for `auto-fast`;
/// before them `flaky` (cheapest, first for `auto-cheap`) when an upstream is given.
fn catalogue(dir: &Path, flaky: Option<&str>) -> String {
    let mut models = String::new();
    if let Some(base_url) = flaky {
        models.push_str(&format!(
            "[[models]]\nid = \"flaky\"\nprovider = \"openai\"\nbase_url = \"{base_url}\"\n\
             api_key_env = \"{KEY_VAR}\"\nupstream_model = \"m\"\nprompt_price = 0.01\n\
             completion_price = 0.02\nquality = 0.5\nlatency_ms = 100\n\n"
        ));
    }
    models.push_str(
        "[[models]]\nid = \"mini\"\nprovider = \"simulated\"\nprompt_price = 0.15\n\
         completion_price = 0.6\nquality = 0.6\nlatency_ms = 100\n\n\
         [[models]]\nid = \"pro\"\nprovider = \"simulated\"\nprompt_price = 3\n\
         completion_price = 12\nquality = 0.95\nlatency_ms = 50\n",
    );
    let path = dir.join("auto-models.toml");
    std::fs::write(&path, models).unwrap();
    path.display().to_string()
}

/// A gateway on `catalogue`, and on PostgreSQL a second instance beside it.
fn gateways(flaky: Option<&str>) -> (tempfile::TempDir, Server, Option<Server>) {
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path(), flaky);
    let mut first = options(&models, None);
    first.env.push((KEY_VAR, "k"));
    let server = Server::start_with(first);
    let second = server.database.as_ref().map(|_| {
        let mut again = options(&models, None);
        again.env.push((KEY_VAR, "k"));
        server.another(again)
    });
    (tmp, server, second)
}

fn ask(model: &str) -> Value {
    json!({"model": model, "max_tokens": 5,
           "messages": [{"role": "user", "content": "How are limits kept?"}]})
}

/// What a request to `model` costs (the simulated models fill `max_tokens`: their worst case).
async fn worst(server: &Server, model: &str) -> Credits {
    let response = server
        .post("/v1/chat/completions", &server.admin_key, &ask(model))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    credits(&body["platform"]["credits_consumed"])
}

/// Sends `model` with `token` through `server`: the status and the body.
async fn send(server: &Server, token: &str, model: &str) -> (StatusCode, Value) {
    let response = server
        .post("/v1/chat/completions", token, &ask(model))
        .await;
    (response.status(), response.json().await.unwrap())
}

/// The spend the token shows on each instance: `spent` is `expected` and nothing is held.
async fn spent_everywhere(instances: &[&Server], token: &Value, expected: Credits) {
    for server in instances {
        let limits = shown(server, &id(token)).await["limits"].clone();
        assert_eq!(credits(&limits["spent"]), expected, "{limits}");
        assert_eq!(credits(&limits["reserved"]), Credits::ZERO, "{limits}");
    }
}

both! {
    #[tokio::test]
    async fn auto_skips_the_models_a_limit_cannot_afford_and_admits_exactly_what_fits() {
        let (_tmp, server, second) = gateways(None);
        let instances: Vec<&Server> = std::iter::once(&server).chain(second.as_ref()).collect();
        let (mini, pro) = (worst(&server, "mini").await, worst(&server, "pro").await);
        let limit = times(mini, 10);
        assert!(pro > limit, "pro never fits: {pro} > {limit}");
        let agent = limited(&server, "agent", limit, "monthly").await;

        // auto-fast ranks pro first; it cannot fit, so mini answers, for its own worst case.
        let (status, first) = send(&server, &secret(&agent), "auto-fast").await;
        assert_eq!(status, StatusCode::OK, "{first}");
        assert_eq!(first["platform"]["routed_model"], "mini");
        let reason = first["platform"]["route_reason"].as_str().unwrap();
        let skipped = format!("pro skipped: its worst case {pro} exceeds the {limit} this token has left");
        assert!(reason.starts_with("auto-fast: pro") && reason.contains(&skipped), "{reason}");
        assert_eq!(credits(&first["platform"]["credits_consumed"]), mini);

        // Forty-nine more at once, of every auto mode, half through the other instance: exactly
        // nine fit; the rest are 402 for the least worst case among the candidates.
        let modes = ["auto", "auto-fast", "auto-cheap"];
        let answers = futures::future::join_all((0..49).map(|i| {
            let (server, secret) = (instances[i % instances.len()], secret(&agent));
            async move { send(server, &secret, modes[i % modes.len()]).await }
        }))
        .await;
        let admitted: Vec<&Value> = answers.iter().filter(|(s, _)| *s == StatusCode::OK).map(|(_, b)| b).collect();
        let refused: Vec<&Value> = answers.iter().filter(|(s, _)| *s == StatusCode::PAYMENT_REQUIRED).map(|(_, b)| b).collect();
        eprintln!("{} instance(s): 49 auto requests, {} admitted, {} refused; limit {limit} (10 x mini's {mini}; pro's {pro})",
            instances.len(), admitted.len(), refused.len());
        assert_eq!((admitted.len(), refused.len()), (9, 40));
        assert!(admitted.iter().all(|b| b["platform"]["routed_model"] == "mini"));
        for body in refused {
            assert_eq!(body["error"]["code"], "credit_limit_reached", "{body}");
            assert_eq!(credits(&body["error"]["worst_case"]), mini, "the least of the candidates'");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains(&format!("each of the 2 models this request could be routed to may cost at least {mini} credits")), "{message}");
        }
        spent_everywhere(&instances, &agent, limit).await;
        assert_eq!(usage_of(&server, &id(&agent)).await["requests"], 10);

        // With room for pro, auto-fast takes it and skips nothing.
        let roomy = limited(&server, "roomy", pro, "never").await;
        let (status, body) = send(&server, &secret(&roomy), "auto-fast").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["platform"]["routed_model"], "pro");
        assert!(!body["platform"]["route_reason"].as_str().unwrap().contains("skipped"), "{body}");
    }
}

both! {
    #[tokio::test]
    async fn a_fallback_to_a_dearer_model_reserves_its_worst_case_and_never_passes_the_limit() {
        let upstream = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(wiremock::ResponseTemplate::new(503).set_body_string("overloaded"))
            .mount(&upstream)
            .await;
        let (_tmp, server, second) = gateways(Some(&format!("{}/v1", upstream.uri())));
        let instances: Vec<&Server> = std::iter::once(&server).chain(second.as_ref()).collect();
        let mini = worst(&server, "mini").await;
        let limit = times(mini, 10);
        let agent = limited(&server, "agent", limit, "never").await;

        // auto-cheap: flaky first (a worst case far below mini's) fails before answering; mini
        // answers and is charged its whole cost, more than flaky's reservation; pro never fits.
        let (status, first) = send(&server, &secret(&agent), "auto-cheap").await;
        assert_eq!(status, StatusCode::OK, "{first}");
        assert_eq!(first["platform"]["routed_model"], "mini");
        let reason = first["platform"]["route_reason"].as_str().unwrap();
        assert!(reason.contains("fell back to mini after flaky"), "{reason}");
        assert_eq!(credits(&first["platform"]["credits_consumed"]), mini, "not capped at flaky's worst case");
        spent_everywhere(&instances, &agent, mini).await;

        // Thirty at once: every answer fits, none passes the limit; then one after another
        // until refused, the spend reaches the limit exactly.
        let answers = futures::future::join_all((0..30).map(|i| {
            let (server, secret) = (instances[i % instances.len()], secret(&agent));
            async move { send(server, &secret, "auto-cheap").await }
        }))
        .await;
        let mut answered = 1 + answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
        for (status, body) in &answers {
            match *status {
                StatusCode::OK => assert_eq!(body["platform"]["routed_model"], "mini"),
                // Admitted for flaky; when it failed, mini no longer fitted.
                StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE => {
                    let message = body["error"]["message"].as_str().unwrap();
                    assert!(message.contains("mini skipped: its worst case"), "{message}");
                }
                StatusCode::PAYMENT_REQUIRED => assert_eq!(body["error"]["code"], "credit_limit_reached"),
                other => panic!("{other}: {body}"),
            }
        }
        assert!(answered <= 10, "{answered} answers of {mini} within {limit}");
        let at_once = answered;
        for tries in 0.. {
            assert!(tries < 50, "no refusal after {tries} requests");
            let (status, body) = send(instances[answered % instances.len()], &secret(&agent), "auto-cheap").await;
            match status {
                StatusCode::OK => answered += 1,
                StatusCode::PAYMENT_REQUIRED => break,
                StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE => {}
                other => panic!("{other}: {body}"),
            }
            assert!(answered <= 10, "past the limit");
        }
        eprintln!("{} instance(s): {at_once} of 31 answered at once, {answered} in all", instances.len());
        assert_eq!(answered, 10);
        spent_everywhere(&instances, &agent, limit).await;
    }
}
