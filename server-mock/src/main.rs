//! `tokctl-server`: parses the command line and runs the server or an admin action.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use tokctl_server::store::postgres::{DatabaseUrl, Limits};
use tokctl_server::{
    DEFAULT_DATABASE_TIMEOUT, DEFAULT_RATE_LIMIT, Database, ServeConfig, admin, open_store, serve,
};
use tracing_subscriber::EnvFilter;

mod values;
use values::{
    DatabaseUrlParser, Notices, Schedule, parse_notices, parse_ratio, parse_schedule, parse_timeout,
};

// Many small allocations per request, from both cores: mimalloc avoids glibc's arena locks.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Reference server for the tokctl token API.
#[derive(Parser)]
#[command(
    name = "tokctl-server",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

// Parsed once at start: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the API (the default when no subcommand is given).
    Serve(ServeArgs),
    /// Operator actions on a data directory (safe while a server runs on it).
    Admin {
        #[command(flatten)]
        data: DataDirArg,
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        action: AdminAction,
    },
    /// Model catalogue actions that need no server.
    Catalogue {
        #[command(subcommand)]
        action: CatalogueAction,
    },
}

#[derive(Subcommand)]
enum CatalogueAction {
    /// Validate a catalogue file and print what each model resolves to (where its requests
    /// go, how its key is sent and whether the key's variable is set, its quirks); exits 1
    /// naming the first problem.
    Check {
        /// The catalogue (TOML), as given to --models.
        file: PathBuf,
    },
}

