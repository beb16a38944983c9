//! Webhooks: endpoint configuration, delivery attempts, signature verification and typed events.

mod event;
#[cfg(test)]
mod fuzz;
mod signature;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use self::event::{
    EVENT_ID_HEADER, Event, EventKind, LimitNotice, TIMESTAMP_HEADER, verify_event,
};
pub use self::signature::{SIGNATURE_HEADER, SignatureError, sign, verify};
use crate::client::Client;
use crate::error::Result;
use crate::pagination::{ItemStream, MAX_PER_PAGE, Page, walk};
use crate::secret::Secret;

/// A webhook endpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebhookEndpoint {
    /// `whk_...`.
    pub id: String,
    /// Where events are POSTed.
    pub url: String,
    /// Event types it receives.
    pub events: Vec<String>,
    /// `active`, or `disabled` after the receiver answered 410 Gone.
    pub status: String,
    /// When it was added.
    pub created_at: DateTime<Utc>,
    /// The signing secret: only in the answer to its creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<Secret>,
}

/// One delivery attempt.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeliveryAttempt {
    /// The event.
    pub event_id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The receiver's status, or `None` when no answer came.
    pub status_code: Option<u16>,
    /// Why no answer came.
    pub error: Option<String>,
    /// How long the attempt took.
    pub duration_ms: u64,
    /// When the next attempt is due, if one is.
    pub next_retry_at: Option<DateTime<Utc>>,
    /// When the attempt was made.
    pub created_at: DateTime<Utc>,
}

/// Body of a create request: `CreateWebhook::new(url).event("token.rotated")`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateWebhook {
    url: String,
    events: Vec<String>,
}

impl CreateWebhook {
    /// An endpoint at `url` (http or https); add at least one event type.
    pub fn new(url: impl Into<String>) -> Self {
        CreateWebhook {
            url: url.into(),
            events: Vec::new(),
        }
    }

    /// Subscribes to an event type: `token.rotated`, `token.expiring`, `token.limit_threshold`,
    /// `token.limit_reached`.
    pub fn event(mut self, kind: impl Into<String>) -> Self {
        self.events.push(kind.into());
        self
    }
}

#[derive(Deserialize)]
struct Queued {
    id: String,
}

/// Webhook endpoints, from [`Client::webhooks`].
pub struct Webhooks<'c> {
    client: &'c Client,
}

impl<'c> Webhooks<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Webhooks { client }
    }

    /// Adds an endpoint; the answer holds its signing secret, shown only this once.
    pub async fn create(&self, request: &CreateWebhook) -> Result<WebhookEndpoint> {
        self.client
            .post(self.client.url(&["webhooks"]), Some(request))
            .await
    }

    /// One page of endpoints, newest first.
    pub async fn list(&self, page: u64) -> Result<Page<WebhookEndpoint>> {
        let query = [
            ("page", page.to_string()),
            ("per_page", MAX_PER_PAGE.to_string()),
        ];
        self.client
            .get(self.client.url(&["webhooks"]), &query)
            .await
    }

    /// Every endpoint, walking pages lazily.
    pub fn list_all(&self) -> ItemStream<'c, WebhookEndpoint> {
        let client = self.client;
        walk(move |page| async move { client.webhooks().list(page).await })
    }

    /// One endpoint (never its secret).
    pub async fn get(&self, id: &str) -> Result<WebhookEndpoint> {
        self.client
            .get(self.client.url(&["webhooks", id]), &[])
            .await
    }

    /// Deletes an endpoint; its pending deliveries are dropped.
    pub async fn delete(&self, id: &str) -> Result<()> {
        self.client.delete(self.client.url(&["webhooks", id])).await
    }

    /// Queues a `webhook.test` event for the endpoint; returns the event id. A disabled
    /// endpoint (its receiver answered 410 Gone) gets nothing: the error has status 409.
    pub async fn test(&self, id: &str) -> Result<String> {
        let queued: Queued = self
            .client
            .post(self.client.url(&["webhooks", id, "test"]), None::<&()>)
            .await?;
        Ok(queued.id)
    }

    /// The endpoint's delivery attempts, newest first (first 100).
    pub async fn deliveries(&self, id: &str) -> Result<Page<DeliveryAttempt>> {
        let query = [("per_page", MAX_PER_PAGE.to_string())];
        self.client
            .get(self.client.url(&["webhooks", id, "deliveries"]), &query)
            .await
    }
}
