//! The SDK's wallet against the server: a client built with a wallet names it as
//! `agent_wallet`, answers the gateway's 402 by signing the offer (upto, within its limit) and
//! gets its answer, whole or streamed, with what was settled; it refuses, unsigned, an offer
//! over its limit or a request naming another wallet. The facilitator is the tests' own, which
//! checks every signature itself (`server-mock/tests/common/facilitator.rs`).

mod common;
#[path = "../../server-mock/tests/common/facilitator.rs"]
mod facilitator;

use alloy_primitives::U256;
use common::TestServer;
use facilitator::{Facilitator, PAY_TO, terms};
use futures::StreamExt;
use tokctl_sdk::x402::Wallet;
use tokctl_sdk::{ChatMessage, ChatRequest, Client, Error, RetryPolicy};

/// A key for a test wallet (anvil's second account).
const KEY: &str = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/// A server whose workspace takes payments through a new test facilitator.
async fn paying_server() -> (TestServer, Facilitator) {
    let server = TestServer::start().await;
    let facilitator = Facilitator::start().await;
    let terms: serde_json::Value = reqwest::Client::new()
        .put(format!("{}/x402", server.base_url))
        .bearer_auth(&server.admin_key)
        .json(&terms(&facilitator.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(terms["enabled"], true);
    (server, facilitator)
}

fn paying_client(server: &TestServer, wallet: Wallet) -> Client {
    Client::builder()
        .base_url(&server.base_url)
        .api_key(&server.admin_key)
        .retry_policy(RetryPolicy::none())
        .wallet(wallet)
        .build()
        .unwrap()
}

/// At most 200 tokens of `sim-mini`: a worst case of 205 units (see server-mock's x402 tests).
fn ask() -> ChatRequest {
    ChatRequest::new("sim-mini")
        .message(ChatMessage::user("hello there"))
        .max_tokens(200)
}

#[tokio::test]
async fn a_client_with_a_wallet_pays_upto_for_what_the_answer_cost() {
    let (server, facilitator) = paying_server().await;
    let wallet = Wallet::from_key(KEY, 1_000).unwrap();
    let payer = wallet.address().parse().unwrap();
    facilitator.fund(payer, 10_000);
    let client = paying_client(&server, wallet.clone());

    let answer = client.chat().create(&ask()).await.unwrap();
    let settled = answer.platform.unwrap().settlement.expect("a settlement");
    assert_eq!(
        (settled.status.as_str(), settled.scheme.as_str()),
        ("settled", "upto")
    );
    assert_eq!(settled.payer, wallet.address());
    let paid: u64 = settled.amount.parse().unwrap();
    assert!(paid > 0 && paid < 205, "{paid}");
    assert_eq!(facilitator.balance(PAY_TO), U256::from(paid));

    let mut stream = client.chat().create_stream(&ask()).await.unwrap();
    let mut streamed = None;
    while let Some(chunk) = stream.next().await {
        if let Some(platform) = chunk.unwrap().platform {
            streamed = platform.settlement;
        }
    }
    let streamed = streamed.expect("the final chunk's settlement");
    assert_eq!(streamed.status, "settled");
    let total = paid + streamed.amount.parse::<u64>().unwrap();
    assert_eq!(facilitator.balance(PAY_TO), U256::from(total));
    // Each payment verified once, with a nonce of its own.
    assert_eq!(facilitator.calls("verify").len(), 2);
}

#[tokio::test]
async fn a_wallet_refuses_an_offer_over_its_limit_or_another_wallets_request() {
    let (server, facilitator) = paying_server().await;
    let wallet = Wallet::from_key(KEY, 204).unwrap();
    facilitator.fund(wallet.address().parse().unwrap(), 10_000);
    let client = paying_client(&server, wallet);

    let err = client.chat().create(&ask()).await.unwrap_err();
    assert!(matches!(err, Error::Payment(_)), "{err}");
    assert!(err.to_string().contains("asks up to 205"), "{err}");
    let err = client.chat().create_stream(&ask()).await.err().unwrap();
    assert!(matches!(err, Error::Payment(_)), "{err}");

    let other = ask().agent_wallet("0x209693Bc6afc0C5328bA36FaF03C514EF312287C");
    let err = client.chat().create(&other).await.unwrap_err();
    assert!(
        err.to_string().contains("could not pay for another wallet"),
        "{err}"
    );
    // Nothing was signed, so nothing reached the facilitator.
    assert!(facilitator.calls("verify").is_empty());

    // Without a wallet, the 402 is an error that holds the offer.
    let err = server
        .admin()
        .chat()
        .create(&ask().agent_wallet(KEY_ADDRESS))
        .await
        .unwrap_err();
    let Error::Api(api) = &err else {
        panic!("{err}")
    };
    assert_eq!((api.status, api.code.as_str()), (402, "payment_required"));
    assert_eq!(api.x402.as_ref().unwrap()["accepts"][0]["amount"], "205");
}

/// The address of [`KEY`].
const KEY_ADDRESS: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
