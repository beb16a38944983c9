//! The web dashboard in real headless Chromium, against the reference server in-process: each
//! test does what a person would, and checks what the API then says. The whole dashboard on a
//! phone, from the keyboard alone, is in `dashboard/phone.rs`; the Models section watching an
//! upstream fail, in `dashboard/models.rs`; Settings > x402 payments, in `dashboard/x402.rs`; a token's
//! spending limit and a rotation with an overlap, in `dashboard/limits.rs`; the gateway's request
//! log and a request's waterfall, in `dashboard/requests.rs`.

mod browser;
mod common;
#[path = "../../server-mock/tests/common/facilitator.rs"]
mod facilitator;
#[path = "dashboard/limits.rs"]
mod limits;
#[path = "dashboard/models.rs"]
mod models;
#[path = "dashboard/phone.rs"]
mod phone;
#[path = "dashboard/requests.rs"]
mod requests;
#[path = "dashboard/settings.rs"]
mod settings;
#[path = "dashboard/upstream.rs"]
mod upstream;
#[path = "dashboard/x402.rs"]
mod x402;

use browser::{Driver, available, click, eval, fill, find, loaded, open, sign_in, text, until};
use common::TestServer;
use fantoccini::Client;
use serde_json::{Value, json};

/// One browser test at a time: two cores, and each Chromium wants both.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A server, a driver, and the dashboard's address.
struct Setup {
    server: TestServer,
    driver: Driver,
    base: String,
    http: reqwest::Client,
}

impl Setup {
    async fn new(test: &str) -> Option<Setup> {
        let (browser, driver) = available(test)?;
        let server = TestServer::start().await;
        let base = server.base_url.trim_end_matches("/v1").to_string();
        Some(Setup {
            driver: Driver::start(browser, driver),
            server,
            base,
            http: reqwest::Client::new(),
        })
    }

    async fn window(&self) -> Client {
        self.driver.window(1280, 800).await
    }

    /// `GET /v1{path}` with `key`.
    async fn api_get(&self, path: &str, key: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!("{}/v1{path}", self.base))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn signing_in_with_a_wrong_key_shows_an_error_and_the_right_key_signs_in() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard sign-in").await else {
        return;
    };
    let client = setup.window().await;
    client.goto(&setup.base).await.unwrap();
    fill(&client, "#signin-key", "tka_this-is-not-a-key").await;
    click(&client, "#signin-submit").await;
    until(&client, "the sign-in error is shown", "document.querySelector('#signin-error') && document.querySelector('#signin-error').textContent.trim().length > 0").await;
    let error = text(&client, "#signin-error").await;
    assert!(error.contains("not valid"), "{error}");

    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    let whoami = text(&client, "#whoami").await;
    assert!(
        whoami.contains("admin") && whoami.contains("default"),
        "{whoami}"
    );
    // The key is in no storage a script can read, nor in the cookie a script can see.
    let stored = eval(
        &client,
        "return JSON.stringify([document.cookie, Object.entries(localStorage), \
         Object.entries(sessionStorage), location.href])",
    )
    .await;
    let stored = stored.as_str().unwrap();
    assert!(!stored.contains(&setup.server.admin_key[4..]), "{stored}");
    assert!(
        !stored.contains("tokctl_session"),
        "the cookie must be HttpOnly: {stored}"
    );

    // Signing out returns to the sign-in form, and a reload stays signed out.
    click(&client, "#signout").await;
    find(&client, "#signin-key").await;
    client.refresh().await.unwrap();
    find(&client, "#signin-key").await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_token_is_created_shown_once_rotated_and_revoked() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard tokens").await else {
        return;
    };
    let client = setup.window().await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    open(&client, &setup.base, "tokens").await;
    loaded(&client, "tokens").await;

    click(&client, "#token-create-open").await;
    fill(&client, "#token-name", "deploy-bot").await;
    click(&client, "input[name=\"scope\"][value=\"tokens:read\"]").await;
    click(&client, "#token-create-submit").await;
    let secret = text(&client, "#secret-value").await;
    assert!(secret.starts_with("tkt_"), "{secret}");
    // The secret works against the API, with the scopes ticked.
    let (status, _) = setup.api_get("/tokens", &secret).await;
    assert_eq!(status, 200);
    let (status, _) = setup.api_get("/audit", &secret).await;
    assert_eq!(status, 403);

    // Shown once: dismissed, it is nowhere on the page, and a reload does not bring it back.
    click(&client, "#secret-dismiss").await;
    let page = eval(&client, "return document.body.innerText").await;
    assert!(!page.as_str().unwrap().contains(&secret));
    client.refresh().await.unwrap();
    loaded(&client, "tokens").await;
    let page = eval(&client, "return document.documentElement.outerHTML").await;
    assert!(!page.as_str().unwrap().contains(&secret[4..]));

    let (_, listed) = setup.api_get("/tokens", &setup.server.admin_key).await;
    let id = listed["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(listed["data"][0]["name"], "deploy-bot");
    let row = format!("[data-token-id=\"{id}\"]");

    // Rotate: a new secret, shown once; the old one is refused by the API.
    click(&client, &format!("{row} [data-action=\"rotate\"]")).await;
    click(&client, "#confirm-ok").await;
    until(&client, "the rotated secret is shown", &format!(
        "document.querySelector('#secret-value') && document.querySelector('#secret-value').textContent.startsWith('tkt_') && document.querySelector('#secret-value').textContent !== '{secret}'"
    ))
    .await;
    let rotated = text(&client, "#secret-value").await;
    assert_eq!(setup.api_get("/tokens", &secret).await.0, 401);
    assert_eq!(setup.api_get("/tokens", &rotated).await.0, 200);
    click(&client, "#secret-dismiss").await;

    // Revoke, after confirming: the token is refused and listed as revoked.
    click(&client, &format!("{row} [data-action=\"revoke\"]")).await;
    click(&client, "#confirm-ok").await;
    until(&client, "the row shows the token revoked", &format!(
        "document.querySelector('{row}') && document.querySelector('{row}').textContent.includes('revoked')"
    ))
    .await;
    assert_eq!(setup.api_get("/tokens", &rotated).await.0, 401);
    let (_, token) = setup
        .api_get(&format!("/tokens/{id}"), &setup.server.admin_key)
        .await;
    assert_eq!(token["status"], "revoked");
    client.close().await.unwrap();
}