#[derive(Args, Clone)]
struct ServeArgs {
    /// Address to listen on (port 0 picks a free one).
    #[arg(long, env = "TOKCTL_SERVER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    #[command(flatten)]
    data: DataDirArg,
    #[command(flatten)]
    database: DatabaseArgs,
    /// The webhook sealing key (32 bytes, mode 0600; made when missing). Every instance that
    /// shares a database must have the same one [default: webhook.key in the data directory].
    #[arg(long, env = "TOKCTL_WEBHOOK_KEY_FILE")]
    webhook_key_file: Option<PathBuf>,
    /// Requests per minute per workspace.
    #[arg(long, default_value_t = DEFAULT_RATE_LIMIT, value_parser = clap::value_parser!(u32).range(1..))]
    rate_limit: u32,
    /// Leak reports (`POST /v1/credentials/revoke`) per minute per client address.
    #[arg(long, default_value_t = tokctl_server::LEAK_REPORT_RATE_LIMIT, value_parser = clap::value_parser!(u32).range(1..))]
    leak_report_rate_limit: u32,
    /// Model catalogue (TOML) [default: four built-in simulated models].
    #[arg(long, env = "TOKCTL_MODELS")]
    models: Option<PathBuf>,
    /// Milliseconds between tokens of simulated streams.
    #[arg(long, default_value_t = 20)]
    sim_token_delay_ms: u64,
    /// Milliseconds a Messages stream translated from another dialect waits on a silent
    /// upstream before sending Anthropic's `ping` event.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    stream_ping_ms: u64,
    /// Waits between webhook delivery attempts, e.g. 1s,2s,5s.
    #[arg(long, default_value = tokctl_server::webhooks::DEFAULT_SCHEDULE, value_parser = parse_schedule)]
    webhook_retry_schedule: Schedule,
    /// When `token.expiring` fires, before `expires_at`, e.g. 7d,1d.
    #[arg(long, default_value = tokctl_server::webhooks::expiry::DEFAULT_NOTICES, value_parser = parse_notices)]
    expiring_notice: Notices,
    /// Close a connection that takes longer than this to send a request's head (slow clients),
    /// or stays idle this long between requests [default: 30s].
    #[arg(long, value_parser = parse_timeout)]
    header_timeout: Option<std::time::Duration>,
    /// Serve Prometheus metrics at http://ADDR/metrics, on a listener apart from the API's
    /// (e.g. 127.0.0.1:9464) [default: no metrics].
    #[arg(long, env = "TOKCTL_METRICS_LISTEN", value_name = "ADDR")]
    metrics_listen: Option<String>,
    /// Export traces over OTLP/HTTP (protobuf) to this URL, e.g.
    /// http://127.0.0.1:4318/v1/traces [default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
    /// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces; else no traces].
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Share of new traces kept, 0 to 1 (a request joining a caller's trace follows the
    /// caller's choice).
    #[arg(long, default_value_t = 1.0, value_parser = parse_ratio)]
    trace_sample_ratio: f64,
    /// Record message content in traces (gen_ai.input.messages, gen_ai.output.messages,
    /// gen_ai.system_instructions), secrets redacted [default: no content].
    #[arg(long)]
    trace_content: bool,
    /// Keep a log of gateway requests (GET /v1/requests, tokctl requests) [default: off, as it
    /// adds 3 to 5 % to the server's work per request for now].
    #[arg(long)]
    request_log: bool,
    /// How long the request log keeps each gateway request, e.g. 30d, 12h.
    #[arg(long, default_value = "30d", value_parser = parse_timeout, value_name = "DURATION")]
    request_log_retention: std::time::Duration,
    /// Keep each request's body and a whole answer's message in the request log, secrets
    /// redacted, for every workspace that never chose otherwise (a workspace decides with
    /// PUT /v1/settings {"store_bodies": ...}, which wins either way) (needs --request-log)
    /// [default: bodies are kept only for workspaces that turned store_bodies on].
    #[arg(long, requires = "request_log")]
    request_log_bodies: bool,
    /// The most bytes of each body kept, for every workspace; the rest is cut and the cut said.
    #[arg(long, default_value_t = tokctl_server::request_log::DEFAULT_BODY_CAP, value_name = "BYTES")]
    request_log_body_cap: usize,
    #[command(flatten)]
    breaker: BreakerArgs,
}

/// When an upstream model's circuit opens and for how long. A model's `[models.breaker]` table
/// in the catalogue overrides each of these for that model.
#[derive(Args, Clone)]
#[command(next_help_heading = "Upstream circuit breakers")]
struct BreakerArgs {
    /// Failures in a row that open a model's circuit.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    breaker_failures: u32,
    /// Share of failed requests in the window (over 0, at most 1) that opens it.
    #[arg(long, default_value_t = 0.5)]
    breaker_failure_rate: f64,
    /// Fewest requests in the window before the failure rate counts.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    breaker_min_requests: u32,
    /// How far back the failure rate looks.
    #[arg(long, default_value = "60s", value_parser = parse_timeout)]
    breaker_window: std::time::Duration,
    /// How long a circuit stays open the first time; each re-open doubles it.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    breaker_cooldown: std::time::Duration,
    /// The longest a circuit stays open (also caps an upstream's `Retry-After`).
    #[arg(long, default_value = "5m", value_parser = parse_timeout)]
    breaker_max_cooldown: std::time::Duration,
}

impl BreakerArgs {
    fn policy(&self) -> anyhow::Result<tokctl_server::chat::breaker::Policy> {
        let policy = tokctl_server::chat::breaker::Policy {
            failures: self.breaker_failures,
            failure_rate: self.breaker_failure_rate,
            min_requests: self.breaker_min_requests,
            window: self.breaker_window,
            cooldown: self.breaker_cooldown,
            max_cooldown: self.breaker_max_cooldown,
        };
        policy
            .check()
            .map_err(|why| anyhow::anyhow!("--breaker-*: {why}"))?;
        Ok(policy)
    }
}

#[derive(Args, Clone)]
struct DatabaseArgs {
    /// A PostgreSQL database to keep everything in, shared by any number of instances, e.g.
    /// postgres://tokctl@127.0.0.1:5432/tokctl [default: SQLite in the data directory].
    #[arg(long, env = "TOKCTL_DATABASE_URL", hide_env_values = true, global = true,
          value_parser = DatabaseUrlParser)]
    database_url: Option<DatabaseUrl>,
    /// How long a database operation may take before the request is answered 503 [default: 5s].
    #[arg(long, value_parser = parse_timeout, global = true)]
    database_timeout: Option<std::time::Duration>,
    /// PostgreSQL connections this instance keeps for requests; it holds 3 more (README,
    /// "Pool sizing") [default: 16].
    #[arg(long, env = "TOKCTL_DATABASE_POOL_SIZE", global = true,
          value_parser = clap::value_parser!(u16).range(1..=1000))]
    database_pool_size: Option<u16>,
    /// How long a request waits for a free connection, or for its rate-limit count to be sent,
    /// before it is answered 503 (at most --database-timeout) [default: --database-timeout].
    #[arg(long, value_parser = parse_timeout, global = true)]
    database_acquire_timeout: Option<std::time::Duration>,
}

