//! The key shapes of the common AI, cloud and developer-platform providers, so that a scan
//! reports an OpenAI or AWS key beside a tokctl one, and the server redacts them from the text
//! it keeps. Shapes, not checksums: most providers' keys carry none, so a run of characters
//! that merely looks like a key is reported too (a scan calls these findings less certain than
//! a tokctl secret, whose checksum holds).

use std::sync::LazyLock;

use regex::bytes::Regex;

/// A provider whose keys have a recognisable shape.
#[derive(Debug, PartialEq, Eq)]
pub struct Provider {
    /// A stable identifier for reports and scripts, e.g. `openai_api_key`.
    pub id: &'static str,
    /// What the key is, for people: `OpenAI API key`.
    pub name: &'static str,
    /// Where such a key is revoked.
    pub revoke_at: &'static str,
    /// The starts a key of this provider has, most specific first; the first that a key starts
    /// with is kept when it is masked.
    prefixes: &'static [&'static str],
    /// The whole key, written for the `regex` crate, without the word boundary before it.
    pattern: &'static str,
}

/// Every provider known, in the order a key is told apart by its start (Anthropic's `sk-ant-`
/// before OpenAI's `sk-`).
pub const PROVIDERS: &[Provider] = &[
    Provider {
        id: "anthropic_api_key",
        name: "Anthropic API key",
        revoke_at: "https://console.anthropic.com/settings/keys",
        prefixes: &["sk-ant-"],
        pattern: r"sk-ant-[0-9A-Za-z_-]{20,}",
    },
    Provider {
        id: "openai_api_key",
        name: "OpenAI API key",
        revoke_at: "https://platform.openai.com/api-keys",
        prefixes: &["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"],
        pattern: r"sk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_-]{20,}",
    },
    Provider {
        id: "aws_access_key_id",
        name: "AWS access key id",
        revoke_at: "the AWS IAM console (the secret access key that goes with it is leaked too)",
        prefixes: &["AKIA", "ASIA"],
        pattern: r"(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
    },
    Provider {
        id: "github_token",
        name: "GitHub token",
        revoke_at: "https://github.com/settings/tokens",
        prefixes: &["github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        pattern: r"gh[pousr]_[0-9A-Za-z]{36,}|github_pat_[0-9A-Za-z_]{22,}",
    },
    Provider {
        id: "google_api_key",
        name: "Google API key",
        revoke_at: "https://console.cloud.google.com/apis/credentials",
        prefixes: &["AIza"],
        pattern: r"AIza[0-9A-Za-z_-]{35}",
    },
    Provider {
        id: "slack_token",
        name: "Slack token",
        revoke_at: "https://api.slack.com/apps",
        prefixes: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        pattern: r"xox[abprs]-[0-9A-Za-z-]{10,}",
    },
    Provider {
        id: "stripe_secret_key",
        name: "Stripe secret key",
        revoke_at: "https://dashboard.stripe.com/apikeys",
        prefixes: &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        pattern: r"[sr]k_(?:live|test)_[0-9A-Za-z]{16,}",
    },
    Provider {
        id: "groq_api_key",
        name: "Groq API key",
        revoke_at: "https://console.groq.com/keys",
        prefixes: &["gsk_"],
        pattern: r"gsk_[0-9A-Za-z]{20,}",
    },
    Provider {
        id: "xai_api_key",
        name: "xAI API key",
        revoke_at: "https://console.x.ai",
        prefixes: &["xai-"],
        pattern: r"xai-[0-9A-Za-z]{20,}",
    },
    Provider {
        id: "huggingface_token",
        name: "Hugging Face token",
        revoke_at: "https://huggingface.co/settings/tokens",
        prefixes: &["hf_"],
        pattern: r"hf_[0-9A-Za-z]{30,}",
    },
    Provider {
        id: "webhook_secret",
        name: "webhook signing secret",
        revoke_at: "where the webhook is configured (tokctl: `tokctl webhooks rotate-secret`)",
        prefixes: &["whsec_"],
        pattern: r"whsec_[0-9A-Za-z+/=_-]{16,}",
    },
];

impl Provider {
    /// The provider a key found by [`find_keys`] belongs to.
    pub fn of(key: &str) -> Option<&'static Provider> {
        PROVIDERS.iter().find(|p| p.prefix_of(key).is_some())
    }

    /// The key's known start and its last 4 characters, e.g. `sk-proj-...x9Qz`.
    pub fn mask(&self, key: &str) -> String {
        let prefix = self.prefix_of(key).unwrap_or("");
        match key.len().checked_sub(4) {
            Some(start) if start >= prefix.len() && key.is_char_boundary(start) => {
                format!("{prefix}...{}", &key[start..])
            }
            _ => "****".to_string(),
        }
    }

    fn prefix_of(&self, key: &str) -> Option<&'static str> {
        self.prefixes.iter().copied().find(|p| key.starts_with(p))
    }
}

