//! Property tests of the signature verifier, over inputs a sender (or an attacker) controls:
//! bodies, signature headers and timestamps. The suite runs each with proptest's default cases;
//! `bench/fuzz.sh` runs them for minutes. A failing input is written to `proptest-regressions/`
//! and replayed first from then on.

use std::time::Duration;

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::{
    Event, EventKind, SIGNATURE_HEADER, SignatureError, TIMESTAMP_HEADER, sign, verify,
    verify_event,
};

fn headers(signature: &str, timestamp: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in [(SIGNATURE_HEADER, signature), (TIMESTAMP_HEADER, timestamp)] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    headers
}

/// An instant between 1970 and 2100, to the millisecond.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800_000).prop_map(|ms| DateTime::from_timestamp_millis(ms).unwrap())
}

/// An event as the server sends it, and the body it is written as (compact or pretty).
fn event() -> impl Strategy<Value = (Event, Vec<u8>)> {
    let id = "[a-zA-Z0-9]{1,24}";
    let text = "\\PC{0,24}";
    let kind = prop_oneof![
        id.prop_map(|token_id| (
            "token.rotated".to_string(),
            json!({"id": token_id}),
            EventKind::TokenRotated {
                token_id,
                previous_secret_expires_at: None
            }
        )),
        (id, text, prop::option::of(instant()), "(7d|1d|1h)").prop_map(
            |(token_id, name, expires_at, notice)| (
                "token.expiring".to_string(),
                json!({"id": token_id, "name": name, "notice": notice,
                       "expires_at": expires_at.map(|t| t.to_rfc3339())}),
                EventKind::TokenExpiring {
                    token_id,
                    name,
                    expires_at,
                    notice
                }
            )
        ),
        id.prop_map(|endpoint_id| (
            "webhook.test".to_string(),
            json!({"id": endpoint_id}),
            EventKind::WebhookTest { endpoint_id }
        )),
        (
            "[a-z]{1,8}\\.[a-z]{1,8}",
            prop::collection::btree_map("[a-z_]{1,8}", text, 0..4)
        )
            .prop_filter("a type the SDK does not know", |(kind, _)| {
                !["token.rotated", "token.expiring", "webhook.test"].contains(&kind.as_str())
            })
            .prop_map(|(kind, data)| {
                let data = Value::Object(data.into_iter().map(|(k, v)| (k, v.into())).collect());
                (
                    kind.clone(),
                    data.clone(),
                    EventKind::Unknown { kind, data },
                )
            }),
    ];
    (id, instant(), kind, any::<bool>()).prop_map(|(id, created_at, (kind, data, parsed), pretty)| {
        let id = format!("evt_{id}");
        let raw = json!({"id": id, "type": kind, "created_at": created_at.to_rfc3339(), "data": data});
        let body = if pretty {
            serde_json::to_vec_pretty(&raw)
        } else {
            serde_json::to_vec(&raw)
        };
        let event = Event { id, created_at, kind: parsed };
        (event, body.unwrap())
    })
}

/// How a delivery of a well-formed event is signed.
#[derive(Debug, Clone)]
enum Signed {
    /// With the endpoint's secret.
    Genuinely,
    /// With a different secret.
    WithAnotherSecret,
    /// Genuinely, then one bit of the body flipped on the way.
    ThenTampered(prop::sample::Index, u8),
    /// Not at all: no signature header.
    Not,
}

/// The delivery's `x-service-timestamp`.
#[derive(Debug, Clone)]
enum Sent {
    /// Seconds from now, within the tolerance by a margin (a slow machine cannot cross it).
    Within(f64),
    /// Seconds from now, beyond the tolerance by a margin, before or after.
    Beyond(u64, bool),
    /// Not a number.
    Garbled(String),
    /// No header.
    Missing,
}

