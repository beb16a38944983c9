//! What API keys and dashboard sessions need from storage, beside the rest of [`super::Store`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{AuditEntry, Credential, KeyRecord, NewApiKey, Page, PageRequest, StoreResult};
use super::{TokenFilter, Workspace};
use crate::secrets::SecretDigest;

/// A dashboard session to insert: only the digest of its secret is kept.
#[derive(Debug)]
pub struct NewSession {
    pub digest: SecretDigest,
    /// The API key that signed in.
    pub key_id: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A live session as found by its secret's digest, with the key that signed in.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    /// The signed-in key, as authentication uses it (revoked and expired keys included, so
    /// the caller can tell why it is refused).
    pub credential: Credential,
    pub key_name: String,
    pub workspace: Workspace,
    /// When the session ends by itself.
    pub expires_at: DateTime<Utc>,
}

/// API keys and the dashboard's sessions. Every mutation writes its audit entry (if any) in
/// the same transaction, and a key's revocation ends its sessions in it too.
#[async_trait]
pub trait KeyStore: Send + Sync + 'static {
    /// Inserts an API key, with `audit` when it is made through the API;
    /// [`super::StoreError::NameTaken`] when a live key of the workspace has its name.
    async fn create_api_key(
        &self,
        key: NewApiKey,
        audit: Option<AuditEntry>,
    ) -> StoreResult<KeyRecord>;

    /// One page of the workspace's API keys, newest first, with status evaluated at `now`.
    async fn list_api_keys(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<KeyRecord>>;

    /// Revokes an active or expired key and ends its sessions; [`super::StoreError::NotFound`]
    /// when unknown or already revoked.
    async fn revoke_api_key(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()>;

    /// Starts a dashboard session (and forgets sessions that have ended by themselves).
    async fn create_session(&self, session: NewSession) -> StoreResult<()>;

    /// The session whose secret has this digest, if it has not ended. Read from the database
    /// itself, never a cache: a sign-out or a revocation acknowledged anywhere is seen at once.
    async fn find_session(
        &self,
        digest: SecretDigest,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<SessionRecord>>;

    /// Ends a session (signing out); ending one that has already ended is not an error.
    async fn delete_session(&self, digest: SecretDigest) -> StoreResult<()>;
}
