//! The Requests section: real gateway requests (a whole answer, a stream, one refused) to a
//! local upstream that takes its time over the first token are listed newest first, filtered by
//! status class in the address (a class the server refuses is said next to the filters), and
//! opened: the detail's waterfall splits a stream's duration at its first token in proportion
//! to what the API says; a whole answer is one bar. A key without `requests:read` is told so.

use std::time::Duration;

use fantoccini::Client;
use fantoccini::key::Key;
use serde_json::{Value, json};

use crate::browser::{
    Driver, available, click, eval, find, loaded, open, press, sign_in, text, until,
};
use crate::common::TestServer;
use crate::upstream::Upstream;
use crate::{ONE_AT_A_TIME, Setup};

/// How far a segment's share of the bar may be from the API's figures (of the bar's width).
const TOLERANCE: f64 = 0.02;

/// A dashboard whose gateway has one model, `upstream`, served by `up`; and its catalogue's folder.
pub(crate) async fn setup(test: &str, up: &Upstream) -> Option<(Setup, tempfile::TempDir)> {
    let (browser, driver) = available(test)?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.toml");
    std::fs::write(&path, up.entry("upstream", 200, "")).unwrap();
    let server = TestServer::with_models(&path).await;
    let base = server.base_url.trim_end_matches("/v1").to_string();
    let setup = Setup {
        driver: Driver::start(browser, driver),
        server,
        base,
        http: reqwest::Client::new(),
    };
    Some((setup, dir))
}

/// A chat completion with the admin key and the request id `id`, read to its end; its status
/// and body.
pub(crate) async fn ask(setup: &Setup, id: &str, body: Value) -> (u16, String) {
    let response = setup
        .http
        .post(format!("{}/v1/chat/completions", setup.base))
        .bearer_auth(&setup.server.admin_key)
        .header("x-request-id", id)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// The request ids of the rows shown, top to bottom.
async fn rows(client: &Client) -> Value {
    eval(
        client,
        "return Array.from(document.querySelectorAll('#requests-table tbody tr[data-request-id]'), \
         (row) => row.dataset.requestId)",
    )
    .await
}

/// Each segment of the open waterfall: its name and its share of the bar's inner width.
async fn segments(client: &Client) -> Vec<(String, f64)> {
    let found = eval(
        client,
        "const bar = document.querySelector('#request-waterfall .waterfall-bar'); \
         return Array.from(bar.querySelectorAll('[data-segment]'), (s) => \
           [s.dataset.segment, s.getBoundingClientRect().width / bar.clientWidth])",
    )
    .await;
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s[0].as_str().unwrap().to_string(), s[1].as_f64().unwrap()))
        .collect()
}

/// Waits for the detail of `id` to be shown in full.
pub(crate) async fn detail(client: &Client, id: &str) {
    find(
        client,
        &format!(
            "#request-detail[data-request-id=\"{id}\"][data-loaded=\"true\"] #request-waterfall"
        ),
    )
    .await;
}

