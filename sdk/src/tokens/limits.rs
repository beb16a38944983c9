//! A token's spending limit: what a token shows ([`TokenLimits`]), its period
//! ([`LimitReset`]) and a change to it ([`ChangeLimits`]).

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::credits;

/// A token's limit and what its current period holds, as the token shows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenLimits {
    /// Credits the token may spend in a period.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub credit_limit: Decimal,
    /// When the period starts again.
    pub reset: LimitReset,
    /// When the current period started.
    pub period_start: DateTime<Utc>,
    /// When the next period starts; `None` for [`LimitReset::Never`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<DateTime<Utc>>,
    /// Charged in the current period.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub spent: Decimal,
    /// Held by requests still being answered.
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub reserved: Decimal,
    /// What new requests may still reserve (the limit minus spent and reserved).
    #[serde(
        deserialize_with = "credits::deserialize",
        serialize_with = "credits::serialize"
    )]
    pub remaining: Decimal,
}

/// When a limit's period starts again, on the UTC calendar.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitReset {
    /// Every day at 00:00 UTC.
    Daily,
    /// Every Monday at 00:00 UTC.
    Weekly,
    /// Every 1st of the month at 00:00 UTC.
    Monthly,
    /// Never: the limit counts from when it was set.
    Never,
    /// A period this SDK does not know yet (from a newer server).
    Unknown(String),
}

impl LimitReset {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            LimitReset::Daily => "daily",
            LimitReset::Weekly => "weekly",
            LimitReset::Monthly => "monthly",
            LimitReset::Never => "never",
            LimitReset::Unknown(other) => other,
        }
    }
}

impl std::fmt::Display for LimitReset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for LimitReset {
    fn from(value: &str) -> Self {
        match value {
            "daily" => LimitReset::Daily,
            "weekly" => LimitReset::Weekly,
            "monthly" => LimitReset::Monthly,
            "never" => LimitReset::Never,
            other => LimitReset::Unknown(other.to_string()),
        }
    }
}

impl Serialize for LimitReset {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LimitReset {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| LimitReset::from(s.as_str()))
    }
}

/// A change to a token's limit: `ChangeLimits::new().credit_limit(dec!(25))`, or
/// `ChangeLimits::remove()`. What is not set stays as it is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ChangeLimits {
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "amount_or_null"
    )]
    credit_limit: Option<Option<Decimal>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit_reset: Option<LimitReset>,
}

fn amount_or_null<S: Serializer>(
    amount: &Option<Option<Decimal>>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    credits::option::serialize(&amount.flatten(), serializer)
}

impl ChangeLimits {
    /// No change yet: set at least one part.
    pub fn new() -> Self {
        ChangeLimits::default()
    }

    /// Removes the token's limit.
    pub fn remove() -> Self {
        ChangeLimits {
            credit_limit: Some(None),
            limit_reset: None,
        }
    }

    /// The new limit per period, exact (more than 0, at most 9 decimal places).
    pub fn credit_limit(mut self, credits: Decimal) -> Self {
        self.credit_limit = Some(Some(credits));
        self
    }

    /// The new period. A spend never carries over: the period's spend is what the ledger holds
    /// since the new period's start.
    pub fn reset(mut self, reset: LimitReset) -> Self {
        self.limit_reset = Some(reset);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_sends_only_what_it_sets_and_null_to_remove() {
        let amount: Decimal = "2.25".parse().unwrap();
        let both = ChangeLimits::new()
            .credit_limit(amount)
            .reset(LimitReset::Monthly);
        assert_eq!(
            serde_json::to_string(&both).unwrap(),
            r#"{"credit_limit":2.25,"limit_reset":"monthly"}"#
        );
        assert_eq!(
            serde_json::to_string(&ChangeLimits::remove()).unwrap(),
            r#"{"credit_limit":null}"#
        );
        assert_eq!(
            serde_json::to_string(&ChangeLimits::new().reset(LimitReset::Daily)).unwrap(),
            r#"{"limit_reset":"daily"}"#
        );
    }

    #[test]
    fn limits_read_exact_amounts_and_unknown_periods() {
        let limits: TokenLimits = serde_json::from_str(
            r#"{"credit_limit": 25, "reset": "fortnightly", "period_start": "2026-11-01T00:00:00Z",
                "spent": 3.0125, "reserved": 0.02, "remaining": 21.9675}"#,
        )
        .unwrap();
        assert_eq!(limits.remaining.to_string(), "21.9675");
        assert_eq!(limits.reset, LimitReset::Unknown("fortnightly".into()));
        assert_eq!(limits.resets_at, None);
    }
}
