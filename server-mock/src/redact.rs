//! Secrets taken out of text the server keeps or sends on (message content in traces): the
//! project's own credentials (`tkt_`, `tka_`, webhook `whsec_` secrets) and the key shapes of
//! the common providers (OpenAI and Anthropic `sk-`, AWS access key ids, GitHub, Google,
//! Slack, Stripe, Groq, xAI, Hugging Face), each replaced by [`REDACTED`]. Shapes, not
//! checksums: a mistyped key is redacted too.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// What a secret becomes.
pub const REDACTED: &str = "[REDACTED]";

static SHAPES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\btk[at]_[0-9A-Za-z]{36}\b",
        r"|\bwhsec_[0-9A-Za-z+/=_-]{16,}",
        r"|\bsk-(?:ant-|proj-|svcacct-|admin-)?[0-9A-Za-z_-]{20,}",
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        r"|\bgh[pousr]_[0-9A-Za-z]{36,}",
        r"|\bgithub_pat_[0-9A-Za-z_]{22,}",
        r"|\bAIza[0-9A-Za-z_-]{35}",
        r"|\bxox[abprs]-[0-9A-Za-z-]{10,}",
        r"|\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}",
        r"|\bgsk_[0-9A-Za-z]{20,}",
        r"|\bxai-[0-9A-Za-z]{20,}",
        r"|\bhf_[0-9A-Za-z]{30,}",
    ))
    .ok()
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
    use crate::secrets::{CredentialKind, new_secret};

    #[test]
    fn the_projects_own_and_the_providers_keys_are_redacted_and_the_rest_kept() {
        let token = new_secret(CredentialKind::Token);
        let key = new_secret(CredentialKind::ApiKey);
        let planted = [
            token.expose(),
            key.expose(),
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
            "sk-ant-api03-Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "xoxb-1234567890-abcdefghij",
            "sk_live_51Habcdefghijklmnop",
            "gsk_abcdefghijklmnopqrstuvwx",
            "xai-abcdefghijklmnopqrstuvwx",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        ];
        for secret in planted {
            let text = format!("my key is {secret}, please keep it");
            let redacted = redact(&text);
            assert_eq!(
                redacted,
                format!("my key is {REDACTED}, please keep it"),
                "{secret}"
            );
        }
        let plain = "ask the skeleton crew about tka and tkt, and sk-short";
        assert!(matches!(redact(plain), Cow::Borrowed(_)));
        assert_eq!(redact(plain), plain);
    }
}
