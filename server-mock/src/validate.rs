//! The rules a request's values must follow, at the ground floor: the grammars of names and
//! webhook URLs (as patterns the OpenAPI document publishes, and as the checks the handlers
//! make, held equal by the tests below), scopes and expiry times. Handlers and the document
//! both read them here; nothing here knows of either.

use std::sync::LazyLock;

use chrono::{DateTime, SubsecRound, Utc};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};

use crate::http::error::{ApiError, Result};
use crate::store::Scope;

/// A token or key name: 1 to 100 characters once the whitespace around it is trimmed (Rust's
/// `trim`, the Unicode White_Space characters), none of them a control character.
pub const NAME_PATTERN: &str = concat!(
    r"^[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*",
    r"[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f]",
    r"(?:[^\x00-\x1f\x7f-\x9f]{0,98}",
    r"[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f])?",
    r"[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$"
);

/// One label of a DNS name starting with a character of `$first`: letters, digits and hyphens,
/// no hyphen first or last, and not hyphens in both 3rd and 4th place (IDNA reserves that form
/// for `xn--` labels, which the URL parser would have to decode).
macro_rules! dns_label {
    ($first:literal) => {
        concat!(
            "(?:",
            $first,
            "(?:[A-Za-z0-9-]?[A-Za-z0-9])?|",
            $first,
            "[A-Za-z0-9-]{2}[A-Za-z0-9]|",
            $first,
            "[A-Za-z0-9-](?:[A-Za-z0-9][A-Za-z0-9-]|-[A-Za-z0-9])[A-Za-z0-9-]*[A-Za-z0-9])"
        )
    };
}

/// `http` or `https`, a DNS name (its last label starting with a letter, so it is never read as
/// an address) or an IPv4 address, an optional port and path: the start of [`URL_PATTERN`] and
/// [`FACILITATOR_URL_PATTERN`].
macro_rules! http_url_pattern {
    () => {
        concat!(
    r"^https?://(?:",
    "(?:",
    dns_label!("[A-Za-z0-9]"),
    r"\.)*",
    dns_label!("[A-Za-z]"),
    r"|(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])",
    r")(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?",
    r"(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?"
        )
    };
}

/// A webhook URL: `http` or `https`, a DNS name (its last label starting with a letter, so it
/// is never read as an address) or an IPv4 address, an optional port, path and query; no user,
/// no fragment, no surrounding whitespace. The server checks this very pattern.
pub const URL_PATTERN: &str = concat!(
    http_url_pattern!(),
    r"(?:\?(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$"
);

/// An x402 facilitator's base URL: as [`URL_PATTERN`], without a query. The server checks this
/// very pattern.
pub const FACILITATOR_URL_PATTERN: &str = concat!(http_url_pattern!(), "$");

/// A string matching `pattern`.
fn string_matching(pattern: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern))
}

/// The schema of a name (tokens, keys), as [`NAME_PATTERN`] says.
pub fn name_schema() -> utoipa::openapi::Object {
    string_matching(NAME_PATTERN).build()
}

/// The schema of a webhook URL, as [`URL_PATTERN`] says.
pub fn url_schema() -> utoipa::openapi::Object {
    string_matching(URL_PATTERN)
        .format(Some(utoipa::openapi::SchemaFormat::Custom("uri".into())))
        .build()
}

/// The schema of an x402 facilitator's base URL, as [`FACILITATOR_URL_PATTERN`] says.
pub fn facilitator_url_schema() -> utoipa::openapi::Object {
    string_matching(FACILITATOR_URL_PATTERN)
        .format(Some(utoipa::openapi::SchemaFormat::Custom("uri".into())))
        .build()
}

/// The schema of short text without control characters, as [`TEXT_PATTERN`] says.
pub fn text_schema() -> utoipa::openapi::Object {
    string_matching(TEXT_PATTERN).build()
}

/// The schema of a list of scope names, at least one.
pub fn scope_names_schema() -> utoipa::openapi::Array {
    names_schema(Scope::ALL.map(Scope::as_str))
}

/// The schema of a list of at least one of `names`.
pub fn names_schema<const N: usize>(names: [&str; N]) -> utoipa::openapi::Array {
    let item = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names));
    ArrayBuilder::new().items(item).min_items(Some(1)).build()
}

