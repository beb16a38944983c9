//! The tokctl secret format, shared by the server that makes secrets and the tools that look
//! for leaked ones; and the common providers' key shapes ([`providers`]), which a scan finds
//! beside tokctl's ([`find_leaks`]) and the server takes out of the text it keeps ([`redact`]).
//!
//! A secret is 40 ASCII characters: a prefix naming its kind (`tkt_` for a token, `tka_` for an
//! API key), 30 random base62 characters (178 bits) and a 6-character base62 checksum. The
//! checksum is the first 4 bytes of SHA-256(prefix + random part), as a big-endian number
//! written in base62 with leading zeros. Because it covers the prefix, turning a token's
//! secret into an API key's by changing one letter breaks it like any other typo.
//!
//! Secrets made before the checksum covered the prefix (SHA-256 of the random part alone) are
//! still recognised, so nothing issued earlier stops working or escapes a scan.
//!
//! ```
//! use tokctl_secrets::{Kind, check, find, seal};
//!
//! let secret = seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
//! assert_eq!(check(&secret), Some(Kind::Token));
//!
//! let text = format!("export TOKCTL_API_KEY={secret}\n");
//! let found: Vec<_> = find(text.as_bytes()).collect();
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].offset, 22);
//! assert_eq!(found[0].secret, secret);
//! ```

use std::sync::LazyLock;

use memchr::memmem;
use sha2::{Digest as _, Sha256};

/// Length of every secret, in bytes (all ASCII).
pub const SECRET_LEN: usize = PREFIX_LEN + RANDOM_LEN + CHECKSUM_LEN;
/// Length of the random part.
pub const RANDOM_LEN: usize = 30;
/// The characters of the random part and the checksum.
pub const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const PREFIX_LEN: usize = 4;
const CHECKSUM_LEN: usize = 6;

/// What kind of credential a secret is, told by its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An API key: `tka_...`.
    ApiKey,
    /// A token's secret: `tkt_...`.
    Token,
}

impl Kind {
    /// The prefix every secret of this kind starts with.
    pub const fn prefix(self) -> &'static str {
        match self {
            Kind::ApiKey => "tka_",
            Kind::Token => "tkt_",
        }
    }

    /// A name for people and reports: `token` or `api_key`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::ApiKey => "api_key",
            Kind::Token => "token",
        }
    }

    fn of_prefix(prefix: &[u8]) -> Option<Kind> {
        match prefix {
            b"tkt_" => Some(Kind::Token),
            b"tka_" => Some(Kind::ApiKey),
            _ => None,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of `candidate` when it is exactly one well-formed secret (prefix, length, alphabet
/// and checksum); `None` for anything else, including a secret with text around it.
pub fn check(candidate: &str) -> Option<Kind> {
    check_bytes(candidate.as_bytes())
}

/// [`check`] on bytes.
pub fn check_bytes(candidate: &[u8]) -> Option<Kind> {
    if candidate.len() != SECRET_LEN {
        return None;
    }
    let (prefix, body) = candidate.split_at(PREFIX_LEN);
    let kind = Kind::of_prefix(prefix)?;
    if !body.iter().all(|&b| is_base62(b)) {
        return None;
    }
    let (random, sum) = body.split_at(RANDOM_LEN);
    let sealed = checksum(&[prefix, random]);
    // Before the checksum covered the prefix it covered the random part alone.
    (sum == sealed || sum == checksum(&[random])).then_some(kind)
}

/// The secret of `kind` with random part `random` (30 base62 characters): the prefix, the
/// random part and its checksum. The caller supplies the randomness.
pub fn seal(kind: Kind, random: &str) -> String {
    let prefix = kind.prefix();
    let sum = checksum(&[prefix.as_bytes(), random.as_bytes()]);
    let mut secret = String::with_capacity(SECRET_LEN);
    secret.push_str(prefix);
    secret.push_str(random);
    // The checksum is base62, so ASCII.
    secret.extend(sum.iter().map(|&b| char::from(b)));
    secret
}

/// A secret's prefix and last 4 characters, e.g. `tkt_...x9Qz`: enough to tell which one was
/// found without showing it. Anything that is not a secret's shape is masked whole.
pub fn mask(secret: &str) -> String {
    match (secret.get(..PREFIX_LEN), secret.len().checked_sub(4)) {
        (Some(prefix), Some(start))
            if secret.len() == SECRET_LEN && secret.is_char_boundary(start) =>
        {
            format!("{prefix}...{}", &secret[start..])
        }
        _ => "****".to_string(),
    }
}

/// A well-formed secret found in a text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Found<'h> {
    /// Byte offset of its first character in the text.
    pub offset: usize,
    /// Its kind.
    pub kind: Kind,
    /// The secret itself, borrowed from the text.
    pub secret: &'h str,
}

impl std::fmt::Debug for Found<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Found")
            .field("offset", &self.offset)
            .field("kind", &self.kind)
            .field("secret", &mask(self.secret))
            .finish()
    }
}

/// Every well-formed secret in `haystack`, in order, with its offset. Bytes that are not UTF-8
/// are fine. The search looks for the common start of both prefixes with SIMD and checks only
/// the places it finds; nothing is allocated.
pub fn find(haystack: &[u8]) -> Finds<'_> {
    Finds {
        haystack,
        starts: START.find_iter(haystack),
    }
}

/// The iterator [`find`] returns.
pub struct Finds<'h> {
    haystack: &'h [u8],
    starts: memmem::FindIter<'h, 'static>,
}

impl<'h> Iterator for Finds<'h> {
    type Item = Found<'h>;

    fn next(&mut self) -> Option<Found<'h>> {
        for offset in self.starts.by_ref() {
            let Some(candidate) = self.haystack.get(offset..offset + SECRET_LEN) else {
                // Every later start is nearer the end still.
                return None;
            };
            if let Some(kind) = check_bytes(candidate) {
                // A well-formed secret is ASCII.
                let secret = std::str::from_utf8(candidate).ok()?;
                return Some(Found {
                    offset,
                    kind,
                    secret,
                });
            }
        }
        None
    }
}

/// What both prefixes start with.
static START: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"tk"));

fn is_base62(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn checksum(parts: &[&[u8]]) -> [u8; CHECKSUM_LEN] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    let digest = hasher.finalize();
    let mut n = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let mut out = [b'0'; CHECKSUM_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out
}

mod leaks;
pub mod providers;
mod redact;

pub use leaks::{Credential, Leak, find_leaks, find_leaks_at};
pub use redact::{REDACTED, redact};

#[cfg(test)]
mod tests;
