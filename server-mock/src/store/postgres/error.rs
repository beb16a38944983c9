//! Which PostgreSQL failures mean "the database is unavailable" (503, try again) rather than a
//! fault of the server (500), and errors in words.

use crate::store::StoreError;

impl From<tokio_postgres::Error> for StoreError {
    fn from(err: tokio_postgres::Error) -> Self {
        StoreError::from(&err)
    }
}

impl From<&tokio_postgres::Error> for StoreError {
    fn from(err: &tokio_postgres::Error) -> Self {
        let unavailable = match err.code() {
            // Connection exceptions, a server shutting down or starting, out of connections.
            Some(code) => {
                let code = code.code();
                code.starts_with("08") || code.starts_with("53") || code.starts_with("57P")
            }
            None => {
                err.is_closed()
                    || std::error::Error::source(err).is_some_and(|s| s.is::<std::io::Error>())
                    || err.to_string().contains("timeout")
            }
        };
        let message = describe(err);
        match unavailable {
            true => StoreError::Unavailable(message),
            false => StoreError::Backend(message),
        }
    }
}

/// `err` and its causes on one line ("db error: FATAL: database \"x\" does not exist"); a
/// server error's detail, on the lines after its message, is left out.
pub fn describe(err: &tokio_postgres::Error) -> String {
    let mut text = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text.lines().next().unwrap_or_default().to_string()
}

/// Whether `err` is a unique violation of the constraint or index `name`.
pub fn violates(err: &tokio_postgres::Error, name: &str) -> bool {
    err.as_db_error().is_some_and(|db| {
        *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
            && db.constraint() == Some(name)
    })
}