/// A token or key name, trimmed: 1 to 100 characters, no control characters (422 otherwise).
/// [`NAME_PATTERN`] says the same to the OpenAPI document's readers.
pub fn name(raw: &str) -> Result<String> {
    let name = raw.trim();
    let length = name.chars().count();
    if !(1..=100).contains(&length) {
        return Err(ApiError::Unprocessable(
            "name must be 1 to 100 characters".into(),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::Unprocessable(
            "name must not contain control characters".into(),
        ));
    }
    Ok(name.to_string())
}

/// Scope names: at least one, each known (422 otherwise); repeats dropped.
pub fn scopes(raw: &[String]) -> Result<Vec<Scope>> {
    if raw.is_empty() {
        return Err(ApiError::Unprocessable(
            "scopes must name at least one scope".into(),
        ));
    }
    let mut scopes = Vec::new();
    for name in raw {
        let scope = Scope::parse(name).ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "scopes: unknown scope {:?}; GET /v1/scopes lists them",
                crate::http::error::truncate(name, 40)
            ))
        })?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

/// An `expires_at`: an RFC 3339 datetime with a time zone, after `now` (422 otherwise),
/// to the microsecond the stores keep.
pub fn expiry(raw: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let at = DateTime::parse_from_rfc3339(raw.trim())
        .map_err(|_| {
            ApiError::Unprocessable(
                "expires_at must be an ISO 8601 / RFC 3339 datetime with a time zone, \
                 e.g. 2030-01-01T00:00:00Z"
                    .into(),
            )
        })?
        .with_timezone(&Utc)
        .trunc_subsecs(6);
    if at <= now {
        return Err(ApiError::Unprocessable(
            "expires_at must be in the future".into(),
        ));
    }
    Ok(at)
}

/// [`URL_PATTERN`], compiled once.
static URL_GRAMMAR: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(URL_PATTERN).ok());

/// A webhook URL: it must match [`URL_PATTERN`] and parse as an http or https URL with a host
/// (422 otherwise).
pub fn webhook_url(url: &str) -> Result<()> {
    let documented = URL_GRAMMAR
        .as_ref()
        .is_some_and(|grammar| grammar.is_match(url));
    let parsed = reqwest::Url::parse(url).ok().filter(|_| documented);
    if !parsed.is_some_and(|p| matches!(p.scheme(), "http" | "https") && p.host_str().is_some()) {
        return Err(ApiError::Unprocessable(
            "url must be an http or https URL with a DNS name or IPv4 address, without a user or fragment"
                .into(),
        ));
    }
    Ok(())
}

/// Text of 1 to 100 characters, none of them a control character (an x402 asset's EIP-712
/// domain name and version).
pub const TEXT_PATTERN: &str = r"^[^\x00-\x1f\x7f-\x9f]{1,100}$";

/// `value` of `field` if it is [`TEXT_PATTERN`]'s (422 naming the field, and saying `what`).
pub fn text(field: &str, value: &str, what: &str) -> Result<()> {
    let length = value.chars().count();
    if (1..=100).contains(&length) && !value.chars().any(char::is_control) {
        return Ok(());
    }
    Err(ApiError::Unprocessable(format!(
        "{field} must be 1 to 100 characters without control characters: {what}"
    )))
}

/// An EVM address: `0x` and 40 hexadecimal digits, in any case.
pub const ADDRESS_PATTERN: &str = "^0x[0-9a-fA-F]{40}$";
/// A CAIP-2 EVM network, `eip155:` and the chain id.
pub const NETWORK_PATTERN: &str = "^eip155:[1-9][0-9]{0,18}$";
/// A whole number of a token's atomic units, 1 or more (at most 60 digits).
pub const ATOMIC_PATTERN: &str = "^[1-9][0-9]{0,59}$";

/// `value` of `field` as an address in its EIP-55 checksum form (422 naming the field).
pub fn address(field: &str, value: &str) -> Result<String> {
    let valid = value.len() == 42 && value.starts_with("0x");
    value
        .parse::<alloy_primitives::Address>()
        .ok()
        .filter(|_| valid)
        .map(|address| address.to_checksum(None))
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "{field} must be an address: 0x and 40 hexadecimal digits"
            ))
        })
}

/// A CAIP-2 EVM network such as `eip155:84532` (422 otherwise).
pub fn network(value: &str) -> Result<()> {
    let chain = value
        .strip_prefix("eip155:")
        .and_then(|id| id.parse::<u64>().ok());
    match chain {
        Some(id) if id > 0 && !value.contains('+') && !value[7..].starts_with('0') => Ok(()),
        _ => Err(ApiError::Unprocessable(
            "network must be a CAIP-2 EVM network: eip155: and the chain id, e.g. eip155:84532"
                .into(),
        )),
    }
}

