//! The Models section against a gateway whose one upstream model is a local mock: the page reads
//! `GET /v1/models` again by itself while it is shown, so an upstream that starts failing shows
//! as an open circuit without a reload, and leaving the section stops the reading.

use std::time::Duration;

use fantoccini::Client;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::browser::{Driver, available, click, eval, find, loaded, sign_in, text, until};
use crate::common::TestServer;
use crate::upstream::Upstream;
use crate::{ONE_AT_A_TIME, Setup};

const LOCAL: &str = "[[models]]\nid = \"local\"\nprovider = \"simulated\"\nprompt_price = 0.1\n\
                     completion_price = 0.2\nquality = 0.5\nlatency_ms = 50\n";

/// The row of `model`.
fn row(model: &str) -> String {
    format!("#models-table tr[data-model=\"{model}\"]:not([data-deployment])")
}

/// A dashboard whose gateway has the model `upstream` (served by `up`, 500 ms on paper, open
/// for 5 minutes once it opens) and the simulated `local`; and the folder of its catalogue.
async fn setup(test: &str, up: &Upstream) -> Option<(Setup, tempfile::TempDir)> {
    let breaker = "[models.breaker]\ncooldown = \"5m\"\n";
    serve(test, up.entry("upstream", 500, breaker) + "\n" + LOCAL).await
}