#[tokio::test]
async fn the_requests_page_lists_filters_and_shows_a_stream_s_waterfall() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let up = Upstream::start(Duration::from_millis(150)).await;
    let Some((setup, _catalogue)) = setup("dashboard requests", &up).await else {
        return;
    };
    let messages = json!([{"role": "user", "content": "When was the key rotated?"}]);
    let (status, _) = ask(
        &setup,
        "req-whole",
        json!({"model": "upstream", "messages": messages}),
    )
    .await;
    assert_eq!(status, 200);
    let streamed = json!({"model": "upstream", "stream": true, "messages": messages});
    let (status, body) = ask(&setup, "req-stream", streamed).await;
    assert_eq!(status, 200);
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");
    let refused = json!({"model": "no-such-model", "messages": messages});
    let (status, _) = ask(&setup, "req-refused", refused).await;
    assert_eq!(status, 404);

    let key = &setup.server.admin_key;
    let (status, listed) = setup.api_get("/requests", key).await;
    assert_eq!(status, 200, "{listed}");
    let (_, stream) = setup.api_get("/requests/req-stream", key).await;
    let (_, whole) = setup.api_get("/requests/req-whole", key).await;
    let (_, refused) = setup.api_get("/requests/req-refused", key).await;
    assert_eq!(stream["stream"], true, "{stream}");
    let first = stream["time_to_first_token_ms"].as_f64().unwrap();
    let total = stream["duration_ms"].as_f64().unwrap();
    assert!(first >= 100.0 && total > first, "{stream}");
    assert_eq!(refused["status"], 404, "{refused}");

    let client = setup.window().await;
    sign_in(&client, &setup.base, key).await;
    click(&client, "#nav a[href=\"#/requests\"]").await;
    loaded(&client, "requests").await;
    assert_eq!(
        eval(&client, "return document.title").await,
        json!("Requests · tokctl")
    );
    // Newest first, as the API lists them.
    assert_eq!(
        rows(&client).await,
        json!(["req-refused", "req-stream", "req-whole"]),
        "{listed}"
    );
    let row = text(&client, "tr[data-request-id=\"req-refused\"]").await;
    let code = refused["error"].as_str().unwrap();
    assert!(row.contains("404") && row.contains(code), "{row}");
    let row = text(&client, "tr[data-request-id=\"req-stream\"]").await;
    assert!(row.contains("upstream") && row.contains("200"), "{row}");

    // Only the refused one is a 4xx; the filter is in the address and survives a reload.
    find(&client, "#requests-status")
        .await
        .select_by_value("4xx")
        .await
        .unwrap();
    loaded(&client, "requests").await;
    assert_eq!(rows(&client).await, json!(["req-refused"]));
    let hash = eval(&client, "return location.hash").await;
    assert_eq!(hash, json!("#/requests?status=4xx"));
    client.refresh().await.unwrap();
    loaded(&client, "requests").await;
    assert_eq!(rows(&client).await, json!(["req-refused"]));
    assert_eq!(
        eval(
            &client,
            "return document.querySelector('#requests-status').value"
        )
        .await,
        json!("4xx")
    );
    click(&client, "#requests-reset").await;
    loaded(&client, "requests").await;
    assert_eq!(rows(&client).await.as_array().unwrap().len(), 3);

    // A filter the server refuses, from the address: said next to the filters, the list empty;
    // clearing the filters lists everything again.
    eval(
        &client,
        "location.hash = '#/requests?status=9xx'; return null",
    )
    .await;
    client.refresh().await.unwrap();
    until(
        &client,
        "the refused filter said",
        "document.querySelector('#section-requests[data-loaded=\"error\"] #form-error:not([hidden])')",
    )
    .await;
    let said = text(&client, "#section-requests #form-error").await;
    assert!(
        said.contains("The server refused these filters") && said.contains("status must be"),
        "{said}"
    );
    assert_eq!(rows(&client).await, json!([]));
    click(&client, "#requests-reset").await;
    loaded(&client, "requests").await;
    assert_eq!(rows(&client).await.as_array().unwrap().len(), 3);

    // The stream: waiting for the first token, then streaming, in proportion.
    let opener = "tr[data-request-id=\"req-stream\"] [data-action=\"detail\"]";
    click(&client, opener).await;
    detail(&client, "req-stream").await;
    let shares = segments(&client).await;
    let names: Vec<_> = shares.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["first-token", "streaming"], "{shares:?}");
    let expected = [first / total, 1.0 - first / total];
    for ((name, share), want) in shares.iter().zip(expected) {
        assert!(
            (share - want).abs() <= TOLERANCE,
            "{name}: {share} of the bar, the API says {want} ({first} of {total} ms)"
        );
    }
    let shown = text(&client, "#request-detail").await;
    for said in [
        "Waiting for the first token",
        "Streaming",
        "Message content is not stored",
        "req-stream",
    ] {
        assert!(shown.contains(said), "{said}: {shown}");
    }
    assert!(
        shown.contains(stream["routed_model"].as_str().unwrap()),
        "{shown}"
    );
    // Escape closes it, and focus goes back to the row that opened it.
    press(&client, &[Key::Escape]).await;
    until(
        &client,
        "the detail closes",
        "!document.querySelector('#request-detail')",
    )
    .await;
    let back = eval(
        &client,
        &format!(
            "return document.activeElement.matches('{}')",
            opener.replace('\'', "\\'")
        ),
    )
    .await;
    assert_eq!(back, json!(true));

    // A whole answer, opened by clicking its row: one bar, the whole duration.
    click(
        &client,
        "tr[data-request-id=\"req-whole\"] td[data-label=\"Total\"]",
    )
    .await;
    detail(&client, "req-whole").await;
    let shares = segments(&client).await;
    assert_eq!(shares.len(), 1, "{shares:?}");
    assert_eq!(shares[0].0, "whole");
    assert!((shares[0].1 - 1.0).abs() <= TOLERANCE, "{shares:?}");
    let said = text(&client, "#request-waterfall").await;
    assert!(said.contains("Answered in"), "{said}");
    assert!(whole["time_to_first_token_ms"].is_null(), "{whole}");

    // Opened from the address, the detail reads the request itself.
    open(&client, &setup.base, "requests?request=req-refused").await;
    loaded(&client, "requests").await;
    detail(&client, "req-refused").await;
    let shown = text(&client, "#request-detail").await;
    assert!(shown.contains("404") && shown.contains(code), "{shown}");
    client.close().await.unwrap();

    // On a phone the list and an open detail fit the screen's width.
    let phone = setup.driver.phone(390, 844).await;
    sign_in(&phone, &setup.base, key).await;
    open(&phone, &setup.base, "requests?request=req-stream").await;
    loaded(&phone, "requests").await;
    detail(&phone, "req-stream").await;
    let fits = eval(
        &phone,
        "return [window.innerWidth, document.documentElement.scrollWidth]",
    )
    .await;
    assert!(fits[1].as_u64() <= fits[0].as_u64(), "{fits}");
    assert_eq!(segments(&phone).await.len(), 2);
    phone.close().await.unwrap();
}

#[tokio::test]
async fn a_key_without_requests_read_is_told_so() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(setup) = Setup::new("dashboard requests without the scope").await else {
        return;
    };
    let created = setup
        .http
        .post(format!("{}/v1/keys", setup.base))
        .bearer_auth(&setup.server.admin_key)
        .json(&json!({"name": "reader", "scopes": ["tokens:read"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    let key = created["key"].as_str().unwrap().to_string();

    let client = setup.window().await;
    sign_in(&client, &setup.base, &key).await;
    open(&client, &setup.base, "requests").await;
    loaded(&client, "requests").await;
    let said = text(&client, "#requests-missing-scope").await;
    assert!(said.contains("requests:read"), "{said}");
    assert_eq!(
        eval(
            &client,
            "return document.querySelectorAll('#requests-table, #requests-filters').length"
        )
        .await,
        json!(0)
    );
    client.close().await.unwrap();
}