/// The providers' shapes as one regular expression (the `regex` crate's syntax, which ripgrep
/// shares), each after a word boundary (ASCII, so that the search stays on the fast path
/// whatever the text's bytes).
pub fn pattern() -> String {
    PROVIDERS
        .iter()
        .map(|p| format!("(?-u:\\b)(?:{})", p.pattern))
        .collect::<Vec<_>>()
        .join("|")
}

static KEYS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(&pattern()).ok());

/// A key of a provider found in a text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ProviderKey<'h> {
    /// Byte offset of its first character in the text.
    pub offset: usize,
    /// Whose key it is.
    pub provider: &'static Provider,
    /// The key itself, borrowed from the text.
    pub key: &'h str,
}

impl std::fmt::Debug for ProviderKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderKey")
            .field("offset", &self.offset)
            .field("provider", &self.provider.id)
            .field("key", &self.provider.mask(self.key))
            .finish()
    }
}

/// Every provider key in `haystack`, in order. Bytes that are not UTF-8 are fine.
pub fn find_keys(haystack: &[u8]) -> impl Iterator<Item = ProviderKey<'_>> {
    find_keys_at(haystack, 0)
}

/// [`find_keys`] from byte `start` on; the bytes before it are read only as context (a key
/// right after a letter is not one).
pub fn find_keys_at(haystack: &[u8], start: usize) -> impl Iterator<Item = ProviderKey<'_>> {
    let mut at = start;
    std::iter::from_fn(move || {
        let keys = KEYS.as_ref()?;
        loop {
            let m = keys.find_at(haystack, at)?;
            // No shape matches the empty string, so the search always moves on.
            at = m.end().max(at + 1);
            // Every shape is ASCII.
            let Ok(key) = std::str::from_utf8(m.as_bytes()) else {
                continue;
            };
            if let Some(provider) = Provider::of(key) {
                return Some(ProviderKey {
                    offset: m.start(),
                    provider,
                    key,
                });
            }
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One made-up key of each provider, in `PROVIDERS`' order, with whose it is.
    pub(crate) const SAMPLES: &[(&str, &str)] = &[
        (
            "anthropic_api_key",
            "sk-ant-api03-Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c",
        ),
        ("openai_api_key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
        ("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE"),
        ("github_token", "ghp_0123456789abcdefghijABCDEFGHIJ012345"),
        ("google_api_key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
        ("slack_token", "xoxb-1234567890-abcdefghij"),
        ("stripe_secret_key", "sk_live_51Habcdefghijklmnop"),
        ("groq_api_key", "gsk_abcdefghijklmnopqrstuvwx"),
        ("xai_api_key", "xai-abcdefghijklmnopqrstuvwx"),
        ("huggingface_token", "hf_abcdefghijklmnopqrstuvwxyzABCDEF"),
        ("webhook_secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    ];

    #[test]
    fn each_providers_key_is_found_where_it_is_and_told_apart() {
        assert_eq!(SAMPLES.len(), PROVIDERS.len());
        let mut text = String::from("é ");
        let mut expected = Vec::new();
        for &(id, sample) in SAMPLES {
            text.push_str("key=");
            expected.push((text.len(), id, sample));
            text.push_str(sample);
            text.push_str(";\n");
        }
        let found: Vec<_> = find_keys(text.as_bytes())
            .map(|k| (k.offset, k.provider.id, k.key))
            .collect();
        assert_eq!(found, expected);
        // A GitHub fine-grained token, and OpenAI's older keys with no project.
        let more =
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop sk-0123456789abcdefghijT3BlbkFJ";
        let ids: Vec<_> = find_keys(more.as_bytes()).map(|k| k.provider.id).collect();
        assert_eq!(ids, ["github_token", "openai_api_key"]);
    }

    #[test]
    fn near_misses_are_not_keys() {
        let text = "task-management-service-configuration sk-short AKIAIOSFODNN7EXAMPL \
                    xAKIAIOSFODNN7EXAMPLE ghp_tooshort hf_with_underscores_in_between_here \
                    desk-0123456789abcdefghijklmnop";
        assert_eq!(find_keys(text.as_bytes()).count(), 0, "{text}");
    }

    #[test]
    fn masks_keep_the_known_start_and_the_last_four() {
        let openai = Provider::of("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z").unwrap();
        assert_eq!(openai.id, "openai_api_key");
        assert_eq!(
            openai.mask("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
            "sk-proj-...Xy4z"
        );
        let aws = Provider::of("AKIAIOSFODNN7EXAMPLE").unwrap();
        assert_eq!(aws.mask("AKIAIOSFODNN7EXAMPLE"), "AKIA...MPLE");
        assert_eq!(aws.mask("AKIA12"), "****");
    }
}
