//! `tokctl-server`: the reference server for the tokctl token API.
//!
//! [`app`] builds the router over an [`AppState`]; [`serve`] opens the data directory, binds,
//! and serves until a shutdown signal, then finishes in-flight requests and closes the store.

pub mod admin;
pub mod audit;
pub mod auth;
pub mod chat;
pub mod clock;
pub mod credentials;
pub mod credits;
pub mod dashboard;
pub mod files;
pub mod format;
pub mod http;
pub mod keys;
pub mod last_used;
pub mod lock;
pub mod openapi;
pub mod outbound;
pub mod per_thread;
pub mod probes;
pub mod rate_limit;
pub mod request_log;
pub mod requests;
pub mod scopes;
pub mod scrape;
pub mod seal;
pub mod secrets;
pub mod settings;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod tokens;
pub mod usage;
pub mod validate;
pub mod webhooks;
pub mod x402;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::OriginalUri;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::{Router, middleware};

use crate::http::edge::{EdgeLayer, PanicLayer};
use crate::http::error::ApiError;
use crate::http::routes::Routes;
pub use crate::state::AppState;
use crate::store::Store;
pub use crate::store::postgres::Database;
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;

/// Default requests per minute per workspace.
pub const DEFAULT_RATE_LIMIT: u32 = 1000;

/// Leak reports (`POST /v1/credentials/revoke`, up to 100 secrets each) accepted per minute from
/// one client address, counted apart from the workspace and per-address API budgets and, on
/// PostgreSQL, across every instance together. Fixed: it guards storage against anonymous
/// floods, and 3,000 secrets a minute is more than any leak scanner reports.
pub const LEAK_REPORT_RATE_LIMIT: u32 = 30;

/// How long a database operation may take before the request is answered 503.
pub const DEFAULT_DATABASE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The HTTP application over `state`.
pub fn app(state: AppState) -> Router {
    // Every resource router spells out its `/v1/...` paths (no `nest`: nothing to strip and
    // rebuild on each request).
    api_routes()
        .into_router(no_route)
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        // A handler's panic is a 500 in the error shape, inside the layer that adds the
        // rate-limit headers, so it carries them too.
        .layer(PanicLayer)
        // Everything above carries the rate-limit headers; of the open routes below, leak
        // reports count themselves on a budget of their own, the health check not at all.
        .layer(middleware::from_fn_with_state(state.clone(), auth::layer))
        .merge(open_routes().into_router(no_route))
        .merge(dashboard::router())
        .layer(PanicLayer)
        // Request ids, the OpenAI envelope on the OpenAI-compatible paths (auth and rate-limit
        // errors included), and the log line.
        .layer(EdgeLayer {
            metrics: state.metrics.clone(),
            traces: state.gateway.traces.clone(),
            outage: state.store.outage(),
            requests: state.logging.then(|| state.requests.clone()),
        })
        .with_state(state)
}

/// The routes under the credential and rate-limit layer: everything under `/v1`.
fn api_routes() -> Routes<AppState> {
    tokens::routes()
        .merge(audit::routes())
        .merge(keys::routes())
        .merge(scopes::routes())
        .merge(usage::routes())
        .merge(webhooks::routes())
        .merge(chat::routes())
        .merge(chat::messages::routes())
        .merge(chat::responses::routes())
        .merge(x402::routes())
        .merge(requests::routes())
        .merge(settings::routes())
        .get("/v1/openapi.json", openapi::serve)
}

/// The routes outside it: the probes, and leak reports (no credential; counted per address on
/// a budget of their own).
fn open_routes() -> Routes<AppState> {
    probes::routes().merge(credentials::routes())
}

/// The method and path of every route the server answers (paths in axum's syntax,
/// `/v1/tokens/{id}`, which is also OpenAPI's).
pub fn route_list() -> Vec<(Method, &'static str)> {
    let mut list = api_routes().list().to_vec();
    list.extend_from_slice(open_routes().list());
    list
}

/// Unknown paths and methods: a 404 in the API's error shape (the spec lists no 405).
async fn no_route(method: Method, OriginalUri(uri): OriginalUri) -> Response {
    let path = http::error::truncate(uri.path(), 100);
    ApiError::NotFound(format!("No route for {method} {path}")).into_response()
}

