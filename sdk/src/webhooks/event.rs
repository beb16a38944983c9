//! Typed events, parsed from a verified body.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::signature::{SIGNATURE_HEADER, SignatureError, verify};

/// The header naming the event id (receivers deduplicate by it: delivery is at least once).
pub const EVENT_ID_HEADER: &str = "x-service-event-id";
/// The header with the Unix time (seconds) the delivery was sent.
pub const TIMESTAMP_HEADER: &str = "x-service-timestamp";

/// A webhook event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Event {
    /// `evt_...`; the same on every delivery attempt of this event.
    pub id: String,
    /// When the event happened.
    pub created_at: DateTime<Utc>,
    /// What happened.
    pub kind: EventKind,
}

/// What an event says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub enum EventKind {
    /// A token's secret was replaced. The payload never holds a secret.
    TokenRotated {
        /// The token.
        token_id: String,
        /// When the replaced secret stops working: the rotation itself, or the end of the
        /// overlap it asked for (`None` from a server that does not say).
        previous_secret_expires_at: Option<DateTime<Utc>>,
    },
    /// A token expires soon.
    TokenExpiring {
        /// The token.
        token_id: String,
        /// Its name.
        name: String,
        /// When it expires.
        expires_at: Option<DateTime<Utc>>,
        /// Which notice fired, e.g. `7d` or `1d`.
        notice: String,
    },
    /// A token's spend in its period reached 80 or 95 % of its limit.
    TokenLimitThreshold(LimitNotice),
    /// A token hit its limit: its spend reached 100 %, or (`refused`) a request was refused
    /// for the limit first.
    TokenLimitReached(LimitNotice),
    /// Sent by `POST /webhooks/:id/test`.
    WebhookTest {
        /// The endpoint tested.
        endpoint_id: String,
    },
    /// An event type this SDK does not know yet.
    Unknown {
        /// The `type` field.
        kind: String,
        /// The `data` object.
        data: Value,
    },
}

/// What a limit event says about the token (never its secret).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LimitNotice {
    /// The token.
    #[serde(rename = "id")]
    pub token_id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// When the period started.
    pub period_start: DateTime<Utc>,
    /// The limit.
    #[serde(
        deserialize_with = "crate::credits::deserialize",
        serialize_with = "crate::credits::serialize"
    )]
    pub credit_limit: rust_decimal::Decimal,
    /// The period's spend when the event fired.
    #[serde(
        deserialize_with = "crate::credits::deserialize",
        serialize_with = "crate::credits::serialize"
    )]
    pub spent: rust_decimal::Decimal,
    /// The mark, in percent: 80, 95 or 100.
    pub threshold: u8,
    /// Whether a refused request, not the spend, hit the wall (100 only).
    #[serde(default)]
    pub refused: bool,
}

/// A body whose `data` is read again exactly (amounts from their JSON text).
#[derive(Deserialize)]
struct Exact<T> {
    data: T,
}

#[derive(Deserialize)]
struct Raw {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    created_at: DateTime<Utc>,
    #[serde(default)]
    data: Value,
}

impl Event {
    /// Parses a body (verify it first, or use [`verify_event`]).
    pub fn parse(body: &[u8]) -> Result<Event, serde_json::Error> {
        let raw: Raw = serde_json::from_slice(body)?;
        let text = |field: &str| {
            raw.data
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let kind = match raw.kind.as_str() {
            "token.rotated" => EventKind::TokenRotated {
                token_id: text("id").unwrap_or_default(),
                previous_secret_expires_at: text("previous_secret_expires_at")
                    .and_then(|t| t.parse().ok()),
            },
            "token.expiring" => EventKind::TokenExpiring {
                token_id: text("id").unwrap_or_default(),
                name: text("name").unwrap_or_default(),
                expires_at: text("expires_at").and_then(|t| t.parse().ok()),
                notice: text("notice").unwrap_or_default(),
            },
            "token.limit_threshold" => {
                EventKind::TokenLimitThreshold(serde_json::from_slice::<Exact<_>>(body)?.data)
            }
            "token.limit_reached" => {
                EventKind::TokenLimitReached(serde_json::from_slice::<Exact<_>>(body)?.data)
            }
            "webhook.test" => EventKind::WebhookTest {
                endpoint_id: text("id").unwrap_or_default(),
            },
            _ => EventKind::Unknown {
                kind: raw.kind.clone(),
                data: raw.data.clone(),
            },
        };
        Ok(Event {
            id: raw.id,
            created_at: raw.created_at,
            kind,
        })
    }

    /// The event's `type` string.
    pub fn kind_str(&self) -> &str {
        match &self.kind {
            EventKind::TokenRotated { .. } => "token.rotated",
            EventKind::TokenExpiring { .. } => "token.expiring",
            EventKind::TokenLimitThreshold(_) => "token.limit_threshold",
            EventKind::TokenLimitReached(_) => "token.limit_reached",
            EventKind::WebhookTest { .. } => "webhook.test",
            EventKind::Unknown { kind, .. } => kind,
        }
    }
}

/// Verifies a delivery's signature and parses its event. With `tolerance`, also refuses a
/// delivery whose `x-service-timestamp` is further than that from now (replay defence; opt-in,
/// since the signature covers only the body).
pub fn verify_event(
    secret: &[u8],
    headers: &HeaderMap,
    body: &[u8],
    tolerance: Option<Duration>,
) -> Result<Event, SignatureError> {
    let header = |name: &'static str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .ok_or(SignatureError::MissingHeader(name))
    };
    verify(secret, body, header(SIGNATURE_HEADER)?)?;
    if let Some(tolerance) = tolerance {
        let sent: i64 = header(TIMESTAMP_HEADER)?
            .trim()
            .parse()
            .map_err(|_| SignatureError::Stale)?;
        // Any i64 may arrive: the distance, not a difference that could overflow.
        let skew = Utc::now().timestamp().abs_diff(sent);
        if skew > tolerance.as_secs() {
            return Err(SignatureError::Stale);
        }
    }
    Event::parse(body).map_err(|_| SignatureError::InvalidBody)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::sign;

