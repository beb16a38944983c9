//! Wire formats every resource writes the same way.

use chrono::{DateTime, SecondsFormat, Utc};

/// Formats a timestamp as the API does: RFC 3339 in UTC with a `Z`.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}
