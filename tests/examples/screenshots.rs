//! Screenshots of every dashboard section, from the real dashboard in headless Chromium:
//! starts the reference server in-process with a temporary data directory, fills it through the
//! public API (tokens, keys, a webhook with deliveries, chat requests), signs in as a person
//! would, and saves PNGs. The gateway's catalogue is the built-in simulated models and two
//! upstreams on loopback, one answering and one down (its circuit open), so the Models section is
//! shown during an outage; the Requests section shows one of the answering upstream's streams
//! with its waterfall. Run by `bench/screenshots.sh` (`cargo run -p tokctl-e2e --example
//! screenshots -- DIR`).

#[path = "../tests/browser/mod.rs"]
mod browser;
#[path = "../tests/dashboard/upstream.rs"]
mod upstream;

use std::path::{Path, PathBuf};
use std::time::Duration;

use browser::{Driver, click, fill, find, loaded, open, sign_in};
use fantoccini::Client;
use serde_json::{Value, json};
use tokctl_server::chat::catalogue::DEFAULT_CATALOGUE;
use tokctl_server::{ServeConfig, spawn};
use upstream::Upstream;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/screenshots".into()),
    );
    std::fs::create_dir_all(&out)?;
    let Some((chromium, chromedriver)) = browser::available("screenshots") else {
        return Err("chromium and chromium-driver are needed".into());
    };
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let answering = Upstream::start(Duration::from_millis(180)).await;
    let down = Upstream::start(Duration::from_millis(180)).await;
    down.fail(true);
    let models = dir.path().join("models.toml");
    std::fs::write(
        &models,
        format!(
            "{}\n{}\n{DEFAULT_CATALOGUE}",
            down.entry(
                "mistral-large",
                600,
                "[models.breaker]\ncooldown = \"5m\"\n"
            ),
            answering.entry("gpt-4o-mini", 400, ""),
        ),
    )?;
    let config = ServeConfig {
        sim_token_delay: Duration::ZERO,
        models: Some(models),
        request_log: Some(Default::default()),
        ..ServeConfig::new("127.0.0.1:0", &data)
    };
    let server = spawn(config).await?;
    let base = format!("http://{}", server.addr);
    let key = std::fs::read_to_string(data.join("admin.key"))?
        .trim()
        .to_string();
    let api = Api {
        base: base.clone(),
        key: key.clone(),
        http: reqwest::Client::new(),
    };
    let receiver = receiver().await;
    seed(&api, &receiver).await?;

    let driver = Driver::start(chromium, chromedriver);
    let client = driver.window(1280, 800).await;
    client.goto(&base).await?;
    find(&client, "#signin-key").await;
    shot(&client, &out, "signin").await?;
    sign_in(&client, &base, &key).await;
    for (route, section, name) in [
        ("tokens", "tokens", "tokens"),
        ("audit", "audit", "audit"),
        ("usage", "usage", "usage"),
        ("models", "models", "models"),
        ("settings/keys", "keys", "keys"),
    ] {
        open(&client, &base, route).await;
        loaded(&client, section).await;
        shot(&client, &out, name).await?;
    }
    // The request log, narrowed to one model, with a stream's detail and its waterfall open
    // below the list: in a window as tall as the page, so the list and the whole panel show.
    let tall = driver.window(1280, 800).await;
    sign_in(&tall, &base, &key).await;
    open(&tall, &base, "requests?model=gpt-4o-mini").await;
    loaded(&tall, "requests").await;
    click(
        &tall,
        "#requests-table tr[data-stream=\"true\"] [data-action=\"detail\"]",
    )
    .await;
    find(
        &tall,
        "#request-detail[data-loaded=\"true\"] #request-waterfall",
    )
    .await;
    let sizes = tall
        .execute(
            "return [document.documentElement.scrollHeight, window.innerHeight, \
                     window.outerHeight]",
            vec![],
        )
        .await?;
    let size = |i: usize| sizes[i].as_u64().unwrap_or(0);
    // The window's own bars stay: the page's height is what the viewport gains.
    let height = size(0) + size(2).saturating_sub(size(1)).max(800 - size(1).min(800));
    tall.set_window_size(1280, u32::try_from(height)?).await?;
    tall.execute("window.scrollTo(0, 0)", vec![]).await?;
    shot(&tall, &out, "requests").await?;
    tall.close().await?;
    open(&client, &base, "webhooks").await;
    loaded(&client, "webhooks").await;
    click(&client, "[data-webhook-id] [data-action=\"deliveries\"]").await;
    find(&client, "#deliveries").await;
    shot(&client, &out, "webhooks").await?;

    // A new token's secret, shown once.
    open(&client, &base, "tokens").await;
    loaded(&client, "tokens").await;
    click(&client, "#token-create-open").await;
    fill(&client, "#token-name", "release-pipeline").await;
    click(&client, "input[name=\"scope\"][value=\"tokens:read\"]").await;
    click(&client, "input[name=\"scope\"][value=\"tokens:rotate\"]").await;
    shot(&client, &out, "tokens-create").await?;
    click(&client, "#token-create-submit").await;
    find(&client, "#secret-value").await;
    // The panel from its heading (focus went to the secret itself).
    client.execute("window.scrollTo(0, 0)", vec![]).await?;
    shot(&client, &out, "tokens-secret").await?;
    client.close().await?;

    // A phone, and the dark preference.
    for name in ["phone", "dark"] {
        let client = match name {
            "phone" => driver.phone(390, 844).await,
            _ => driver.window_with(1280, 800, &["--force-dark-mode"]).await,
        };
        sign_in(&client, &base, &key).await;
        open(&client, &base, "tokens").await;
        loaded(&client, "tokens").await;
        shot(&client, &out, &format!("tokens-{name}")).await?;
        if name == "phone" {
            open(&client, &base, "models").await;
            loaded(&client, "models").await;
            // From the summary naming the open model, just under the sticky navigation.
            client
                .execute(
                    "const summary = document.querySelector('#models-summary'); \
                     const nav = document.querySelector('#nav'); \
                     window.scrollTo(0, summary.getBoundingClientRect().top + window.scrollY \
                                        - nav.offsetHeight - 12)",
                    vec![],
                )
                .await?;
            shot(&client, &out, "models-phone").await?;
        }
        client.close().await?;
    }
    server.stop().await?;
    println!("screenshots written to {}", out.display());
    Ok(())
}

