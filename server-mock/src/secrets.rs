//! Identifiers, secrets and their digests.
//!
//! A secret is `tkt_` (token) or `tka_` (API key), 30 random base62 characters (178 bits) and a
//! 6-character checksum (the format lives in `tokctl-secrets`, which the SDK's scanner shares),
//! so a secret scanner can recognise one offline and the server can turn away a malformed
//! credential without touching storage. Only the SHA-256 digest is stored.

use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq;
use tokctl_secrets::{BASE62, RANDOM_LEN};

/// What kind of credential a secret is, told by its prefix.
pub use tokctl_secrets::Kind as CredentialKind;

const BASE36: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// A plain-text secret, shown to the user once. Its `Debug` never prints it.
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one response or file that must carry it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The digest that storage keeps.
    pub fn digest(&self) -> SecretDigest {
        SecretDigest::of(&self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// SHA-256 of a secret: what storage keeps and looks credentials up by.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SecretDigest(pub [u8; 32]);

impl SecretDigest {
    /// Digest of a presented secret.
    pub fn of(secret: &str) -> Self {
        SecretDigest(Sha256::digest(secret.as_bytes()).into())
    }

    /// Constant-time comparison with a stored digest.
    pub fn matches(&self, stored: &[u8]) -> bool {
        stored.len() == 32 && bool::from(self.0.as_slice().ct_eq(stored))
    }
}

impl std::fmt::Debug for SecretDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretDigest(..)")
    }
}

/// A new secret of the given kind.
pub fn new_secret(kind: CredentialKind) -> Secret {
    Secret(tokctl_secrets::seal(
        kind,
        &random_string(BASE62, RANDOM_LEN),
    ))
}

/// Tells a well-formed secret's kind; `None` when the prefix, length, alphabet or checksum is
/// wrong, so such a credential never reaches storage.
pub fn classify(secret: &str) -> Option<CredentialKind> {
    tokctl_secrets::check(secret)
}

/// A new webhook signing secret: `whsec_` + 40 random base62 characters (238 bits).
pub fn new_webhook_secret() -> String {
    format!("whsec_{}", random_string(BASE62, 40))
}

/// A new dashboard session secret: `tks_` + 43 random base62 characters (256 bits). It lives in
/// an HttpOnly cookie; storage keeps its digest.
pub fn new_session_secret() -> Secret {
    Secret(format!("tks_{}", random_string(BASE62, 43)))
}

/// The CSRF token of the session whose secret is `session`: derived from it one way, so the page
/// may hold it (and send it as a header) while the secret itself stays out of reach of scripts.
pub fn csrf_token(session: &str) -> String {
    hex::encode(Sha256::digest(format!("tokctl-csrf:{session}").as_bytes()))
}

/// A new identifier: `prefix` + 24 characters of `[0-9a-z]`.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", random_string(BASE36, 24))
}

/// Characters of a request id that carry its arrival time (microseconds since the epoch in
/// base 36: enough until the year 6000).
const REQUEST_TIME_LEN: usize = 11;

/// A new request id arriving at `at`: `req_` + its time (11 characters of `[0-9a-z]`,
/// microseconds since the epoch) + 13 random ones (67 bits): the shape of [`new_id`]'s, and
/// [`request_id_time`] reads the time back, so the request log finds an entry by its id
/// through the index it keeps by time.
pub fn new_request_id(at: chrono::DateTime<chrono::Utc>) -> String {
    let mut micros = u64::try_from(at.timestamp_micros()).unwrap_or(0);
    let mut time = [b'0'; REQUEST_TIME_LEN];
    for digit in time.iter_mut().rev() {
        *digit = BASE36[(micros % 36) as usize];
        micros /= 36;
    }
    let time = std::str::from_utf8(&time).unwrap_or_default();
    format!("req_{time}{}", random_string(BASE36, 24 - REQUEST_TIME_LEN))
}

