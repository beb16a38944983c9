//! The client, its builder, and the one private HTTP core every resource goes through:
//! authentication, retries, rate-limit bookkeeping and error decoding live here only.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::AUTHORIZATION;
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::builder::ClientBuilder;
use crate::error::{Error, RateLimit, Result, reset_at, retry_after};
use crate::retry::RetryPolicy;
use crate::{
    audit, chat, credentials, keys, models, requests, scopes, settings, tokens, usage, webhooks,
    x402,
};

mod verbs;

/// Default token API base URL (the reference server's default address).
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080/v1";
/// The chat gateway base URL when neither it nor the base URL is configured. A configured base
/// URL without a chat base URL gives the base URL's origin instead (one server serves both).
pub const DEFAULT_CHAT_BASE_URL: &str = "http://127.0.0.1:8080";
/// Default time limit for one HTTP attempt; see [`ClientBuilder::timeout`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A client of the tokctl service. Cheap to clone: clones share one connection pool and one
/// view of the rate limit.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

/// One HTTP attempt, as reported to an observer set with [`ClientBuilder::on_request`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestEvent {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The URL path, e.g. `/v1/tokens/tok_...` (never a query string, header or body).
    pub path: String,
    /// The HTTP status, or `None` when no answer came.
    pub status: Option<u16>,
    /// Time from sending to the whole answer being read.
    pub elapsed: Duration,
    /// 0 for the first attempt, 1 for the first retry, ...
    pub attempt: u32,
}

/// Receives a [`RequestEvent`] after every HTTP attempt.
pub type RequestObserver = Arc<dyn Fn(&RequestEvent) + Send + Sync>;

pub(crate) struct Inner {
    pub(crate) http: reqwest::Client,
    pub(crate) observer: Option<RequestObserver>,
    pub(crate) base_url: Url,
    pub(crate) chat_base_url: Url,
    pub(crate) api_key: Option<SecretString>,
    /// Total time limit of one attempt of an ordinary (non-streaming) call.
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) rate_limit: Mutex<Option<RateLimit>>,
    pub(crate) wallet: Option<crate::x402::Wallet>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url.as_str())
            .field("chat_base_url", &self.inner.chat_base_url.as_str())
            .field(
                "api_key",
                &self.inner.api_key.as_ref().map(|_| "[redacted]"),
            )
            .field("retry", &self.inner.retry)
            .finish()
    }
}

impl Client {
    /// A builder with every default.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client from the environment: `TOKCTL_API_KEY` (required), `TOKCTL_BASE_URL` and
    /// `TOKCTL_CHAT_BASE_URL` (optional).
    pub fn from_env() -> Result<Client> {
        let mut builder = Client::builder();
        match std::env::var("TOKCTL_API_KEY") {
            Ok(key) if !key.trim().is_empty() => builder = builder.api_key(key.trim()),
            _ => return Err(Error::Config("TOKCTL_API_KEY is not set".into())),
        }
        if let Ok(url) = std::env::var("TOKCTL_BASE_URL") {
            builder = builder.base_url(url);
        }
        if let Ok(url) = std::env::var("TOKCTL_CHAT_BASE_URL") {
            builder = builder.chat_base_url(url);
        }
        builder.build()
    }

