//! The `TokenStore` part of the sqlite store.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::params;

use super::SqliteStore;
use super::rows::{self, fetch_token, insert_audit, micros};
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::{
    AuditEntry, Credential, ListedToken, Listing, NewEvent, NewToken, Page, PageRequest,
    StoreError, StoreResult, TokenFilter, TokenRecord, TokenStore,
};

#[async_trait]
impl TokenStore for SqliteStore {
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>> {
        let read = || {
            self.engine
                .read(move |conn| rows::find_credential(conn, kind, &digest))
        };
        self.cache.credential_or(digest.0, read).await
    }

    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord> {
        self.engine
            .write(Vec::new(), move |conn| {
                let (id, limit) = (token.id.clone(), token.limit);
                let record = rows::create_token(conn, token, &audit)?;
                if limit.is_some() {
                    super::limits::store_limit(conn, &id, limit)?;
                }
                Ok(record)
            })
            .await
    }

    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<ListedToken>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| {
                let page =
                    rows::list_tokens(conn, Listing::Tokens, workspace_id, filter, page, now)?;
                page.try_map(|token| {
                    let spend = token
                        .limit
                        .map(|limit| super::limits::spend_of(conn, &token.id, limit, now))
                        .transpose()?;
                    Ok(ListedToken { token, spend })
                })
            })
            .await
    }

    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>> {
        let read = || {
            let (workspace, token) = (workspace_id.to_string(), id.to_string());
            self.engine
                .read(move |conn| fetch_token(conn, &workspace, &token))
        };
        self.cache.token_or(workspace_id, id, read).await
    }

    async fn rotate_token(
        &self,
        workspace_id: &str,
        id: &str,
        digest: SecretDigest,
        previous_until: Option<DateTime<Utc>>,
        audit: AuditEntry,
        event: NewEvent,
    ) -> StoreResult<TokenRecord> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        self.engine
            .write(vec![id.clone()], move |conn| {
                let token = fetch_token(conn, &workspace_id, &id)?
                    .ok_or(StoreError::NotFound)?
                    .active_at(audit.created_at)?;
                // The right-hand sides read the row as it was: the replaced secret becomes the
                // previous one (only with an overlap), and any earlier previous one is gone.
                conn.prepare_cached(
                    "UPDATE tokens SET
                         previous_digest = CASE WHEN ?3 IS NULL THEN NULL ELSE secret_digest END,
                         previous_expires_at = ?3, secret_digest = ?1
                     WHERE id = ?2",
                )?
                .execute(params![
                    digest.0.as_slice(),
                    id,
                    previous_until.map(micros)
                ])?;
                insert_audit(conn, &audit)?;
                super::webhooks::enqueue(conn, &event, None)?;
                Ok(TokenRecord {
                    previous_secret_expires_at: previous_until,
                    ..token
                })
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
}
