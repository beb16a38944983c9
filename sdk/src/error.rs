//! The one error type of the SDK.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::header::HeaderMap;
use serde::Deserialize;

/// `Result` with the SDK's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The rate-limit state a response reported (`X-RateLimit-*` headers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in the current window.
    pub remaining: u32,
    /// When the window resets.
    pub reset: DateTime<Utc>,
}

impl RateLimit {
    /// Reads the three headers; `None` unless all three are present and valid.
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        Some(RateLimit {
            limit: u32::try_from(header_number(headers, "x-ratelimit-limit")?).ok()?,
            remaining: u32::try_from(header_number(headers, "x-ratelimit-remaining")?).ok()?,
            reset: reset_at(headers)?,
        })
    }
}

fn header_number(headers: &HeaderMap, name: &str) -> Option<i64> {
    headers.get(name)?.to_str().ok()?.trim().parse::<i64>().ok()
}

/// `X-RateLimit-Reset` alone (a 429 may carry it without the other two).
pub(crate) fn reset_at(headers: &HeaderMap) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp(header_number(headers, "x-ratelimit-reset")?, 0)
}

/// A success body kept for diagnosis that may hold a secret: `Debug` shows its length only.
#[derive(Clone, PartialEq, Eq)]
pub struct RawBody(String);

impl RawBody {
    /// Keeps `body` (invalid UTF-8 replaced).
    pub(crate) fn new(body: &[u8]) -> Self {
        RawBody(String::from_utf8_lossy(body).into_owned())
    }

    /// The body as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for RawBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawBody({} bytes, not shown)", self.0.len())
    }
}

/// An error answer from the API, decoded from its `{"error", "message", "status"}` body.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// Machine-readable code, e.g. `not_found` or `rate_limited`.
    pub code: String,
    /// Human-readable message from the server.
    pub message: String,
    /// Rate-limit state reported with the error.
    pub rate_limit: Option<RateLimit>,
    /// `Retry-After`, when the server sent one.
    pub retry_after: Option<Duration>,
    /// The server's `x-request-id`, to quote when reporting a problem.
    pub request_id: Option<String>,
    /// With a 402 `payment_required` or `invalid_payment`: the x402 offer (`PaymentRequired`),
    /// which a [`Wallet`](crate::x402::Wallet) signs.
    pub x402: Option<Box<serde_json::Value>>,
}

/// Everything that can go wrong calling the service.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API answered with an error body.
    #[error("{} ({} {})", .0.message, .0.status, .0.code)]
    Api(ApiError),
    /// The server answered with an error status whose body is not the API's error shape.
    #[error("unexpected HTTP {status} from the server")]
    UnexpectedStatus {
        /// HTTP status.
        status: u16,
        /// The raw body, as text.
        body: String,
        /// Rate-limit state reported with the response.
        rate_limit: Option<RateLimit>,
    },
    /// A success response whose body could not be decoded.
    #[error("could not decode the server's response: {source}")]
    Decode {
        /// What serde found wrong.
        source: serde_json::Error,
        /// The raw body. A created key's or token's body holds its secret, so this prints
        /// only its length; read it with [`RawBody::as_str`].
        body: RawBody,
    },
    /// A stream of server-sent events broke or ended before `[DONE]`.
    #[error("the stream broke: {0}")]
    Stream(String),
    /// The request took longer than the configured timeout; for a stream, its response or the
    /// next chunk did.
    #[error("the request timed out")]
    Timeout,
    /// No connection could be made, so nothing was sent: refused, timed out, host not found or
    /// TLS failed. Shown as `cannot connect to URL: CAUSE`.
    #[error("cannot connect to {url}: {cause}")]
    Connect {
        /// The base URL the client was built with (for chat, the gateway's base and `/v1`).
        url: String,
        /// Why.
        cause: ConnectCause,
    },
    /// The connection broke while the request was sent or the answer read (reset, closed).
    #[error("the connection to {url} failed: {reason}")]
    Transport {
        /// The base URL the client was built with.
        url: String,
        /// What failed, in words.
        reason: String,
        /// reqwest's error.
        #[source]
        source: reqwest::Error,
    },
    /// The client is misconfigured (bad base URL, no API key, invalid header value).
    #[error("invalid client configuration: {0}")]
    Config(String),
    /// The client's wallet would not pay what the server asks (over its limit, or an offer
    /// it cannot sign); nothing was signed.
    #[error("payment refused: {0}")]
    Payment(String),
}

