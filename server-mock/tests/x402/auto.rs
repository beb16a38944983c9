//! x402 with `auto`: `upto` is offered for the dearest worst case among the candidates the
//! request could be routed to (those a limited token can afford), `exact` for the first
//! candidate's; a paid request is routed only among the candidates its payment covers.

use alloy_primitives::U256;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{enable, payment_required, settlement};
use crate::common::both;
use crate::common::facilitator::{Facilitator, PAY_TO, accepts};
use crate::common::upstream::KEY_VAR;
use crate::common::wallet::Wallet;
use crate::common::{Options, Server, secret};

/// `flaky` (cheapest; its upstream fails before answering), `mini` (sim-mini's prices) and `pro`
/// (sim-pro's). For 10 prompt tokens and 200 completion tokens, at 10,000 units a credit, their
/// worst cases are 41, 205 and 18,300 units.
fn catalogue(dir: &std::path::Path, base_url: &str) -> String {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            "[[models]]\nid = \"flaky\"\nprovider = \"openai\"\nbase_url = \"{base_url}\"\n\
             api_key_env = \"{KEY_VAR}\"\nupstream_model = \"m\"\nprompt_price = 0.01\n\
             completion_price = 0.02\nquality = 0.5\nlatency_ms = 100\n\n\
             [[models]]\nid = \"mini\"\nprovider = \"simulated\"\nprompt_price = 0.05\n\
             completion_price = 0.1\nquality = 0.6\nlatency_ms = 100\n\n\
             [[models]]\nid = \"pro\"\nprovider = \"simulated\"\nprompt_price = 3\n\
             completion_price = 9\nquality = 0.95\nlatency_ms = 100\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

const FLAKY: u64 = 41;
const MINI: u64 = 205;
const PRO: u64 = 18_300;

fn ask(wallet: &Wallet) -> Value {
    json!({"model": "auto-cheap", "messages": [{"role": "user", "content": "hello there"}],
        "max_tokens": 200, "agent_wallet": wallet.address().to_string()})
}

/// The request by `credential`, with `payment` when given.
async fn send(
    server: &Server,
    credential: &str,
    body: &Value,
    payment: Option<&str>,
) -> reqwest::Response {
    let mut request = server.request(reqwest::Method::POST, "/v1/chat/completions", credential);
    if let Some(payment) = payment {
        request = request.header("payment-signature", payment);
    }
    request.json(body).send().await.unwrap()
}

/// The offer's amounts: (`upto`, `exact`).
async fn amounts(server: &Server, credential: &str, body: &Value) -> (Value, Value) {
    let response = send(server, credential, body, None).await;
    assert_eq!(response.status(), StatusCode::PAYMENT_REQUIRED);
    let offer = payment_required(&response);
    (
        accepts(&offer, "upto")["amount"].clone(),
        accepts(&offer, "exact")["amount"].clone(),
    )
}

both! {
    #[tokio::test]
    async fn auto_offers_upto_for_the_candidates_it_can_use_exact_for_the_first_and_routes_within_the_payment() {
        let upstream = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(wiremock::ResponseTemplate::new(503).set_body_string("overloaded"))
            .mount(&upstream)
            .await;
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue(tmp.path(), &format!("{}/v1", upstream.uri()));
        let server = Server::start_with(Options {
            args: vec!["--models".into(), models, "--sim-token-delay-ms".into(), "0".into()],
            env: vec![(KEY_VAR, "k")],
            ..Default::default()
        });
        let facilitator = Facilitator::start().await;
        enable(&server, &facilitator).await;
        let wallet = Wallet::new();
        facilitator.fund(wallet.address(), 1_000);
        let body = ask(&wallet);

        // auto-cheap may end on pro, so upto covers it; exact pays for flaky, tried first.
        let (upto, exact) = amounts(&server, &server.admin_key, &body).await;
        assert_eq!((upto, exact.clone()), (json!(PRO.to_string()), json!(FLAKY.to_string())));

        // Paid exactly that: flaky fails, and neither fallback is covered; nothing is settled.
        let offer = payment_required(&send(&server, &server.admin_key, &body, None).await);
        let payment = wallet.pay(accepts(&offer, "exact"), None, None);
        let failed = send(&server, &server.admin_key, &body, Some(&payment)).await;
        assert_eq!(failed.status(), StatusCode::BAD_GATEWAY);
        let error: Value = failed.json().await.unwrap();
        let message = error["error"]["message"].as_str().unwrap();
        let short = format!("mini skipped: its worst case 0.0205 exceeds what this exact payment authorizes ({FLAKY} atomic units)");
        assert!(message.contains(&short) && message.contains("pro skipped"), "{message}");
        assert!(facilitator.calls("settle").is_empty());

        // Paid more than the offer, exact covers mini too: flaky fails, mini answers, paid.
        let payment = wallet.pay(accepts(&offer, "exact"), Some(U256::from(MINI)), None);
        let answer = send(&server, &server.admin_key, &body, Some(&payment)).await;
        assert_eq!(answer.status(), StatusCode::OK);
        let settled = settlement(&answer);
        assert_eq!((settled["success"].as_bool(), settled["amount"].clone()), (Some(true), json!(MINI.to_string())));
        let answer: Value = answer.json().await.unwrap();
        assert_eq!(answer["platform"]["routed_model"], "mini");
        let reason = answer["platform"]["route_reason"].as_str().unwrap();
        assert!(reason.contains("fell back to mini after flaky"), "{reason}");
        assert_eq!(facilitator.balance(PAY_TO), U256::from(MINI));

        // A token whose limit affords mini and not pro: upto covers mini only.
        let token = server
            .post("/v1/tokens", &server.admin_key,
                &json!({"name": "agent", "scopes": ["chat:write"], "credit_limit": "0.0205"}))
            .await;
        assert_eq!(token.status(), StatusCode::CREATED);
        let token: Value = token.json().await.unwrap();
        let (upto, exact) = amounts(&server, &secret(&token), &body).await;
        assert_eq!((upto, exact), (json!(MINI.to_string()), json!(FLAKY.to_string())));
    }
}