/// A whole, positive number of atomic units in `field` (422 naming it otherwise).
pub fn atomic(field: &str, value: &str) -> Result<()> {
    let digits =
        !value.is_empty() && value.len() <= 60 && value.bytes().all(|b| b.is_ascii_digit());
    if digits && !value.starts_with('0') {
        return Ok(());
    }
    Err(ApiError::Unprocessable(format!(
        "{field} must be a whole number of the token's atomic units, at least 1, as a string"
    )))
}

/// [`FACILITATOR_URL_PATTERN`], compiled once.
static FACILITATOR_URL_GRAMMAR: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(FACILITATOR_URL_PATTERN).ok());

/// A facilitator's base URL: it must match [`FACILITATOR_URL_PATTERN`] and parse as an http or
/// https URL with a host (422 otherwise).
pub fn facilitator_url(value: &str) -> Result<()> {
    let documented = FACILITATOR_URL_GRAMMAR
        .as_ref()
        .is_some_and(|grammar| grammar.is_match(value));
    let parsed = reqwest::Url::parse(value).ok().filter(|_| documented);
    match parsed {
        Some(url) if matches!(url.scheme(), "http" | "https") && url.host_str().is_some() => {
            Ok(())
        }
        _ => Err(ApiError::Unprocessable(
            "facilitator_url must be an http or https URL with a DNS name or IPv4 address, without a user, query or fragment"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Strategy, prop};

    /// `pattern`, whole-string, as the document's readers apply it.
    fn grammar(pattern: &str) -> regex::Regex {
        regex::Regex::new(pattern).unwrap()
    }

    /// Strings heavy in what names get wrong: spaces of every kind, control characters, marks.
    fn awkward() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            'a', 'Z', '0', '-', ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1f}',
            '\u{7f}', '\u{85}', '\u{9f}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{200b}', '\u{2028}',
            '\u{3000}', '\u{180e}', '\u{feff}', 'é', '名', '😀',
        ]);
        prop::collection::vec(chars, 0..104).prop_map(|c| c.into_iter().collect())
    }

    proptest::proptest! {
        #[test]
        fn fuzz_the_documented_name_grammar_is_exactly_what_the_server_accepts(name in awkward()) {
            let documented = grammar(NAME_PATTERN).is_match(&name);
            let accepted = super::name(&name).is_ok();
            proptest::prop_assert_eq!(documented, accepted, "{:?}", name);
        }

        #[test]
        fn fuzz_every_url_the_document_allows_is_accepted(
            url in proptest::string::string_regex(URL_PATTERN.trim_start_matches('^').trim_end_matches('$')).unwrap(),
        ) {
            proptest::prop_assert!(webhook_url(&url).is_ok(), "{:?}", url);
        }

        #[test]
        fn fuzz_every_facilitator_url_the_document_allows_is_accepted(
            url in proptest::string::string_regex(FACILITATOR_URL_PATTERN.trim_start_matches('^').trim_end_matches('$')).unwrap(),
        ) {
            proptest::prop_assert!(facilitator_url(&url).is_ok(), "{:?}", url);
        }

        #[test]
        fn fuzz_the_documented_text_grammar_is_exactly_what_the_server_accepts(value in awkward()) {
            let documented = grammar(TEXT_PATTERN).is_match(&value);
            proptest::prop_assert_eq!(documented, text("asset_name", &value, "").is_ok(), "{:?}", value);
        }

        #[test]
        fn fuzz_any_url_the_server_accepts_matches_the_documented_grammar(url in "[ -~]{0,40}|https?://[ -~]{0,30}") {
            if webhook_url(&url).is_ok() {
                proptest::prop_assert!(grammar(URL_PATTERN).is_match(&url), "{:?}", url);
            }
        }
    }

    #[test]
    fn an_idna_reserved_label_is_outside_the_grammar_and_refused() {
        // Found by fuzz_every_url_the_document_allows_is_accepted: the URL parser refuses an
        // `xn--` label that is not valid punycode, so the grammar leaves out that form.
        for url in [
            "http://XN--Aa-aAaa.A",
            "http://ab--cd.example",
            "http://a.xn--zz",
        ] {
            assert!(!grammar(URL_PATTERN).is_match(url), "{url}");
            assert!(webhook_url(url).is_err(), "{url}");
        }
        for url in [
            "http://a-b--c.example:8080/x?y=1",
            "https://127.0.0.1/hook",
            "http://x.y-z",
        ] {
            assert!(grammar(URL_PATTERN).is_match(url), "{url}");
        }
    }
}