/// A dashboard whose gateway serves the catalogue `models` (TOML); and the folder of it.
async fn serve(test: &str, models: String) -> Option<(Setup, tempfile::TempDir)> {
    let (browser, driver) = available(test)?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.toml");
    std::fs::write(&path, models).unwrap();
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

/// Sends a chat request naming `model` through the gateway; its HTTP status.
async fn ask(setup: &Setup, model: &str) -> StatusCode {
    setup
        .http
        .post(format!("{}/v1/chat/completions", setup.base))
        .bearer_auth(&setup.server.admin_key)
        .json(&json!({"model": model, "messages": [{"role": "user", "content": "When was the key rotated?"}]}))
        .send()
        .await
        .unwrap()
        .status()
}

/// How many times the page has asked for `/v1/models` so far.
async fn reads(client: &Client) -> u64 {
    let script = "return performance.getEntriesByType('resource')\
                  .filter((e) => new URL(e.name).pathname === '/v1/models').length";
    eval(client, script).await.as_u64().unwrap()
}

#[tokio::test]
async fn the_models_section_shows_a_circuit_opening_by_itself_and_stops_reading_when_left() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let up = Upstream::start(Duration::from_millis(120)).await;
    let Some((setup, _catalogue)) = setup("dashboard models", &up).await else {
        return;
    };
    let client = setup.driver.window(1280, 800).await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    click(&client, "#nav a[href=\"#/models\"]").await;
    loaded(&client, "models").await;
    assert_eq!(
        eval(&client, "return document.title").await,
        json!("Models · tokctl")
    );

    // Both closed; nothing seen yet, so the upstream's figure is the catalogue's.
    for model in ["upstream", "local"] {
        let state = text(
            &client,
            &format!("{} [data-testid=\"model-state\"]", row(model)),
        )
        .await;
        assert_eq!(state, "closed", "{model}");
    }
    let first = text(
        &client,
        &format!("{} [data-testid=\"model-first-token\"]", row("upstream")),
    )
    .await;
    assert!(
        first.contains("500 ms") && first.contains("catalogue figure"),
        "{first}"
    );
    let errors = text(
        &client,
        &format!("{} [data-testid=\"model-errors\"]", row("upstream")),
    )
    .await;
    assert_eq!(errors, "no recent requests");
    let summary = text(&client, "#models-summary").await;
    assert_eq!(summary, "All 2 models are taking requests.");
    // The table says what each column is, for a screen reader too.
    let headers = eval(
        &client,
        "return Array.from(document.querySelectorAll('#models-table thead th[scope=\"col\"]'), (th) => th.textContent)",
    )
    .await;
    assert_eq!(
        headers,
        json!([
            "Model",
            "State",
            "Time to first token",
            "Output speed",
            "Recent errors",
            "Credits per 1k tokens"
        ])
    );
    // Marks this very document: a reload would lose the mark.
    eval(&client, "window.sameDocument = true; return null").await;

    // Three answers: the page shows the observed time to first token without being asked.
    for _ in 0..3 {
        assert_eq!(ask(&setup, "upstream").await, StatusCode::OK);
    }
    let observed = format!(
        "{} [data-testid=\"model-first-token\"][data-observed=\"true\"]",
        row("upstream")
    );
    until(
        &client,
        "the observed first-token time is shown",
        &format!("document.querySelector('{observed}')"),
    )
    .await;
    let first = text(&client, &observed).await;
    assert!(
        first.contains("observed over 3 answers") && first.contains("p50"),
        "{first}"
    );
    let ms: f64 = first.split(" ms").next().unwrap().trim().parse().unwrap();
    assert!(
        ms >= 120.0,
        "the upstream takes 120 ms to its first token: {first}"
    );

    // The upstream fails three times in a row: its circuit opens, and the page says so.
    up.fail(true);
    for _ in 0..3 {
        assert_eq!(ask(&setup, "upstream").await, StatusCode::BAD_GATEWAY);
    }
    until(
        &client,
        "the upstream's row shows its circuit open",
        &format!(
            "document.querySelector('{} [data-testid=\"model-state\"]').textContent === 'open'",
            row("upstream")
        ),
    )
    .await;
    let listed = api_models(&setup).await;
    let health = &listed.iter().find(|m| m["id"] == "upstream").unwrap()["health"];
    assert_eq!(health["state"], "open", "{health}");

    let badge_class = eval(
        &client,
        &format!(
            "return document.querySelector('{} [data-testid=\"model-state\"]').className",
            row("upstream")
        ),
    )
    .await;
    assert_eq!(badge_class, json!("badge badge-warning"));
    let until_text = text(
        &client,
        &format!("{} [data-testid=\"model-until\"]", row("upstream")),
    )
    .await;
    let (word, clock) = until_text.split_once(' ').unwrap();
    assert_eq!(word, "until", "{until_text}");
    assert_eq!(
        clock.matches(':').count(),
        2,
        "hours, minutes and seconds: {until_text}"
    );
    let shown_until = eval(
        &client,
        &format!(
            "return document.querySelector('{} [data-testid=\"model-until\"] time').dateTime",
            row("upstream")
        ),
    )
    .await;
    // The API works the time out afresh on each read (now + what is left), so two reads may
    // differ by a few microseconds; the page shows whole seconds.
    let at = |value: &Value| {
        value
            .as_str()
            .and_then(|text| text.parse::<chrono::DateTime<chrono::Utc>>().ok())
            .unwrap_or_else(|| panic!("a time: {value}"))
    };
    let apart = (at(&shown_until) - at(&health["open_until"])).abs();
    assert!(
        apart < chrono::Duration::milliseconds(50),
        "the time the API gives: {shown_until} and {}",
        health["open_until"]
    );
    let why = text(
        &client,
        &format!("{} [data-testid=\"model-why\"]", row("upstream")),
    )
    .await;
    assert_eq!(
        why,
        format!("opened after {}", health["opened_after"].as_str().unwrap())
    );
    assert!(why.contains("3 failures in a row, last: HTTP 500"), "{why}");
    let errors = text(
        &client,
        &format!("{} [data-testid=\"model-errors\"]", row("upstream")),
    )
    .await;
    assert!(
        errors.contains("50 %") && errors.contains("3 failed of 6 requests"),
        "{errors}"
    );
    let summary = text(&client, "#models-summary").await;
    assert!(
        summary.starts_with("1 of 2 models is open (upstream)"),
        "{summary}"
    );
    let local = text(
        &client,
        &format!("{} [data-testid=\"model-state\"]", row("local")),
    )
    .await;
    assert_eq!(local, "closed");
    // Said once in the live region, for those who do not see the badge change.
    let said = eval(
        &client,
        "const live = document.querySelector('#models-changes'); \
         return [live.getAttribute('aria-live'), live.textContent]",
    )
    .await;
    assert_eq!(said[0], "polite");
    assert!(
        said[1].as_str().unwrap().contains("upstream is open until"),
        "{said}"
    );
    assert_eq!(
        eval(&client, "return window.sameDocument === true").await,
        json!(true),
        "the page was not reloaded"
    );
    // A read that finds nothing new leaves the table as it is (a screen reader's place in it,
    // a selection), though the API's `open_until` differs by microseconds from read to read.
    eval(
        &client,
        "window.tableShown = document.querySelector('#models-table'); \
         window.readsShown = Number(document.querySelector('#section-models').dataset.updated); \
         return null",
    )
    .await;
    until(
        &client,
        "the section reads the models again",
        "Number(document.querySelector('#section-models').dataset.updated) > window.readsShown",
    )
    .await;
    assert_eq!(
        eval(&client, "return window.tableShown.isConnected").await,
        json!(true),
        "the same table is still shown"
    );

    // Another section: the models are no longer read. Two refresh periods (5 s each) of the
    // page's own clock pass with no request for them.
    click(&client, "#nav a[href=\"#/tokens\"]").await;
    loaded(&client, "tokens").await;
    let before = reads(&client).await;
    eval(&client, "window.leftAt = performance.now(); return null").await;
    until(
        &client,
        "ten seconds pass on the page",
        "performance.now() - window.leftAt > 10500",
    )
    .await;
    assert_eq!(
        reads(&client).await,
        before,
        "no reads after leaving the section"
    );
    // Back again: read at once.
    click(&client, "#nav a[href=\"#/models\"]").await;
    loaded(&client, "models").await;
    find(
        &client,
        &format!("{}[data-state=\"open\"]", row("upstream")),
    )
    .await;
    assert!(reads(&client).await > before);
    client.close().await.unwrap();
}

