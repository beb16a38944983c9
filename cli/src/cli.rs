//! The command line, as clap definitions only: doc comments are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod requests;
mod settings;
mod tokens;
mod x402;

pub use requests::{ListRequestsArgs, RequestsCommand};
pub use settings::SettingsCommand;
pub use tokens::{CreateArgs, LimitArgs, ListArgs, RevokeArgs, TokensCommand};
pub use x402::{SetX402Args, X402Command};

const EXIT_CODES: &str = "\
Exit codes:
  0  success (for `scan`: no secret found)
  1  error (including a bulk run in which some items failed)
  2  usage error, or a destructive command without --yes when not on a terminal
  3  `scan` found at least one secret
  4  unauthorized or forbidden (run `tokctl login`)
  5  not found
  6  conflict (name in use, token expired, a key revoking itself)
  7  rate limited after retries
  130  interrupted (Ctrl-C)

Environment:
  TOKCTL_API_KEY, TOKCTL_BASE_URL, TOKCTL_PROFILE  override the profile
  TOKCTL_CONFIG     config file (default: CONFIG_DIR/tokctl/config.toml)
  TOKCTL_MAX_WAIT   longest wait in seconds for a rate-limit window before exit 7 (default 60)
  TOKCTL_DATA_DIR   where a local tokctl-server keeps admin.key (used when no key is set)
  NO_COLOR          no colours";

