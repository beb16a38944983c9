use super::*;

const RANDOM: &str = "0123456789abcdefghijABCDEFGHIJ";

fn legacy(kind: Kind, random: &str) -> String {
    let sum = checksum(&[random.as_bytes()]);
    format!(
        "{}{random}{}",
        kind.prefix(),
        std::str::from_utf8(&sum).unwrap()
    )
}

#[test]
fn sealed_secrets_check_with_their_kind() {
    let token = seal(Kind::Token, RANDOM);
    let key = seal(Kind::ApiKey, RANDOM);
    assert_eq!(token.len(), SECRET_LEN);
    assert!(token.starts_with("tkt_") && key.starts_with("tka_"));
    assert_eq!(check(&token), Some(Kind::Token));
    assert_eq!(check(&key), Some(Kind::ApiKey));
    // The checksum covers the prefix: the same random part seals differently per kind.
    assert_ne!(token[34..], key[34..]);
}

/// Secrets written out as literals, so a change to the alphabet, the checksum or the prefixes
/// fails here instead of passing because the same code makes and checks them. Worked out once
/// from the format in the crate docs (SHA-256 of prefix + random part, first 4 bytes as a
/// big-endian number in base62, 6 digits) and pasted.
const KNOWN_TOKEN: &str = "tkt_0123456789abcdefghijABCDEFGHIJ2ZhyNR";
const KNOWN_API_KEY: &str = "tka_ZYXWVUTSRQponmlkjihg98765432102AspXH";
/// The legacy format: the checksum covers the random part alone (here SHA-256 of `RANDOM`).
const KNOWN_LEGACY_TOKEN: &str = "tkt_0123456789abcdefghijABCDEFGHIJ36NC6o";
const KNOWN_LEGACY_API_KEY: &str = "tka_0123456789abcdefghijABCDEFGHIJ36NC6o";

#[test]
fn known_secrets_seal_and_check_as_written() {
    assert_eq!(KNOWN_TOKEN.len(), 40);
    assert_eq!(KNOWN_API_KEY.len(), 40);
    assert_eq!(seal(Kind::Token, RANDOM), KNOWN_TOKEN);
    assert_eq!(
        seal(Kind::ApiKey, "ZYXWVUTSRQponmlkjihg9876543210"),
        KNOWN_API_KEY
    );
    assert_eq!(check(KNOWN_TOKEN), Some(Kind::Token));
    assert_eq!(check(KNOWN_API_KEY), Some(Kind::ApiKey));

    let text = format!("token={KNOWN_TOKEN} key={KNOWN_API_KEY}");
    let found: Vec<_> = find(text.as_bytes())
        .map(|f| (f.offset, f.kind, f.secret))
        .collect();
    assert_eq!(
        found,
        [
            (6, Kind::Token, KNOWN_TOKEN),
            (51, Kind::ApiKey, KNOWN_API_KEY)
        ]
    );
}

#[test]
fn known_legacy_secrets_still_check() {
    assert_eq!(check(KNOWN_LEGACY_TOKEN), Some(Kind::Token));
    assert_eq!(check(KNOWN_LEGACY_API_KEY), Some(Kind::ApiKey));
    let found: Vec<_> = find(KNOWN_LEGACY_API_KEY.as_bytes())
        .map(|f| (f.offset, f.kind, f.secret))
        .collect();
    assert_eq!(found, [(0, Kind::ApiKey, KNOWN_LEGACY_API_KEY)]);
    // A legacy secret is never what seal makes now.
    assert_ne!(seal(Kind::Token, RANDOM), KNOWN_LEGACY_TOKEN);
}

#[test]
fn the_other_kinds_prefix_breaks_the_checksum() {
    let token = seal(Kind::Token, RANDOM);
    let flipped = token.replacen("tkt_", "tka_", 1);
    assert_eq!(check(&flipped), None);
}

#[test]
fn secrets_from_before_the_prefix_was_covered_still_check() {
    assert_eq!(check(&legacy(Kind::Token, RANDOM)), Some(Kind::Token));
    assert_eq!(check(&legacy(Kind::ApiKey, RANDOM)), Some(Kind::ApiKey));
}

#[test]
fn near_misses_do_not_check() {
    let token = seal(Kind::Token, RANDOM);
    assert_eq!(check(&token[..39]), None, "truncated");
    assert_eq!(check(&format!("{token}x")), None, "too long");
    assert_eq!(check(&format!(" {token}")), None, "text around it");
    assert_eq!(
        check(&token.replacen("tkt_", "tok_", 1)),
        None,
        "wrong prefix"
    );
    let mut wrong_sum = token.clone();
    wrong_sum.replace_range(39.., if token.ends_with('0') { "1" } else { "0" });
    assert_eq!(check(&wrong_sum), None, "wrong checksum");
    let mut outside_alphabet = token.clone();
    outside_alphabet.replace_range(10..11, "-");
    assert_eq!(check(&outside_alphabet), None, "outside the alphabet");
    assert_eq!(check(""), None);
    assert_eq!(check("tkt_"), None);
}

#[test]
fn find_reports_every_secret_with_its_offset() {
    let token = seal(Kind::Token, RANDOM);
    let key = seal(Kind::ApiKey, "ZYXWVUTSRQponmlkjihg9876543210");
    let text = format!("a tk tkt_ {token}\n\"{key}\",{token}");
    let found: Vec<_> = find(text.as_bytes()).collect();
    let expected = [
        (10, Kind::Token, token.as_str()),
        (52, Kind::ApiKey, key.as_str()),
        (94, Kind::Token, token.as_str()),
    ];
    assert_eq!(found.len(), expected.len(), "{found:?}");
    for (found, (offset, kind, secret)) in found.iter().zip(expected) {
        assert_eq!(
            (found.offset, found.kind, found.secret),
            (offset, kind, secret)
        );
        assert_eq!(&text[offset..offset + SECRET_LEN], secret);
    }
}

#[test]
fn find_skips_near_misses_and_survives_any_bytes() {
    let token = seal(Kind::Token, RANDOM);
    let mut text = Vec::new();
    text.extend_from_slice(&[0xff, 0x00, b't', b'k']);
    text.extend_from_slice(&token.as_bytes()[..39]);
    text.push(b'\n');
    text.extend_from_slice(token.replacen("tkt_", "tka_", 1).as_bytes());
    text.extend_from_slice(&[0xc3, 0x28, b't']);
    assert_eq!(find(&text).count(), 0);
    // A secret at the very end of the text is found.
    text.extend_from_slice(token.as_bytes());
    let found: Vec<_> = find(&text).collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].offset, text.len() - SECRET_LEN);
}

#[test]
fn masks_keep_the_prefix_and_last_four() {
    let token = seal(Kind::Token, RANDOM);
    assert_eq!(mask(&token), format!("tkt_...{}", &token[36..]));
    assert_eq!(mask("short"), "****");
    let found = find(token.as_bytes()).next().unwrap();
    assert!(!format!("{found:?}").contains(&token));
}