    /// Tokens: create, list, get, rotate, revoke.
    pub fn tokens(&self) -> tokens::Tokens<'_> {
        tokens::Tokens::new(self)
    }

    /// The workspace's API keys: create, list, revoke.
    pub fn keys(&self) -> keys::Keys<'_> {
        keys::Keys::new(self)
    }

    /// Leaked credentials: report secrets found where they should not be, so the service
    /// revokes them (no API key needed).
    pub fn credentials(&self) -> credentials::Credentials<'_> {
        credentials::Credentials::new(self)
    }

    /// The scopes a credential can hold.
    pub fn scopes(&self) -> scopes::Scopes<'_> {
        scopes::Scopes::new(self)
    }

    /// The workspace audit log.
    pub fn audit(&self) -> audit::Audit<'_> {
        audit::Audit::new(self)
    }

    /// The gateway's request log.
    pub fn requests(&self) -> requests::Requests<'_> {
        requests::Requests::new(self)
    }

    /// The workspace's settings (whether the request log keeps bodies).
    pub fn settings(&self) -> settings::SettingsApi<'_> {
        settings::SettingsApi::new(self)
    }

    /// Chat completions through the gateway.
    pub fn chat(&self) -> chat::Chat<'_> {
        chat::Chat::new(self)
    }

    /// The gateway's models.
    pub fn models(&self) -> models::Models<'_> {
        models::Models::new(self)
    }

    /// The workspace's credit ledger.
    pub fn usage(&self) -> usage::UsageApi<'_> {
        usage::UsageApi::new(self)
    }

    /// Webhook endpoints and their deliveries.
    pub fn webhooks(&self) -> webhooks::Webhooks<'_> {
        webhooks::Webhooks::new(self)
    }

    /// The workspace's x402 terms: what agents pay for chat completions.
    pub fn x402(&self) -> x402::X402<'_> {
        x402::X402::new(self)
    }

    /// The rate-limit state of the most recent response that carried one (leak reports, which
    /// have a budget of their own, leave it alone).
    pub fn rate_limit(&self) -> Option<RateLimit> {
        *self
            .inner
            .rate_limit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The token API base URL.
    pub fn base_url(&self) -> &Url {
        &self.inner.base_url
    }

    /// The chat gateway base URL.
    pub fn chat_base_url(&self) -> &Url {
        &self.inner.chat_base_url
    }

    /// `base_url` + path segments (each escaped).
    pub(crate) fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.inner.base_url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.extend(segments);
        }
        url
    }

    /// `chat_base_url` + `/v1/chat/completions`.
    pub(crate) fn chat_url(&self) -> Url {
        let mut url = self.inner.chat_base_url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(["v1", "chat", "completions"]);
        }
        url
    }

    /// Opens a server-sent event stream by POSTing `body`.
    /// With `payment`, the request carries it (`PAYMENT-SIGNATURE`).
    pub(crate) fn open_stream(
        &self,
        url: Url,
        body: String,
        payment: Option<&str>,
    ) -> Result<impl futures::Stream<Item = Result<String>> + Send + use<>> {
        let transport = crate::sse::Transport {
            http: self.inner.http.clone(),
            observer: self.inner.observer.clone(),
        };
        let authorization = self
            .inner
            .api_key
            .as_ref()
            .map(|key| format!("Bearer {}", key.expose_secret()));
        let shown = self.chat_api_url();
        crate::sse::post(
            transport,
            url.as_str(),
            &shown,
            authorization.as_deref(),
            payment,
            body,
        )
    }

    /// The wallet that pays x402 offers, if the client has one.
    pub fn wallet(&self) -> Option<&crate::x402::Wallet> {
        self.inner.wallet.as_ref()
    }

    /// Sends with retries, with the API key when `authorized`; returns the body of a success
    /// response.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        json: Option<Vec<u8>>,
        authorized: bool,
    ) -> Result<Vec<u8>> {
        self.send_with(method, url, query, json, authorized, None)
            .await
    }

    /// [`Client::send`], with an x402 `payment` header when given.
    pub(crate) async fn send_with(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        json: Option<Vec<u8>>,
        authorized: bool,
        payment: Option<&str>,
    ) -> Result<Vec<u8>> {
        let idempotent = matches!(method, Method::GET | Method::PUT | Method::DELETE);
        let mut attempt = 0u32;
        loop {
            let mut request = self
                .inner
                .http
                .request(method.clone(), url.clone())
                .timeout(self.inner.timeout);
            if !query.is_empty() {
                request = request.query(query);
            }
            if let Some(payment) = payment {
                request = request.header("payment-signature", payment);
            }
            if let Some(key) = self.inner.api_key.as_ref().filter(|_| authorized) {
                request = request.header(AUTHORIZATION, format!("Bearer {}", key.expose_secret()));
            }
            if let Some(json) = &json {
                request = request
                    .header("content-type", "application/json")
                    .body(json.clone());
            }
            let started = Instant::now();
            let sent = request.send().await;
            let (status, headers, body) = match sent {
                Ok(response) => {
                    let status = response.status();
                    let headers = response.headers().clone();
                    if authorized {
                        self.note_rate_limit(&headers);
                    }
                    let body = response.bytes().await;
                    self.observe(&method, &url, Some(status.as_u16()), started, attempt);
                    match body {
                        Ok(body) if status.is_success() => return Ok(body.to_vec()),
                        Ok(body) => (status, headers, body),
                        Err(err) => return Err(self.transport_error(err)),
                    }
                }
                Err(err) => {
                    self.observe(&method, &url, None, started, attempt);
                    match self.inner.retry.backoff(attempt) {
                        // Only a request that is safe to repeat is sent again.
                        Some(wait) if idempotent => {
                            tokio::time::sleep(wait).await;
                            attempt += 1;
                            continue;
                        }
                        _ => return Err(self.transport_error(err)),
                    }
                }
            };
            let wait = if status == StatusCode::TOO_MANY_REQUESTS {
                self.inner
                    .retry
                    .rate_limit_wait(attempt, retry_after(&headers), reset_at(&headers))
            } else if status.is_server_error() && idempotent {
                self.inner.retry.backoff(attempt)
            } else {
                None
            };
            match wait {
                Some(wait) => {
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                None => return Err(Error::from_response(status.as_u16(), &headers, &body)),
            }
        }
    }

    /// What a failed reqwest request means, naming the base URL.
    fn transport_error(&self, err: reqwest::Error) -> Error {
        crate::transport::error(err, self.inner.base_url.as_str())
    }

    /// The gateway's API base as shown in errors: the chat base URL and `/v1`.
    pub(crate) fn chat_api_url(&self) -> String {
        let mut url = self.inner.chat_base_url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().push("v1");
        }
        url.to_string()
    }

    fn observe(
        &self,
        method: &Method,
        url: &Url,
        status: Option<u16>,
        started: Instant,
        attempt: u32,
    ) {
        if let Some(observer) = &self.inner.observer {
            observer(&RequestEvent {
                method: method.to_string(),
                path: url.path().to_string(),
                status,
                elapsed: started.elapsed(),
                attempt,
            });
        }
    }

    fn note_rate_limit(&self, headers: &reqwest::header::HeaderMap) {
        if let Some(limit) = RateLimit::from_headers(headers) {
            *self
                .inner
                .rate_limit
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(limit);
        }
    }
}