/// How `serve` runs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Address to bind; port 0 picks a free port.
    pub listen: String,
    /// Directory of `admin.key`, the webhook key, and (without `database`) the SQLite database.
    pub data_dir: PathBuf,
    /// A PostgreSQL database shared with other instances; `None` for SQLite in `data_dir`.
    pub database: Option<Database>,
    /// The webhook sealing key; `None` for `webhook.key` in `data_dir`.
    pub webhook_key_file: Option<PathBuf>,
    /// Requests per minute per workspace.
    pub rate_limit: u32,
    /// Leak reports (`POST /v1/credentials/revoke`) per minute per client address.
    pub leak_report_rate_limit: u32,
    /// Model catalogue file; `None` for the built-in simulated models.
    pub models: Option<PathBuf>,
    /// Delay between tokens of simulated streams.
    pub sim_token_delay: std::time::Duration,
    /// How long a Messages stream translated from another dialect waits on a silent upstream
    /// before sending a `ping`.
    pub stream_ping: std::time::Duration,
    /// When an upstream model's circuit opens and for how long, unless its catalogue entry says.
    pub breaker: chat::breaker::Policy,
    /// Waits between webhook delivery attempts.
    pub webhook_retry_schedule: Vec<std::time::Duration>,
    /// `token.expiring` offsets before `expires_at`, each with its label (e.g. `7d`).
    pub expiring_notices: Vec<(String, std::time::Duration)>,
    /// How long a connection may take to send a request's head, counted from when the server
    /// starts waiting for it; so it also closes keep-alive connections idle that long.
    pub header_timeout: std::time::Duration,
    /// Where to serve `GET /metrics` (Prometheus), apart from the API; `None`: no metrics.
    pub metrics_listen: Option<String>,
    /// Where traces go (OTLP/HTTP), and which are kept; off by default.
    pub traces: telemetry::TraceConfig,
    /// How the request log is kept; `None` (the default): no request log.
    pub request_log: Option<request_log::LogConfig>,
}

impl ServeConfig {
    /// Defaults for everything but the address and data directory.
    pub fn new(listen: impl Into<String>, data_dir: impl Into<PathBuf>) -> Self {
        ServeConfig {
            listen: listen.into(),
            data_dir: data_dir.into(),
            database: None,
            webhook_key_file: None,
            rate_limit: DEFAULT_RATE_LIMIT,
            leak_report_rate_limit: LEAK_REPORT_RATE_LIMIT,
            models: None,
            sim_token_delay: std::time::Duration::from_millis(20),
            stream_ping: chat::DEFAULT_PING_EVERY,
            breaker: chat::breaker::Policy::default(),
            webhook_retry_schedule: webhooks::parse_schedule(webhooks::DEFAULT_SCHEDULE)
                .unwrap_or_default(),
            expiring_notices: webhooks::expiry::parse_notices(webhooks::expiry::DEFAULT_NOTICES)
                .unwrap_or_default(),
            header_timeout: http::listen::DEFAULT_HEADER_TIMEOUT,
            metrics_listen: None,
            traces: telemetry::TraceConfig::default(),
            request_log: None,
        }
    }
}

/// Opens the store: SQLite in `data_dir`, or `database`; creates `data_dir` (mode 0700) either
/// way (it holds `admin.key` and the webhook key) and applies migrations.
pub async fn open_store(
    data_dir: PathBuf,
    database: Option<&Database>,
) -> anyhow::Result<Arc<dyn Store>> {
    let dir = data_dir.clone();
    tokio::task::spawn_blocking(move || files::create_private_dir(&dir)).await??;
    if let Some(database) = database {
        return match PostgresStore::open(&database.url, database.limits).await {
            Ok(store) => Ok(Arc::new(store)),
            Err(
                store::StoreError::Unavailable(why)
                | store::StoreError::Backend(why)
                | store::StoreError::Busy(why),
            ) => Err(anyhow::anyhow!(why)),
            Err(err) => Err(err.into()),
        };
    }
    let store = tokio::task::spawn_blocking(move || SqliteStore::open(&data_dir)).await??;
    Ok(Arc::new(store))
}