impl DatabaseArgs {
    fn resolve(&self) -> Option<Database> {
        let mut limits = Limits::new(self.database_timeout.unwrap_or(DEFAULT_DATABASE_TIMEOUT));
        if let Some(size) = self.database_pool_size {
            limits.pool_size = usize::from(size);
        }
        if let Some(wait) = self.database_acquire_timeout {
            limits.acquire_timeout = wait;
        }
        self.database_url
            .clone()
            .map(|url| Database { url, limits })
    }
}

#[derive(Args, Clone)]
struct DataDirArg {
    /// Data directory [default: the platform data directory + tokctl-server].
    #[arg(long, env = "TOKCTL_DATA_DIR", global = true)]
    data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum AdminAction {
    /// Create a workspace and print an API key with every scope for it.
    CreateWorkspace {
        /// Workspace name.
        name: String,
    },
    /// Copy this data directory's SQLite database into an empty PostgreSQL database
    /// (--database-url): workspaces, keys, tokens, audit, webhooks with their sealed secrets,
    /// pending deliveries, the credit ledger. Stop the server on the directory first.
    CopyToPostgres {
        /// The webhook key the directory's secrets are sealed with [default: webhook.key in
        /// the data directory]; give every instance this same key.
        #[arg(long, env = "TOKCTL_WEBHOOK_KEY_FILE")]
        webhook_key_file: Option<PathBuf>,
    },
    /// Print a new API key for a workspace.
    CreateKey {
        /// Workspace name.
        #[arg(long)]
        workspace: String,
        /// Scope to grant (repeat; default: every scope).
        #[arg(long = "scope")]
        scopes: Vec<String>,
        /// The key's name, unique among the workspace's live keys [default: key- and the
        /// start of its id].
        #[arg(long)]
        name: Option<String>,
    },
}

impl DataDirArg {
    fn resolve(&self) -> anyhow::Result<PathBuf> {
        match &self.data_dir {
            Some(dir) => Ok(dir.clone()),
            None => dirs::data_dir()
                .map(|dir| dir.join("tokctl-server"))
                .ok_or_else(|| anyhow::anyhow!("no platform data directory; pass --data-dir")),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let admin = matches!(cli.command, Some(Command::Admin { .. }));
    tracing_subscriber::fmt()
        .with_env_filter(log_filter(admin))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    if let Err(err) = tokctl_server::clock::init() {
        eprintln!("tokctl-server: {err}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tokctl-server: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tokctl-server: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => run_serve(cli.serve).await,
        Some(Command::Serve(args)) => run_serve(args).await,
        Some(Command::Admin {
            data,
            database,
            action,
        }) => run_admin(data.resolve()?, database.resolve(), action).await,
        Some(Command::Catalogue {
            action: CatalogueAction::Check { file },
        }) => {
            let catalogue = tokctl_server::chat::catalogue::Catalogue::load(&file)?;
            catalogue.check_breakers(Default::default())?;
            print!("{}", catalogue.describe());
            Ok(())
        }
    }
}

async fn run_admin(
    data_dir: PathBuf,
    database: Option<Database>,
    action: AdminAction,
) -> anyhow::Result<()> {
    let (workspace, scopes, name, new_workspace) = match action {
        AdminAction::CopyToPostgres { webhook_key_file } => {
            let Some(database) = database else {
                use clap::CommandFactory;
                Cli::command()
                    .error(
                        clap::error::ErrorKind::MissingRequiredArgument,
                        "copy-to-postgres needs --database-url (or TOKCTL_DATABASE_URL)",
                    )
                    .exit();
            };
            return admin::copy_to_postgres(&data_dir, &database, webhook_key_file).await;
        }
        AdminAction::CreateWorkspace { name } => (name, Vec::new(), None, true),
        AdminAction::CreateKey {
            workspace,
            scopes,
            name,
        } => (workspace, scopes, name, false),
    };
    let store = open_store(data_dir, database.as_ref()).await?;
    let secret = match new_workspace {
        true => admin::create_workspace(&store, &workspace).await,
        false => admin::create_key(&store, &workspace, &scopes, name.as_deref()).await,
    };
    store.close().await;
    println!("{}", secret?.expose());
    Ok(())
}

async fn run_serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = ServeConfig {
        listen: args.listen,
        data_dir: args.data.resolve()?,
        database: args.database.resolve(),
        webhook_key_file: args.webhook_key_file,
        rate_limit: args.rate_limit,
        leak_report_rate_limit: args.leak_report_rate_limit,
        models: args.models,
        sim_token_delay: std::time::Duration::from_millis(args.sim_token_delay_ms),
        stream_ping: std::time::Duration::from_millis(args.stream_ping_ms),
        breaker: args.breaker.policy()?,
        webhook_retry_schedule: args.webhook_retry_schedule.0,
        expiring_notices: args.expiring_notice.0,
        header_timeout: args
            .header_timeout
            .unwrap_or(tokctl_server::http::listen::DEFAULT_HEADER_TIMEOUT),
        metrics_listen: args.metrics_listen,
        traces: tokctl_server::telemetry::TraceConfig {
            endpoint: args
                .otlp_endpoint
                .or_else(tokctl_server::telemetry::TraceConfig::endpoint_from_env),
            sample_ratio: args.trace_sample_ratio,
            content: args.trace_content,
        },
        request_log: args
            .request_log
            .then_some(tokctl_server::request_log::LogConfig {
                retention: args.request_log_retention,
                bodies_by_default: args.request_log_bodies,
                body_cap: args.request_log_body_cap,
            }),
    };
    let key_file = config.data_dir.join(tokctl_server::admin::ADMIN_KEY_FILE);
    let on_bound = move |addr: std::net::SocketAddr| {
        println!(
            "Dashboard: http://{addr}/  (sign in with an API key; the first admin key is in {})",
            key_file.display()
        );
        println!("API:       http://{addr}/v1  (OpenAPI document at /v1/openapi.json)");
    };
    serve(config, on_bound, shutdown_signal()?).await
}

/// `RUST_LOG`'s filter, by default `info` for a server and `warn` for an admin command (which
/// prints its result, and one line when it fails). Unless `RUST_LOG` names them, two libraries
/// are quieter: tokio-postgres logs PostgreSQL's notices at info, and the pool warns of every
/// connection a lost database closes, where the server says the outage once.
fn log_filter(admin: bool) -> EnvFilter {
    let asked = std::env::var("RUST_LOG").unwrap_or_default();
    let level = if admin { "warn" } else { "info" };
    let mut filter = match asked.trim() {
        "" => EnvFilter::new(level),
        asked => EnvFilter::try_new(asked).unwrap_or_else(|_| EnvFilter::new(level)),
    };
    for (target, quieter) in [
        ("tokio_postgres", "tokio_postgres=warn"),
        ("deadpool", "deadpool=error"),
    ] {
        if !asked.contains(target)
            && let Ok(directive) = quieter.parse()
        {
            filter = filter.add_directive(directive);
        }
    }
    filter
}

/// Installs the SIGINT and SIGTERM handlers now (so a signal that arrives during start-up is not
/// lost) and resolves when either arrives.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    let stopped = {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
    };
    #[cfg(not(unix))]
    let stopped = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    Ok(async move {
        stopped.await;
        tracing::info!("shutting down: finishing in-flight requests");
    })
}
