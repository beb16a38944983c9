//! How the `openai` and `anthropic` providers reach their upstreams: plain HTTP over our own pooled connections
//! (`plain`), HTTPS through reqwest with rustls, the platform's trust roots and, per model, a
//! private CA (`https`). Either way the answer arrives as bytes, whole or as a stream, and a
//! hung-up stream closes its connection. A failure says what failed ([`crate::outbound`]).

mod https;
mod plain;
pub mod relayed;

use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use hyper::header::{AUTHORIZATION, HeaderName, HeaderValue};
use hyper::{StatusCode, Uri};

use super::answer::Failure;
use plain::Plain;

/// Longest quiet gap in an upstream's answer before it counts as failed.
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// Where a model's requests go, worked out once when the catalogue is loaded.
pub struct Target {
    /// The full URL (`.../chat/completions`, `.../v1/messages`).
    url: String,
    /// The upstream's base URL, which another path may follow ([`Extra::path`]).
    base: String,
    transport: Transport,
    /// The headers every request carries (the key's among them, marked sensitive), or why
    /// they cannot be made (the key's variable is unset).
    headers: Result<Vec<(HeaderName, HeaderValue)>, String>,
    /// How the key is sent and the variable it is read from, for describing the target.
    key: Option<(KeyHeader, String)>,
}

/// How a provider presents its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyHeader {
    /// `Authorization: Bearer KEY`.
    Bearer,
    /// `x-api-key: KEY` (Anthropic).
    #[serde(rename = "x-api-key")]
    ApiKey,
    /// `api-key: KEY` (Azure OpenAI).
    #[serde(rename = "api-key")]
    AzureApiKey,
}

impl std::fmt::Display for KeyHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeyHeader::Bearer => "Authorization: Bearer",
            KeyHeader::ApiKey => "x-api-key",
            KeyHeader::AzureApiKey => "api-key",
        })
    }
}

enum Transport {
    Plain(Arc<Plain>),
    Https(reqwest::Client),
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("url", &self.url).finish()
    }
}

impl Target {
    /// The target `path` under an upstream at `base_url` (e.g. `http://127.0.0.1:8000/v1`),
    /// keyed as `key` says with the variable `api_key_env` names, if any, and carrying
    /// `headers`; an `https` upstream is also trusted when its certificate chains to one in
    /// `ca_file` (PEM).
    pub fn new(
        base_url: &str,
        path: &str,
        (key, api_key_env): (KeyHeader, Option<&str>),
        headers: Vec<(HeaderName, HeaderValue)>,
        ca_file: Option<&Path>,
    ) -> anyhow::Result<Self> {
        let base = base_url.trim_end_matches('/').to_string();
        let url = format!("{base}{path}");
        let uri: Uri = url
            .parse()
            .map_err(|_| anyhow::anyhow!("base_url {base_url:?} is not a URL"))?;
        if uri.authority().is_none() {
            anyhow::bail!("base_url {base_url:?} must be an absolute http or https URL");
        }
        let transport = match (uri.scheme_str(), ca_file) {
            (Some("https"), ca_file) => Transport::Https(https::client(ca_file, READ_TIMEOUT)?),
            (Some("http"), None) => Transport::Plain(Arc::new(Plain::new(&uri)?)),
            (Some("http"), Some(_)) => {
                anyhow::bail!("ca_file is for https upstreams; base_url {base_url:?} is http")
            }
            _ => anyhow::bail!("base_url {base_url:?} must be an http or https URL"),
        };
        let keyed = match api_key_env {
            None => Ok(None),
            Some(var) => match std::env::var(var) {
                Ok(secret) => {
                    let (name, value) = match key {
                        KeyHeader::Bearer => (AUTHORIZATION, format!("Bearer {secret}")),
                        KeyHeader::ApiKey => (HeaderName::from_static("x-api-key"), secret),
                        KeyHeader::AzureApiKey => (HeaderName::from_static("api-key"), secret),
                    };
                    HeaderValue::from_str(&value)
                        .map(|mut value| {
                            value.set_sensitive(true);
                            Some((name, value))
                        })
                        .map_err(|_| format!("{var} holds characters a header cannot carry"))
                }
                Err(_) => Err(format!("{var} is not set")),
            },
        };
        let headers = keyed.map(|key| key.into_iter().chain(headers).collect());
        Ok(Target {
            url,
            base,
            transport,
            headers,
            key: api_key_env.map(|var| (key, var.to_string())),
        })
    }