/// Manage tokctl access tokens: create, list, rotate, revoke, audit.
#[derive(Debug, Parser)]
#[command(name = "tokctl", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Output format: table on a terminal, tab-separated lines when piped, or json.
    #[arg(long, short = 'o', global = true, value_enum)]
    pub output: Option<OutputFormat>,
    /// Print only the value a script needs (the secret, or ids).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// Log each HTTP request (method, path, status, time) to stderr; never a secret.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// Profile to use [env: TOKCTL_PROFILE].
    #[arg(long, global = true)]
    pub profile: Option<String>,
    /// Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends
    /// it) [env: TOKCTL_BASE_URL].
    #[arg(long, global = true)]
    pub base_url: Option<String>,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A table on a terminal, tab-separated lines otherwise.
    Auto,
    /// Tab-separated lines.
    Plain,
    /// The API's JSON objects.
    Json,
    /// SARIF 2.1.0, for code-scanning tools (`tokctl scan` only).
    Sarif,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin).
    Login(LoginArgs),
    /// Show and change the configuration file and its profiles.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Create, list, inspect, rotate and revoke tokens.
    #[command(subcommand)]
    Tokens(TokensCommand),
    /// Create, list and revoke the workspace's API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Read the workspace audit log.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// List every scope a token can hold.
    Scopes,
    /// Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal.
    Chat(ChatArgs),
    /// List the gateway's models with prices, quality and latency.
    Models,
    /// Show the credit ledger: totals by day and model, with a chart on a terminal.
    Usage(UsageArgs),
    /// Read the gateway's request log: who asked, which model answered, timings and cost.
    #[command(subcommand)]
    Requests(RequestsCommand),
    /// Show or change the workspace's settings: whether the request log keeps bodies.
    #[command(subcommand)]
    Settings(SettingsCommand),
    /// Configure webhook endpoints, receive events locally, verify signatures.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Show, set or remove the workspace's x402 terms: what agents naming an agent_wallet pay.
    #[command(subcommand)]
    X402(X402Command),
    /// Find leaked secrets (tokctl's and providers' keys) in files, stdin or git history, and
    /// optionally revoke tokctl's.
    Scan(ScanArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// The prompt; piped stdin is appended to it (or is the prompt when none is given).
    pub prompt: Vec<String>,
    /// Print the answer as it arrives.
    #[arg(long)]
    pub stream: bool,
    /// A model id, or auto, auto-fast, auto-cheap.
    #[arg(long, short = 'm', default_value = "auto")]
    pub model: String,
    /// A system message sent first.
    #[arg(long)]
    pub system: Option<String>,
    /// Most tokens in the answer.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Sampling temperature, 0 to 2.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Most credits the request may consume (an exact decimal, e.g. 0.05).
    #[arg(long)]
    pub budget: Option<tokctl_sdk::Decimal>,
    /// How much price counts for auto routing, 0 to 1.
    #[arg(long)]
    pub cost_weight: Option<f64>,
    /// How much quality counts for auto routing, 0 to 1.
    #[arg(long)]
    pub quality_weight: Option<f64>,
    /// Agent wallet (0x + 40 hex digits) recorded for settlement.
    #[arg(long, conflicts_with = "wallet_key_file")]
    pub wallet: Option<String>,
    /// Pay the gateway's x402 offers with the wallet whose private key is in FILE (mode 0600;
    /// the key is never printed): the request names that wallet, and a 402 is paid once.
    #[arg(long, value_name = "FILE", requires = "max_payment")]
    pub wallet_key_file: Option<std::path::PathBuf>,
    /// The most one payment may be, in atomic units of the token the server asks for
    /// (50000 is 0.05 USDC); a larger offer is refused, unsigned.
    #[arg(long, value_name = "UNITS", requires = "wallet_key_file")]
    pub max_payment: Option<u128>,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Exit codes: 0 when nothing is found, 3 when a secret is found (also after --revoke), 1 on error.
Examples:
  tokctl scan                          scan the current directory
  git diff --cached | tokctl scan -    scan what is about to be committed
  tokctl scan --git-history            scan every commit's added lines
  tokctl scan -o sarif > tokctl.sarif  for GitHub code scanning
  tokctl scan --revoke --yes           revoke everything found (CI)")]
pub struct ScanArgs {
    /// Files and directories to scan (default: the current directory); `-` reads stdin.
    /// Directories honour .gitignore and skip binary files; hidden files are scanned.
    pub paths: Vec<PathBuf>,
    /// Scan the added lines of every commit of the repository at each path (`git log -p
    /// --all`) instead of the files as they are now.
    #[arg(long)]
    pub git_history: bool,
    /// Also scan files that .gitignore and .ignore exclude.
    #[arg(long)]
    pub no_ignore: bool,
    /// Send every tokctl secret found to the revocation endpoint, which needs no API key (asks
    /// first on a terminal; --yes otherwise). Providers' keys are reported, not sent.
    #[arg(long)]
    pub revoke: bool,
    /// Revoke without asking.
    #[arg(long, short = 'y', requires = "revoke")]
    pub yes: bool,
    /// Also revoke the API key this CLI is configured with when it is among the secrets found
    /// (left out otherwise, or asked about on a terminal).
    #[arg(long, requires = "revoke")]
    pub include_own_key: bool,
}

#[derive(Debug, Args)]
pub struct LoginArgs {
    /// Read the API key from standard input (for CI).
    #[arg(long)]
    pub with_token: bool,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Show the settings in effect and where each comes from (the key is redacted).
    Show,
    /// Set KEY (base_url, chat_base_url, api_key) in the current profile.
    Set {
        /// base_url, chat_base_url or api_key.
        key: String,
        /// The new value.
        value: String,
    },
    /// List profiles; the current one is marked.
    Profiles,
    /// Make PROFILE the current profile.
    Use {
        /// Profile name.
        profile: String,
    },
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Only the requests made with this token (id tok_... or name).
    #[arg(long)]
    pub token: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create an API key and print its secret (shown once).
    Create(CreateKeyArgs),
    /// List API keys (every page).
    List(ListKeysArgs),
    /// Revoke an API key for good (asks first on a terminal; --yes otherwise).
    Revoke(RevokeKeyArgs),
}

#[derive(Debug, Args)]
pub struct CreateKeyArgs {
    /// Key name, unique among the workspace's live keys.
    pub name: String,
    /// Scope to grant (repeat, or a comma list); see `tokctl scopes`.
    #[arg(long = "scope", short = 's', value_name = "SCOPE", required = true,
          value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(tokctl_sdk::scopes::ALL))]
    pub scopes: Vec<String>,
    /// Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not
    /// taken, as their length varies: 365d).
    #[arg(long, value_parser = parse_lifetime, conflicts_with = "expires_at", allow_hyphen_values = true)]
    pub expires_in: Option<std::time::Duration>,
    /// Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z.
    #[arg(long)]
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Args)]
pub struct ListKeysArgs {
    /// Only keys with this status.
    #[arg(long, value_parser = ["active", "expired", "revoked"])]
    pub status: Option<String>,
}

