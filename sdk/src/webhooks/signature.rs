//! Webhook signatures: `x-service-signature: sha256=<hex HMAC-SHA256 of the exact body>`,
//! keyed with the endpoint's secret. Verify the raw bytes as received, before parsing them.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "x-service-signature";

const PREFIX: &str = "sha256=";
const HEX_LEN: usize = 64;

/// Why a signature was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// The header does not start with `sha256=`.
    #[error("the signature does not start with \"sha256=\"")]
    MissingPrefix,
    /// The hex digest is not exactly 64 hex digits.
    #[error("the signature is not 64 hexadecimal digits")]
    Malformed,
    /// Well-formed, but not the signature of this body with this secret.
    #[error("the signature does not match the body")]
    Mismatch,
    /// A header the check needs is missing or not text.
    #[error("the {0} header is missing")]
    MissingHeader(&'static str),
    /// `x-service-timestamp` is outside the allowed tolerance (a replayed or delayed request).
    #[error("the event timestamp is outside the allowed tolerance")]
    Stale,
    /// The signature holds but the body is not an event.
    #[error("the body is not a webhook event")]
    InvalidBody,
}

/// Checks `header` (the value of `x-service-signature`) against `body` and `secret`.
///
/// The length and alphabet are checked before any comparison (a truncated signature never
/// verifies), and the comparison takes the same time wherever the first difference is.
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> Result<(), SignatureError> {
    let hex_digest = header
        .trim()
        .strip_prefix(PREFIX)
        .ok_or(SignatureError::MissingPrefix)?;
    if hex_digest.len() != HEX_LEN {
        return Err(SignatureError::Malformed);
    }
    let expected = hex::decode(hex_digest).map_err(|_| SignatureError::Malformed)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).map_err(|_| SignatureError::Mismatch)?;
    mac.update(body);
    mac.verify_slice(&expected)
        .map_err(|_| SignatureError::Mismatch)
}

/// The header value for `body` signed with `secret`: `sha256=<lowercase hex>`.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret) {
        Ok(mac) => mac,
        // HMAC takes keys of any length; this arm cannot be reached.
        Err(_) => return String::new(),
    };
    mac.update(body);
    format!("{PREFIX}{}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // GitHub's published example for the same scheme (x-hub-signature-256).
    const GITHUB_SECRET: &[u8] = b"It's a Secret to Everybody";
    const GITHUB_BODY: &[u8] = b"Hello, World!";
    const GITHUB_SIGNATURE: &str =
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    #[test]
    fn accepts_githubs_published_test_vector() {
        assert_eq!(verify(GITHUB_SECRET, GITHUB_BODY, GITHUB_SIGNATURE), Ok(()));
        assert_eq!(sign(GITHUB_SECRET, GITHUB_BODY), GITHUB_SIGNATURE);
        let upper = format!("sha256={}", GITHUB_SIGNATURE[7..].to_uppercase());
        assert_eq!(verify(GITHUB_SECRET, GITHUB_BODY, &upper), Ok(()));
    }

    #[test]
    fn refuses_a_tampered_body_or_wrong_secret() {
        assert_eq!(
            verify(GITHUB_SECRET, b"Hello, World?", GITHUB_SIGNATURE),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(b"another secret", GITHUB_BODY, GITHUB_SIGNATURE),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn refuses_wrong_prefixes() {
        let digest = &GITHUB_SIGNATURE[7..];
        for header in [
            digest.to_string(),
            format!("sha1={digest}"),
            format!("SHA256={digest}"),
        ] {
            assert_eq!(
                verify(GITHUB_SECRET, GITHUB_BODY, &header),
                Err(SignatureError::MissingPrefix),
                "{header}"
            );
        }
    }

    #[test]
    fn refuses_truncated_odd_length_and_non_hex_signatures() {
        let digest = &GITHUB_SIGNATURE[7..];
        let cases = [
            format!("sha256={}", &digest[..62]),
            format!("sha256={}", &digest[..63]),
            format!("sha256={digest}00"),
            "sha256=".to_string(),
            format!("sha256={}zz", &digest[..62]),
            format!("sha256={}", "g".repeat(64)),
        ];
        for header in cases {
            assert_eq!(
                verify(GITHUB_SECRET, GITHUB_BODY, &header),
                Err(SignatureError::Malformed),
                "{header}"
            );
        }
    }
}
