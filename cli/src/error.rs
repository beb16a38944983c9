//! The CLI's one error type and its documented exit codes, mapped from SDK errors in one place.

use std::fmt;

use tokctl_sdk::ConnectCause;

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
    /// Ctrl-C (128 + SIGINT, as shells report it).
    pub const INTERRUPTED: u8 = 130;
}

/// An error to show as one line on stderr, with an exit code and maybe a hint.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: u8,
    pub hint: Option<String>,
    /// The server refused the credential (401), expired or not: the hint depends on where the
    /// key came from, which [`CliError::about_key`] adds.
    pub key_refused: Option<KeyRefused>,
}

/// Why the server refused the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRefused {
    Invalid,
    Expired,
}

impl CliError {
    /// A general error (exit 1).
    pub fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: exit::ERROR,
            hint: None,
            key_refused: None,
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

    /// The same error with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The API's words in the message replaced by the CLI's: each `(api, cli)` pair, where the
    /// API word stands alone (`budget_limit` -> `--budget`, `GET /v1/models` -> `tokctl models`).
    pub fn in_cli_words(mut self, words: &[(&str, &str)]) -> Self {
        for (api, cli) in words {
            self.message = replace_word(&self.message, api, cli);
        }
        self
    }

    /// For a refused credential, the hint `hint` gives for how it was refused (`was refused`,
    /// `has expired`): [`crate::config::Source::key_hint`] names where the key came from.
    pub fn about_key(mut self, hint: impl FnOnce(&str) -> String) -> Self {
        let Some(refused) = self.key_refused else {
            return self;
        };
        let what = match refused {
            KeyRefused::Invalid => "was refused",
            KeyRefused::Expired => "has expired",
        };
        self.hint = Some(hint(what));
        self
    }
}

/// `text` with every standalone `word` (not part of a longer name) replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let part_of_name = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(word) {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !part_of_name(before) && !part_of_name(after) {
            out.push_str(&text[copied..at]);
            out.push_str(by);
            copied = at + word.len();
        }
    }
    out.push_str(&text[copied..]);
    out
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
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
        let key_refused = if err.is_token_expired() {
            Some(KeyRefused::Expired)
        } else if err.is_unauthorized() {
            Some(KeyRefused::Invalid)
        } else {
            None
        };
        let hint = if key_refused.is_some() {
            Some("run `tokctl login`".to_string())
        } else if err.is_forbidden() {
            Some("the credential lacks a scope; `tokctl scopes` lists them".to_string())
        } else {
            None
        };
        // A connection that could not be made: where and why are in the message, and what to
        // check follows them.
        let message = match err.connect_cause() {
            Some(cause) => format!("{err} ({})", what_to_check(cause)),
            None => err.to_string(),
        };
        CliError {
            message,
            code: code_for(&err),
            hint,
            key_refused,
        }
    }
}

/// What to check when no connection could be made.
fn what_to_check(cause: &ConnectCause) -> &'static str {
    match cause {
        ConnectCause::Refused => "is tokctl-server running?",
        ConnectCause::TimedOut => "is the host reachable, and the port right?",
        ConnectCause::HostNotFound(_) => "is the host name right? `tokctl config show` shows it",
        ConnectCause::Tls(_) => {
            "does the server speak https, with a certificate this machine trusts?"
        }
        _ => "`tokctl config show` shows the base URL",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_words_are_replaced_only_where_they_stand_alone() {
        let err = CliError::new(
            "no model fits budget_limit 0.1; raise it or lower max_tokens (see GET /v1/models, not budget_limits)",
        )
        .in_cli_words(&[
            ("budget_limit", "--budget"),
            ("max_tokens", "--max-tokens"),
            ("GET /v1/models", "`tokctl models`"),
        ]);
        assert_eq!(
            err.message,
            "no model fits --budget 0.1; raise it or lower --max-tokens (see `tokctl models`, not budget_limits)"
        );
    }
}
