//! What the webhook routes read and answer: the create body, endpoints and attempts.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::format::timestamp;
use crate::store::{Attempt, Endpoint};

/// Body of `POST /v1/webhooks`.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"url": "http://127.0.0.1:8787/hooks", "events": ["token.rotated"]}))]
pub struct CreateEndpoint {
    /// Where events are POSTed: an http or https URL with a DNS name or IPv4 address, without
    /// a user or a fragment.
    #[schema(schema_with = crate::validate::url_schema)]
    pub url: String,
    /// Event types to receive, at least one: `token.rotated`, `token.expiring`.
    #[schema(schema_with = event_names)]
    pub events: Vec<String>,
}

/// An endpoint as the API shows it; `secret` only in the answer to its creation.
#[derive(Serialize, ToSchema)]
pub struct EndpointView {
    /// `whk_...`.
    #[schema(pattern = "^whk_[0-9a-z]{24}$")]
    pub id: String,
    pub url: String,
    #[schema(schema_with = event_names)]
    pub events: Vec<String>,
    /// `active`, or `disabled` after the receiver answered 410 Gone.
    #[schema(value_type = EndpointStatus)]
    pub status: &'static str,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The signing secret, shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// An endpoint's status.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum EndpointStatus {
    Active,
    Disabled,
}

/// Never shows the signing secret, only whether one is held.
impl std::fmt::Debug for EndpointView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointView")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("events", &self.events)
            .field("status", &self.status)
            .field("created_at", &self.created_at)
            .field("secret", &self.secret.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

impl EndpointView {
    /// The view of `endpoint`, with its `secret` when just created.
    pub fn new(endpoint: Endpoint, secret: Option<String>) -> Self {
        EndpointView {
            id: endpoint.id,
            url: endpoint.url,
            events: endpoint.events,
            status: if endpoint.disabled {
                "disabled"
            } else {
                "active"
            },
            created_at: timestamp(endpoint.created_at),
            secret,
        }
    }
}

/// One delivery attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptView {
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The receiver's status, or null when no answer came.
    pub status_code: Option<u16>,
    /// Why no answer came.
    pub error: Option<String>,
    pub duration_ms: u64,
    /// When the next attempt is due, if one is.
    pub next_retry_at: Option<String>,
    pub created_at: String,
}

impl From<Attempt> for AttemptView {
    fn from(a: Attempt) -> Self {
        AttemptView {
            event_id: a.event_id,
            event_type: a.event_type,
            attempt: a.attempt,
            status_code: a.status_code,
            error: a.error,
            duration_ms: a.duration_ms,
            next_retry_at: a.next_retry_at.map(timestamp),
            created_at: timestamp(a.created_at),
        }
    }
}

/// The schema of a list of webhook event types, at least one.
fn event_names() -> utoipa::openapi::Array {
    crate::validate::names_schema(super::EVENT_TYPES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_secret() {
        let view = EndpointView {
            id: "whk_1".into(),
            url: "https://example.test/hook".into(),
            events: vec!["token.rotated".into()],
            status: "active",
            created_at: "2025-01-01T00:00:00Z".into(),
            secret: Some("whsec_topsecret".into()),
        };
        let shown = format!("{view:?} {view:#?}");
        assert!(!shown.contains("whsec_topsecret"), "{shown}");
        assert!(
            shown.contains("[redacted]") && shown.contains("whk_1"),
            "{shown}"
        );
    }
}