proptest! {
    #[test]
    fn fuzz_a_well_formed_event_is_read_as_sent_exactly_when_signed_and_in_time(
        (event, body) in event(),
        secret in prop::collection::vec(any::<u8>(), 1..40),
        signed in prop_oneof![
            6 => Just(Signed::Genuinely),
            1 => Just(Signed::WithAnotherSecret),
            1 => (any::<prop::sample::Index>(), 0u8..8).prop_map(|(at, bit)| Signed::ThenTampered(at, bit)),
            1 => Just(Signed::Not),
        ],
        sent in prop_oneof![
            6 => (0.0f64..1.0).prop_map(Sent::Within),
            2 => (0u64..1_000_000, any::<bool>()).prop_map(|(s, after)| Sent::Beyond(s, after)),
            1 => "[a-z ]{0,8}|12x".prop_map(Sent::Garbled),
            1 => Just(Sent::Missing),
        ],
        tolerance in prop::option::of(120u64..10_000_000),
    ) {
        // Margins of a minute either side of the tolerance: the check reads the clock itself.
        const MARGIN: u64 = 60;
        let now = Utc::now().timestamp();
        let timestamp = match &sent {
            Sent::Within(share) => {
                let reach = tolerance.map_or(MARGIN, |t| t - MARGIN) as f64;
                Some((now + (share * 2.0 * reach - reach) as i64).to_string())
            }
            Sent::Beyond(extra, after) => {
                let by = i64::try_from(tolerance.unwrap_or(0) + MARGIN + extra).unwrap();
                Some((if *after { now + by } else { now - by }).to_string())
            }
            Sent::Garbled(text) => Some(text.clone()),
            Sent::Missing => None,
        };
        let mut delivered = body.clone();
        let signature = match &signed {
            Signed::Genuinely => Some(sign(&secret, &body)),
            Signed::WithAnotherSecret => Some(sign(&[secret.as_slice(), b"x"].concat(), &body)),
            Signed::ThenTampered(at, bit) => {
                delivered[at.index(body.len())] ^= 1 << bit;
                Some(sign(&secret, &body))
            }
            Signed::Not => None,
        };
        let mut headers = HeaderMap::new();
        if let Some(signature) = signature {
            headers.insert(SIGNATURE_HEADER, HeaderValue::from_str(&signature).unwrap());
        }
        if let Some(timestamp) = &timestamp {
            headers.insert(TIMESTAMP_HEADER, HeaderValue::from_str(timestamp).unwrap());
        }
        let tolerance_given = tolerance.is_some();
        let expected = match (&signed, &sent) {
            (Signed::Not, _) => Err(SignatureError::MissingHeader(SIGNATURE_HEADER)),
            (Signed::WithAnotherSecret | Signed::ThenTampered(..), _) => Err(SignatureError::Mismatch),
            (Signed::Genuinely, _) if !tolerance_given => Ok(event),
            (Signed::Genuinely, Sent::Within(_)) => Ok(event),
            (Signed::Genuinely, Sent::Beyond(..) | Sent::Garbled(_)) => Err(SignatureError::Stale),
            (Signed::Genuinely, Sent::Missing) => Err(SignatureError::MissingHeader(TIMESTAMP_HEADER)),
        };
        let verdict = verify_event(&secret, &headers, &delivered, tolerance.map(Duration::from_secs));
        prop_assert_eq!(verdict, expected, "{}", String::from_utf8_lossy(&delivered));
    }

    #[test]
    fn fuzz_a_signature_verifies_its_own_body_and_nothing_else(
        secret in prop::collection::vec(any::<u8>(), 0..80),
        body in prop::collection::vec(any::<u8>(), 0..400),
        flip in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let signature = sign(&secret, &body);
        prop_assert_eq!(verify(&secret, &body, &signature), Ok(()));
        prop_assert_eq!(verify(&secret, &body, &signature.to_uppercase().replace("SHA256=", "sha256=")), Ok(()));
        if !body.is_empty() {
            let mut changed = body.clone();
            changed[flip.index(body.len())] ^= 1 << bit;
            prop_assert_eq!(verify(&secret, &changed, &signature), Err(SignatureError::Mismatch));
        }
        let mut other = secret.clone();
        other.push(1);
        prop_assert_eq!(verify(&other, &body, &signature), Err(SignatureError::Mismatch));
        // Cut anywhere, the signature never verifies.
        let cut = &signature[..flip.index(signature.len())];
        prop_assert!(verify(&secret, &body, cut).is_err());
    }

    #[test]
    fn fuzz_any_header_is_refused_without_panicking_unless_it_is_the_signature(
        secret in prop::collection::vec(any::<u8>(), 0..40),
        body in prop::collection::vec(any::<u8>(), 0..200),
        header in "(sha256=)?[0-9a-fA-F=\\- ]{0,70}|\\PC{0,80}",
    ) {
        let genuine = sign(&secret, &body);
        let verdict = verify(&secret, &body, &header);
        let same = header.trim().eq_ignore_ascii_case(&genuine);
        prop_assert_eq!(verdict.is_ok(), same, "{:?}", header);
    }

    #[test]
    fn fuzz_verify_event_never_panics_and_only_accepts_signed_events_in_time(
        secret in prop::collection::vec(any::<u8>(), 1..40),
        // Any bytes, or an event's body, so the checks of an accepted delivery run too.
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            event().prop_map(|(_, body)| body),
        ],
        signature in "\\PC{0,80}",
        timestamp in prop_oneof![
            any::<i64>().prop_map(|t| t.to_string()),
            "\\PC{0,24}",
            Just(i64::MIN.to_string()),
            Just(i64::MAX.to_string()),
        ],
        sign_it in any::<bool>(),
        tolerance in prop::option::of(0u64..10_000_000),
    ) {
        let signature = if sign_it { sign(&secret, &body) } else { signature };
        let tolerance = tolerance.map(Duration::from_secs);
        let verdict = verify_event(&secret, &headers(&signature, &timestamp), &body, tolerance);
        if verdict.is_ok() {
            prop_assert_eq!(verify(&secret, &body, &signature), Ok(()));
            if let Some(tolerance) = tolerance {
                let sent: i64 = timestamp.trim().parse().unwrap();
                let skew = chrono::Utc::now().timestamp().abs_diff(sent);
                prop_assert!(skew <= tolerance.as_secs() + 1);
            }
        }
    }
}