#[tokio::test]
async fn revoking_an_api_key_signs_its_sessions_out() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard API keys").await else {
        return;
    };
    let admin = setup.window().await;
    sign_in(&admin, &setup.base, &setup.server.admin_key).await;
    open(&admin, &setup.base, "settings/keys").await;
    loaded(&admin, "keys").await;
    click(&admin, "#key-create-open").await;
    fill(&admin, "#key-name", "laptop").await;
    click(&admin, "input[name=\"scope\"][value=\"tokens:read\"]").await;
    click(&admin, "#key-create-submit").await;
    let key = text(&admin, "#secret-value").await;
    assert!(key.starts_with("tka_"), "{key}");
    click(&admin, "#secret-dismiss").await;

    // Someone else signs in with the new key, in a browser of their own.
    let laptop = setup.window().await;
    sign_in(&laptop, &setup.base, &key).await;
    open(&laptop, &setup.base, "tokens").await;
    loaded(&laptop, "tokens").await;

    let (_, keys) = setup
        .api_get("/keys?status=active", &setup.server.admin_key)
        .await;
    let id = keys["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(keys["data"][0]["name"], "laptop");
    click(
        &admin,
        &format!("[data-key-id=\"{id}\"] [data-action=\"revoke\"]"),
    )
    .await;
    click(&admin, "#confirm-ok").await;
    until(&admin, "the key is listed as revoked", &format!(
        "document.querySelector('[data-key-id=\"{id}\"]') && document.querySelector('[data-key-id=\"{id}\"]').textContent.includes('revoked')"
    ))
    .await;
    assert_eq!(setup.api_get("/tokens", &key).await.0, 401);

    // The laptop's next step finds itself signed out.
    laptop.refresh().await.unwrap();
    find(&laptop, "#signin-key").await;
    // The key in use cannot be revoked from its own session. The admin window signed in with
    // the admin key: the one key the server made itself (`created_by` "admin").
    let (_, keys) = setup.api_get("/keys", &setup.server.admin_key).await;
    let made_by_server: Vec<_> = keys["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["created_by"] == "admin")
        .collect();
    assert_eq!(made_by_server.len(), 1, "{keys}");
    let own_id = made_by_server[0]["id"].as_str().unwrap();
    let own_row = format!("[data-key-id=\"{own_id}\"]");
    let own = eval(
        &admin,
        &format!(
            "const row = document.querySelector('{own_row}'); \
             const button = row && row.querySelector('[data-action=\"revoke\"]'); \
             const why = document.getElementById('key-why-{own_id}'); \
             return [row && row.dataset.status, row && row.dataset.current, \
                     button && button.disabled, why && why.textContent];"
        ),
    )
    .await;
    assert_eq!(own[0], "active", "{own}");
    assert_eq!(
        own[1], "true",
        "the own key's row is marked as this session's: {own}"
    );
    assert_eq!(
        own[2], true,
        "the session's own key offers no revoke: {own}"
    );
    assert!(
        own[3]
            .as_str()
            .is_some_and(|why| why.contains("signed in with this key")),
        "the reason is given beside it: {own}"
    );
    // Only that row is marked as the session's.
    let current = eval(
        &admin,
        "return Array.from(document.querySelectorAll('[data-current=\"true\"]'), r => r.dataset.keyId)",
    )
    .await;
    assert_eq!(current, json!([own_id]));
    laptop.close().await.unwrap();
    admin.close().await.unwrap();
}

#[tokio::test]
async fn a_webhook_is_created_with_its_secret_shown_once_and_a_test_is_delivered() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard webhooks").await else {
        return;
    };
    let (url, received) = receiver().await;
    let client = setup.window().await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    open(&client, &setup.base, "webhooks").await;
    loaded(&client, "webhooks").await;
    click(&client, "#webhook-create-open").await;
    fill(&client, "#webhook-url", &url).await;
    click(&client, "input[name=\"event\"][value=\"token.rotated\"]").await;
    click(&client, "#webhook-create-submit").await;
    let secret = text(&client, "#secret-value").await;
    assert!(secret.starts_with("whsec_"), "{secret}");
    click(&client, "#secret-dismiss").await;

    let (_, hooks) = setup.api_get("/webhooks", &setup.server.admin_key).await;
    let id = hooks["data"][0]["id"].as_str().unwrap().to_string();
    let row = format!("[data-webhook-id=\"{id}\"]");
    click(&client, &format!("{row} [data-action=\"test\"]")).await;
    let body = tokio::time::timeout(browser::PATIENCE, received)
        .await
        .expect("the test event arrived")
        .expect("a body");
    assert_eq!(body["type"], "webhook.test");

    click(&client, &format!("{row} [data-action=\"deliveries\"]")).await;
    until(&client, "the delivery log shows the attempt", "document.querySelector('#deliveries') && document.querySelector('#deliveries').textContent.includes('200')").await;
    let log = text(&client, "#deliveries").await;
    assert!(log.contains("webhook.test"), "{log}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn the_usage_chart_shows_a_chat_request() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard usage").await else {
        return;
    };
    let client = setup.window().await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    open(&client, &setup.base, "usage").await;
    loaded(&client, "usage").await;
    assert_eq!(
        eval(
            &client,
            "return document.querySelectorAll('#usage-chart rect.bar').length"
        )
        .await,
        json!(0)
    );

    let response = setup
        .http
        .post(format!("{}/v1/chat/completions", setup.base))
        .bearer_auth(&setup.server.admin_key)
        .json(&json!({"model": "auto", "messages": [{"role": "user", "content": "Hello there"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let completion: Value = response.json().await.unwrap();
    let model = completion["model"].as_str().unwrap().to_string();

    client.refresh().await.unwrap();
    loaded(&client, "usage").await;
    until(
        &client,
        "a bar is drawn",
        "document.querySelectorAll('#usage-chart rect.bar').length >= 1",
    )
    .await;
    let table = text(&client, "#usage-table").await;
    assert!(table.contains(&model), "{table}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_cookie_signed_write_without_the_csrf_header_is_refused() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard CSRF").await else {
        return;
    };
    let client = setup.window().await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    // The browser sends its session cookie by itself; without the header, the write is refused.
    let status = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             fetch('/v1/tokens', {method: 'POST', headers: {'content-type': 'application/json'},
                   body: JSON.stringify({name: 'forged', scopes: ['tokens:read']})})
               .then(r => r.json().then(b => done([r.status, b.error])));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(status, json!([403, "forbidden"]));
    let (_, listed) = setup.api_get("/tokens", &setup.server.admin_key).await;
    assert_eq!(listed["meta"]["total"], 0);
    // The page's own requests carry it.
    open(&client, &setup.base, "tokens").await;
    loaded(&client, "tokens").await;
    client.close().await.unwrap();
}

/// A webhook receiver on loopback: its URL, and the first body it receives.
async fn receiver() -> (String, tokio::sync::oneshot::Receiver<Value>) {
    use std::sync::{Arc, Mutex};
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tx = Arc::new(Mutex::new(Some(tx)));
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let tx = tx.clone();
            async move {
                if let (Some(tx), Ok(value)) = (
                    tx.lock().unwrap().take(),
                    serde_json::from_slice::<Value>(&body),
                ) {
                    let _ = tx.send(value);
                }
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/hook"), rx)
}
