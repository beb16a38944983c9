//! The server's clock: the system's. Debug builds (the ones the test suite runs) can start it
//! at another moment, so a test crosses a day, a week or a month without waiting:
//! `TOKCTL_TEST_CLOCK=2026-11-30T23:59:00Z` makes the clock show that time at start and run on
//! from there. Release builds ignore the variable.

use std::sync::OnceLock;

use chrono::{DateTime, Duration, Utc};

/// The environment variable a debug build reads.
pub const TEST_CLOCK: &str = "TOKCTL_TEST_CLOCK";

static OFFSET: OnceLock<Duration> = OnceLock::new();

/// How far the clock is set from the system's (`None` unless a test set it).
pub fn offset() -> Option<Duration> {
    OFFSET.get().copied()
}

/// Reads [`TEST_CLOCK`] (debug builds only); an error names a value that is not a time.
pub fn init() -> Result<(), String> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let Ok(value) = std::env::var(TEST_CLOCK) else {
        return Ok(());
    };
    let start: DateTime<Utc> = DateTime::parse_from_rfc3339(&value)
        .map_err(|_| format!("{TEST_CLOCK} must be an RFC 3339 time, not {value:?}"))?
        .with_timezone(&Utc);
    let _ = OFFSET.set(start - Utc::now());
    tracing::warn!(clock = %start, "the clock is set by {TEST_CLOCK} (a test build)");
    Ok(())
}
