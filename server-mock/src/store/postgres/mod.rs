//! The shared backend: one PostgreSQL database behind any number of server instances.
//!
//! Every rule holds across instances as within one: writes are single transactions that return
//! once PostgreSQL has made them durable; the caches of credentials and tokens stay exact
//! through the change log (`sync.rs`); the rate limit counts in the database (`counter.rs`);
//! webhook attempts are leased to one live instance at a time (`webhooks.rs`, `presence.rs`).

#[macro_use]
pub mod db;
mod audit;
mod batch;
mod counter;
mod error;
mod keys;
mod limits;
mod migrations;
mod pooler;
mod presence;
mod requests;
mod schema;
mod settings;
mod spend;
mod sync;
pub mod tls;
mod tokens;
mod url;
mod usage;
mod webhooks;
mod workspaces;
mod x402;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use deadpool_postgres::GenericClient;
use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio_postgres_rustls::MakeRustlsConnect;

pub use db::Limits;
pub use schema::connect_migrated;
pub use url::DatabaseUrl;

/// A PostgreSQL database that several instances share.
#[derive(Debug, Clone)]
pub struct Database {
    pub url: DatabaseUrl,
    /// The time limit of every operation and the pool for requests.
    pub limits: Limits,
}

use self::batch::Batcher;
use self::counter::Counter;
use self::db::Db;
use self::presence::Presence;
use self::sync::Changes;
use super::cache::Cache;
use super::{Store, StoreResult, WindowCounter};

/// How often old change-log entries and request counts are deleted.
const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(60);

/// [`Store`] on a PostgreSQL database shared by several instances.
pub struct PostgresStore {
    db: Arc<Db>,
    url: DatabaseUrl,
    timeout: Duration,
    cache: Arc<Cache>,
    counter: Arc<Counter>,
    /// The TLS connector of every connection, and what their handshakes were.
    tls: MakeRustlsConnect,
    link: tls::Link,
    /// Taken when this instance first delivers webhooks (admin commands never do).
    presence: OnceCell<Presence>,
    tasks: Vec<JoinHandle<()>>,
}

impl PostgresStore {
    /// Connects, applies migrations (once, whichever instance gets there first), and starts
    /// the loop that counts requests and keeps the cache up to date. `limits.timeout` bounds every
    /// operation: a database that does not answer within it is reported unavailable.
    pub async fn open(url: &DatabaseUrl, limits: Limits) -> StoreResult<Self> {
        let (tls, link) = url.tls()?;
        let (client, connection) = connect_migrated(url, limits.timeout, tls.clone()).await?;
        tracing::info!(target = %url.target(), "PostgreSQL: {}", link.describe());
        let seen: i64 = client
            .query_one("SELECT n FROM cache_epoch", &[])
            .await?
            .get(0);
        drop(client);
        let _ = connection.await;

        let db = Arc::new(Db::new(url, limits, tls.clone())?);
        let cache = Arc::new(Cache::default());
        let changes = Arc::new(Changes::new(cache.clone(), seen));
        let counter = Arc::new(Counter {
            batcher: Arc::new(Batcher::default()),
            patience: limits.acquire_timeout.min(limits.timeout),
        });
        let tasks = vec![
            tokio::spawn(counter::run(db.clone(), counter.batcher.clone(), changes)),
            tokio::spawn(housekeeping(db.clone())),
        ];
        Ok(PostgresStore {
            db,
            url: url.clone(),
            timeout: limits.timeout,
            cache,
            counter,
            tls,
            link,
            presence: OnceCell::new(),
            tasks,
        })
    }

    /// This instance's number, marked alive from the first call on.
    async fn me(&self) -> StoreResult<i32> {
        let config = self.url.connection_config(self.timeout);
        let presence = self
            .presence
            .get_or_try_init(|| Presence::start(config, self.tls.clone()))
            .await?;
        Ok(presence.number)
    }
}

/// Deletes old change-log entries and past windows' request counts; runs until aborted.
async fn housekeeping(db: Arc<Db>) {
    loop {
        tokio::time::sleep(HOUSEKEEPING_EVERY).await;
        let window = Utc::now().timestamp().div_euclid(60);
        let pruned = db
            .limit(async {
                let c = db.get().await?;
                sync::prune(&c).await?;
                counter::prune(&c, window).await
            })
            .await;
        if let Err(err) = pruned {
            tracing::debug!(error = %err, "housekeeping skipped");
        }
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn health(&self) -> StoreResult<()> {
        with_client!(self, |c| {
            let version = c.prepare_cached(schema::VERSION_SQL).await?;
            schema::check(c.query_one(&version, &[]).await?.get(0))
        })
    }

    fn shared(&self) -> bool {
        true
    }

    fn window_counter(&self) -> Option<Arc<dyn WindowCounter>> {
        Some(self.counter.clone())
    }

    fn pools(&self) -> Vec<crate::store::PoolStatus> {
        self.db.pools()
    }

    fn connection(&self) -> Option<String> {
        Some(self.link.describe())
    }

    fn outage(&self) -> Option<Arc<crate::telemetry::Outage>> {
        Some(self.db.outage.clone())
    }

    async fn close(&self) {
        for task in &self.tasks {
            task.abort();
        }
        if let Some(presence) = self.presence.get() {
            presence.stop();
        }
        self.db.close();
    }
}
