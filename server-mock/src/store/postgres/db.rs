//! Connections to PostgreSQL: two pools (request work, and the round trips many requests
//! share) and a time limit on every operation.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{
    Hook, HookError, Manager, ManagerConfig, Object, Pool, PoolBuilder, PoolError, RecyclingMethod,
    Runtime, TimeoutType,
};
use std::future::Future;
use tokio_postgres::Config;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::url::DatabaseUrl;
use crate::store::PageRequest;
use crate::store::{StoreError, StoreResult};
use crate::telemetry::Outage;

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
    url: DatabaseUrl,
    /// `host:port/dbname`, for messages.
    target: String,
    /// Whether operations reach the database; every one run by [`Db::limit`] says.
    pub outage: Arc<Outage>,
}

impl Db {
    /// Pools over `url`, their connections made through `tls` when first needed.
    pub fn new(url: &DatabaseUrl, limits: Limits, tls: MakeRustlsConnect) -> StoreResult<Self> {
        let timeout = limits.timeout;
        let config = url.connection_config(timeout);
        let acquire = limits.acquire_timeout.min(timeout);
        let requests = Pool::builder(manager(&config, tls.clone()))
            .max_size(limits.pool_size)
            .post_create(settings(SESSION));
        // Counting requests and reading the change log need no disk sync of their own.
        let fast = Pool::builder(manager(&config, tls))
            .max_size(FAST_POOL_SIZE)
            .post_create(settings(FAST_SESSION));
        Ok(Db {
            pool: build(requests, timeout, acquire)?,
            fast: build(fast, timeout, timeout)?,
            timeout,
            url: url.clone(),
            target: url.target(),
            outage: Arc::default(),
        })
    }

    /// A connection for request work.
    pub async fn get(&self) -> StoreResult<Object> {
        self.pool.get().await.map_err(|err| match err {
            PoolError::Timeout(TimeoutType::Wait) => StoreError::Busy(format!(
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
    ///
    /// Each outcome goes to [`Db::outage`]: the first operation that cannot reach the database
    /// starts an outage, the first that gets an answer ends it.
    pub async fn limit<T>(&self, work: impl Future<Output = StoreResult<T>>) -> StoreResult<T> {
        let began = Instant::now();
        let result = tokio::time::timeout(self.timeout, work)
            .await
            .unwrap_or_else(|_| Err(self.silent()));
        match &result {
            Err(StoreError::Unavailable(cause)) => self.outage.unreachable(&self.target, cause),
            Err(StoreError::Busy(_)) => {}
            _ => self.outage.answered(began),
        }
        result
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
            PoolError::Backend(err) | PoolError::PostCreateHook(HookError::Backend(err)) => {
                match StoreError::from(&err) {
                    StoreError::Unavailable(_) | StoreError::Backend(_) => {
                        StoreError::Unavailable(format!(
                            "cannot connect to PostgreSQL at {}: {}",
                            self.target,
                            self.url.explain(&err)
                        ))
                    }
                    other => other,
                }
            }
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

/// Session settings of a connection for request work, set once it is made (not as startup
/// `options`, which connection poolers such as PgBouncer refuse). JIT compilation is off: the
/// planner, without statistics on a small table, can take a one-row read for a large one and
/// compile it (5 ms here, for a 0.1 ms query).
const SESSION: &str = "SET jit = off";
/// Those of a connection for the coalesced round trips, which need no disk sync of their own.
const FAST_SESSION: &str = "SET jit = off; SET synchronous_commit = off";

fn manager(config: &Config, tls: MakeRustlsConnect) -> Manager {
    let recycling = ManagerConfig {
        recycling_method: RecyclingMethod::Fast,
    };
    Manager::from_config(config.clone(), tls, recycling)
}

/// A pool hook applying `sql` to each new connection.
fn settings(sql: &'static str) -> Hook {
    Hook::async_fn(move |client, _| {
        Box::pin(async move { client.batch_execute(sql).await.map_err(HookError::Backend) })
    })
}

fn build(builder: PoolBuilder, timeout: Duration, acquire: Duration) -> StoreResult<Pool> {
    builder
        .wait_timeout(Some(acquire))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|err| StoreError::Backend(err.to_string()))
}

/// `LIMIT` and `OFFSET` of a page (an absurd page number reads past the end).
pub(super) fn limits(page: PageRequest) -> (i64, i64) {
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    (page.per_page as i64, offset)
}
