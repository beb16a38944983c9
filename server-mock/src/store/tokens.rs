//! The `TokenStore` part of storage.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    AuditEntry, Credential, ListedToken, NewEvent, NewToken, Page, PageRequest, StoreResult,
    TokenFilter, TokenRecord,
};
use crate::secrets::{CredentialKind, SecretDigest};

/// Tokens, and the lookups by secret digest that authenticate every credential (tokens and API keys
/// alike). Every mutation writes its audit entry in the same transaction and returns once it is
/// durable.
#[async_trait]
pub trait TokenStore: Send + Sync + 'static {
    /// Finds the credential whose secret has this digest. A shared backend ([`Store::shared`](super::Store::shared))
    /// may answer from a cache that is brought up to date only when the request is counted
    /// ([`WindowCounter::add`](super::WindowCounter::add)): whoever counts a request there calls
    /// [`TokenStore::confirm_credential`] after counting, and only then trusts the credential (or
    /// reads tokens).
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>>;

    /// The credential `find_credential` found, as it stands once the request was counted:
    /// unchanged, changed (revoked), or gone (its secret replaced: `None`).
    async fn confirm_credential(
        &self,
        _kind: CredentialKind,
        _digest: SecretDigest,
        found: Credential,
    ) -> StoreResult<Option<Credential>> {
        Ok(Some(found))
    }

    /// Inserts a token; [`StoreError::NameTaken`](super::StoreError::NameTaken) when a live token has its name.
    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord>;

    /// One page of the workspace's tokens, newest first, with status evaluated at `now`, and
    /// the spend at `now` of each that has a limit.
    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<ListedToken>>;

    /// A token of the workspace, whatever its status.
    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>>;

    /// Replaces the secret of an active token atomically, and queues `event` for the
    /// workspace's webhook endpoints in the same transaction. With `previous_until`, the
    /// replaced secret keeps working until then (any earlier overlap ends now); without it, it
    /// stops at once.
    /// [`StoreError::NotFound`](super::StoreError::NotFound) when unknown or revoked, [`StoreError::Expired`](super::StoreError::Expired) when expired.
    async fn rotate_token(
        &self,
        workspace_id: &str,
        id: &str,
        digest: SecretDigest,
        previous_until: Option<DateTime<Utc>>,
        audit: AuditEntry,
        event: NewEvent,
    ) -> StoreResult<TokenRecord>;

    /// Revokes an active or expired token; [`StoreError::NotFound`](super::StoreError::NotFound) when unknown or revoked.
    async fn revoke_token(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()>;

    /// Records when tokens were last used (batched by the caller).
    async fn record_last_used(&self, uses: Vec<(String, DateTime<Utc>)>) -> StoreResult<()>;
}