/// Serves until `shutdown` resolves; `on_bound` learns the bound address first.
///
/// Start-up checks what can fail before it changes anything: the model catalogue, the data
/// directory's lock (on SQLite, one process per directory; see [`lock`]), then the address.
/// Only a server that can serve opens the store and, on its first start, writes and prints the
/// admin key; so a start refused for a taken port or directory prints no key it never serves.
pub async fn serve(
    config: ServeConfig,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let catalogue = match &config.models {
        Some(path) => chat::catalogue::Catalogue::load(path)?,
        None => chat::catalogue::Catalogue::builtin(),
    };
    catalogue.check_breakers(config.breaker)?;
    let mut lock = match config.database {
        None => Some(lock_data_dir(&config.data_dir).await?),
        Some(_) => None,
    };
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|err| anyhow::anyhow!("cannot listen on {}: {err}", config.listen))?;
    let addr = listener.local_addr()?;
    let metrics_listener =
        match &config.metrics_listen {
            Some(at) => Some(tokio::net::TcpListener::bind(at).await.map_err(|err| {
                anyhow::anyhow!("cannot listen on {at} (--metrics-listen): {err}")
            })?),
            None => None,
        };
    let metrics = match metrics_listener {
        Some(_) => telemetry::Metrics::on(&route_list()).map_err(anyhow::Error::msg)?,
        None => telemetry::Metrics::default(),
    };
    let store = open_store(config.data_dir.clone(), config.database.as_ref()).await?;
    // Every file of the data directory exists before the server says it is listening.
    let key_file = config
        .webhook_key_file
        .clone()
        .unwrap_or_else(|| config.data_dir.join(seal::KEY_FILE));
    let sealer = {
        let path = key_file.clone();
        tokio::task::spawn_blocking(move || seal::Sealer::load_or_create(&path)).await??
    };
    let stored = store.webhook_key_check(sealer.key_check()?).await?;
    sealer.check(&stored, &key_file)?;
    admin::first_start(&store, &config.data_dir).await?;
    if let Some(lock) = lock.as_mut() {
        // Only for a second start's message: serving goes on without it.
        if let Err(err) = lock.serving(addr) {
            tracing::warn!(error = %err, "cannot record the address in {}", lock::LOCK_FILE);
        }
    }
    let ledger = usage::Ledger::new(store.shared(), &metrics);
    let mut gateway = chat::Gateway::new(
        catalogue,
        config.breaker,
        config.sim_token_delay,
        ledger,
        metrics.clone(),
    );
    gateway.ping_every = config.stream_ping;
    gateway.traces = telemetry::Traces::start(&config.traces, &route_list(), &metrics)?;
    let hub = webhooks::Hub::new(sealer, config.webhook_retry_schedule.clone(), metrics);
    let limits = (config.rate_limit, config.leak_report_rate_limit);
    let state = AppState::new(store.clone(), limits, gateway, hub, config.request_log);
    let exposition = match metrics_listener {
        Some(listener) => {
            tracing::info!("metrics on http://{}/metrics", listener.local_addr()?);
            Some(tokio::spawn(scrape::serve(listener, state.clone())))
        }
        None => None,
    };
    if state.logging
        && let Err(err) = state
            .requests
            .prune(&store, request_log::PRUNE_AT_START)
            .await
    {
        err.log("could not delete old request log entries");
    }
    // Until they are read, no workspace's bodies are kept (the refresh retries).
    if state.logging
        && let Err(err) = state.requests.settings().load(&store).await
    {
        err.log("could not read the workspaces' settings");
    }
    tracing::info!("listening on http://{addr}");
    on_bound(addr);

    let deliveries = tokio::spawn(webhooks::delivery::run(
        state.webhooks.clone(),
        store.clone(),
    ));
    let expiry = tokio::spawn(webhooks::expiry::run(
        state.webhooks.clone(),
        store.clone(),
        config.expiring_notices.clone(),
    ));
    let ledger = tokio::spawn(state.gateway.ledger.clone().run(store.clone()));
    let settlements = tokio::spawn(x402::outbox::run(
        store.clone(),
        state.gateway.facilitator.clone(),
    ));
    let request_log = state.logging.then(|| {
        let log = state.requests.clone();
        let writer = tokio::spawn(log.clone().run(store.clone()));
        let settings = tokio::spawn(log.settings().clone().run(store.clone()));
        (
            writer,
            tokio::spawn(log.run_retention(store.clone())),
            settings,
        )
    });
    let flusher = tokio::spawn({
        let state = state.clone();
        async move {
            let mut tick = tokio::time::interval(last_used::FLUSH_EVERY);
            loop {
                tick.tick().await;
                state.last_used.flush(&state.store).await;
            }
        }
    });
    http::listen::serve(
        listener,
        app(state.clone()),
        config.header_timeout,
        shutdown,
    )
    .await;
    flusher.abort();
    if let Some(exposition) = exposition {
        exposition.abort();
    }
    ledger.abort();
    if let Some((writer, retention, settings)) = request_log {
        writer.abort();
        retention.abort();
        settings.abort();
    }
    settlements.abort();
    deliveries.abort();
    expiry.abort();
    state.last_used.flush(&store).await;
    state.gateway.ledger.flush(&store).await;
    state.requests.flush(&store).await;
    store.close().await;
    state.gateway.traces.shutdown().await;
    drop(lock);
    tracing::info!("stopped; store closed");
    Ok(())
}

/// Creates `data_dir` (mode 0700) and takes its lock, or says why another process has it.
async fn lock_data_dir(data_dir: &Path) -> anyhow::Result<lock::DataDirLock> {
    let dir = data_dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        files::create_private_dir(&dir)?;
        lock::DataDirLock::acquire(&dir).map_err(|err| match err {
            lock::LockError::Held { .. } => anyhow::anyhow!(
                "{err}: one SQLite data directory serves one process; stop it, pass another \
                 --data-dir, or run several instances on one PostgreSQL database with \
                 --database-url"
            ),
            lock::LockError::Io { .. } => anyhow::anyhow!(err),
        })
    })
    .await?
}

/// A server started with [`spawn`], serving on a background task.
pub struct Running {
    /// The bound address.
    pub addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Running {
    /// Stops gracefully (in-flight requests finish, the store closes) and waits for it.
    pub async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(());
        self.task.await?
    }
}

/// Starts [`serve`] on a background task and returns once it is listening (for tests and
/// embedding). Dropping the returned value leaves the server running until the runtime ends.
pub async fn spawn(config: ServeConfig) -> anyhow::Result<Running> {
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel();
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let on_bound = |addr| {
            let _ = bound_tx.send(addr);
        };
        let shutdown = async move {
            let _ = stop_rx.await;
        };
        serve(config, on_bound, shutdown).await
    });
    match bound_rx.await {
        Ok(addr) => Ok(Running { addr, stop, task }),
        // It stopped before binding: report why.
        Err(_) => Err(task
            .await?
            .err()
            .unwrap_or_else(|| anyhow::anyhow!("server stopped"))),
    }
}
