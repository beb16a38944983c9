//! x402: a workspace's terms through the API, and chat requests naming an `agent_wallet` paid
//! with `exact` and `upto` payments signed as the official clients sign them, verified and
//! settled by a facilitator that checks the signatures itself (`common/facilitator.rs`).

#[path = "x402/auto.rs"]
mod auto;
mod common;
#[path = "x402/outbox.rs"]
mod outbox;

use alloy_primitives::U256;
use base64::Engine;
use common::both;
use common::facilitator::{Facilitator, PAY_TO, accepts, terms};
use common::hooks::eventually;
use common::wallet::Wallet;
use common::{Server, postgres};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The offer a 402 carries in `PAYMENT-REQUIRED`.
fn payment_required(response: &reqwest::Response) -> Value {
    let header = response.headers()["payment-required"].to_str().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(header)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// The settlement a paid answer carries in `PAYMENT-RESPONSE`.
fn settlement(response: &reqwest::Response) -> Value {
    let header = response.headers()["payment-response"].to_str().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(header)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// A chat request by `wallet` to the built-in `sim-mini` (0.05 and 0.1 credit per 1,000 prompt
/// and completion tokens). Its worst case: 10 prompt tokens (the estimate for "hello there")
/// and 200 completion tokens, 0.0205 credit, which at 10,000 units a credit is 205 units.
fn ask(wallet: &Wallet, stream: bool) -> Value {
    json!({"model": "sim-mini", "messages": [{"role": "user", "content": "hello there"}],
        "max_tokens": 200, "agent_wallet": wallet.address().to_string(), "stream": stream})
}

/// The worst case of [`ask`], in atomic units.
const WORST: u64 = 205;

/// `server`'s workspace takes payments through `facilitator`.
async fn enable(server: &Server, facilitator: &Facilitator) {
    let set = server
        .request(reqwest::Method::PUT, "/v1/x402", &server.admin_key)
        .json(&terms(&facilitator.url))
        .send()
        .await
        .unwrap();
    assert_eq!(
        set.status(),
        StatusCode::OK,
        "{}",
        set.text().await.unwrap()
    );
}

/// The chat request `body` with `payment` in `PAYMENT-SIGNATURE`.
async fn paid(server: &Server, body: &Value, payment: &str) -> reqwest::Response {
    server
        .request(
            reqwest::Method::POST,
            "/v1/chat/completions",
            &server.admin_key,
        )
        .header("payment-signature", payment)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Takes `facilitator` down as soon as it has verified one more payment, so the settlement
/// after that answer fails.
fn down_once_verified(facilitator: &Facilitator) -> tokio::task::JoinHandle<()> {
    let verified = facilitator.calls("verify").len();
    let ledger = facilitator.ledger.clone();
    tokio::spawn(async move {
        loop {
            {
                let mut ledger = ledger.lock().unwrap();
                if ledger.calls.iter().filter(|(op, _)| op == "verify").count() > verified {
                    ledger.down = true;
                    return;
                }
            }
            tokio::task::yield_now().await;
        }
    })
}

/// `body` paid with `payment` through `server`, the facilitator going down as soon as it has
/// verified the payment: answered, its settlement pending. The answer.
async fn answered_unsettled(
    server: &Server,
    facilitator: &Facilitator,
    body: &Value,
    payment: &str,
) -> Value {
    let watcher = down_once_verified(facilitator);
    let answer = paid(server, body, payment).await;
    watcher.await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let json: Value = answer.json().await.unwrap();
    assert_eq!(
        json["platform"]["settlement"]["status"], "pending",
        "{json}"
    );
    json
}

/// A facilitator, a server whose workspace takes x402 payments through it, and a wallet funded
/// with 1,000 units there.
async fn paying() -> (Facilitator, Server, Wallet) {
    let facilitator = Facilitator::start().await;
    let server = Server::start();
    enable(&server, &facilitator).await;
    let wallet = Wallet::new();
    facilitator.fund(wallet.address(), 1_000);
    (facilitator, server, wallet)
}

/// The 402 offer for `body`.
async fn offered(server: &Server, body: &Value) -> Value {
    let response = server
        .post("/v1/chat/completions", &server.admin_key, body)
        .await;
    assert_eq!(response.status(), StatusCode::PAYMENT_REQUIRED);
    payment_required(&response)
}

both! {
    #[tokio::test]
    async fn the_terms_are_set_shown_checked_and_removed_with_the_x402_scopes() {
        let server = Server::start();
        let key = &server.admin_key;
        let shown: Value = server.get("/v1/x402", key).await.json().await.unwrap();
        assert_eq!(shown, json!({"enabled": false}));

        let put = |body: Value| {
            server.request(reqwest::Method::PUT, "/v1/x402", key).json(&body).send()
        };
        let mut bad = terms("http://127.0.0.1:9");
        for (field, value) in [
            ("pay_to", json!("0x1234")),
            ("network", json!("base-sepolia")),
            ("asset", json!("USDC")),
            ("asset_name", json!("")),
            ("credit_price", json!("0.5")),
            ("facilitator_url", json!("ftp://example.com")),
        ] {
            let good = bad[field].clone();
            bad[field] = value;
            let refused = put(bad.clone()).await.unwrap();
            assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY, "{field}");
            let body: Value = refused.json().await.unwrap();
            assert!(body["message"].as_str().unwrap().contains(field), "{body}");
            bad[field] = good;
        }
        let mut wrong = terms("http://127.0.0.1:9");
        wrong["asset_decimals"] = json!("six");
        assert_eq!(put(wrong).await.unwrap().status(), StatusCode::BAD_REQUEST);

        let set: Value = put(terms("http://127.0.0.1:9/")).await.unwrap().json().await.unwrap();
        assert_eq!(set["enabled"], true);
        assert_eq!(set["pay_to"], PAY_TO.to_string());
        assert_eq!(set["credit_price"], "10000");
        assert_eq!(set["facilitator_url"], "http://127.0.0.1:9", "the trailing slash goes");
        let shown: Value = server.get("/v1/x402", key).await.json().await.unwrap();
        assert_eq!(shown, set);

        // A key without the x402 scopes may neither read nor set them.
        let reader = server.create_token("reader", &["tokens:read"]).await;
        let reader = reader["token"].as_str().unwrap();
        assert_eq!(server.get("/v1/x402", reader).await.status(), StatusCode::FORBIDDEN);

        let removed = server.delete("/v1/x402", key).await;
        assert_eq!(removed.status(), StatusCode::NO_CONTENT);
        assert_eq!(server.delete("/v1/x402", key).await.status(), StatusCode::NOT_FOUND);
        let audit: Value = server.get("/v1/audit?action=x402.updated", key).await.json().await.unwrap();
        assert_eq!(audit["meta"]["total"], 1);
        let audit: Value = server.get("/v1/audit?action=x402.disabled", key).await.json().await.unwrap();
        assert_eq!(audit["meta"]["total"], 1);
    }
}

both! {
    #[tokio::test]
    async fn a_wallet_without_a_payment_gets_402_with_the_offer_in_the_header_and_the_body() {
        let facilitator = Facilitator::start().await;
        let server = Server::start();
        let wallet = Wallet::new();
        // Before the terms: served as ever, the wallet recorded.
        let free = server.post("/v1/chat/completions", &server.admin_key, &ask(&wallet, false)).await;
        assert_eq!(free.status(), StatusCode::OK);

        enable(&server, &facilitator).await;
        let response = server.post("/v1/chat/completions", &server.admin_key, &ask(&wallet, false)).await;
        assert_eq!(response.status(), StatusCode::PAYMENT_REQUIRED);
        assert_eq!(response.headers()["cache-control"], "no-store");
        let offer = payment_required(&response);
        let body: Value = response.json().await.unwrap();
        // OpenAI's envelope, readable by its clients, holding the same offer.
        assert_eq!(body["error"]["code"], "payment_required");
        assert!(body["error"]["message"].as_str().unwrap().contains("PAYMENT-SIGNATURE"));
        let mut in_body = body["error"]["x402"].clone();
        assert_eq!(in_body["error"], body["error"]["message"]);
        in_body.as_object_mut().unwrap().remove("error");
        let mut in_header = offer.clone();
        in_header.as_object_mut().unwrap().remove("error");
        assert_eq!(in_body, in_header);

        assert_eq!(offer["x402Version"], 2);
        assert!(offer["resource"]["url"].as_str().unwrap().ends_with("/v1/chat/completions"));
        let schemes: Vec<&str> = offer["accepts"].as_array().unwrap().iter()
            .map(|r| r["scheme"].as_str().unwrap()).collect();
        assert_eq!(schemes, ["upto", "exact"]);
        let upto = accepts(&offer, "upto");
        assert_eq!(upto["amount"], WORST.to_string());
        assert_eq!(upto["network"], "eip155:84532");
        assert_eq!(upto["payTo"], PAY_TO.to_string());
        assert_eq!(upto["extra"]["facilitatorAddress"], facilitator.settler.to_string());
        assert_eq!(upto["extra"]["assetTransferMethod"], "permit2");
        let exact = accepts(&offer, "exact");
        assert_eq!(exact["amount"], WORST.to_string());
        assert_eq!(exact["extra"], json!({"name": "USDC", "version": "2"}));

        // Without agent_wallet, no payment is asked.
        let mut plain = ask(&wallet, false);
        plain.as_object_mut().unwrap().remove("agent_wallet");
        let free = server.post("/v1/chat/completions", &server.admin_key, &plain).await;
        assert_eq!(free.status(), StatusCode::OK);
    }
}

both! {
    #[tokio::test]
    async fn exact_is_settled_before_the_answer_for_the_amount_authorized() {
        let (facilitator, server, wallet) = paying().await;
        let body = ask(&wallet, false);
        let offer = offered(&server, &body).await;
        let payment = wallet.pay(accepts(&offer, "exact"), None, None);

        let answer = paid(&server, &body, &payment).await;
        assert_eq!(answer.status(), StatusCode::OK);
        let settled = settlement(&answer);
        assert_eq!(settled["success"], true);
        assert_eq!(settled["amount"], WORST.to_string());
        assert_eq!(settled["payer"], wallet.address().to_string());
        assert!(settled["transaction"].as_str().unwrap().starts_with("0x"));
        let json: Value = answer.json().await.unwrap();
        assert_eq!(json["platform"]["settlement"]["status"], "settled");
        assert_eq!(json["platform"]["settlement"]["transaction"], settled["transaction"]);
        assert_eq!(facilitator.balance(wallet.address()), U256::from(1_000 - WORST));
        assert_eq!(facilitator.balance(PAY_TO), U256::from(WORST));
        assert_eq!(facilitator.calls("verify").len(), 1);
        assert_eq!(facilitator.calls("settle").len(), 1);

        // The same payment again: refused here, before the facilitator is asked.
        let replay = paid(&server, &body, &payment).await;
        assert_eq!(replay.status(), StatusCode::PAYMENT_REQUIRED);
        let refused = payment_required(&replay);
        assert!(refused["error"].as_str().unwrap().contains("used before"), "{refused}");
        assert_eq!(facilitator.calls("verify").len(), 1);

        // Streamed: settled before the first chunk, said in PAYMENT-RESPONSE.
        let body = ask(&wallet, true);
        let offer = offered(&server, &body).await;
        let streamed = paid(&server, &body, &wallet.pay(accepts(&offer, "exact"), None, None)).await;
        assert_eq!(streamed.status(), StatusCode::OK);
        let settled = settlement(&streamed);
        assert_eq!((settled["success"].as_bool(), settled["amount"].as_str()), (Some(true), Some("205")));
        assert!(streamed.text().await.unwrap().ends_with("data: [DONE]\n\n"));
        assert_eq!(facilitator.balance(PAY_TO), U256::from(2 * WORST));
    }
}

both! {
    #[tokio::test]
    async fn upto_is_settled_after_the_answer_for_what_it_cost() {
        let (facilitator, server, wallet) = paying().await;
        for stream in [false, true] {
            let body = ask(&wallet, stream);
            let offer = offered(&server, &body).await;
            let before = facilitator.balance(PAY_TO);
            let answer = paid(&server, &body, &wallet.pay(accepts(&offer, "upto"), None, None)).await;
            assert_eq!(answer.status(), StatusCode::OK);
            let platform = match stream {
                false => {
                    let settled = settlement(&answer);
                    let json: Value = answer.json().await.unwrap();
                    assert_eq!(settled["success"], true);
                    assert_eq!(settled["amount"], json["platform"]["settlement"]["amount"]);
                    json["platform"].clone()
                }
                true => {
                    assert!(answer.headers().get("payment-response").is_none());
                    let text = answer.text().await.unwrap();
                    let last = text.lines().filter_map(|l| l.strip_prefix("data: "))
                        .filter(|d| *d != "[DONE]")
                        .map(|d| serde_json::from_str::<Value>(d).unwrap())
                        .find(|c| c["platform"].is_object())
                        .expect("a final chunk with platform");
                    last["platform"].clone()
                }
            };
            // What the answer cost, in units, rounded up: less than the worst case, since the
            // answer used fewer than 200 tokens.
            let credits: f64 = platform["credits_consumed"].as_f64().unwrap();
            let units = (credits * 10_000.0).ceil() as u64;
            let settled = &platform["settlement"];
            assert_eq!(settled["status"], "settled", "{platform}");
            assert_eq!(settled["scheme"], "upto");
            assert_eq!(settled["amount"], units.to_string(), "{platform}");
            assert!(units < WORST, "{units}");
            assert_eq!(facilitator.balance(PAY_TO), before + U256::from(units));
            // Verified for the most, settled for the cost.
            let settle = facilitator.calls("settle").last().cloned().unwrap();
            assert_eq!(settle["paymentRequirements"]["amount"], units.to_string());
            let permitted = &settle["paymentPayload"]["payload"]["permit2Authorization"]["permitted"];
            assert_eq!(permitted["amount"], WORST.to_string());
        }
        // The usage ledger shows what was settled, by day and model and in all.
        let usage: Value = server.get("/v1/usage", &server.admin_key).await.json().await.unwrap();
        let moved = facilitator.balance(PAY_TO).to_string();
        assert_eq!(usage["totals"]["x402_settled"], moved, "{usage}");
        let row = usage["data"].as_array().unwrap().iter().find(|r| r["model"] == "sim-mini").unwrap();
        assert_eq!(row["x402_settled"], moved, "{usage}");
    }
}

both! {
    #[tokio::test]
    async fn a_wrong_signer_too_small_an_amount_or_an_expired_payment_is_refused() {
        let (facilitator, server, wallet) = paying().await;
        let other = Wallet::new();
        facilitator.fund(other.address(), 1_000);
        let body = ask(&wallet, false);
        let offer = offered(&server, &body).await;
        let now = chrono::Utc::now().timestamp() as u64;
        for scheme in ["exact", "upto"] {
            let requirements = accepts(&offer, scheme);
            for (payment, reason) in [
                (other.pay(requirements, None, None), "not by agent_wallet"),
                (wallet.pay(requirements, Some(U256::from(WORST - 1)), None), "needs 205"),
                (wallet.pay(requirements, None, Some(now - 10)), "expires too soon"),
            ] {
                let refused = paid(&server, &body, &payment).await;
                assert_eq!(refused.status(), StatusCode::PAYMENT_REQUIRED, "{scheme}: {reason}");
                let offer = payment_required(&refused);
                assert!(offer["error"].as_str().unwrap().contains(reason), "{scheme}: {offer}");
            }
        }
        // None of them reached the facilitator, and nothing moved.
        assert!(facilitator.calls("verify").is_empty());
        assert_eq!(facilitator.balance(PAY_TO), U256::ZERO);

        // A payment the facilitator refuses (no funds) is a 402 with its reason.
        let poor = Wallet::new();
        let body = ask(&poor, false);
        let refused = paid(&server, &body, &poor.pay(accepts(&offer, "exact"), None, None)).await;
        assert_eq!(refused.status(), StatusCode::PAYMENT_REQUIRED);
        assert!(payment_required(&refused)["error"].as_str().unwrap().contains("insufficient_funds"));

        // Not base64 JSON: 400.
        let garbled = paid(&server, &body, "not a payment").await;
        assert_eq!(garbled.status(), StatusCode::BAD_REQUEST);
        let json: Value = garbled.json().await.unwrap();
        assert_eq!(json["error"]["code"], "invalid_payment");
    }
}

both! {
    #[tokio::test]
    async fn a_facilitator_that_is_down_gets_no_answer_served_unpaid_and_upto_settles_later() {
        let (facilitator, server, wallet) = paying().await;
        let body = ask(&wallet, false);
        let offer = offered(&server, &body).await;

        // exact: the facilitator refuses to settle, or is down: no answer.
        let exact = wallet.pay(accepts(&offer, "exact"), None, None);
        facilitator.lock().refuse_settle = Some("transaction_failed".into());
        let refused = paid(&server, &body, &exact).await;
        assert_eq!(refused.status(), StatusCode::PAYMENT_REQUIRED);
        let json: Value = refused.json().await.unwrap();
        assert!(json["error"]["message"].as_str().unwrap().contains("transaction_failed"), "{json}");
        assert!(json.get("choices").is_none());
        facilitator.lock().refuse_settle = None;

        facilitator.lock().down = true;
        let down = paid(&server, &body, &wallet.pay(accepts(&offer, "exact"), None, None)).await;
        assert_eq!(down.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(down.headers()["retry-after"], "5");
        let json: Value = down.json().await.unwrap();
        assert_eq!(json["error"]["code"], "facilitator_unavailable");
        facilitator.lock().down = false;
        assert_eq!(facilitator.balance(PAY_TO), U256::ZERO);

        // upto: verified, answered, then the facilitator goes away before settling: the answer
        // stands, the settlement waits in the outbox and is made once it is back.
        let upto = wallet.pay(accepts(&offer, "upto"), None, None);
        let json = answered_unsettled(&server, &facilitator, &body, &upto).await;
        assert!(json["choices"][0]["message"]["content"].is_string());
        assert_eq!(facilitator.balance(PAY_TO), U256::ZERO);

        facilitator.lock().down = false;
        let units: u64 = json["platform"]["settlement"]["amount"].as_str().unwrap().parse().unwrap();
        eventually("the outbox to settle the payment", || async {
            (facilitator.balance(PAY_TO) == U256::from(units)).then_some(())
        })
        .await;
    }
}

postgres! {
    #[tokio::test]
    async fn a_payment_used_on_one_instance_is_refused_by_another() {
        let facilitator = Facilitator::start().await;
        let a = Server::start();
        let b = a.another(Default::default());
        enable(&a, &facilitator).await;
        let wallet = Wallet::new();
        facilitator.fund(wallet.address(), 1_000);
        let body = ask(&wallet, false);
        let offer = offered(&a, &body).await;
        for scheme in ["exact", "upto"] {
            let payment = wallet.pay(accepts(&offer, scheme), None, None);
            assert_eq!(paid(&a, &body, &payment).await.status(), StatusCode::OK, "{scheme}");
            let replay = paid(&b, &body, &payment).await;
            assert_eq!(replay.status(), StatusCode::PAYMENT_REQUIRED, "{scheme}");
            assert!(payment_required(&replay)["error"].as_str().unwrap().contains("used before"));
        }
    }
}
