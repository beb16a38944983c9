//! One module per noun, each with a `run`; they call the SDK and hand results to [`Output`].

mod audit;
mod chat;
mod completions;
mod config;
mod keys;
mod login;
mod models;
mod names;
mod requests;
mod scan;
mod scopes;
mod settings;
mod tokens;
mod usage;
mod webhooks;
mod x402;

use std::io::IsTerminal;

use crate::cli::{Cli, Command, ConfigCommand, GlobalArgs, OutputFormat};
use crate::config::{ConfigFile, Settings, Source};
use crate::error::CliError;
use crate::output::Output;

/// What every command gets: parsed flags, settings, and the output.
pub struct Ctx {
    pub global: GlobalArgs,
    pub config_path: std::path::PathBuf,
    pub config: ConfigFile,
    pub settings: Settings,
    pub out: Output,
}

impl Ctx {
    /// An SDK client from the settings in effect. The base URL is checked first: a bad one
    /// is the problem to report, not the missing key it leads to.
    pub fn client(&self) -> Result<tokctl_sdk::Client, CliError> {
        self.paying_client(None)
    }

    /// [`Ctx::client`], paying the gateway's x402 offers with `wallet` when given.
    pub fn paying_client(
        &self,
        wallet: Option<tokctl_sdk::x402::Wallet>,
    ) -> Result<tokctl_sdk::Client, CliError> {
        let base_url = self.settings.base_url()?;
        let Some((key, _)) = &self.settings.api_key else {
            return Err(CliError::new("no API key configured")
                .with_hint("run `tokctl login`, or set TOKCTL_API_KEY")
                .with_code(crate::error::exit::UNAUTHORIZED));
        };
        self.build_client(&base_url, Some(key), wallet)
    }

    /// Says `message` on stderr, unless `-q` asked for only the value and stderr is not a
    /// terminal (a script reading stdout wants nothing else).
    pub fn note(&self, message: &str) {
        if !self.out.quiet() || std::io::stderr().is_terminal() {
            eprintln!("{message}");
        }
    }

    /// An SDK client for `base_url` and `key`, with every other setting in effect: the user
    /// agent, `TOKCTL_MAX_WAIT`, the chat base URL and `-v` request logging.
    pub fn client_for(&self, base_url: &str, key: &str) -> Result<tokctl_sdk::Client, CliError> {
        self.build_client(base_url, Some(key), None)
    }

    /// An SDK client for the base URL in effect that sends no API key (reporting leaked
    /// secrets needs none).
    pub fn anonymous_client(&self) -> Result<tokctl_sdk::Client, CliError> {
        self.build_client(&self.settings.base_url()?, None, None)
    }

    fn build_client(
        &self,
        base_url: &str,
        key: Option<&str>,
        wallet: Option<tokctl_sdk::x402::Wallet>,
    ) -> Result<tokctl_sdk::Client, CliError> {
        let mut builder = tokctl_sdk::Client::builder()
            .base_url(base_url)
            .user_agent(format!("tokctl/{}", env!("CARGO_PKG_VERSION")));
        if let Some(wallet) = wallet {
            builder = builder.wallet(wallet);
        }
        if let Some(key) = key {
            builder = builder.api_key(key);
        }
        if let Some(seconds) = std::env::var("TOKCTL_MAX_WAIT")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            let wait = std::time::Duration::from_secs(seconds);
            builder =
                builder.retry_policy(tokctl_sdk::RetryPolicy::default().max_rate_limit_wait(wait));
        }
        if let Some((url, _)) = &self.settings.chat_base_url {
            builder = builder.chat_base_url(url);
        }
        if self.global.verbose {
            builder = builder.on_request(|event| {
                let status = event.status.map_or("-".to_string(), |s| s.to_string());
                let retry = if event.attempt > 0 {
                    format!(" (retry {})", event.attempt)
                } else {
                    String::new()
                };
                eprintln!(
                    "{} {} {status} {:.1} ms{retry}",
                    event.method,
                    event.path,
                    event.elapsed.as_secs_f64() * 1000.0
                );
            });
        }
        builder.build().map_err(CliError::from)
    }
}

/// Whether prompts and progress bars may be shown: stdin and stderr are terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks `prompt()` (yes or no, default no) on a terminal before something destructive; without
/// a terminal, demands `yes` (exit 2). Declining is exit 1.
pub fn confirm(yes: bool, prompt: impl FnOnce() -> String) -> Result<(), CliError> {
    if yes {
        return Ok(());
    }
    if !interactive() {
        return Err(CliError::usage(
            "refusing to revoke without confirmation: pass --yes when not on a terminal",
        ));
    }
    let confirmed = dialoguer::Confirm::new()
        .with_prompt(prompt())
        .default(false)
        .interact()
        .map_err(|err| CliError::new(format!("no confirmation: {err}")))?;
    if confirmed {
        Ok(())
    } else {
        Err(CliError::new("cancelled").with_code(crate::error::exit::ERROR))
    }
}

/// Runs the parsed command. `completions` reads no configuration, so a broken file cannot
/// break it.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let out = Output::new(&cli.global);
    if let Command::Completions { shell } = cli.command {
        return completions::run(&out, shell);
    }
    if cli.global.output == Some(OutputFormat::Sarif) && !matches!(cli.command, Command::Scan(_)) {
        return Err(CliError::usage("--output sarif is only for `tokctl scan`"));
    }
    let config_path = crate::config::path()?;
    let config = crate::config::load(&config_path)?;
    if !names_profiles(&cli.command) {
        crate::config::check_profile(&cli.global, &config, &config_path)?;
    }
    let settings = crate::config::resolve(&cli.global, &config);
    let key_source = settings.api_key.as_ref().map(|(_, source)| source.clone());
    let ctx = Ctx {
        global: cli.global,
        config_path,
        config,
        settings,
        out,
    };
    let result = match cli.command {
        Command::Login(args) => login::run(ctx, args).await,
        Command::Config(command) => config::run(ctx, command),
        Command::Tokens(command) => tokens::run(&ctx, command).await,
        Command::Keys(command) => keys::run(&ctx, command).await,
        Command::Audit(command) => audit::run(&ctx, command).await,
        Command::Scopes => scopes::run(&ctx).await,
        Command::Chat(args) => chat::run(&ctx, args).await,
        Command::Models => models::run(&ctx).await,
        Command::Usage(args) => usage::run(&ctx, args).await,
        Command::Requests(command) => requests::run(&ctx, command).await,
        Command::Settings(command) => settings::run(&ctx, command).await,
        Command::Webhooks(command) => webhooks::run(&ctx, command).await,
        Command::X402(command) => x402::run(&ctx, command).await,
        Command::Scan(args) => scan::run(&ctx, args).await,
        Command::Completions { shell } => completions::run(&ctx.out, shell),
    };
    result.map_err(|err| err.about_key(|what| Source::key_hint(key_source.as_ref(), what)))
}

/// Commands that create, choose or list profiles, and so may name one the file lacks:
/// `login` and `config set` create it, `config use` checks the name itself.
fn names_profiles(command: &Command) -> bool {
    matches!(
        command,
        Command::Login(_)
            | Command::Config(
                ConfigCommand::Set { .. } | ConfigCommand::Use { .. } | ConfigCommand::Profiles
            )
    )
}
