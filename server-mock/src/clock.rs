//! The server's clock: the system's. Debug builds (the ones the test suite runs) can start it
//! at another moment, so a test crosses a day, a week or a month without waiting:
//! `TOKCTL_TEST_CLOCK=2026-11-30T23:59:00Z` makes the clock show that time at start and run on
//! from there. `TOKCTL_TEST_HOLD_LIFE_MS=1000` shortens how long a spending-limit reservation
//! counts unless extended (an hour), so a test outlives one without waiting an hour. Release
//! builds ignore both variables.

use std::sync::OnceLock;

use chrono::{DateTime, Duration, Utc};

/// The environment variable a debug build reads.
pub const TEST_CLOCK: &str = "TOKCTL_TEST_CLOCK";

/// The variable that shortens a reservation's life (debug builds only).
pub const TEST_HOLD_LIFE: &str = "TOKCTL_TEST_HOLD_LIFE_MS";

static OFFSET: OnceLock<Duration> = OnceLock::new();
static HOLD_LIFE: OnceLock<Duration> = OnceLock::new();

/// How far the clock is set from the system's (`None` unless a test set it).
pub fn offset() -> Option<Duration> {
    OFFSET.get().copied()
}

/// A reservation's life as a test set it (`None` unless one did).
pub fn hold_life() -> Option<Duration> {
    HOLD_LIFE.get().copied()
}

/// Reads [`TEST_CLOCK`] and [`TEST_HOLD_LIFE`] (debug builds only); an error names a value
/// that is not a time or a number of milliseconds.
pub fn init() -> Result<(), String> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    if let Ok(value) = std::env::var(TEST_HOLD_LIFE) {
        let ms: u32 = value.parse().ok().filter(|ms| *ms > 0).ok_or_else(|| {
            format!("{TEST_HOLD_LIFE} must be a number of milliseconds, not {value:?}")
        })?;
        let _ = HOLD_LIFE.set(Duration::milliseconds(i64::from(ms)));
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
