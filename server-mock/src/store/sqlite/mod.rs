//! The embedded default store: one SQLite file in WAL mode with `synchronous=FULL`.

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        StoreError::Backend(err.to_string())
    }
}

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

mod engine;
mod keys;
mod rows;
mod schema;
mod usage;
mod webhooks;

use super::cache::Cache;
use super::{
    Attempt, AuditEntry, AuditFilter, Credential, Delivery, DeliveryOutcome, Endpoint, NewApiKey,
    NewEvent, NewToken, Page, PageRequest, Store, StoreError, StoreResult, TokenFilter,
    TokenRecord, TokenStatus, UsageRecord, UsageTotals, Workspace,
};
use crate::secrets::{CredentialKind, SecretDigest};
use engine::Engine;
use rows::{fetch_token, insert_api_key, insert_audit, insert_workspace, micros};

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
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>> {
        let read = self
            .engine
            .read(move |conn| rows::find_credential(conn, kind, &digest));
        self.cache.credential_or(digest.0, read).await
    }

    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord> {
        self.engine
            .write(Vec::new(), move |conn| {
                rows::create_token(conn, token, &audit)
            })
            .await
    }

    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<TokenRecord>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| rows::list_tokens(conn, "tokens", workspace_id, filter, page, now))
            .await
    }

    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>> {
        let (workspace, token) = (workspace_id.to_string(), id.to_string());
        let read = self
            .engine
            .read(move |conn| fetch_token(conn, &workspace, &token));
        self.cache.token_or(workspace_id, id, read).await
    }

    async fn rotate_token(
        &self,
        workspace_id: &str,
        id: &str,
        digest: SecretDigest,
        audit: AuditEntry,
        event: NewEvent,
    ) -> StoreResult<TokenRecord> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(vec![id.clone()], move |conn| {
                let token = fetch_token(conn, &workspace_id, &id)?.ok_or(StoreError::NotFound)?;
                match token.status(audit.created_at) {
                    TokenStatus::Revoked => return Err(StoreError::NotFound),
                    TokenStatus::Expired => return Err(StoreError::Expired),
                    TokenStatus::Active => {}
                }
                conn.prepare_cached("UPDATE tokens SET secret_digest = ?1 WHERE id = ?2")?
                    .execute(params![digest.0.as_slice(), id])?;
                insert_audit(conn, &audit)?;
                webhooks::enqueue(conn, &event, None)?;
                Ok(token)
            })
            .await
    }

    async fn revoke_token(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(vec![id.clone()], move |conn| {
                let changed = conn
                    .prepare_cached(
                        "UPDATE tokens SET revoked_at = ?1
                         WHERE id = ?2 AND workspace_id = ?3 AND revoked_at IS NULL",
                    )?
                    .execute(params![micros(audit.created_at), id, workspace_id])?;
                if changed == 0 {
                    return Err(StoreError::NotFound);
                }
                insert_audit(conn, &audit)
            })
            .await
    }

    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert_audit(conn, &entry))
            .await
    }

    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| rows::list_audit(conn, workspace_id, filter, page))
            .await
    }

    async fn record_last_used(&self, uses: Vec<(String, DateTime<Utc>)>) -> StoreResult<()> {
        self.engine
            .write(
                uses.iter().map(|(id, _)| id.clone()).collect(),
                move |conn| {
                    let update = |table: &str| {
                        conn.prepare_cached(&format!(
                            "UPDATE {table} SET last_used_at = MAX(COALESCE(last_used_at, 0), ?1)
                             WHERE id = ?2"
                        ))
                    };
                    let (mut tokens, mut keys) = (update("tokens")?, update("api_keys")?);
                    for (id, at) in &uses {
                        let stmt = if id.starts_with("key_") {
                            &mut keys
                        } else {
                            &mut tokens
                        };
                        stmt.execute(params![micros(*at), id])?;
                    }
                    Ok(())
                },
            )
            .await
    }

    async fn record_usage(&self, records: Arc<Vec<UsageRecord>>) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| usage::insert(conn, &records))
            .await
    }

    async fn usage_by_day(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| usage::by_day(conn, &workspace_id, page))
            .await
    }

    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::insert_endpoint(conn, &endpoint)
            })
            .await
    }

    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| webhooks::list_endpoints(conn, &workspace_id, page))
            .await
    }

    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .read(move |conn| webhooks::get_endpoint(conn, &workspace_id, &id))
            .await
    }

    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::delete_endpoint(conn, &workspace_id, &id, super::now())
            })
            .await
    }

    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()> {
        let endpoint_id = endpoint_id.to_string();
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::enqueue(conn, &event, Some(&endpoint_id)).map(|_| ())
            })
            .await
    }

    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: super::EventMaker,
    ) -> StoreResult<usize> {
        let offsets: Vec<(String, i64)> = offsets
            .into_iter()
            .map(|(label, d)| (label, d.num_microseconds().unwrap_or(i64::MAX)))
            .collect();
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::expiring(conn, super::now(), &offsets, make_event.as_ref())
            })
            .await
    }

    async fn release_leases(&self) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::release_leases(conn, super::now())
            })
            .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::claim_due(conn, now, lease_until, limit)
            })
            .await
    }

    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                webhooks::finish(conn, &attempt, delivery_id, outcome)
            })
            .await
    }

    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>> {
        let endpoint_id = endpoint_id.to_string();
        self.engine
            .read(move |conn| webhooks::list_attempts(conn, &endpoint_id, page))
            .await
    }

    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| insert_workspace(conn, &workspace))
            .await
    }

    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        let name = name.to_string();
        self.engine
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        "SELECT id, name FROM workspaces WHERE name = ?1",
                        params![name],
                        |row| {
                            Ok(Workspace {
                                id: row.get(0)?,
                                name: row.get(1)?,
                            })
                        },
                    )
                    .optional()?)
            })
            .await
    }

    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool> {
        self.engine
            .write(Vec::new(), move |conn| {
                let existing: i64 =
                    conn.query_row("SELECT COUNT(*) FROM workspaces", [], |r| r.get(0))?;
                if existing > 0 {
                    return Ok(false);
                }
                insert_workspace(conn, &workspace)?;
                insert_api_key(conn, &key)?;
                Ok(true)
            })
            .await
    }

    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>> {
        self.engine
            .write(Vec::new(), move |conn| {
                conn.execute(
                    "INSERT INTO settings (name, value) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                    params![super::WEBHOOK_KEY_CHECK, proposed],
                )?;
                Ok(conn.query_row(
                    "SELECT value FROM settings WHERE name = ?1",
                    params![super::WEBHOOK_KEY_CHECK],
                    |row| row.get(0),
                )?)
            })
            .await
    }

    async fn close(&self) {
        self.engine.close().await;
    }
}
