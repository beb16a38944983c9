//! Property tests of the signature verifier, over inputs a sender (or an attacker) controls:
//! bodies, signature headers and timestamps. The suite runs each with proptest's default cases;
//! `bench/fuzz.sh` runs them for minutes. A failing input is written to `proptest-regressions/`
//! and replayed first from then on.

use std::time::Duration;

use proptest::prelude::*;
use reqwest::header::{HeaderMap, HeaderValue};

use super::{SIGNATURE_HEADER, SignatureError, TIMESTAMP_HEADER, sign, verify, verify_event};

fn headers(signature: &str, timestamp: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in [(SIGNATURE_HEADER, signature), (TIMESTAMP_HEADER, timestamp)] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    headers
}

proptest! {
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
        body in prop::collection::vec(any::<u8>(), 0..300),
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