#[derive(Debug, Args)]
pub struct RevokeKeyArgs {
    /// API key id (key_...) or name; a key cannot revoke itself.
    pub key: String,
    /// Do not ask for confirmation (needed when not on a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Add an endpoint and print its signing secret (shown once).
    Create {
        /// Where events are POSTed (http or https).
        url: String,
        /// Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold,
        /// token.limit_reached.
        #[arg(long = "event", short = 'e', required = true)]
        events: Vec<String>,
    },
    /// List endpoints.
    List,
    /// Show one endpoint.
    Get {
        /// Endpoint id (whk_...).
        id: String,
    },
    /// Delete an endpoint.
    Delete {
        /// Endpoint id (whk_...).
        id: String,
    },
    /// Send a webhook.test event to an endpoint.
    Test {
        /// Endpoint id (whk_...).
        id: String,
    },
    /// Show an endpoint's delivery attempts.
    Deliveries {
        /// Endpoint id (whk_...).
        id: String,
    },
    /// Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it.
    Listen {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 8787)]
        port: u16,
        /// The endpoint's signing secret.
        #[arg(long, env = "TOKCTL_WEBHOOK_SECRET", hide_env_values = true)]
        secret: SigningSecret,
        /// Also POST each verified event, with its headers, to this URL.
        #[arg(long)]
        forward_to: Option<String>,
    },
    /// Check a signature against the body on stdin: exit 0 when it matches, 1 when not.
    Verify {
        /// The endpoint's signing secret.
        #[arg(long, env = "TOKCTL_WEBHOOK_SECRET", hide_env_values = true)]
        secret: SigningSecret,
        /// The x-service-signature header value (sha256=...).
        #[arg(long)]
        signature: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// List audit entries, newest first (every page).
    List {
        /// Only entries about this token (id or name).
        #[arg(long, conflicts_with = "key")]
        token: Option<String>,
        /// Only entries about this API key (id or name).
        #[arg(long)]
        key: Option<String>,
        /// Only entries with this action, e.g. token.rotated.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(tokctl_sdk::audit::ACTIONS))]
        action: Option<String>,
    },
}

const DURATION_EXAMPLES: &str = "examples: 30d, 12h, 90m";

/// A moment: RFC 3339 (`2026-11-28T09:00:00Z`), or a length of time ago (`1h`, `2d`).
pub(crate) fn parse_moment(raw: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(raw.trim()) {
        return Ok(at.with_timezone(&chrono::Utc));
    }
    let ago = parse_duration(raw).map_err(|_| {
        format!("must be an RFC 3339 time (2026-11-28T09:00:00Z) or a length of time ago ({DURATION_EXAMPLES})")
    })?;
    chrono::Duration::from_std(ago)
        .ok()
        .and_then(|ago| chrono::Utc::now().checked_sub_signed(ago))
        .ok_or_else(|| "is too long ago".to_string())
}

/// A length of time in weeks, days, hours, minutes or seconds (`30d`, `12h`, `1d 12h`).
/// Years and months are refused rather than guessed at (humantime's year is 365.25 days).
pub(crate) fn parse_duration(raw: &str) -> Result<std::time::Duration, String> {
    if raw.trim_start().starts_with('-') {
        return Err(format!(
            "must be a positive length of time ({DURATION_EXAMPLES})"
        ));
    }
    let units = raw
        .split(|c: char| !c.is_alphabetic())
        .filter(|u| !u.is_empty());
    for unit in units {
        if matches!(unit, "y" | "year" | "years" | "M" | "month" | "months") {
            return Err(format!(
                "years and months vary in length: give days, e.g. 365d or 30d ({DURATION_EXAMPLES})"
            ));
        }
    }
    humantime::parse_duration(raw).map_err(|err| format!("{err} ({DURATION_EXAMPLES})"))
}

/// A lifetime: [`parse_duration`], and longer than zero.
pub(crate) fn parse_lifetime(raw: &str) -> Result<std::time::Duration, String> {
    match parse_duration(raw)? {
        duration if duration.is_zero() => {
            Err(format!("must be longer than 0 ({DURATION_EXAMPLES})"))
        }
        duration => Ok(duration),
    }
}

/// A webhook signing secret from the command line; `Debug` never shows it.
#[derive(Clone)]
pub struct SigningSecret(pub String);

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningSecret([redacted])")
    }
}

impl std::str::FromStr for SigningSecret {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(SigningSecret(value.to_string()))
    }
}
