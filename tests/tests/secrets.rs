//! The SDK's secret recogniser against the server's own generator: every secret the server
//! makes is recognised, alone and inside any text; no single-character change, truncation or
//! wrong checksum is.
//!
//! A 32-bit checksum lets a changed secret through with odds of about 1 in 2^31 per change
//! (two checksum forms are accepted), so the few tens of thousands of changes tried here make
//! a spurious failure about a 1-in-100,000 event.

use proptest::prelude::*;
use tokctl_sdk::secrets::{self, BASE62, Kind, SECRET_LEN};
use tokctl_server::secrets::{CredentialKind, new_secret};

fn server_secret(token: bool) -> (String, Kind) {
    let kind = if token {
        CredentialKind::Token
    } else {
        CredentialKind::ApiKey
    };
    (new_secret(kind).expose().to_string(), kind)
}

/// Every other byte a position could hold: the alphabet, the prefix's `_`, and a few that are
/// neither.
fn replacements(original: u8) -> impl Iterator<Item = u8> {
    BASE62
        .iter()
        .copied()
        .chain(*b"_- .=\"'\n\t")
        .chain([0x00, 0x7f, 0xc3, 0xff])
        .filter(move |&b| b != original)
}

#[test]
fn every_single_byte_change_of_server_secrets_is_rejected() {
    for round in 0..8 {
        let (secret, kind) = server_secret(round % 2 == 0);
        assert_eq!(secrets::check(&secret), Some(kind));
        let mut changed = secret.clone().into_bytes();
        for at in 0..SECRET_LEN {
            let original = changed[at];
            for b in replacements(original) {
                changed[at] = b;
                assert_eq!(
                    secrets::check_bytes(&changed),
                    None,
                    "byte {at} of {} changed to {b:#04x} still checks",
                    secrets::mask(&secret)
                );
                assert_eq!(secrets::find(&changed).count(), 0);
            }
            changed[at] = original;
        }
    }
}

#[test]
fn truncated_server_secrets_are_rejected() {
    let (secret, _) = server_secret(true);
    for len in 0..SECRET_LEN {
        assert_eq!(secrets::check(&secret[..len]), None, "{len} characters");
        assert_eq!(secrets::find(&secret.as_bytes()[..len]).count(), 0);
        if len > 0 {
            // Broken over two lines, it is no secret either.
            let split = format!("{}\n{}", &secret[..len], &secret[len..]);
            assert_eq!(secrets::find(split.as_bytes()).count(), 0, "split at {len}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn server_secrets_are_found_inside_any_text(
        token in any::<bool>(),
        before in "(?s).{0,80}",
        after in "(?s).{0,80}",
    ) {
        let (secret, kind) = server_secret(token);
        let text = format!("{before}{secret}{after}");
        let found: Vec<_> = secrets::find(text.as_bytes())
            .map(|f| (f.offset, f.kind, f.secret))
            .collect();
        prop_assert_eq!(found, vec![(before.len(), kind, secret.as_str())]);
    }

    #[test]
    fn a_changed_character_anywhere_is_rejected(
        token in any::<bool>(),
        at in 0..SECRET_LEN,
        replacement in any::<char>(),
    ) {
        let (secret, _) = server_secret(token);
        let original = secret[at..].chars().next().unwrap_or_default();
        prop_assume!(replacement != original);
        let mut changed = secret.clone();
        changed.replace_range(at..at + 1, replacement.encode_utf8(&mut [0; 4]));
        prop_assert_eq!(secrets::check(&changed), None);
        prop_assert_eq!(secrets::find(changed.as_bytes()).count(), 0);
    }
}