/// The arrival time a request id of [`new_request_id`]'s shape carries (`None` for any other
/// id, such as one a client chose).
pub fn request_id_time(id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if !has_id_shape(id, "req_") {
        return None;
    }
    let micros = id[4..4 + REQUEST_TIME_LEN].bytes().try_fold(0u64, |n, b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            _ => b - b'a' + 10,
        };
        n.checked_mul(36)?.checked_add(u64::from(digit))
    })?;
    chrono::DateTime::from_timestamp_micros(i64::try_from(micros).ok()?)
}

/// Whether `id` has the shape of a token id (`tok_` + 24 of `[0-9a-z]`).
pub fn is_token_id(id: &str) -> bool {
    has_id_shape(id, "tok_")
}

/// Whether `id` has the shape of an API key id (`key_` + 24 of `[0-9a-z]`).
pub fn is_key_id(id: &str) -> bool {
    has_id_shape(id, "key_")
}

fn has_id_shape(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == 24
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

fn random_string(alphabet: &[u8], len: usize) -> String {
    // Rejection sampling keeps every character uniformly likely.
    let limit = 256 - (256 % alphabet.len());
    let mut out = String::with_capacity(len);
    POOL.with_borrow_mut(|pool| {
        while out.len() < len {
            let b = pool.next();
            if (b as usize) < limit {
                out.push(alphabet[b as usize % alphabet.len()] as char);
            }
        }
    });
    out
}

/// Bytes from the operating system's random source, fetched 4 KiB at a time per thread, so ids
/// and secrets cost no system call each (the bytes are as random as the source's).
struct RandomPool {
    bytes: [u8; 4096],
    used: usize,
}

impl RandomPool {
    fn next(&mut self) -> u8 {
        if self.used == self.bytes.len() {
            getrandom::fill(&mut self.bytes).expect("the operating system's random source failed");
            self.used = 0;
        }
        let b = self.bytes[self.used];
        // A byte is handed out once, then forgotten.
        self.bytes[self.used] = 0;
        self.used += 1;
        b
    }
}

thread_local! {
    static POOL: std::cell::RefCell<RandomPool> = const {
        std::cell::RefCell::new(RandomPool { bytes: [0; 4096], used: 4096 })
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_carries_its_arrival_time_to_the_microsecond() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-28T19:04:05.123456Z")
            .map(|t| t.to_utc())
            .unwrap();
        let id = new_request_id(at);
        assert!(has_id_shape(&id, "req_"), "{id}");
        assert_eq!(request_id_time(&id), Some(at));
        assert_ne!(new_request_id(at), id, "two ids of one microsecond differ");
        // Ids a client chose, or of another shape, carry no time.
        for other in [
            "req_abc",
            "my-trace-1",
            "tok_0123456789abcdefghijklmn",
            "req_ZZZZZZZZZZZZZZZZZZZZZZZZ",
        ] {
            assert_eq!(request_id_time(other), None, "{other}");
        }
    }

    #[test]
    fn secrets_classify_by_prefix_and_checksum() {
        let token = new_secret(CredentialKind::Token);
        let key = new_secret(CredentialKind::ApiKey);
        assert_eq!(classify(token.expose()), Some(CredentialKind::Token));
        assert_eq!(classify(key.expose()), Some(CredentialKind::ApiKey));
        assert_eq!(token.expose().len(), 40);

        let mut tampered = token.expose().to_string();
        let last = tampered.pop().unwrap();
        tampered.push(if last == 'a' { 'b' } else { 'a' });
        assert_eq!(classify(&tampered), None);
        assert_eq!(classify("tok_abc"), None);
        assert_eq!(classify(""), None);
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let secret = new_secret(CredentialKind::Token);
        assert!(!format!("{secret:?}").contains(secret.expose()));
    }

    #[test]
    fn ids_have_the_contract_shape() {
        let id = new_id("tok_");
        assert!(is_token_id(&id), "{id}");
        assert!(!is_token_id("tok_ABC"));
        assert!(!is_token_id("key_aaaaaaaaaaaaaaaaaaaaaaaa"));
    }
}
