//! Recognising tokctl secrets offline: check one string, or find every secret in a text; and
//! the common providers' key shapes ([`providers`]), found beside them by [`find_leaks`] and
//! taken out of a text by [`redact`].
//!
//! Every secret the service issues is `tkt_` (token) or `tka_` (API key), 30 random base62
//! characters and a 6-character checksum, 40 characters in all, so a scanner can tell a real
//! secret from a near miss (one character changed, truncated, wrong checksum) without asking
//! the server. The server makes its secrets with this same code.
//!
//! ```
//! use tokctl_sdk::secrets::{self, Kind};
//!
//! let leaked = secrets::seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
//! let log = format!("curl -H 'Authorization: Bearer {leaked}' ...");
//! for found in secrets::find(log.as_bytes()) {
//!     println!("{} at byte {}: {}", found.kind, found.offset, secrets::mask(found.secret));
//! }
//! assert_eq!(secrets::check(&leaked), Some(Kind::Token));
//! ```

#[doc(inline)]
pub use tokctl_secrets::{
    BASE62, Credential, Finds, Found, Kind, Leak, RANDOM_LEN, REDACTED, SECRET_LEN, check,
    check_bytes, find, find_leaks, find_leaks_at, mask, providers, redact, seal,
};
