//! The Requests section's switch for the workspace's `store_bodies` setting: off at first; turned
//! on, a request made afterwards shows its body and answer in its detail (one made before still
//! says none was kept), and a reload shows it on. A key without `settings:write` turns it on
//! from the keyboard and is told the API's refusal, the switch back off; a key without
//! `settings:read` is told why there is no switch.

use std::time::Duration;

use fantoccini::Client;
use fantoccini::key::Key;
use serde_json::{Value, json};

use crate::browser::{
    Tab, click, eval, find, focused, loaded, open, press, sign_in, tab_to, text, until,
};
use crate::requests::{ask, detail, setup};
use crate::upstream::Upstream;
use crate::{ONE_AT_A_TIME, Setup};

const SWITCH: &str = "#requests-store-bodies";
const STATE: &str = "#requests-store-bodies-state";

/// Waits for the setting to be shown (read, or its change answered) and returns what a person
/// sees: whether the switch is on, the saved state's `data-state` and its words.
async fn setting(client: &Client) -> (bool, String, String) {
    find(client, "#requests-bodies[data-loaded=\"true\"]").await;
    let seen = eval(
        client,
        &format!(
            "const box = document.querySelector('{SWITCH}'); \
             const state = document.querySelector('{STATE}'); \
             return [box.checked, state.dataset.state, state.textContent];"
        ),
    )
    .await;
    (
        seen[0].as_bool().unwrap(),
        seen[1].as_str().unwrap().to_string(),
        seen[2].as_str().unwrap().to_string(),
    )
}

/// Opens the Requests section and waits for the list and the setting.
async fn requests_page(client: &Client, base: &str) {
    open(client, base, "requests").await;
    loaded(client, "requests").await;
    find(client, "#requests-bodies[data-loaded=\"true\"]").await;
}

