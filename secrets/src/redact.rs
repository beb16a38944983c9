//! Secrets taken out of text that is kept or sent on (message content in traces and stored
//! request bodies): tokctl's own credentials by their shape (`tkt_`, `tka_`; a mistyped one is
//! redacted too) and every provider key shape that [`crate::providers`] knows, each replaced by
//! [`REDACTED`].

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// What a secret becomes.
pub const REDACTED: &str = "[REDACTED]";

static SHAPES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let own = r"(?-u:\b)tk[at]_[0-9A-Za-z]{36}(?-u:\b)";
    Regex::new(&format!("{own}|{}", crate::providers::pattern())).ok()
});

/// `text` with every secret-shaped run replaced by [`REDACTED`] (borrowed when there is none).
/// Should the patterns fail to build, nothing passes: the whole text is redacted.
pub fn redact(text: &str) -> Cow<'_, str> {
    match SHAPES.as_ref() {
        Some(shapes) => shapes.replace_all(text, REDACTED),
        None => Cow::Borrowed(REDACTED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, seal};

    #[test]
    fn tokctls_own_and_every_providers_keys_are_redacted_and_the_rest_kept() {
        let token = seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
        let key = seal(Kind::ApiKey, "0123456789abcdefghijABCDEFGHIJ");
        let mistyped = format!("{}x", &token[..39]);
        // tokctl's own (a mistyped one too), and a GitHub fine-grained token, as the server's
        // redaction test planted before the list moved here.
        let own = [
            token.as_str(),
            key.as_str(),
            mistyped.as_str(),
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        ];
        let providers = crate::providers::tests::SAMPLES.iter().map(|&(_, key)| key);
        for secret in own.into_iter().chain(providers) {
            let text = format!("my key is {secret}, please keep it");
            let redacted = redact(&text);
            assert_eq!(
                redacted,
                format!("my key is {REDACTED}, please keep it"),
                "{secret}"
            );
        }
        let plain = "ask the skeleton crew about tka and tkt, and sk-short, in データ";
        assert!(matches!(redact(plain), Cow::Borrowed(_)));
        assert_eq!(redact(plain), plain);
    }
}
