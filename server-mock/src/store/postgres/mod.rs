//! The shared backend: one PostgreSQL database behind any number of server instances.
//!
//! Every rule holds across instances as within one: writes are single transactions that return
//! once PostgreSQL has made them durable; the caches of credentials and tokens stay exact
//! through the change log (`sync.rs`); the rate limit counts in the database (`counter.rs`);
//! webhook attempts are leased to one live instance at a time (`webhooks.rs`, `presence.rs`).

mod batch;
mod counter;
#[macro_use]
pub mod db;
mod keys;
mod presence;
mod schema;
mod sync;
mod tokens;
mod usage;
mod webhooks;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio::sync::OnceCell;
use tokio::task::JoinHandle;

pub use db::DatabaseUrl;
pub use schema::connect_migrated;

use self::batch::Batcher;
use self::counter::Counter;
use self::db::Db;
use self::presence::Presence;
use self::sync::Changes;
use super::cache::Cache;
use super::{
    Attempt, AuditEntry, AuditFilter, Credential, Delivery, DeliveryOutcome, Endpoint, EventMaker,
    NewApiKey, NewEvent, NewToken, Page, PageRequest, Store, StoreResult, TokenFilter, TokenRecord,
    UsageRecord, UsageTotals, WEBHOOK_KEY_CHECK, WindowCounter, Workspace,
};
use crate::secrets::{CredentialKind, SecretDigest};

/// How often old change-log entries and request counts are deleted.
const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(60);

/// [`Store`] on a PostgreSQL database shared by several instances.
pub struct PostgresStore {
    db: Arc<Db>,
    url: DatabaseUrl,
    timeout: Duration,
    cache: Arc<Cache>,
    counter: Arc<Counter>,
    /// Taken when this instance first delivers webhooks (admin commands never do).
    presence: OnceCell<Presence>,
    tasks: Vec<JoinHandle<()>>,
}

impl PostgresStore {
    /// Connects, applies migrations (once, whichever instance gets there first), and starts
    /// the loop that counts requests and keeps the cache up to date. `timeout` bounds every operation: a
    /// database that does not answer within it is reported unavailable.
    pub async fn open(url: &DatabaseUrl, timeout: Duration) -> StoreResult<Self> {
        let (client, connection) = connect_migrated(url, timeout).await?;
        let seen: i64 = client
            .query_one("SELECT n FROM cache_epoch", &[])
            .await?
            .get(0);
        drop(client);
        let _ = connection.await;

        let db = Arc::new(Db::new(url, timeout)?);
        let cache = Arc::new(Cache::default());
        let changes = Arc::new(Changes::new(cache.clone(), seen));
        let counter = Arc::new(Counter {
            batcher: Arc::new(Batcher::default()),
        });
        let tasks = vec![
            tokio::spawn(counter::run(db.clone(), counter.batcher.clone(), changes)),
            tokio::spawn(housekeeping(db.clone())),
        ];
        Ok(PostgresStore {
            db,
            url: url.clone(),
            timeout,
            cache,
            counter,
            presence: OnceCell::new(),
            tasks,
        })
    }

    /// This instance's number, marked alive from the first call on.
    async fn me(&self) -> StoreResult<i32> {
        let config = self.url.connection_config(self.timeout);
        let presence = self
            .presence
            .get_or_try_init(|| Presence::start(config))
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
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>> {
        // A hit may be stale until the request's count reads the change log; the count is
        // followed by `confirm_credential`.
        let read =
            async { with_client!(self, |c| tokens::find_credential(&c, kind, &digest).await) };
        self.cache.credential_or(digest.0, read).await
    }

    async fn confirm_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
        _found: Credential,
    ) -> StoreResult<Option<Credential>> {
        // The count has dropped whatever changed before the request arrived: still cached is
        // still current; gone means changed, and the database says how.
        self.find_credential(kind, digest).await
    }

    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord> {
        with_client!(self, |c| tokens::create_token(&c, &token, &audit).await)?;
        Ok(token.into_record())
    }

    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<TokenRecord>> {
        with_client!(self, |c| tokens::list_tokens(
            &c,
            "tokens",
            workspace_id,
            filter,
            page,
            now
        )
        .await)
    }

    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>> {
        // Fresh as of the change log read by this request's count.
        let read =
            async { with_client!(self, |c| tokens::fetch_token(&c, workspace_id, id).await) };
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
        in_transaction!(self, |tx| {
            tokens::rotate(&tx, workspace_id, id, &digest, &audit, &event).await?
        })
    }