    /// The full URL requests are posted to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How the key is sent and the variable it is read from, when one is sent.
    pub fn key(&self) -> Option<(KeyHeader, &str)> {
        self.key
            .as_ref()
            .map(|(header, var)| (*header, var.as_str()))
    }

    /// POSTs a JSON `body`; resolves once the answer's head has arrived.
    pub async fn post(&self, body: Vec<u8>) -> Result<Reply, Failure> {
        self.post_with(&Extra::default(), body).await
    }

    /// POSTs a JSON `body` to the target's URL (or its base URL followed by `extra.path`), with
    /// `extra`'s headers in place of the target's own of the same names.
    pub async fn post_with(&self, extra: &Extra, body: Vec<u8>) -> Result<Reply, Failure> {
        let headers = match &self.headers {
            Ok(headers) => headers,
            Err(why) => return Err(Failure::other(why.clone())),
        };
        let headers = Headers {
            own: headers,
            extra: &extra.headers,
        };
        let url = match extra.path {
            None => std::borrow::Cow::Borrowed(self.url.as_str()),
            Some(path) => std::borrow::Cow::Owned(format!("{}{path}", self.base)),
        };
        match &self.transport {
            Transport::Plain(plain) => {
                let path = match extra.path {
                    None => None,
                    Some(_) => Some(
                        url.parse::<Uri>()
                            .map_err(|_| Failure::other("could not build the upstream request"))?,
                    ),
                };
                plain
                    .post(path.as_ref().map(Uri::path), headers, body)
                    .await
            }
            Transport::Https(client) => https::post(client, &url, headers, body).await,
        }
    }
}

/// The headers an upstream request carries: the target's own, each replaced by one of the same
/// name among `extra`, then `extra`'s (walked, never gathered into a list of their own).
#[derive(Clone, Copy)]
pub struct Headers<'a> {
    own: &'a [(HeaderName, HeaderValue)],
    extra: &'a [(HeaderName, HeaderValue)],
}

impl<'a> Headers<'a> {
    /// Each header, once.
    pub fn iter(self) -> impl Iterator<Item = &'a (HeaderName, HeaderValue)> {
        let extra = self.extra;
        let own = self.own.iter();
        own.filter(move |(name, _)| extra.iter().all(|(other, _)| other != name))
            .chain(extra)
    }
}

/// What a request to a [`Target`] carries besides the target's own: headers the client's
/// request brought (Anthropic's version and betas, passed through), and another path after
/// the upstream's base URL than the target's (`/v1/messages/count_tokens`, `/responses`).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub path: Option<&'static str>,
}

/// The body of a [`Reply`] as it arrives.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, Failure>> + Send>>;

/// An upstream's answer: its status and its body, still arriving.
pub struct Reply {
    pub status: StatusCode,
    /// How long it asked to be left alone, when an error status came with `Retry-After`.
    pub retry_after: Option<Duration>,
    body: BodyStream,
}

impl Reply {
    /// An answer with `status`, its `Retry-After` header if any, and `body`.
    fn new(status: StatusCode, retry_after: Option<&HeaderValue>, body: BodyStream) -> Self {
        let retry_after = match status.is_success() {
            true => None,
            false => retry_after
                .and_then(|value| value.to_str().ok())
                .and_then(parse_retry_after),
        };
        Reply {
            status,
            retry_after,
            body,
        }
    }

    /// The whole body.
    pub async fn bytes(self) -> Result<Bytes, Failure> {
        let mut body = self.body;
        let Some(first) = body.next().await.transpose()? else {
            return Ok(Bytes::new());
        };
        let Some(second) = body.next().await.transpose()? else {
            return Ok(first);
        };
        let mut all = BytesMut::from(first);
        all.extend_from_slice(&second);
        while let Some(more) = body.next().await.transpose()? {
            all.extend_from_slice(&more);
        }
        Ok(all.freeze())
    }

    /// The body as it arrives; dropping it hangs up on the upstream.
    pub fn stream(self) -> BodyStream {
        self.body
    }
}

/// How long a `Retry-After` header asks for: seconds, or until an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after(" 30 "), Some(Duration::from_secs(30)));
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        let in_a_minute = std::time::SystemTime::now() + Duration::from_secs(61);
        let wait = parse_retry_after(&httpdate::fmt_http_date(in_a_minute)).unwrap();
        assert!((59..=61).contains(&wait.as_secs()), "{wait:?}");
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO),
            "a date gone by asks for no wait"
        );
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-5"), None);
    }
}
