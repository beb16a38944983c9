//! API keys and dashboard sessions on SQLite.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use super::rows::{from_micros, insert_api_key, insert_audit, list_tokens, micros};
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::parse_stored;
use crate::store::{
    AuditEntry, Credential, KeyRecord, KeyStore, Listing, NewApiKey, NewSession, Page, PageRequest,
    SessionRecord, StoreError, StoreResult, TokenFilter, Workspace,
};

#[async_trait]
impl KeyStore for SqliteStore {
    async fn create_api_key(
        &self,
        key: NewApiKey,
        audit: Option<AuditEntry>,
    ) -> StoreResult<KeyRecord> {
        self.engine
            .write(Vec::new(), move |conn| {
                insert_api_key(conn, &key)?;
                if let Some(audit) = &audit {
                    insert_audit(conn, audit)?;
                }
                Ok(key.into_record())
            })
            .await
    }

    async fn list_api_keys(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<KeyRecord>> {
        let workspace_id = workspace_id.to_string();
        self.engine
            .read(move |conn| list_tokens(conn, Listing::Keys, workspace_id, filter, page, now))
            .await
    }

    async fn revoke_api_key(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        let (workspace_id, id) = (workspace_id.to_string(), id.to_string());
        // Touching the id drops the key from the credential cache once this commits.
        self.engine
            .write(vec![id.clone()], move |conn| {
                let changed = conn
                    .prepare_cached(
                        "UPDATE api_keys SET revoked_at = ?1
                         WHERE id = ?2 AND workspace_id = ?3 AND revoked_at IS NULL",
                    )?
                    .execute(params![micros(audit.created_at), id, workspace_id])?;
                if changed == 0 {
                    return Err(StoreError::NotFound);
                }
                conn.prepare_cached("DELETE FROM dashboard_sessions WHERE key_id = ?1")?
                    .execute(params![id])?;
                insert_audit(conn, &audit)
            })
            .await
    }

    async fn create_session(&self, session: NewSession) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                conn.prepare_cached("DELETE FROM dashboard_sessions WHERE expires_at <= ?1")?
                    .execute(params![micros(session.created_at)])?;
                conn.prepare_cached(
                    "INSERT INTO dashboard_sessions (digest, key_id, created_at, expires_at)
                     VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![
                    session.digest.0.as_slice(),
                    session.key_id,
                    micros(session.created_at),
                    micros(session.expires_at)
                ])?;
                Ok(())
            })
            .await
    }

    async fn find_session(
        &self,
        digest: SecretDigest,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<SessionRecord>> {
        self.engine
            .read(move |conn| find_session(conn, &digest, now))
            .await
    }

    async fn delete_session(&self, digest: SecretDigest) -> StoreResult<()> {
        self.engine
            .write(Vec::new(), move |conn| {
                conn.prepare_cached("DELETE FROM dashboard_sessions WHERE digest = ?1")?
                    .execute(params![digest.0.as_slice()])?;
                Ok(())
            })
            .await
    }
}

fn find_session(
    conn: &Connection,
    digest: &SecretDigest,
    now: DateTime<Utc>,
) -> StoreResult<Option<SessionRecord>> {
    let found = conn
        .prepare_cached(
            "SELECT k.id, k.workspace_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at,
                    k.name, w.name, s.expires_at, s.digest
             FROM dashboard_sessions s
             JOIN api_keys k ON k.id = s.key_id
             JOIN workspaces w ON w.id = k.workspace_id
             WHERE s.digest = ?1 AND s.expires_at > ?2",
        )?
        .query_row(params![digest.0.as_slice(), micros(now)], |row| {
            let stored: Vec<u8> = row.get(9)?;
            let workspace_id: String = row.get(1)?;
            Ok((
                SessionRecord {
                    credential: Credential {
                        id: row.get(0)?,
                        kind: CredentialKind::ApiKey,
                        workspace_id: workspace_id.clone(),
                        scopes: parse_stored(&row.get::<_, String>(2)?),
                        expires_at: row.get::<_, Option<i64>>(3)?.map(from_micros),
                        revoked: row.get::<_, Option<i64>>(4)?.is_some(),
                        last_used_at: row.get::<_, Option<i64>>(5)?.map(from_micros),
                        secret_expires_at: None,
                    },
                    key_name: row.get(6)?,
                    workspace: Workspace {
                        id: workspace_id,
                        name: row.get(7)?,
                    },
                    expires_at: from_micros(row.get(8)?),
                },
                stored,
            ))
        })
        .optional()?;
    Ok(found
        .filter(|(_, stored)| digest.matches(stored))
        .map(|(session, _)| session))
}
