//! The gateway's request log: one entry per request to chat completions, messages or
//! responses, newest first; [`Requests::follow`] tails it.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::Stream;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::credits;
use crate::error::Result;
use crate::pagination::{ItemStream, MAX_PER_PAGE, Page, page_params, walk};

/// One gateway request as the log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestEntry {
    /// The request id its answer carried (`x-request-id`).
    pub id: String,
    /// When it arrived.
    pub created_at: DateTime<Utc>,
    /// The token that sent it (`None` for an API key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_id: Option<String>,
    /// The API key that sent it (`None` for a token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// That token's or key's name.
    #[serde(default)]
    pub credential_name: Option<String>,
    /// `/v1/chat/completions`, `/v1/messages` or `/v1/responses`.
    pub endpoint: String,
    /// The model the request named.
    #[serde(default)]
    pub model: Option<String>,
    /// The catalogue model that answered.
    #[serde(default)]
    pub routed_model: Option<String>,
    /// The deployment of `routed_model` that answered.
    #[serde(default)]
    pub deployment: Option<String>,
    /// Why it was routed so.
    #[serde(default)]
    pub route_reason: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// The error code, when it failed (a stream cut after its first token keeps status 200).
    #[serde(default)]
    pub error: Option<String>,
    /// Whether it streamed.
    pub stream: bool,
    /// Milliseconds from arrival to a stream's first token.
    #[serde(default)]
    pub time_to_first_token_ms: Option<f64>,
    /// Milliseconds from arrival to the answer's end.
    pub duration_ms: f64,
    /// Prompt tokens, cached ones included.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// Of `prompt_tokens`, read from the provider's cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
    /// Credits consumed, exact.
    #[serde(
        default,
        deserialize_with = "credits::option::deserialize",
        serialize_with = "credits::option::serialize"
    )]
    pub credits: Option<Decimal>,
    /// Atomic units an agent's x402 payment settled for it.
    #[serde(default)]
    pub x402_settled: Option<String>,
    /// The agent's session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The request's body, secrets redacted and cut at the server's cap, when the server keeps
    /// bodies (only in [`Requests::get`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// A whole answer's message (GenAI output messages, JSON text), likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
}

/// Which requests to list: `ListRequests::new().status("5xx").model("gpt-4o")`.
#[derive(Debug, Clone, Default)]
pub struct ListRequests {
    page: Option<u64>,
    per_page: Option<u32>,
    filters: Vec<(&'static str, String)>,
}

impl ListRequests {
    /// Page 1, 25 a page, every request.
    pub fn new() -> Self {
        ListRequests::default()
    }

    /// Page number, from 1.
    pub fn page(mut self, page: u64) -> Self {
        self.page = Some(page);
        self
    }

    /// Items per page, 1 to 100.
    pub fn per_page(mut self, per_page: u32) -> Self {
        self.per_page = Some(per_page);
        self
    }

    fn filter(mut self, name: &'static str, value: String) -> Self {
        self.filters.retain(|(n, _)| *n != name);
        self.filters.push((name, value));
        self
    }

    /// Only requests this token sent.
    pub fn token_id(self, id: impl Into<String>) -> Self {
        self.filter("token_id", id.into())
    }

    /// Only requests this API key sent.
    pub fn key_id(self, id: impl Into<String>) -> Self {
        self.filter("key_id", id.into())
    }

    /// Only requests naming this model or answered by it.
    pub fn model(self, model: impl Into<String>) -> Self {
        self.filter("model", model.into())
    }

    /// Only requests answered with this status class (`2xx`, `4xx`, `5xx`) or status (`429`).
    pub fn status(self, status: impl Into<String>) -> Self {
        self.filter("status", status.into())
    }

    /// Only requests that arrived at or after `at`.
    pub fn since(self, at: DateTime<Utc>) -> Self {
        self.filter("since", at.to_rfc3339())
    }

    /// Only requests that arrived before `at`.
    pub fn until(self, at: DateTime<Utc>) -> Self {
        self.filter("until", at.to_rfc3339())
    }

    /// Only requests of this agent session.
    pub fn session_id(self, id: impl Into<String>) -> Self {
        self.filter("session_id", id.into())
    }

    fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = page_params(self.page, self.per_page);
        query.extend(self.filters.iter().cloned());
        query
    }
}

/// How far back [`Requests::follow`] looks on each poll: a request is logged when its answer
/// ends, so a long stream shows up after requests that arrived later.
const FOLLOW_LOOKBACK: chrono::Duration = chrono::Duration::minutes(15);

/// Request log endpoints, from [`Client::requests`].
pub struct Requests<'c> {
    client: &'c Client,
}

impl<'c> Requests<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Requests { client }
    }

    /// One page of requests, newest first. Needs `requests:read`.
    pub async fn list(&self, request: &ListRequests) -> Result<Page<RequestEntry>> {
        self.client
            .get(self.client.url(&["requests"]), &request.query())
            .await
    }

    /// Every request matching `request` (its page fields are ignored), newest first, walking
    /// pages lazily.
    pub fn list_all(&self, request: ListRequests) -> ItemStream<'c, RequestEntry> {
        let client = self.client;
        walk(move |page| {
            let query = request.clone().page(page).per_page(MAX_PER_PAGE).query();
            async move { client.get(client.url(&["requests"]), &query).await }
        })
    }

    /// One request by the id its answer carried (the newest, if a client reused the id).
    pub async fn get(&self, id: &str) -> Result<RequestEntry> {
        self.client
            .get(self.client.url(&["requests", id]), &[])
            .await
    }

    /// Requests matching `request` logged from now on, oldest first, asking every `every`;
    /// runs until dropped or an error (which it yields, then ends). A request is logged when
    /// its answer ends, so each poll looks back `FOLLOW_LOOKBACK` (15 minutes) from the newest arrival
    /// seen, page by page until a page holds nothing new.
    pub fn follow(
        &self,
        request: ListRequests,
        every: Duration,
    ) -> impl Stream<Item = Result<RequestEntry>> + Send + 'c {
        let client = self.client;
        let tail = Tail {
            seen: HashSet::new(),
            newest: None,
            primed: false,
        };
        futures::stream::try_unfold(
            (tail, Vec::new()),
            move |(mut tail, mut ready): (Tail, Vec<RequestEntry>)| {
                let request = request.clone();
                async move {
                    loop {
                        if let Some(entry) = ready.pop() {
                            return Ok(Some((entry, (tail, ready))));
                        }
                        if tail.primed {
                            tokio::time::sleep(every).await;
                        }
                        ready = tail.poll(&Requests { client }, &request).await?;
                    }
                }
            },
        )
    }
}

/// What [`Requests::follow`] has shown.
struct Tail {
    /// Entries already seen within the lookback, by arrival and id.
    seen: HashSet<(DateTime<Utc>, String)>,
    newest: Option<DateTime<Utc>>,
    /// Whether the first poll (what was there before) is done.
    primed: bool,
}

impl Tail {
    /// The entries logged since the last poll, newest first (none on the first poll: what was
    /// there before is only noted).
    async fn poll(
        &mut self,
        requests: &Requests<'_>,
        request: &ListRequests,
    ) -> Result<Vec<RequestEntry>> {
        let mut query = request.clone().per_page(MAX_PER_PAGE);
        if let Some(newest) = self.newest {
            query = query.since(newest - FOLLOW_LOOKBACK);
        }
        let mut fresh = Vec::new();
        for page in 1.. {
            let found = requests.list(&query.clone().page(page)).await?;
            let before = fresh.len();
            fresh.extend(found.data.iter().filter(|e| self.note(e)).cloned());
            let nothing_new = fresh.len() == before;
            if !self.primed || nothing_new || !found.has_next() {
                break;
            }
        }
        Ok(match std::mem::replace(&mut self.primed, true) {
            true => fresh,
            false => Vec::new(),
        })
    }

    /// Whether `entry` is new; notes it, and forgets what fell out of the lookback.
    fn note(&mut self, entry: &RequestEntry) -> bool {
        let fresh = self.seen.insert((entry.created_at, entry.id.clone()));
        if self.newest.is_none_or(|newest| entry.created_at > newest) {
            self.newest = Some(entry.created_at);
            let horizon = entry.created_at - FOLLOW_LOOKBACK * 2;
            self.seen.retain(|(at, _)| *at >= horizon);
        }
        fresh
    }
}
