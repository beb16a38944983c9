//! The CLI's one error type and its documented exit codes, mapped from SDK errors in one place.

use std::fmt;

/// Exit codes, as documented in `--help` and the README.
pub mod exit {
    pub const OK: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    /// `tokctl scan` found a secret.
    pub const FOUND: u8 = 3;
    pub const UNAUTHORIZED: u8 = 4;
    pub const NOT_FOUND: u8 = 5;
    pub const CONFLICT: u8 = 6;
    pub const RATE_LIMITED: u8 = 7;
}

/// An error to show as one line on stderr, with an exit code and maybe a hint.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: u8,
    pub hint: Option<&'static str>,
}

impl CliError {
    /// A general error (exit 1).
    pub fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: exit::ERROR,
            hint: None,
        }
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: exit::USAGE,
            ..CliError::new(message)
        }
    }

    /// The same error with another exit code.
    pub fn with_code(mut self, code: u8) -> Self {
        self.code = code;
        self
    }

    /// A not-found error (exit 5).
    pub fn not_found(message: impl Into<String>) -> Self {
        CliError {
            code: exit::NOT_FOUND,
            ..CliError::new(message)
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

/// The exit code for an SDK error.
pub fn code_for(err: &tokctl_sdk::Error) -> u8 {
    match err.status() {
        Some(401 | 403) => exit::UNAUTHORIZED,
        Some(404) => exit::NOT_FOUND,
        Some(409) => exit::CONFLICT,
        Some(429) => exit::RATE_LIMITED,
        _ => exit::ERROR,
    }
}

impl From<tokctl_sdk::Error> for CliError {
    fn from(err: tokctl_sdk::Error) -> Self {
        let hint = if err.is_token_expired() {
            Some("the credential has expired; run `tokctl login` with a new key")
        } else if err.is_unauthorized() {
            Some("run `tokctl login`")
        } else if err.is_forbidden() {
            Some("the credential lacks a scope; `tokctl scopes` lists them")
        } else if err.is_transport() {
            Some("is the server running? `tokctl config show` shows the base URL")
        } else {
            None
        };
        CliError {
            message: err.to_string(),
            code: code_for(&err),
            hint,
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(err: std::io::Error) -> Self {
        match err.kind() {
            // A closed pipe (`tokctl tokens list | head`) ends the run quietly and successfully.
            std::io::ErrorKind::BrokenPipe => CliError::new("").with_code(exit::OK),
            _ => CliError::new(err.to_string()),
        }
    }
}
