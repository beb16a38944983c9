//! Settings > x402 payments: a person turns x402 on by filling in the terms, is told which
//! field the server refused, sees the terms it saved, sees in Usage what an agent's payment
//! settled, and turns x402 off again; the API says the same at each step.

use tokctl_sdk::x402::Wallet;
use tokctl_sdk::{ChatMessage, ChatRequest, Client};

use crate::browser::{click, fill, find, loaded, open, sign_in, text, until};
use crate::facilitator::Facilitator;
use crate::{ONE_AT_A_TIME, Setup};

/// The form's fields and what a person types in each.
const TERMS: [(&str, &str); 7] = [
    ("#x402-pay-to", "0x209693bc6afc0c5328ba36faf03c514ef312287c"),
    ("#x402-network", "eip155:84532"),
    ("#x402-asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
    ("#x402-asset-name", "USDC"),
    ("#x402-asset-version", "2"),
    ("#x402-asset-decimals", "6"),
    ("#x402-credit-price", "10000"),
];

#[tokio::test]
async fn the_x402_terms_are_set_and_turned_off_from_settings() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard x402").await else {
        return;
    };
    let key = setup.server.admin_key.clone();
    let facilitator = Facilitator::start().await;
    let client = setup.window().await;
    sign_in(&client, &setup.base, &key).await;
    open(&client, &setup.base, "settings/x402").await;
    loaded(&client, "x402").await;
    assert!(text(&client, "#x402-state").await.starts_with("Off"));

    // A typo the server refuses: the message names the field, the field is marked.
    for (css, value) in TERMS {
        fill(&client, css, value).await;
    }
    fill(&client, "#x402-facilitator-url", &facilitator.url).await;
    fill(&client, "#x402-network", "base-sepolia").await;
    click(&client, "#x402-save").await;
    until(
        &client,
        "the refusal",
        "!document.querySelector('#x402-form-error').hidden",
    )
    .await;
    assert!(
        text(&client, "#x402-form-error")
            .await
            .contains("network must be")
    );
    find(&client, "#x402-network[aria-invalid=\"true\"]").await;
    let (_, terms) = setup.api_get("/x402", &key).await;
    assert_eq!(terms["enabled"], false);

    fill(&client, "#x402-network", "eip155:84532").await;
    click(&client, "#x402-save").await;
    until(
        &client,
        "the saved terms",
        "document.querySelector('#x402-state[data-enabled=\"true\"]')",
    )
    .await;
    let shown = text(&client, "#x402-state").await;
    // Shown as the server keeps it: the address in its checksum form.
    assert!(
        shown.contains("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"),
        "{shown}"
    );
    let (_, terms) = setup.api_get("/x402", &key).await;
    assert_eq!(terms["enabled"], true);
    assert_eq!(terms["credit_price"], "10000");

    // An agent pays for an answer; Usage shows what was settled.
    let wallet = Wallet::from_key(
        "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
        1_000,
    )
    .unwrap();
    facilitator.fund(wallet.address().parse().unwrap(), 10_000);
    let agent = Client::builder()
        .base_url(&setup.server.base_url)
        .api_key(&key)
        .wallet(wallet)
        .build()
        .unwrap();
    let ask = ChatRequest::new("sim-mini")
        .message(ChatMessage::user("hello"))
        .max_tokens(100);
    let answer = agent.chat().create(&ask).await.unwrap();
    let settled = answer.platform.unwrap().settlement.unwrap().amount;
    open(&client, &setup.base, "usage").await;
    loaded(&client, "usage").await;
    assert_eq!(text(&client, "#usage-total-x402").await, settled);
    assert_eq!(text(&client, "#usage-period-x402").await, settled);

    open(&client, &setup.base, "settings/x402").await;
    loaded(&client, "x402").await;
    click(&client, "#x402-disable").await;
    click(&client, "#confirm-ok").await;
    until(
        &client,
        "x402 off",
        "document.querySelector('#x402-state[data-enabled=\"false\"]')",
    )
    .await;
    let (_, terms) = setup.api_get("/x402", &key).await;
    assert_eq!(terms["enabled"], false);
    client.close().await.unwrap();
}