/// A new API key of `scopes`, made with the admin key; its secret.
async fn key_with(setup: &Setup, name: &str, scopes: &[&str]) -> String {
    let created = setup
        .http
        .post(format!("{}/v1/keys", setup.base))
        .bearer_auth(&setup.server.admin_key)
        .json(&json!({"name": name, "scopes": scopes}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    created["key"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn turning_bodies_on_keeps_the_next_request_s_body() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let up = Upstream::start(Duration::ZERO).await;
    let Some((setup, _catalogue)) = setup("dashboard keeping bodies", &up).await else {
        return;
    };
    let key = &setup.server.admin_key;
    let said = "Which token rotated at noon?";
    let body = json!({"model": "upstream", "messages": [{"role": "user", "content": said}]});
    let (status, _) = ask(&setup, "req-before", body.clone()).await;
    assert_eq!(status, 200);

    let client = setup.window().await;
    sign_in(&client, &setup.base, key).await;
    requests_page(&client, &setup.base).await;
    // Off, the server's default, beside a label that names it.
    let (on, state, words) = setting(&client).await;
    assert!(!on && state == "off", "{state}: {words}");
    assert!(
        words.contains("Off") && words.contains("default"),
        "{words}"
    );
    let label = text(&client, &format!("label[for=\"{}\"]", &SWITCH[1..])).await;
    assert_eq!(label, "Keep request and answer bodies");
    let hint = text(&client, "#requests-store-bodies-hint").await;
    assert!(
        hint.contains("redacted") && hint.contains("from now on"),
        "{hint}"
    );

    // Turned on (through its label): saved, and the API says so.
    click(&client, "label[for=\"requests-store-bodies\"]").await;
    until(
        &client,
        "the switch is saved on",
        &format!(
            "document.querySelector('#requests-bodies').dataset.loaded === 'true' && \
             document.querySelector('{STATE}').dataset.state === 'on'"
        ),
    )
    .await;
    let (on, _, words) = setting(&client).await;
    assert!(on, "{words}");
    assert!(words.contains("On") && words.contains("Saved"), "{words}");
    let (_, settings) = setup.api_get("/settings", key).await;
    assert_eq!(settings["store_bodies"], true, "{settings}");

    // A request made now keeps its body and its answer; the one before keeps neither.
    let (status, _) = ask(&setup, "req-after", body).await;
    assert_eq!(status, 200);
    click(&client, "#requests-refresh").await;
    loaded(&client, "requests").await;
    click(
        &client,
        "tr[data-request-id=\"req-after\"] [data-action=\"detail\"]",
    )
    .await;
    detail(&client, "req-after").await;
    // Both shown exactly as the API keeps them.
    let (_, kept) = setup.api_get("/requests/req-after", key).await;
    let shown = eval(
        &client,
        "return ['#request-body pre', '#response-body pre'].map((css) => \
           document.querySelector(css) && document.querySelector(css).textContent)",
    )
    .await;
    assert!(kept["request_body"].is_string(), "{kept}");
    assert_eq!(shown[0], kept["request_body"], "{kept}");
    assert!(
        shown[0].as_str().is_some_and(|body| body.contains(said)),
        "{shown:?}"
    );
    assert!(kept["response_body"].is_string(), "{kept}");
    assert_eq!(shown[1], kept["response_body"], "{kept}");
    click(
        &client,
        "tr[data-request-id=\"req-before\"] [data-action=\"detail\"]",
    )
    .await;
    detail(&client, "req-before").await;
    let note = text(&client, "#request-content-note").await;
    assert!(note.contains("Message content is not stored"), "{note}");

    // A reload reads it on.
    client.refresh().await.unwrap();
    loaded(&client, "requests").await;
    let (on, state, words) = setting(&client).await;
    assert!(on && state == "on", "{state}: {words}");
    assert!(words.contains("Changed"), "{words}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_key_without_the_settings_scopes_is_refused_or_told_why() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard keeping bodies without the scopes").await else {
        return;
    };
    let reader = key_with(&setup, "reader", &["requests:read", "settings:read"]).await;
    // What the API answers this key, which the page must show as it is.
    let refused = setup
        .http
        .put(format!("{}/v1/settings", setup.base))
        .bearer_auth(&reader)
        .json(&json!({"store_bodies": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let refused: Value = refused.json().await.unwrap();
    let message = refused["message"].as_str().unwrap().to_string();
    assert!(message.contains("settings:write"), "{refused}");

    let client = setup.window().await;
    sign_in(&client, &setup.base, &reader).await;
    requests_page(&client, &setup.base).await;
    let (on, state, _) = setting(&client).await;
    assert!(!on && state == "off");
    // From the keyboard: Tab to the switch, Space to turn it on.
    tab_to(&client, SWITCH, Tab::Forward).await;
    press(&client, &[Key::Space]).await;
    until(
        &client,
        "the refusal is shown",
        "document.querySelector('#requests-bodies').dataset.loaded === 'true' && \
         !document.querySelector('#requests-bodies-error').hidden",
    )
    .await;
    let error = text(&client, "#requests-bodies-error").await;
    assert!(error.contains(&message), "{error}");
    // Back to what is saved, and still where the keyboard left it.
    let (on, state, words) = setting(&client).await;
    assert!(!on && state == "off", "{state}: {words}");
    focused(&client, SWITCH).await;
    let (_, settings) = setup.api_get("/settings", &setup.server.admin_key).await;
    assert_eq!(settings["store_bodies"], false, "{settings}");

    // Without settings:read there is nothing to show: no switch, and the reason.
    let lister = key_with(&setup, "lister", &["requests:read"]).await;
    click(&client, "#signout").await;
    sign_in(&client, &setup.base, &lister).await;
    requests_page(&client, &setup.base).await;
    let why = text(&client, "#requests-bodies-missing-scope").await;
    assert!(why.contains("settings:read"), "{why}");
    assert_eq!(
        eval(
            &client,
            &format!("return !!document.querySelector('{SWITCH}')")
        )
        .await,
        json!(false)
    );
    client.close().await.unwrap();
}
