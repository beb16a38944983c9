//! Every leaked credential in a text, tokctl's own and the providers' keys, in one ordered
//! stream: what `tokctl scan` reports.

use std::iter::Peekable;

use crate::providers::{self, Provider};
use crate::{Kind, find, mask};

/// What a leaked credential is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// A tokctl secret whose checksum holds: certainly one, and revocable by tokctl.
    Tokctl(Kind),
    /// A provider's key, told by its shape alone.
    Provider(&'static Provider),
}

impl Credential {
    /// A stable identifier: `token`, `api_key`, or the provider's (`openai_api_key`, ...).
    pub const fn id(self) -> &'static str {
        match self {
            Credential::Tokctl(kind) => kind.as_str(),
            Credential::Provider(provider) => provider.id,
        }
    }

    /// What it is, for people: `tokctl token`, `OpenAI API key`.
    pub const fn name(self) -> &'static str {
        match self {
            Credential::Tokctl(Kind::Token) => "tokctl token",
            Credential::Tokctl(Kind::ApiKey) => "tokctl API key",
            Credential::Provider(provider) => provider.name,
        }
    }

    /// `secret` shortened to what tells it apart without showing it: its start and last 4.
    pub fn mask(self, secret: &str) -> String {
        match self {
            Credential::Tokctl(_) => mask(secret),
            Credential::Provider(provider) => provider.mask(secret),
        }
    }
}

impl std::fmt::Display for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A credential found in a text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Leak<'h> {
    /// Byte offset of its first character in the text.
    pub offset: usize,
    /// What it is.
    pub credential: Credential,
    /// The credential itself, borrowed from the text.
    pub secret: &'h str,
}

impl std::fmt::Debug for Leak<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leak")
            .field("offset", &self.offset)
            .field("credential", &self.credential.id())
            .field("secret", &self.credential.mask(self.secret))
            .finish()
    }
}

/// Every tokctl secret ([`find`]) and provider key ([`providers::find_keys`]) in `haystack`, in
/// the order of their offsets.
pub fn find_leaks(haystack: &[u8]) -> impl Iterator<Item = Leak<'_>> {
    find_leaks_at(haystack, 0)
}

/// [`find_leaks`] from byte `start` on, offsets still counted from the haystack's start; the
/// bytes before `start` are read only as context, so a text read in overlapping pieces finds
/// what the whole text would.
pub fn find_leaks_at(haystack: &[u8], start: usize) -> impl Iterator<Item = Leak<'_>> {
    let rest = haystack.get(start..).unwrap_or_default();
    let own = find(rest).map(move |found| Leak {
        offset: start + found.offset,
        credential: Credential::Tokctl(found.kind),
        secret: found.secret,
    });
    let keys = providers::find_keys_at(haystack, start).map(|key| Leak {
        offset: key.offset,
        credential: Credential::Provider(key.provider),
        secret: key.key,
    });
    Merge(own.peekable(), keys.peekable())
}

/// Two streams ordered by offset, merged into one by where each credential starts (none of the
/// providers' shapes starts with `tk`, so the two never report the same place).
struct Merge<A: Iterator, B: Iterator>(Peekable<A>, Peekable<B>);

impl<'h, A, B> Iterator for Merge<A, B>
where
    A: Iterator<Item = Leak<'h>>,
    B: Iterator<Item = Leak<'h>>,
{
    type Item = Leak<'h>;

    fn next(&mut self) -> Option<Leak<'h>> {
        match (self.0.peek(), self.1.peek()) {
            (Some(a), Some(b)) if b.offset < a.offset => self.1.next(),
            (Some(_), _) => self.0.next(),
            (None, _) => self.1.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seal;

    #[test]
    fn tokctls_and_the_providers_come_out_in_the_texts_order() {
        let token = seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
        let key = seal(Kind::ApiKey, "abcdefghijABCDEFGHIJ0123456789");
        let (openai, aws) = (
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
            "AKIAIOSFODNN7EXAMPLE",
        );
        let text = format!("{openai} {token}\n{aws}={key} {openai}");
        let found: Vec<_> = find_leaks(text.as_bytes())
            .map(|leak| (leak.offset, leak.credential.id(), leak.secret))
            .collect();
        let at = |needle: &str, from: usize| from + text[from..].find(needle).unwrap();
        assert_eq!(
            found,
            [
                (0, "openai_api_key", openai),
                (at(&token, 0), "token", token.as_str()),
                (at(aws, 0), "aws_access_key_id", aws),
                (at(&key, 0), "api_key", key.as_str()),
                (at(openai, 1), "openai_api_key", openai),
            ]
        );
        assert_eq!(Credential::Tokctl(Kind::ApiKey).name(), "tokctl API key");
        // From a later start: what the whole text holds there, a key right after a letter not.
        let from = at(&key, 0);
        let rest: Vec<_> = find_leaks_at(text.as_bytes(), from)
            .map(|l| l.offset)
            .collect();
        assert_eq!(rest, [from, at(openai, 1)]);
        let glued = format!("x{openai}");
        assert_eq!(find_leaks_at(glued.as_bytes(), 1).count(), 0);
        assert_eq!(find_leaks(&glued.as_bytes()[1..]).count(), 1);
    }
}
