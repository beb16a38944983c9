//! Real headless Chromium (Debian's `chromium` and `chromium-driver`) driven over WebDriver
//! against the reference server in-process on 127.0.0.1:0.
//!
//! Where the browser or its driver is missing, the tests say they were skipped (on stderr);
//! under `CI=true` that is a failure instead, so they never silently stop running.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// How long a wait for the page may take before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// The browser and driver binaries, from `TOKCTL_CHROMIUM` / `TOKCTL_CHROMEDRIVER` or Debian's.
fn binaries() -> Option<(PathBuf, PathBuf)> {
    let find = |var: &str, default: &str| {
        let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
        path.exists().then_some(path)
    };
    Some((
        find("TOKCTL_CHROMIUM", "/usr/bin/chromium")?,
        find("TOKCTL_CHROMEDRIVER", "/usr/bin/chromedriver")?,
    ))
}

/// The browser and driver, or `None` (said on stderr) when they are not installed. Under
/// `CI=true` a missing browser fails the test.
pub fn available(test: &str) -> Option<(PathBuf, PathBuf)> {
    let found = binaries();
    if found.is_none() {
        let why = "chromium and chromium-driver are not installed \
                   (apt-get install chromium chromium-driver)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{test}: {why}; under CI=true the browser tests must run");
        }
        // Straight to stderr, past the test harness's capture (which takes `eprintln!`): a
        // skipped test shows "ok", so the skip must be seen beside it.
        let _ = writeln!(std::io::stderr(), "note: skipped {test}: {why}");
    }
    found
}

/// A chromedriver process; killed when dropped.
pub struct Driver {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    browser: PathBuf,
    profiles: tempfile::TempDir,
}

