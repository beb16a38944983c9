//! Typed async client for the tokctl service: tokens, API keys, scopes and the audit log, with
//! retries, rate-limit awareness, auto-pagination and webhook signature verification; offline
//! recognition of leaked secrets ([`secrets`]) and their revocation by possession
//! ([`Client::credentials`]).
//!
//! # Quick start
//!
//! Start the reference server (`cargo run -p tokctl-server`), then:
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use tokctl_sdk::{Client, CreateToken, ListTokens, RevokeOutcome};
//!
//! # async fn run() -> tokctl_sdk::Result<()> {
//! // Reads TOKCTL_API_KEY, and TOKCTL_BASE_URL when set (default http://127.0.0.1:8080/v1).
//! let client = Client::from_env()?;
//!
//! let token = client
//!     .tokens()
//!     .create(&CreateToken::new("ci-deploy").scope("tokens:read").scope("tokens:rotate"))
//!     .await?;
//! let secret = token.secret.as_ref().map(|s| s.expose().to_string()); // shown once
//!
//! let rotated = client.tokens().rotate(&token.id).await?; // the old secret stops working now
//! assert_ne!(rotated.secret.as_ref().map(|s| s.expose().to_string()), secret);
//!
//! // Every token, every page, lazily.
//! let all: Vec<_> = client.tokens().list_all(ListTokens::new()).try_collect().await?;
//! println!("{} tokens", all.len());
//!
//! match client.tokens().revoke(&token.id).await? {
//!     RevokeOutcome::Revoked => println!("revoked"),
//!     RevokeOutcome::AlreadyGone => println!("was already revoked"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Errors, retries and rate limits
//!
//! Every call returns [`Result`]; [`Error`] keeps the HTTP status, the API's `error` code and
//! `message`, and the rate-limit headers, with helpers such as [`Error::is_not_found`] and
//! [`Error::is_token_expired`]. A 429 is retried after the window resets (up to
//! [`RetryPolicy::max_rate_limit_wait`]); server errors and connection failures are retried with
//! backoff for GET and DELETE only, so a create or rotation is never sent twice unseen.
//! [`Client::rate_limit`] shows the latest `X-RateLimit-*` values.
//!
//! # Webhooks
//!
//! [`webhooks::verify`] checks the `x-service-signature` header of a delivery.

#![warn(missing_docs)]

pub mod audit;
mod builder;
pub mod chat;
mod client;
pub mod credentials;
mod credits;
mod error;
pub mod keys;
pub mod models;
pub mod pagination;
pub mod requests;
mod retry;
pub mod scopes;
mod secret;
pub mod secrets;
pub mod settings;
mod sse;
pub mod tokens;
mod transport;
pub mod usage;
pub mod webhooks;
pub mod x402;

pub use audit::{AuditEntry, ListAudit};
pub use builder::ClientBuilder;
pub use chat::{
    ChatChunk, ChatCompletion, ChatMessage, ChatRequest, ChatStream, Platform, Settlement, Usage,
};
pub use client::{
    Client, DEFAULT_BASE_URL, DEFAULT_CHAT_BASE_URL, DEFAULT_TIMEOUT, RequestEvent, RequestObserver,
};
pub use error::{ApiError, ConnectCause, Error, RateLimit, RawBody, Result};
pub use keys::{ApiKey, CreateKey, ListKeys};
pub use models::{Deployment, Model, ModelHealth};
pub use pagination::{ItemStream, Page, PageMeta};
pub use requests::{ListRequests, RequestEntry};
pub use retry::RetryPolicy;
/// Exact decimal numbers (`rust_decimal`): every credit amount and price is one.
pub use rust_decimal::Decimal;
pub use scopes::ScopeInfo;
pub use secret::Secret;
pub use settings::{Settings, UpdateSettings};
pub use tokens::{
    ChangeLimits, CreateToken, LimitReset, ListTokens, RevokeOutcome, Token, TokenLimits,
    TokenStatus,
};
pub use usage::{DeploymentUsage, UsageReport, UsageSummary, UsageTotals};
pub use x402::{PaymentToken, SetX402, X402Terms};