/// The token API's error body, or the gateway's OpenAI-style envelope.
#[derive(Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Api { error: String, message: String },
    OpenAi { error: OpenAiError },
}

/// The x402 offer an OpenAI-style error may hold.
#[derive(Deserialize)]
struct Offer {
    error: OfferInside,
}

#[derive(Deserialize)]
struct OfferInside {
    x402: serde_json::Value,
}

#[derive(Deserialize)]
struct OpenAiError {
    message: String,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    code: Option<String>,
}

impl ErrorBody {
    fn code_and_message(self) -> (String, String) {
        match self {
            ErrorBody::Api { error, message } => (error, message),
            ErrorBody::OpenAi { error } => (
                error.code.or(error.kind).unwrap_or_else(|| "error".into()),
                error.message,
            ),
        }
    }
}

impl Error {
    /// Builds the error for a non-success response.
    pub(crate) fn from_response(status: u16, headers: &HeaderMap, body: &[u8]) -> Self {
        let rate_limit = RateLimit::from_headers(headers);
        match serde_json::from_slice::<ErrorBody>(body).map(ErrorBody::code_and_message) {
            Ok((code, message)) => Error::Api(ApiError {
                status,
                code,
                message,
                rate_limit,
                retry_after: retry_after(headers),
                request_id: headers
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string),
                x402: serde_json::from_slice::<Offer>(body)
                    .ok()
                    .map(|offer| Box::new(offer.error.x402)),
            }),
            Err(_) => Error::UnexpectedStatus {
                status,
                body: String::from_utf8_lossy(body).into_owned(),
                rate_limit,
            },
        }
    }

    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::UnexpectedStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The API's error code (`not_found`, `conflict`, ...), when the body carried one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Api(api) => Some(&api.code),
            _ => None,
        }
    }

    /// The rate-limit state reported with the error, if any.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        match self {
            Error::Api(api) => api.rate_limit,
            Error::UnexpectedStatus { rate_limit, .. } => *rate_limit,
            _ => None,
        }
    }

    /// 404: unknown id, another workspace's resource, or an already revoked token.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// 401 of any kind: missing, invalid, revoked or expired credential.
    pub fn is_unauthorized(&self) -> bool {
        self.status() == Some(401)
    }

    /// 401 because the credential has expired.
    pub fn is_token_expired(&self) -> bool {
        matches!(self, Error::Api(api) if api.status == 401 && api.message == "Token has expired")
    }

    /// 403: the credential lacks a scope.
    pub fn is_forbidden(&self) -> bool {
        self.status() == Some(403)
    }

    /// 409: name already in use, rotating an expired token, or an API key revoking itself.
    pub fn is_conflict(&self) -> bool {
        self.status() == Some(409)
    }

    /// 429: the rate limit was hit (after any retries the client made).
    pub fn is_rate_limited(&self) -> bool {
        self.status() == Some(429)
    }

    /// The server could not be reached, did not answer in time, or a stream broke.
    pub fn is_transport(&self) -> bool {
        matches!(
            self,
            Error::Connect { .. } | Error::Transport { .. } | Error::Timeout | Error::Stream(_)
        )
    }

    /// Why no connection could be made, when none could ([`Error::Connect`]).
    pub fn connect_cause(&self) -> Option<&ConnectCause> {
        match self {
            Error::Connect { cause, .. } => Some(cause),
            _ => None,
        }
    }
}

/// `Retry-After` in seconds (the only form the service sends).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds = headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// Why the client could not connect to the server. Nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectCause {
    /// Nothing listens at the address (the server is not running, or another port).
    Refused,
    /// No answer to the connection attempt within the client's timeout.
    TimedOut,
    /// The host name did not resolve; the resolver's words.
    HostNotFound(String),
    /// The TLS handshake failed or the server's certificate was rejected; rustls's words.
    Tls(String),
    /// Anything else (network unreachable, connection reset while connecting), in the OS's
    /// words.
    Other(String),
}

impl std::fmt::Display for ConnectCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectCause::Refused => f.write_str("connection refused"),
            ConnectCause::TimedOut => f.write_str("timed out"),
            ConnectCause::HostNotFound(why) => write!(f, "host not found ({why})"),
            ConnectCause::Tls(why) | ConnectCause::Other(why) => f.write_str(why),
        }
    }
}
