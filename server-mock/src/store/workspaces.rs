//! The `Workspaces` part of storage.

use async_trait::async_trait;

use super::{NewApiKey, StoreResult, Workspace};

/// Workspaces, and the first start that creates the default one with its admin key.
#[async_trait]
pub trait Workspaces: Send + Sync + 'static {
    /// Creates a workspace; [`StoreError::WorkspaceExists`](super::StoreError::WorkspaceExists) when the name is taken.
    async fn create_workspace(&self, workspace: Workspace) -> StoreResult<()>;

    /// Looks a workspace up by name.
    async fn workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>>;

    /// On an empty store, creates `workspace` and `key` in it, in one transaction.
    /// Returns `false` (and changes nothing) when the store already has a workspace.
    async fn bootstrap(&self, workspace: Workspace, key: NewApiKey) -> StoreResult<bool>;
}
