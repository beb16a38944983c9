//! [`ClientBuilder`]: every setting of a [`Client`], checked when it is built.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::HeaderValue;
use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::client::{
    Client, DEFAULT_BASE_URL, DEFAULT_TIMEOUT, Inner, RequestEvent, RequestObserver,
};
use crate::error::{Error, Result};
use crate::retry::RetryPolicy;
use crate::x402::Wallet;

/// How long an idle pooled connection is kept: less than the reference server's 30 s.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(20);

/// Builds a [`Client`]. Every setting has a default except the API key.
#[derive(Clone)]
pub struct ClientBuilder {
    base_url: String,
    chat_base_url: Option<String>,
    api_key: Option<SecretString>,
    timeout: Duration,
    user_agent: String,
    retry: RetryPolicy,
    observer: Option<RequestObserver>,
    wallet: Option<Wallet>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("chat_base_url", &self.chat_base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("wallet", &self.wallet)
            .finish()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            base_url: DEFAULT_BASE_URL.into(),
            chat_base_url: None,
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            user_agent: format!("tokctl-sdk/{}", env!("CARGO_PKG_VERSION")),
            retry: RetryPolicy::default(),
            observer: None,
            wallet: None,
        }
    }
}

impl ClientBuilder {
    /// Token API base URL, including `/v1` (default `http://127.0.0.1:8080/v1`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Chat gateway base URL, without `/v1` (default: the scheme, host and port of the base
    /// URL, since one server serves both; `http://127.0.0.1:8080` with the default base URL).
    pub fn chat_base_url(mut self, url: impl Into<String>) -> Self {
        self.chat_base_url = Some(url.into());
        self
    }

    /// The API key or token sent as `Authorization: Bearer ...`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(SecretString::from(key.into()));
        self
    }

    /// Time limit for one HTTP attempt of an ordinary call, from sending it to having read the
    /// whole answer (default 30 s); also the limit for connecting. A stream
    /// ([`Chat::create_stream`](crate::chat::Chat::create_stream)) has no overall limit: the
    /// timeout bounds the wait for its response and each gap between two chunks, so a long
    /// answer that keeps arriving is never cut.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// A wallet that pays the gateway's x402 offers: a chat request is sent with the wallet's
    /// address as `agent_wallet` (unless it names one), and a 402 offering payment is answered
    /// once by signing the offer (never more than the wallet's limit) and sending the request
    /// again.
    pub fn wallet(mut self, wallet: Wallet) -> Self {
        self.wallet = Some(wallet);
        self
    }

    /// The `User-Agent` header (default `tokctl-sdk/VERSION`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// How rate limits, server errors and connection failures are retried.
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Calls `observer` after every HTTP attempt (for verbose logs and metrics). It sees the
    /// method, path, status and timing, never a header or body.
    pub fn on_request(mut self, observer: impl Fn(&RequestEvent) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Builds the client. Fails on an invalid URL or an API key that cannot be a header value.
    pub fn build(self) -> Result<Client> {
        let base_url = parse_base(&self.base_url, "base URL")?;
        // The spec's {base_url} ends in the version segment; without it every path would miss
        // (and a revoke would look like "already gone").
        let versioned = base_url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
            .and_then(|last| last.strip_prefix('v'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !versioned {
            return Err(Error::Config(format!(
                "invalid base URL {:?}: it must end in the API version, e.g. http://127.0.0.1:8080/v1",
                self.base_url
            )));
        }
        let chat_base_url = match &self.chat_base_url {
            Some(url) => parse_base(url, "chat base URL")?,
            None => {
                let mut origin = base_url.clone();
                origin.set_path("");
                origin.set_query(None);
                origin
            }
        };
        if let Some(key) = &self.api_key {
            HeaderValue::from_str(&format!("Bearer {}", key.expose_secret())).map_err(|_| {
                Error::Config("the API key contains characters not allowed in a header".into())
            })?;
        }
        // One pool for calls and streams, so no total timeout here: `send` sets one per call,
        // and the read timeout alone bounds a stream's silences. The API has no redirects, and a
        // POST must never be re-sent elsewhere with the key. Idle connections are let go before
        // the reference server's 30 s idle cut-off, so a call never races the server's close.
        let http = reqwest::Client::builder()
            .connect_timeout(self.timeout)
            .read_timeout(self.timeout)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(self.user_agent)
            .build()
            .map_err(|err| Error::Config(format!("cannot build the HTTP client: {err}")))?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                observer: self.observer,
                base_url,
                chat_base_url,
                api_key: self.api_key,
                timeout: self.timeout,
                retry: self.retry,
                rate_limit: Mutex::new(None),
                wallet: self.wallet,
            }),
        })
    }
}

fn parse_base(raw: &str, what: &str) -> Result<Url> {
    let mut url = Url::parse(raw.trim())
        .map_err(|err| Error::Config(format!("invalid {what} {raw:?}: {err}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(Error::Config(format!(
            "invalid {what} {raw:?}: must be an http or https URL"
        )));
    }
    // Keep a trailing slash off the path so segments can be appended uniformly.
    let path = url.path().trim_end_matches('/').to_string();
    url.set_path(&path);
    Ok(url)
}
