//! The embedded default store: one SQLite file in WAL mode with `synchronous=FULL`.

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        StoreError::Backend(err.to_string())
    }
}

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;

mod audit;
mod engine;
mod keys;
mod limits;
mod migrations;
mod request_batches;
mod requests;
mod rows;
mod schema;
mod settings;
mod tokens;
mod usage;
mod webhooks;
mod workspaces;
mod x402;

use super::cache::Cache;
use super::{Store, StoreError, StoreResult};
use engine::Engine;

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "tokctl.db";

/// SQLite-backed [`Store`], with a read-through cache of credentials and tokens.
pub struct SqliteStore {
    engine: Engine,
    cache: Arc<Cache>,
}

/// A connection to `DIR/tokctl.db`, migrated (to read it whole, as `admin copy-to-postgres`
/// does); `None` when the directory holds no database.
pub fn open_migrated(data_dir: &Path) -> StoreResult<Option<rusqlite::Connection>> {
    let path = data_dir.join(DB_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let mut conn = engine::open(&path)?;
    schema::migrate(&mut conn)?;
    Ok(Some(conn))
}

impl SqliteStore {
    /// Opens (creating if needed) `DIR/tokctl.db` and applies migrations.
    pub fn open(data_dir: &Path) -> StoreResult<Self> {
        let path: PathBuf = data_dir.join(DB_FILE);
        let mut conn = engine::open(&path)?;
        schema::migrate(&mut conn)?;
        let cache = Arc::new(Cache::default());
        Ok(SqliteStore {
            engine: Engine::start(path, conn, cache.clone()),
            cache,
        })
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn close(&self) {
        self.engine.close().await;
    }

    async fn health(&self) -> StoreResult<()> {
        self.engine.read(schema::check).await
    }
}
