//! API keys and dashboard sessions on PostgreSQL. Sessions are read from the database on every
//! request, never cached: a sign-out or revocation through any instance is seen by all at once.

use super::error::violates;
use crate::store::format_stored;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use super::PostgresStore;
use super::audit::insert_audit;
use super::sync;
use super::tokens::list_tokens;
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::parse_stored;
use crate::store::{
    AuditEntry, Credential, KeyRecord, KeyStore, Listing, NewApiKey, NewSession, Page, PageRequest,
    SessionRecord, StoreError, StoreResult, TokenFilter, Workspace,
};

/// Inserts an API key; [`StoreError::NameTaken`] when a live key of the workspace has its name.
pub(super) async fn insert_api_key(c: &impl GenericClient, key: &NewApiKey) -> StoreResult<()> {
    let inserted = c
        .execute(
            "INSERT INTO api_keys (id, workspace_id, name, secret_digest, scopes, created_at,
                                   expires_at, created_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &key.id,
                &key.workspace_id,
                &key.name,
                &key.digest.0.as_slice(),
                &format_stored(&key.scopes),
                &key.created_at,
                &key.expires_at,
                &key.created_by,
            ],
        )
        .await;
    match inserted {
        Err(err) if violates(&err, "api_keys_live_name") => Err(StoreError::NameTaken),
        other => other.map(|_| ()).map_err(Into::into),
    }
}

#[async_trait]
impl KeyStore for PostgresStore {
    async fn create_api_key(
        &self,
        key: NewApiKey,
        audit: Option<AuditEntry>,
    ) -> StoreResult<KeyRecord> {
        in_transaction!(self, |tx| {
            insert_api_key(&tx, &key).await?;
            if let Some(audit) = &audit {
                insert_audit(&tx, audit).await?;
            }
        })?;
        Ok(key.into_record())
    }

    async fn list_api_keys(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<KeyRecord>> {
        with_client!(self, |c| list_tokens(
            &c,
            Listing::Keys,
            workspace_id,
            filter,
            page,
            now
        )
        .await)
    }

    async fn revoke_api_key(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| revoke(&tx, workspace_id, id, &audit).await?)
    }

    async fn create_session(&self, session: NewSession) -> StoreResult<()> {
        with_client!(self, |c| {
            c.execute(
                "WITH ended AS (DELETE FROM dashboard_sessions WHERE expires_at <= $3)
                 INSERT INTO dashboard_sessions (digest, key_id, created_at, expires_at)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &session.digest.0.as_slice(),
                    &session.key_id,
                    &session.created_at,
                    &session.expires_at,
                ],
            )
            .await?;
            Ok(())
        })
    }

    async fn find_session(
        &self,
        digest: SecretDigest,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<SessionRecord>> {
        with_client!(self, |c| find_session(&c, &digest, now).await)
    }

    async fn delete_session(&self, digest: SecretDigest) -> StoreResult<()> {
        with_client!(self, |c| {
            c.execute(
                "DELETE FROM dashboard_sessions WHERE digest = $1",
                &[&digest.0.as_slice()],
            )
            .await?;
            Ok(())
        })
    }
}

/// Revokes a key and ends its sessions, with its audit and change-log entries, in the caller's
/// transaction; [`StoreError::NotFound`] when unknown or already revoked.
async fn revoke(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
    audit: &AuditEntry,
) -> StoreResult<()> {
    let changed = c
        .execute(
            "UPDATE api_keys SET revoked_at = $1
             WHERE id = $2 AND workspace_id = $3 AND revoked_at IS NULL",
            &[&audit.created_at, &id, &workspace_id],
        )
        .await?;
    if changed == 0 {
        return Err(StoreError::NotFound);
    }
    c.execute("DELETE FROM dashboard_sessions WHERE key_id = $1", &[&id])
        .await?;
    insert_audit(c, audit).await?;
    sync::changed(c, &[id.to_string()]).await
}

async fn find_session(
    c: &impl GenericClient,
    digest: &SecretDigest,
    now: DateTime<Utc>,
) -> StoreResult<Option<SessionRecord>> {
    let sql = "SELECT k.id, k.workspace_id, k.scopes, k.expires_at, k.revoked_at IS NOT NULL,
                      k.last_used_at, k.name, w.name, s.expires_at, s.digest
               FROM dashboard_sessions s
               JOIN api_keys k ON k.id = s.key_id
               JOIN workspaces w ON w.id = k.workspace_id
               WHERE s.digest = $1 AND s.expires_at > $2";
    let row = c
        .query_opt(&c.prepare_cached(sql).await?, &[&digest.0.as_slice(), &now])
        .await?;
    Ok(row
        .filter(|row| digest.matches(row.get::<_, &[u8]>(9)))
        .map(|row| {
            let workspace_id: String = row.get(1);
            SessionRecord {
                credential: Credential {
                    id: row.get(0),
                    kind: CredentialKind::ApiKey,
                    workspace_id: workspace_id.clone(),
                    scopes: parse_stored(row.get(2)),
                    expires_at: row.get(3),
                    revoked: row.get(4),
                    last_used_at: row.get(5),
                    secret_expires_at: None,
                },
                key_name: row.get(6),
                workspace: Workspace {
                    id: workspace_id,
                    name: row.get(7),
                },
                expires_at: row.get(8),
            }
        }))
}