async fn shot(client: &Client, dir: &Path, name: &str) -> Result<(), Box<dyn std::error::Error>> {
    // Past any transition of the newly drawn page.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let png = client.screenshot().await?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png)?;
    println!("{}", path.display());
    Ok(())
}

struct Api {
    base: String,
    key: String,
    http: reqwest::Client,
}

impl Api {
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
    ) -> Result<Value, reqwest::Error> {
        let request = self
            .http
            .request(method, format!("{}/v1{path}", self.base))
            .bearer_auth(&self.key);
        let request = if body.is_null() {
            request
        } else {
            request.json(&body)
        };
        let response = request.send().await?.error_for_status()?;
        Ok(response.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, reqwest::Error> {
        self.send(reqwest::Method::POST, path, body).await
    }

    /// A chat request naming `model`, streamed or whole, read to its end; its HTTP status.
    async fn chat(&self, model: &str, stream: bool) -> Result<u16, reqwest::Error> {
        let response = self
            .http
            .post(format!("{}/v1/chat/completions", self.base))
            .bearer_auth(&self.key)
            .json(&json!({"model": model, "stream": stream,
                          "messages": [{"role": "user", "content": "When does the key expire?"}]}))
            .send()
            .await?;
        let status = response.status().as_u16();
        response.bytes().await?;
        Ok(status)
    }
}

/// What a workspace looks like after some weeks of use.
async fn seed(api: &Api, receiver: &str) -> Result<(), Box<dyn std::error::Error>> {
    let in_days = |days: i64| (chrono::Utc::now() + chrono::Duration::days(days)).to_rfc3339();
    let tokens = [
        (
            "ci-deploy",
            vec!["tokens:read", "tokens:rotate"],
            Some(in_days(30)),
        ),
        ("staging-reader", vec!["tokens:read"], None),
        (
            "nightly-backup",
            vec!["tokens:read", "audit:read"],
            Some(in_days(5)),
        ),
        ("old-laptop", vec!["tokens:read", "tokens:write"], None),
        ("chat-frontend", vec!["chat:write"], Some(in_days(90))),
    ];
    let mut ids = Vec::new();
    let mut frontend = None;
    for (name, scopes, expires_at) in tokens {
        let mut body = json!({"name": name, "scopes": scopes});
        if let Some(at) = expires_at {
            body["expires_at"] = json!(at);
        }
        // The chat front end spends against a monthly limit.
        if name == "chat-frontend" {
            body["credit_limit"] = json!(25);
            body["limit_reset"] = json!("monthly");
        }
        let token = api.post("/tokens", body).await?;
        ids.push(token["id"].as_str().unwrap_or_default().to_string());
        if name == "chat-frontend" {
            frontend = token["token"].as_str().map(str::to_string);
        }
    }
    if let Some(secret) = frontend {
        let as_frontend = Api {
            base: api.base.clone(),
            key: secret,
            http: api.http.clone(),
        };
        for _ in 0..4 {
            let status = as_frontend.chat("auto-cheap", false).await?;
            if status != 200 {
                return Err(format!("the limited token's request gave {status}").into());
            }
        }
    }
    let hook = api
        .post(
            "/webhooks",
            json!({"url": receiver, "events": ["token.rotated", "token.expiring"]}),
        )
        .await?;
    api.post(&format!("/tokens/{}/rotate", ids[0]), Value::Null)
        .await?;
    api.send(
        reqwest::Method::DELETE,
        &format!("/tokens/{}", ids[3]),
        Value::Null,
    )
    .await?;
    if let Some(id) = hook["id"].as_str() {
        api.post(&format!("/webhooks/{id}/test"), Value::Null)
            .await?;
    }
    for (name, scopes) in [
        (
            "ci-admin",
            vec!["tokens:read", "tokens:write", "tokens:rotate"],
        ),
        ("grafana", vec!["usage:read", "audit:read"]),
    ] {
        api.post("/keys", json!({"name": name, "scopes": scopes}))
            .await?;
    }
    // An outage: mistral-large fails three times in a row and its circuit opens; gpt-4o-mini
    // answers, streamed, and its time to first token and speed are observed.
    for _ in 0..3 {
        let status = api.chat("mistral-large", false).await?;
        if status != 502 {
            return Err(format!("the failing upstream answered {status}, not 502").into());
        }
    }
    for _ in 0..5 {
        let status = api.chat("gpt-4o-mini", true).await?;
        if status != 200 {
            return Err(format!("the answering upstream gave {status}").into());
        }
    }
    for (model, prompt) in [
        ("auto", "Summarise the release notes for 2.4"),
        ("auto-fast", "Translate 'good morning' into French"),
        ("auto-cheap", "List three prime numbers"),
        ("auto", "Write a haiku about key rotation"),
        ("auto-cheap", "What is a bearer token?"),
    ] {
        api.post(
            "/chat/completions",
            json!({"model": model, "messages": [{"role": "user", "content": prompt}]}),
        )
        .await?;
    }
    Ok(())
}

/// A webhook receiver on loopback that answers 200.
async fn receiver() -> String {
    let app = axum::Router::new().route("/hooks", axum::routing::post(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/hooks")
}