    async fn revoke_token(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            tokens::revoke(&tx, workspace_id, id, &audit).await?
        })
    }

    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        with_client!(self, |c| tokens::insert_audit(&c, &entry).await)
    }

    async fn list_audit(
        &self,
        workspace_id: &str,
        filter: AuditFilter,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        with_client!(self, |c| tokens::list_audit(
            &c,
            workspace_id,
            &filter,
            page
        )
        .await)
    }

    async fn record_usage(&self, records: Arc<Vec<UsageRecord>>) -> StoreResult<()> {
        with_client!(self, |c| usage::insert(&c, &records).await)
    }

    async fn usage_by_day(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<(Page<UsageTotals>, UsageTotals)> {
        with_client!(self, |c| usage::by_day(c, workspace_id, page).await)
    }

    async fn record_last_used(&self, uses: Vec<(String, DateTime<Utc>)>) -> StoreResult<()> {
        in_transaction!(self, |tx| tokens::record_uses(&tx, uses).await?)
    }

    async fn create_endpoint(&self, endpoint: Endpoint) -> StoreResult<()> {
        with_client!(self, |c| webhooks::insert_endpoint(&c, &endpoint).await)
    }

    async fn list_endpoints(
        &self,
        workspace_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Endpoint>> {
        with_client!(self, |c| webhooks::list_endpoints(&c, workspace_id, page)
            .await)
    }

    async fn get_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<Option<Endpoint>> {
        with_client!(self, |c| webhooks::get_endpoint(&c, workspace_id, id).await)
    }

    async fn delete_endpoint(&self, workspace_id: &str, id: &str) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            webhooks::delete_endpoint(&tx, workspace_id, id, super::now()).await?
        })
    }

    async fn enqueue_for(&self, endpoint_id: &str, event: NewEvent) -> StoreResult<()> {
        with_client!(self, |c| webhooks::enqueue(&c, &event, Some(endpoint_id))
            .await)?;
        Ok(())
    }

    async fn expiring_notices(
        &self,
        offsets: Vec<(String, chrono::Duration)>,
        make_event: EventMaker,
    ) -> StoreResult<usize> {
        in_transaction!(self, |tx| {
            webhooks::expiring(&tx, super::now(), &offsets, make_event.as_ref()).await?
        })
    }

    async fn release_leases(&self) -> StoreResult<()> {
        with_client!(self, |c| webhooks::release_leases(&c, super::now()).await)?;
        // Alive from now on, before this instance leases anything.
        self.me().await?;
        Ok(())
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let me = self.me().await?;
        in_transaction!(self, |tx| {
            webhooks::claim_due(&tx, me, now, lease_until, limit).await?
        })
    }

    async fn finish_attempt(
        &self,
        delivery_id: i64,
        attempt: Attempt,
        outcome: DeliveryOutcome,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| {
            webhooks::finish(&tx, &attempt, delivery_id, outcome).await?
        })
    }

    async fn list_attempts(
        &self,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Attempt>> {
        with_client!(self, |c| webhooks::list_attempts(&c, endpoint_id, page)
            .await)
    }

    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()> {
        with_client!(self, |c| tokens::insert_workspace(&c, &workspace).await)
    }

    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        with_client!(self, |c| tokens::workspace_by_name(&c, name).await)
    }

    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool> {
        in_transaction!(self, |tx| tokens::bootstrap(&tx, &workspace, &key).await?)
    }

    async fn webhook_key_check(&self, proposed: Vec<u8>) -> StoreResult<Vec<u8>> {
        with_client!(self, |c| {
            c.execute(
                "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&WEBHOOK_KEY_CHECK, &proposed],
            )
            .await?;
            let row = c
                .query_one(
                    "SELECT value FROM settings WHERE name = $1",
                    &[&WEBHOOK_KEY_CHECK],
                )
                .await?;
            Ok(row.get(0))
        })
    }

    async fn health(&self) -> StoreResult<()> {
        with_client!(self, |c| {
            c.query_one("SELECT 1", &[]).await?;
            Ok(())
        })
    }

    fn shared(&self) -> bool {
        true
    }

    fn window_counter(&self) -> Option<Arc<dyn WindowCounter>> {
        Some(self.counter.clone())
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
