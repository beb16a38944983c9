//! Connections to PostgreSQL: the URL, two pools (request work, and the round trips many
//! requests share), a time limit on every operation, and which failures mean "the database is
//! unavailable" (503, try again) rather than a fault of the server (500).

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime, TimeoutType,
};
use std::future::Future;
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::{Config, NoTls};

use crate::store::PageRequest;
use crate::store::{StoreError, StoreResult};

/// Runs `$body` with `$c` bound to a pooled connection, within the store's time limit.
macro_rules! with_client {
    ($store:expr, |$c:ident| $body:expr) => {
        $store
            .db
            .limit(async {
                let $c = $store.db.get().await?;
                $body
            })
            .await
    };
}

/// Runs `$body` with `$tx` bound to a transaction, committed when `$body` succeeds.
macro_rules! in_transaction {
    ($store:expr, |$tx:ident| $body:expr) => {
        $store
            .db
            .limit(async {
                let mut client = $store.db.get().await?;
                let $tx = client.transaction().await?;
                let result = $body;
                $tx.commit().await?;
                Ok(result)
            })
            .await
    };
}

/// Connections for request work, unless `--database-pool-size` says otherwise.
const DEFAULT_POOL_SIZE: usize = 16;
/// Connections for the coalesced round trips ([`super::sync`], [`super::counter`]).
const FAST_POOL_SIZE: usize = 2;
/// How long an idle connection to a peer that vanished stays open before TCP notices.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(5);

/// A PostgreSQL URL (`postgres://user@host:port/dbname`), parsed. Its password never appears in
/// messages: [`DatabaseUrl::target`] names only the host, port and database.
#[derive(Clone)]
pub struct DatabaseUrl {
    config: Config,
}

impl FromStr for DatabaseUrl {
    type Err = String;

    fn from_str(url: &str) -> Result<Self, String> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(
                "must be a postgres:// URL, e.g. postgres://user@127.0.0.1:5432/tokctl".into(),
            );
        }
        // The parser's own message may quote the URL, password and all: say only what is wrong.
        let config = Config::from_str(url).map_err(
            |_| "not a valid PostgreSQL URL (postgres://user:password@host:port/dbname)",
        )?;
        if config.get_hosts().is_empty() {
            return Err("the URL names no host".into());
        }
        if config.get_ssl_mode() == SslMode::Require {
            return Err("sslmode=require is not supported: this server connects to PostgreSQL without TLS (use a trusted network or a TLS tunnel)".into());
        }
        Ok(DatabaseUrl { config })
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatabaseUrl({})", self.target())
    }
}

impl DatabaseUrl {
    /// `host:port/dbname`, for messages.
    pub fn target(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            Some(Host::Unix(path)) => path.display().to_string(),
            None => "localhost".into(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let db = self
            .config
            .get_dbname()
            .or(self.config.get_user())
            .unwrap_or("postgres");
        format!("{host}:{port}/{db}")
    }

    /// Settings every connection shares: time limits and keepalives, so that a database that
    /// vanished is noticed instead of waited on for ever. A request sent and not acknowledged
    /// within `timeout` closes its connection (`tcp_user_timeout`), as does an idle connection
    /// whose peer stopped answering keepalives.
    ///
    /// JIT compilation is off: the planner, without statistics on a small table, can take a
    /// one-row read for a large one and compile it (5 ms here, for a 0.1 ms query).
    pub(super) fn connection_config(&self, timeout: Duration) -> Config {
        let mut config = self.config.clone();
        with_option(&mut config, "-c jit=off");
        config
            .connect_timeout(timeout)
            .tcp_user_timeout(timeout)
            .keepalives_idle(KEEPALIVE_IDLE)
            .keepalives_interval(Duration::from_secs(2))
            .keepalives_retries(3)
            .application_name("tokctl-server");
        config
    }
}

/// How an instance uses its database: the time limit of every operation, and its pool for
/// request work. Each instance holds `pool_size` + 3 connections at most (2 for the coalesced
/// round trips, 1 that marks it alive).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How long an operation may take before it is given up (503).
    pub timeout: Duration,
    /// Connections for request work.
    pub pool_size: usize,
    /// How long a request waits for one of them when all are busy before it is answered 503
    /// (at most `timeout`, which bounds the whole operation).
    pub acquire_timeout: Duration,
}

impl Limits {
    /// The default pool, waiting for a connection as long as an operation may take.
    pub fn new(timeout: Duration) -> Self {
        Limits {
            timeout,
            pool_size: DEFAULT_POOL_SIZE,
            acquire_timeout: timeout,
        }
    }
}

