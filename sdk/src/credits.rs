//! Credit amounts as exact decimals ([`Decimal`]), read from and written as the JSON number's
//! own text, never through `f64`: `0.0102` stays `0.0102`, and sums of amounts do not drift.

use rust_decimal::Decimal;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// Reads an amount from a JSON number (or a string holding one).
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
    let raw = Box::<RawValue>::deserialize(deserializer)?;
    parse(raw.get()).ok_or_else(|| {
        de::Error::invalid_value(
            de::Unexpected::Other(raw.get()),
            &"a decimal number of credits",
        )
    })
}

/// Writes an amount as a JSON number with exactly its decimal digits.
pub(crate) fn serialize<S: Serializer>(amount: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
    RawValue::from_string(amount.normalize().to_string())
        .map_err(serde::ser::Error::custom)?
        .serialize(serializer)
}

/// `0.0102`, `3`, `1.5e-3`, or any of those in quotes.
fn parse(text: &str) -> Option<Decimal> {
    let text = text.trim_matches('"');
    if text.contains(['e', 'E']) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str_exact(text).ok()
    }
}

/// [`serialize`] for an optional amount.
pub(crate) mod option {
    use super::*;

    /// Writes `Some` amounts as [`serialize`] does, `None` as `null`.
    pub(crate) fn serialize<S: Serializer>(
        amount: &Option<Decimal>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match amount {
            Some(amount) => super::serialize(amount, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Reads an amount as [`deserialize`] does, `null` as `None`.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Decimal>, D::Error> {
        let raw = Option::<Box<RawValue>>::deserialize(deserializer)?;
        match raw {
            Some(raw) if raw.get() != "null" => parse(raw.get()).map(Some).ok_or_else(|| {
                de::Error::invalid_value(
                    de::Unexpected::Other(raw.get()),
                    &"a decimal number of credits",
                )
            }),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Amount(#[serde(deserialize_with = "deserialize", serialize_with = "serialize")] Decimal);

    fn read(json: &str) -> Decimal {
        serde_json::from_str::<Amount>(json).unwrap().0
    }

    #[test]
    fn amounts_keep_their_decimal_digits_both_ways() {
        for text in ["0.0102", "3", "18446744073.709551615", "0.000000001"] {
            assert_eq!(read(text).to_string(), text);
            assert_eq!(serde_json::to_string(&Amount(read(text))).unwrap(), text);
        }
        assert_eq!(read("1.5e-3").to_string(), "0.0015");
        assert_eq!(read("\"0.25\"").to_string(), "0.25");
        let sum: Decimal = (0..10).map(|_| read("0.1")).sum();
        assert_eq!(sum.normalize().to_string(), "1");
        assert!(serde_json::from_str::<Amount>("true").is_err());
    }
}
