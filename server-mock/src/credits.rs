//! Exact credit amounts. Credits are counted in whole nano-credits (10^-9 credit) everywhere:
//! prices, costs, budgets, the ledger and its totals; never in binary floating point. On the
//! wire an amount is a JSON number written as exact decimal text (`0.0102`, never
//! `0.010199999999999999`).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// Decimal places of a credit that an amount keeps.
pub const DECIMALS: u32 = 9;

/// An amount of credits, exact to the nano-credit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Credits(u64);

impl Credits {
    /// No credits.
    pub const ZERO: Credits = Credits(0);

    /// `nanos` nano-credits.
    pub const fn from_nanos(nanos: u64) -> Self {
        Credits(nanos)
    }

    /// The amount in nano-credits.
    pub const fn nanos(self) -> u64 {
        self.0
    }

    /// `self - other`, or zero when `other` is larger.
    pub fn saturating_sub(self, other: Credits) -> Credits {
        Credits(self.0.saturating_sub(other.0))
    }

    /// Parses a non-negative decimal (`0.0102`, `3`, `1.5e-3`), cutting off any digits below a
    /// nano-credit (so a budget read this way never allows more than was written). `None` for
    /// anything else, or an amount beyond `u64` nano-credits.
    pub fn parse_floor(text: &str) -> Option<Credits> {
        scaled(text, DECIMALS, false).map(Credits)
    }

    /// The amount as a database's signed 64-bit integer (past 9.2 billion credits, capped).
    pub fn to_column(self) -> i64 {
        i64::try_from(self.0).unwrap_or(i64::MAX)
    }

    /// An amount read from a signed 64-bit column (a negative value reads as 0).
    pub fn from_column(nanos: i64) -> Credits {
        Credits(u64::try_from(nanos).unwrap_or(0))
    }

    /// Parses a non-negative decimal that has at most 9 decimal places (an amount a client sets,
    /// such as a limit, is taken exactly or not at all). `None` for anything else.
    pub fn parse_exact(text: &str) -> Option<Credits> {
        scaled(text, DECIMALS, true).map(Credits)
    }

    /// The amount with its unit, for messages: `1 credit`, `0.0102 credits`.
    pub fn in_words(self) -> String {
        if self.0 == 10u64.pow(DECIMALS) {
            "1 credit".into()
        } else {
            format!("{self} credits")
        }
    }

    /// The amount as a JSON number, for places that build JSON by hand.
    pub fn to_json(self) -> Box<RawValue> {
        // Decimal digits and at most one point always make a valid JSON number.
        RawValue::from_string(self.to_string()).unwrap_or_else(|_| zero_json())
    }
}

fn zero_json() -> Box<RawValue> {
    RawValue::from_string("0".into()).unwrap_or_default()
}

impl Credits {
    /// Exact decimal text without trailing zeros (`0.0102`, `3`, `0.000000001`), written into
    /// `out` without the formatting machinery or an allocation (a trace's attribute).
    pub fn decimal(self, out: &mut [u8; 32]) -> &str {
        let unit = 10u64.pow(DECIMALS);
        let (mut whole, fraction) = (self.0 / unit, self.0 % unit);
        // Digits right to left: the fraction's (its trailing zeros left out), then the whole's.
        let mut at = out.len();
        if fraction != 0 {
            let mut rest = fraction;
            let mut significant = false;
            for _ in 0..DECIMALS {
                let digit = (rest % 10) as u8;
                rest /= 10;
                significant |= digit != 0;
                if significant {
                    at -= 1;
                    out[at] = b'0' + digit;
                }
            }
            at -= 1;
            out[at] = b'.';
        }
        loop {
            at -= 1;
            out[at] = b'0' + (whole % 10) as u8;
            whole /= 10;
            if whole == 0 {
                break;
            }
        }
        std::str::from_utf8(&out[at..]).unwrap_or_default()
    }
}

impl fmt::Display for Credits {
    /// Exact decimal text without trailing zeros: `0.0102`, `3`, `0.000000001`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.decimal(&mut [0; 32]))
    }
}