/// The pools and the time limit of every operation.
pub struct Db {
    pool: Pool,
    fast: Pool,
    timeout: Duration,
    target: String,
}

impl Db {
    /// Pools over `url` (connections are made when first needed).
    pub fn new(url: &DatabaseUrl, limits: Limits) -> StoreResult<Self> {
        let timeout = limits.timeout;
        let config = url.connection_config(timeout);
        // Counting requests and reading the change log need no disk sync of their own.
        let mut fast_config = config.clone();
        with_option(&mut fast_config, "-c synchronous_commit=off");
        let acquire = limits.acquire_timeout.min(timeout);
        Ok(Db {
            pool: pool(config, limits.pool_size, timeout, acquire)?,
            fast: pool(fast_config, FAST_POOL_SIZE, timeout, timeout)?,
            timeout,
            target: url.target(),
        })
    }

    /// A connection for request work.
    pub async fn get(&self) -> StoreResult<Object> {
        self.pool.get().await.map_err(|err| match err {
            PoolError::Timeout(TimeoutType::Wait) => StoreError::Unavailable(format!(
                "all {} connections to PostgreSQL at {} stayed busy for the acquire timeout \
                 (--database-pool-size, --database-acquire-timeout)",
                self.pool.status().max_size,
                self.target
            )),
            err => self.pool_error(err),
        })
    }

    /// A connection for the coalesced round trips (no disk sync on commit).
    pub async fn get_fast(&self) -> StoreResult<Object> {
        self.fast.get().await.map_err(|err| self.pool_error(err))
    }

    /// Runs `work` (which takes its connection with [`Db::get`]) within the time limit: a
    /// database that does not answer in time is reported unavailable. A connection left half
    /// way through an answer is closed by TCP's own limits (`tcp_user_timeout` and keepalives on
    /// every connection) and then never handed out again.
    pub async fn limit<T>(&self, work: impl Future<Output = StoreResult<T>>) -> StoreResult<T> {
        tokio::time::timeout(self.timeout, work)
            .await
            .unwrap_or_else(|_| Err(self.silent()))
    }

    fn silent(&self) -> StoreError {
        StoreError::Unavailable(format!(
            "PostgreSQL at {} did not answer within {} s",
            self.target,
            self.timeout.as_secs_f32()
        ))
    }

    fn pool_error(&self, err: PoolError) -> StoreError {
        match err {
            PoolError::Backend(err) => match StoreError::from(err) {
                StoreError::Unavailable(cause) | StoreError::Backend(cause) => {
                    StoreError::Unavailable(format!(
                        "cannot connect to PostgreSQL at {}: {cause}",
                        self.target
                    ))
                }
                other => other,
            },
            PoolError::Timeout(_) => self.silent(),
            other => StoreError::Unavailable(other.to_string()),
        }
    }

    /// Both pools' figures.
    pub fn pools(&self) -> Vec<crate::store::PoolStatus> {
        [("requests", &self.pool), ("fast", &self.fast)]
            .into_iter()
            .map(|(name, pool)| {
                let status = pool.status();
                crate::store::PoolStatus {
                    name,
                    max: status.max_size,
                    used: status.size.saturating_sub(status.available),
                    idle: status.available,
                    waiting: status.waiting,
                }
            })
            .collect()
    }

    /// Closes every idle connection (the store is closing).
    pub fn close(&self) {
        self.pool.close();
        self.fast.close();
    }
}

/// Adds a server option (`-c name=value`) to those the URL may already set.
fn with_option(config: &mut Config, option: &str) {
    let options = match config.get_options() {
        Some(own) => format!("{own} {option}"),
        None => option.to_string(),
    };
    config.options(options);
}

fn pool(config: Config, size: usize, timeout: Duration, acquire: Duration) -> StoreResult<Pool> {
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .wait_timeout(Some(acquire))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|err| StoreError::Backend(err.to_string()))
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(err: tokio_postgres::Error) -> Self {
        let unavailable = match err.code() {
            // Connection exceptions, a server shutting down or starting, out of connections.
            Some(code) => {
                let code = code.code();
                code.starts_with("08") || code.starts_with("53") || code.starts_with("57P")
            }
            None => {
                err.is_closed()
                    || std::error::Error::source(&err).is_some_and(|s| s.is::<std::io::Error>())
                    || err.to_string().contains("timeout")
            }
        };
        let message = describe(&err);
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
/// `LIMIT` and `OFFSET` of a page (an absurd page number reads past the end).
pub(super) fn limits(page: PageRequest) -> (i64, i64) {
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    (page.per_page as i64, offset)
}