/// `GET /v1/models` as the API gives it.
async fn api_models(setup: &Setup) -> Vec<Value> {
    let (status, list) = setup.api_get("/models", &setup.server.admin_key).await;
    assert_eq!(status, 200, "{list}");
    list["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn each_deployment_shows_on_a_row_of_its_own_with_its_own_circuit() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let (east, west) = (
        Upstream::start(Duration::from_millis(5)).await,
        Upstream::start(Duration::from_millis(5)).await,
    );
    west.fail(true);
    let deployment = |name: &str, up: &Upstream, extra: &str| {
        format!(
            "[[models.deployments]]\nname = \"{name}\"\nprovider = \"openai\"\n\
             base_url = \"{}\"\n{extra}\n",
            up.base_url
        )
    };
    let catalogue = format!(
        "[[models]]\nid = \"pooled\"\nprompt_price = 0.15\ncompletion_price = 0.6\n\
         quality = 0.8\nlatency_ms = 300\n{}{}\n{LOCAL}",
        deployment("east", &east, "weight = 3\nrpm = 600"),
        deployment(
            "west",
            &west,
            "[models.deployments.breaker]\nfailures = 1\ncooldown = \"5m\""
        ),
    );
    let Some((setup, _catalogue)) = serve("dashboard deployments", catalogue).await else {
        return;
    };
    let client = setup.driver.window(1280, 800).await;
    sign_in(&client, &setup.base, &setup.server.admin_key).await;
    click(&client, "#nav a[href=\"#/models\"]").await;
    loaded(&client, "models").await;
    let deployment_row =
        |name: &str| format!("#models-table tr[data-model=\"pooled\"][data-deployment=\"{name}\"]");
    let words = |text: String| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = words(text(&client, &deployment_row("east")).await);
    assert!(
        first.contains("east · weight 3") && first.contains("600 requests/min"),
        "{first}"
    );
    let second = words(text(&client, &deployment_row("west")).await);
    assert!(
        second.contains("west · weight 1") && second.contains("closed"),
        "{second}"
    );

    // By weight the third request goes to west, which fails and is retried on east; west's
    // own circuit opens (one failure, by its own breaker), the model's stays closed.
    for _ in 0..3 {
        assert_eq!(ask(&setup, "pooled").await, StatusCode::OK);
    }
    until(
        &client,
        "west shows open",
        &format!(
            "document.querySelector('{}[data-state=\"open\"]')",
            deployment_row("west")
        ),
    )
    .await;
    let west_state = text(
        &client,
        &format!("{} [data-testid=\"model-state\"]", deployment_row("west")),
    )
    .await;
    assert_eq!(west_state, "open");
    let east_state = text(
        &client,
        &format!("{} [data-testid=\"model-state\"]", deployment_row("east")),
    )
    .await;
    assert_eq!(east_state, "closed");
    let model_state = text(
        &client,
        &format!("{} [data-testid=\"model-state\"]", row("pooled")),
    )
    .await;
    assert_eq!(
        model_state, "closed",
        "the model takes requests while a deployment does"
    );
    client.close().await.unwrap();
}