impl Serialize for Credits {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Credits {
    /// A JSON number read from its text (not through `f64`), floored to the nano-credit.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let text = raw.get();
        let is_number = text.starts_with(|c: char| c == '-' || c.is_ascii_digit());
        if !is_number {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other(text),
                &"a number of credits",
            ));
        }
        Credits::parse_floor(text)
            .ok_or_else(|| de::Error::custom("must be a number from 0 to 18446744073 credits"))
    }
}

/// A price: nano-credits per token, read from a catalogue's credits per 1,000 tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Price(u64);

impl Price {
    /// `nanos` nano-credits per token.
    pub const fn per_token(nanos: u64) -> Self {
        Price(nanos)
    }

    /// Nano-credits per token.
    pub const fn nanos_per_token(self) -> u64 {
        self.0
    }

    /// What `tokens` tokens cost (saturating at the largest amount).
    pub fn times(self, tokens: u64) -> Credits {
        Credits(self.0.saturating_mul(tokens))
    }

    /// The price of 1,000 tokens, as catalogues and `GET /v1/models` write it.
    pub fn per_1k(self) -> Credits {
        Credits(self.0.saturating_mul(1000))
    }
}

impl<'de> Deserialize<'de> for Price {
    /// Credits per 1,000 tokens: a number (or a string holding one) that must come to a whole
    /// number of nano-credits per token, i.e. at most six decimal places.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PriceVisitor)
    }
}

struct PriceVisitor;

impl PriceVisitor {
    fn read<E: de::Error>(text: &str) -> Result<Price, E> {
        if text.starts_with('-') {
            return Err(E::custom(format!("price {text} is negative")));
        }
        // Per token, in nano-credits: credits per 1k * 10^9 / 10^3.
        scaled(text, DECIMALS - 3, true).map(Price).ok_or_else(|| {
            E::custom(format!(
                "price {text} is finer than 10^-9 credit per token (at most 6 decimal places of a credit per 1k tokens) or too large"
            ))
        })
    }
}