    fn headers(signature: &str, timestamp: i64) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(SIGNATURE_HEADER, signature.parse().unwrap());
        headers.insert(TIMESTAMP_HEADER, timestamp.to_string().parse().unwrap());
        headers
    }

    #[test]
    fn a_timestamp_at_the_ends_of_i64_is_stale_not_a_panic() {
        // Found by fuzz_verify_event_never_panics_and_only_accepts_signed_events_in_time.
        let body =
            br#"{"id": "evt_1", "type": "webhook.test", "created_at": "2026-01-01T00:00:00Z"}"#;
        let signature = sign(b"k", body);
        for sent in [i64::MIN, i64::MAX] {
            let verdict = verify_event(
                b"k",
                &headers(&signature, sent),
                body,
                Some(Duration::from_secs(300)),
            );
            assert_eq!(verdict, Err(SignatureError::Stale));
        }
    }

    #[test]
    fn verified_bodies_become_typed_events() {
        let body = br#"{"id":"evt_1","type":"token.expiring","created_at":"2026-11-22T10:00:00Z","data":{"id":"tok_1","name":"ci","expires_at":"2026-11-29T10:00:00Z","notice":"7d"}}"#;
        let now = Utc::now().timestamp();
        let event = verify_event(
            b"s",
            &headers(&sign(b"s", body), now),
            body,
            Some(Duration::from_secs(300)),
        )
        .unwrap();
        assert_eq!(event.kind_str(), "token.expiring");
        assert!(matches!(&event.kind, EventKind::TokenExpiring { notice, .. } if notice == "7d"));

        let limit = br#"{"id":"evt_3","type":"token.limit_threshold","created_at":"2026-11-22T10:00:00Z","data":{"id":"tok_1","name":"ci","period_start":"2026-11-01T00:00:00Z","credit_limit":25,"spent":20.000000001,"threshold":80}}"#;
        let event = verify_event(b"s", &headers(&sign(b"s", limit), now), limit, None).unwrap();
        assert_eq!(event.kind_str(), "token.limit_threshold");
        assert!(matches!(&event.kind, EventKind::TokenLimitThreshold(notice)
            if notice.spent.to_string() == "20.000000001" && notice.threshold == 80 && !notice.refused));

        let unknown = br#"{"id":"evt_2","type":"token.renamed","created_at":"2026-11-22T10:00:00Z","data":{"id":"tok_1"}}"#;
        let event = verify_event(b"s", &headers(&sign(b"s", unknown), now), unknown, None).unwrap();
        assert!(
            matches!(event.kind, EventKind::Unknown { ref kind, .. } if kind == "token.renamed")
        );
    }

    #[test]
    fn tampered_stale_and_unsigned_deliveries_are_refused() {
        let body = br#"{"id":"evt_1","type":"token.rotated","created_at":"2026-11-22T10:00:00Z","data":{"id":"tok_1"}}"#;
        let now = Utc::now().timestamp();
        let signed = headers(&sign(b"s", body), now);
        let tampered = br#"{"id":"evt_1","type":"token.rotated","created_at":"2026-11-22T10:00:00Z","data":{"id":"tok_2"}}"#;
        assert_eq!(
            verify_event(b"s", &signed, tampered, None),
            Err(SignatureError::Mismatch)
        );
        let old = headers(&sign(b"s", body), now - 3600);
        assert_eq!(
            verify_event(b"s", &old, body, Some(Duration::from_secs(300))),
            Err(SignatureError::Stale)
        );
        assert!(
            verify_event(b"s", &old, body, None).is_ok(),
            "the tolerance is opt-in"
        );
        assert_eq!(
            verify_event(b"s", &HeaderMap::new(), body, None),
            Err(SignatureError::MissingHeader(SIGNATURE_HEADER))
        );
    }
}
