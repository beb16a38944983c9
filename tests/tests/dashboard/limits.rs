//! Tokens with spending limits in the dashboard: a person creates a token with a limit, sees the
//! period's spend against it once the token has been used, changes the limit, rotates with an
//! overlap that keeps the old secret working, and narrows Usage to that token; the API says
//! the same at each step.

use tokctl_sdk::{ChatMessage, ChatRequest, Client};

use crate::browser::{click, eval, fill, find, loaded, open, sign_in, text, until};
use crate::{ONE_AT_A_TIME, Setup};

/// Chooses `value` in the `<select>` `css`, as a person picking an option does.
async fn choose(client: &fantoccini::Client, css: &str, value: &str) {
    let script = format!(
        "const s = document.querySelector({css:?}); s.value = {value:?}; \
         s.dispatchEvent(new Event('change', {{bubbles: true}})); return s.value"
    );
    assert_eq!(eval(client, &script).await, value);
}

#[tokio::test]
async fn a_limit_is_set_seen_changed_and_usage_narrowed_to_the_token() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard limits").await else {
        return;
    };
    let key = setup.server.admin_key.clone();
    let client = setup.window().await;
    sign_in(&client, &setup.base, &key).await;
    open(&client, &setup.base, "tokens").await;
    loaded(&client, "tokens").await;

    click(&client, "#token-create-open").await;
    fill(&client, "#token-name", "agent").await;
    click(&client, "input[name=\"scope\"][value=\"chat:write\"]").await;
    click(&client, "input[name=\"scope\"][value=\"tokens:read\"]").await;
    fill(&client, "#token-credit-limit", "0.5").await;
    choose(&client, "#token-limit-reset", "daily").await;
    click(&client, "#token-create-submit").await;
    let secret = text(&client, "#secret-value").await;
    let (_, tokens) = setup.api_get("/tokens", &key).await;
    let token = tokens["data"][0].clone();
    let id = token["id"].as_str().unwrap().to_string();
    assert_eq!(token["limits"]["credit_limit"], serde_json::json!(0.5));
    assert_eq!(token["limits"]["reset"], "daily");

    // The token is used; its row shows the period's spend as the API reports it.
    let agent = Client::builder()
        .base_url(&setup.server.base_url)
        .api_key(&secret)
        .build()
        .unwrap();
    let ask = ChatRequest::new("sim-mini")
        .message(ChatMessage::user("hello"))
        .max_tokens(20);
    for _ in 0..2 {
        agent.chat().create(&ask).await.unwrap();
    }
    let (_, token) = setup.api_get(&format!("/tokens/{id}"), &key).await;
    let spent = token["limits"]["spent"].to_string();
    click(&client, "#secret-dismiss").await;
    client.refresh().await.unwrap();
    loaded(&client, "tokens").await;
    let row = format!("tr[data-token-id=\"{id}\"]");
    let spend = find(&client, &format!("{row} .spend")).await;
    assert_eq!(
        spend.attr("data-spent").await.unwrap().as_deref(),
        Some(spent.as_str())
    );
    assert_eq!(
        spend.attr("data-limit").await.unwrap().as_deref(),
        Some("0.5")
    );
    assert!(
        text(&client, &format!("{row} .spend-text"))
            .await
            .contains("of 0.5 credits today")
    );

    // The limit is raised from the row.
    click(&client, &format!("{row} [data-action=\"limit\"]")).await;
    fill(&client, "#limit-credit-limit", "2").await;
    click(&client, "#confirm-ok").await;
    until(
        &client,
        "the new limit",
        &format!("document.querySelector('{row} .spend[data-limit=\"2\"]')"),
    )
    .await;
    let (_, token) = setup.api_get(&format!("/tokens/{id}"), &key).await;
    assert_eq!(token["limits"]["credit_limit"], serde_json::json!(2));
    let (_, audit) = setup
        .api_get(
            &format!("/audit?token_id={id}&action=token.limit_changed"),
            &key,
        )
        .await;
    assert_eq!(
        audit["data"][0]["details"]["after"]["credit_limit"],
        serde_json::json!(2)
    );

    // A rotation that keeps the old secret working for ten minutes.
    click(&client, &format!("{row} [data-action=\"rotate\"]")).await;
    choose(&client, "#token-rotate-overlap", "10m").await;
    click(&client, "#confirm-ok").await;
    let fresh = text(&client, "#secret-value").await;
    assert_ne!(fresh, secret);
    assert!(
        text(&client, "#token-secret-slot")
            .await
            .contains("works until")
    );
    let (status, _) = setup.api_get(&format!("/tokens/{id}"), &secret).await;
    assert_eq!(status, 200, "the old secret, during the overlap");
    let (status, _) = setup.api_get(&format!("/tokens/{id}"), &fresh).await;
    assert_eq!(status, 200);

    // Usage narrowed to the token: its two requests, not the workspace's.
    let (_, mine) = setup.api_get(&format!("/usage?token_id={id}"), &key).await;
    open(&client, &setup.base, &format!("usage?token_id={id}")).await;
    loaded(&client, "usage").await;
    assert_eq!(mine["totals"]["requests"], 2);
    assert_eq!(text(&client, "#usage-total-requests").await, "2");
    assert_eq!(
        eval(
            &client,
            "return document.querySelector('#usage-token').value"
        )
        .await,
        id
    );
    choose(&client, "#usage-token", "").await;
    until(
        &client,
        "the workspace's usage",
        "document.querySelector('#section-usage[data-loaded=\"true\"]')",
    )
    .await;
    client.close().await.unwrap();
}