impl Visitor<'_> for PriceVisitor {
    type Value = Price;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("credits per 1,000 tokens, e.g. 0.15")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Price, E> {
        PriceVisitor::read(&v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Price, E> {
        PriceVisitor::read(&v.to_string())
    }

    /// TOML hands over floats: Rust writes an `f64` as the shortest decimal that reads back as
    /// the same number, which is the decimal the catalogue's author wrote (up to 15 digits).
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Price, E> {
        if !v.is_finite() {
            return Err(E::custom("a price must be a finite number"));
        }
        PriceVisitor::read(&v.to_string())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Price, E> {
        PriceVisitor::read(v.trim())
    }
}

/// The non-negative decimal `text` times 10^`unit`, as a whole number: `None` when it is not
/// one and `exact` is set (else the fraction is cut off), when it does not fit a `u64`, or when
/// `text` is not a plain decimal (digits, at most one point, an optional exponent).
fn scaled(text: &str, unit: u32, exact: bool) -> Option<u64> {
    let (number, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !plain(whole)
        || !plain(fraction)
        || (number.contains('.') && fraction.is_empty())
    {
        return None;
    }
    // value * 10^unit = digits * 10^shift
    let shift = exponent
        .checked_add(i64::from(unit))?
        .checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let digits = whole
        .bytes()
        .chain(fraction.bytes())
        .skip_while(|&b| b == b'0');
    let digits: Vec<u8> = digits.collect();
    let (kept, dropped) = if shift >= 0 {
        (&digits[..], &[][..])
    } else {
        let drop = usize::try_from(-shift).ok()?.min(digits.len());
        digits.split_at(digits.len() - drop)
    };
    if exact && dropped.iter().any(|&b| b != b'0') {
        return None;
    }
    let mut value: u64 = 0;
    for &digit in kept {
        value = value
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    if shift > 0 && value != 0 {
        value = value.checked_mul(10u64.checked_pow(u32::try_from(shift).ok()?)?)?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(text: &str) -> Result<Price, String> {
        PriceVisitor::read::<de::value::Error>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn one_credit_is_singular_in_words() {
        assert_eq!(Credits::from_nanos(1_000_000_000).in_words(), "1 credit");
        assert_eq!(Credits::from_nanos(10_200_000).in_words(), "0.0102 credits");
        assert_eq!(Credits::from_nanos(2_000_000_000).in_words(), "2 credits");
    }

    #[test]
    fn amounts_are_written_exactly() {
        let cost =
            price("0.15").unwrap().times(20).nanos() + price("0.6").unwrap().times(12).nanos();
        assert_eq!(Credits::from_nanos(cost).to_string(), "0.0102");
        for (nanos, text) in [
            (0, "0"),
            (1, "0.000000001"),
            (3_000_000_000, "3"),
            (1_500_000_000, "1.5"),
            (10_000_000_000, "10"),
            (1_050_000_000, "1.05"),
            (120_000_000_001, "120.000000001"),
            (u64::MAX, "18446744073.709551615"),
        ] {
            assert_eq!(Credits::from_nanos(nanos).to_string(), text);
            assert_eq!(Credits::parse_floor(text), Some(Credits::from_nanos(nanos)));
        }
        let json = serde_json::to_string(&Credits::from_nanos(10_200_000)).unwrap();
        assert_eq!(json, "0.0102");
    }

    #[test]
    fn budgets_are_read_from_their_text_and_floored_to_the_nano_credit() {
        let read = |json: &str| serde_json::from_str::<Credits>(json).map(Credits::nanos);
        assert_eq!(read("0.96").unwrap(), 960_000_000);
        assert_eq!(read("1e-3").unwrap(), 1_000_000);
        assert_eq!(read("2.5E+2").unwrap(), 250_000_000_000);
        assert_eq!(read("0.0000000019").unwrap(), 1);
        assert_eq!(
            read("0.000000000000000000000000000000000000000001").unwrap(),
            0
        );
        assert_eq!(read("5").unwrap(), 5_000_000_000);
        assert_eq!(read("0.30000000000000004").unwrap(), 300_000_000);
        for bad in ["-1", "\"1\"", "true", "1e400", "18446744074"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn fuzz_every_amount_reads_back_from_its_text(nanos: u64) {
            let written = Credits::from_nanos(nanos).to_string();
            proptest::prop_assert_eq!(Credits::parse_floor(&written), Some(Credits::from_nanos(nanos)));
            let json = serde_json::to_string(&Credits::from_nanos(nanos)).unwrap();
            proptest::prop_assert_eq!(serde_json::from_str::<Credits>(&json).unwrap().nanos(), nanos);
        }

        #[test]
        fn fuzz_a_plain_decimal_reads_as_itself_cut_to_the_nano_credit(
            whole in 0u64..18_446_744_073,
            fraction in "[0-9]{0,14}",
            junk in "[-+0-9.eE]{0,30}|\\PC{0,30}",
        ) {
            let _ = Credits::parse_floor(&junk);
            let text = format!("{whole}.{fraction}0");
            let nine = format!("{fraction:0<9}");
            let expected = whole * 1_000_000_000 + nine[..9].parse::<u64>().unwrap();
            proptest::prop_assert_eq!(Credits::parse_floor(&text), Some(Credits::from_nanos(expected)));
        }
    }

    #[test]
    fn prices_finer_than_a_nano_credit_per_token_are_refused() {
        assert_eq!(price("0.15").unwrap().nanos_per_token(), 150_000);
        assert_eq!(price("3").unwrap().nanos_per_token(), 3_000_000);
        assert_eq!(price("0.000001").unwrap().nanos_per_token(), 1);
        assert_eq!(price("0.0000010").unwrap().nanos_per_token(), 1);
        assert_eq!(price("0").unwrap(), Price::default());
        assert!(price("0.0000001").unwrap_err().contains("finer than 10^-9"));
        assert!(price("-1").unwrap_err().contains("negative"));
        assert!(price("1.").is_err() && price(".5").is_err() && price("1,5").is_err());
        let toml: Price = PriceVisitor.visit_f64::<de::value::Error>(0.15).unwrap();
        assert_eq!(toml.per_1k().to_string(), "0.15");
    }
}
