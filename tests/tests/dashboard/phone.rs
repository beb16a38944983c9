//! Every section on a 390-pixel phone, reached and used from the keyboard alone.

use fantoccini::Client;
use fantoccini::key::Key;
use serde_json::json;

use crate::browser::{Tab, eval, find, focused, loaded, press, tab_to, text, type_keys, until};
use crate::{ONE_AT_A_TIME, Setup};

#[tokio::test]
async fn every_section_fits_a_phone_and_works_from_the_keyboard() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard on a phone").await else {
        return;
    };
    let client = setup.driver.phone(390, 844).await;
    client.goto(&setup.base).await.unwrap();
    // Everything below is done without a pointer: keys go to whatever has focus.
    focused(&client, "#signin-key").await;
    type_keys(&client, &setup.server.admin_key).await;
    tab_to(&client, "#signin-submit", Tab::Forward).await;
    press(&client, &[Key::Enter]).await;
    find(&client, "#signout").await;
    loaded(&client, "tokens").await;
    focused(&client, "#section-tokens h1").await;
    fits_a_phone(&client, "tokens").await;
    let empty = text(&client, "[data-testid=\"empty-state\"]").await;
    assert!(!empty.trim().is_empty(), "tokens");

    // The skip link, first in the page, takes focus to the content.
    tab_to(&client, "#skip-link", Tab::Back).await;
    press(&client, &[Key::Enter]).await;
    focused(&client, "#main").await;

    // A token, made from the keyboard: open the form, name it, tick a scope with Space, submit.
    tab_to(&client, "#token-create-open", Tab::Forward).await;
    press(&client, &[Key::Enter]).await;
    focused(&client, "#token-name").await;
    type_keys(&client, "deploy-bot").await;
    tab_to(
        &client,
        "input[name=\"scope\"][value=\"tokens:read\"]",
        Tab::Forward,
    )
    .await;
    press(&client, &[Key::Space]).await;
    tab_to(&client, "#token-create-submit", Tab::Forward).await;
    press(&client, &[Key::Enter]).await;
    focused(&client, "#secret-title").await;
    let secret = text(&client, "#secret-value").await;
    assert!(secret.starts_with("tkt_"), "{secret}");
    loaded(&client, "tokens").await;
    tab_to(&client, "#secret-dismiss", Tab::Forward).await;
    press(&client, &[Key::Enter]).await;
    focused(&client, "#token-create-open").await;
    let (_, listed) = setup.api_get("/tokens", &setup.server.admin_key).await;
    assert_eq!(listed["meta"]["total"], 1, "{listed}");
    let token = &listed["data"][0];
    assert_eq!(token["name"], "deploy-bot");
    assert_eq!(token["scopes"], json!(["tokens:read"]));
    assert_eq!(setup.api_get("/tokens", &secret).await.0, 200);

    // Escape closes the form and gives focus back to the button that opened it.
    press(&client, &[Key::Enter]).await;
    focused(&client, "#token-name").await;
    press(&client, &[Key::Escape]).await;
    focused(&client, "#token-create-open").await;
    until(
        &client,
        "the form is closed",
        "document.querySelector('#token-form-slot').hidden",
    )
    .await;

    // Escape in the confirmation cancels: the token stays active, focus returns to the row.
    let revoke = format!(
        "[data-token-id=\"{}\"] [data-action=\"revoke\"]",
        token["id"].as_str().unwrap()
    );
    tab_to(&client, &revoke, Tab::Forward).await;
    press(&client, &[Key::Enter]).await;
    focused(&client, "#confirm-dialog[open] #confirm-cancel").await;
    press(&client, &[Key::Escape]).await;
    focused(&client, &revoke).await;
    until(
        &client,
        "the dialog is closed",
        "!document.querySelector('#confirm-dialog').open",
    )
    .await;
    let (_, after) = setup
        .api_get(
            &format!("/tokens/{}", token["id"].as_str().unwrap()),
            &setup.server.admin_key,
        )
        .await;
    assert_eq!(after["status"], "active");
    assert_eq!(setup.api_get("/tokens", &secret).await.0, 200);

    // Every section, reached by Shift+Tab back to its link in the navigation and Enter.
    for (route, section) in [
        ("audit", "audit"),
        ("webhooks", "webhooks"),
        ("usage", "usage"),
        ("models", "models"),
        ("settings/keys", "keys"),
        ("tokens", "tokens"),
    ] {
        let link = format!("#nav a[href=\"#/{route}\"]");
        tab_to(&client, &link, Tab::Back).await;
        press(&client, &[Key::Enter]).await;
        loaded(&client, section).await;
        focused(&client, &format!("#section-{section} h1")).await;
        until(
            &client,
            &format!("the {section} link is marked current"),
            &format!("document.querySelector('{link}').getAttribute('aria-current') === 'page'"),
        )
        .await;
        fits_a_phone(&client, section).await;
        // Each empty section says what to do next.
        if ["webhooks", "usage"].contains(&section) {
            let empty = text(&client, "[data-testid=\"empty-state\"]").await;
            assert!(!empty.trim().is_empty(), "{section}");
        }
    }
    client.close().await.unwrap();
}

/// Asserts the page is no wider than the phone's 390 px screen.
async fn fits_a_phone(client: &Client, section: &str) {
    let fits = eval(
        client,
        "return [window.innerWidth, document.documentElement.scrollWidth]",
    )
    .await;
    assert_eq!(fits[0], json!(390), "{fits}");
    assert!(
        fits[1].as_u64() <= fits[0].as_u64(),
        "{section} overflows a phone: {fits}"
    );
}