impl Driver {
    /// Starts chromedriver on a free loopback port and returns once it says it is ready.
    pub fn start(browser: PathBuf, driver: PathBuf) -> Driver {
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            probe.local_addr().expect("its address").port()
        };
        let mut child = Command::new(driver)
            // A process group of its own, which the browsers it starts join: dropping the
            // driver kills them all, even when a test panicked before closing its window.
            .process_group(0)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = BufReader::new(stdout).lines();
        let ready = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|line| line.contains("started successfully"));
        assert!(ready, "chromedriver did not start");
        // Keep reading so the driver never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            browser,
            profiles: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A new headless browser window of `width` x `height`, with a profile of its own.
    pub async fn window(&self, width: u32, height: u32) -> Client {
        self.window_with(width, height, &[]).await
    }

    /// As [`Driver::window`], with more Chromium switches (e.g. `--force-dark-mode`).
    pub async fn window_with(&self, width: u32, height: u32, extra: &[&str]) -> Client {
        self.session(width, height, extra, Value::Null).await
    }

    /// A phone's screen, `width` CSS pixels wide (a desktop window cannot be that narrow).
    pub async fn phone(&self, width: u32, height: u32) -> Client {
        let metrics = json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1,
                                               "touch": true, "mobile": true}});
        self.session(width, height, &[], metrics).await
    }

    async fn session(&self, width: u32, height: u32, extra: &[&str], mobile: Value) -> Client {
        let profile = tempfile::tempdir_in(self.profiles.path()).expect("profile dir");
        let mut args = vec![
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--hide-scrollbars".into(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.keep().display()),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut options = json!({"binary": self.browser, "args": args});
        if !mobile.is_null() {
            options["mobileEmulation"] = mobile;
        }
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": options,
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!()
        };
        ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .expect("a browser session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The element `css` once it is on the page (waits up to [`PATIENCE`]).
pub async fn find(client: &Client, css: &str) -> Element {
    match client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(css))
        .await
    {
        Ok(element) => element,
        Err(err) => panic!("{css} did not appear: {err}\n{}", page_state(client).await),
    }
}

/// Waits until `condition` (a JavaScript expression) is true on the page.
pub async fn until(client: &Client, what: &str, condition: &str) {
    let script = format!("return !!({condition});");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let value = client.execute(&script, vec![]).await;
        if matches!(value, Ok(Value::Bool(true))) {
            return;
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "{what}: not so after {PATIENCE:?}\n{}",
                page_state(client).await
            );
        }
        // Polling the page's own state, not waiting for time to pass.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits for a section's data to have arrived and been drawn.
pub async fn loaded(client: &Client, section: &str) {
    let css = format!("#section-{section}[data-loaded=\"true\"]");
    find(client, &css).await;
}

/// The text of the element `css`.
pub async fn text(client: &Client, css: &str) -> String {
    find(client, css).await.text().await.expect("text")
}

/// Clicks `css`.
pub async fn click(client: &Client, css: &str) {
    find(client, css).await.click().await.expect("click");
}

/// Types `value` into the input `css` (after clearing it).
pub async fn fill(client: &Client, css: &str, value: &str) {
    let input = find(client, css).await;
    input.clear().await.expect("clear");
    input.send_keys(value).await.expect("type");
}

/// Runs `script` in the page and returns its value.
pub async fn eval(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.expect("script ran")
}

/// Signs in with `key` and waits for the signed-in shell.
pub async fn sign_in(client: &Client, base: &str, key: &str) {
    client.goto(base).await.expect("open the dashboard");
    fill(client, "#signin-key", key).await;
    click(client, "#signin-submit").await;
    find(client, "#signout").await;
}

/// Opens a section by its address, as a person following a link would.
pub async fn open(client: &Client, base: &str, route: &str) {
    client
        .goto(&format!("{base}/#/{route}"))
        .await
        .expect("open the section");
}

/// Presses `keys` together and lets them go (`[Key::Shift, Key::Tab]` is Shift+Tab), as on a
/// keyboard: they go to whatever has focus.
pub async fn press(client: &Client, keys: &[Key]) {
    let mut actions = KeyActions::new("keyboard".into());
    for &key in keys {
        actions = actions.then(KeyAction::Down { value: key.into() });
    }
    for &key in keys.iter().rev() {
        actions = actions.then(KeyAction::Up { value: key.into() });
    }
    client.perform_actions(actions).await.expect("keys pressed");
}

/// Types `text` key by key into whatever has focus.
pub async fn type_keys(client: &Client, text: &str) {
    let mut actions = KeyActions::new("keyboard".into());
    for c in text.chars() {
        actions = actions
            .then(KeyAction::Down { value: c })
            .then(KeyAction::Up { value: c });
    }
    client.perform_actions(actions).await.expect("text typed");
}

/// Which way [`tab_to`] moves.
#[derive(Clone, Copy, Debug)]
pub enum Tab {
    /// Tab: on through the page.
    Forward,
    /// Shift+Tab: back.
    Back,
}

/// Presses Tab (or Shift+Tab) until the element `css` has focus, as a keyboard user moves to a
/// control; fails when 60 presses do not reach it (it is out of the tab order, or missing).
pub async fn tab_to(client: &Client, css: &str, way: Tab) {
    let keys: &[Key] = match way {
        Tab::Forward => &[Key::Tab],
        Tab::Back => &[Key::Shift, Key::Tab],
    };
    let mut path = Vec::new();
    for _ in 0..60 {
        press(client, keys).await;
        let at = eval(
            client,
            &format!(
                "const a = document.activeElement; \
                 return [!!a && a.matches({}), a ? a.outerHTML.slice(0, 80) : 'nothing'];",
                json!(css)
            ),
        )
        .await;
        if at[0] == json!(true) {
            return;
        }
        path.push(at[1].as_str().unwrap_or_default().to_string());
    }
    panic!(
        "{css} was not reached with {way:?} in 60 presses; focus went through:\n{}\n{}",
        path.join("\n"),
        page_state(client).await
    );
}

/// Waits until the element `css` has focus.
pub async fn focused(client: &Client, css: &str) {
    let condition = format!(
        "document.activeElement && document.activeElement.matches({})",
        json!(css)
    );
    until(client, &format!("{css} has focus"), &condition).await;
}

/// The page's URL, visible text and console errors, for a failure's message.
async fn page_state(client: &Client) -> String {
    let url = client.current_url().await.map(|u| u.to_string());
    let body = client
        .execute(
            "return document.body ? document.body.innerText : ''",
            vec![],
        )
        .await;
    format!("url: {url:?}\npage text: {body:?}")
}
