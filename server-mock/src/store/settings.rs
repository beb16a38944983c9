//! The `WorkspaceSettings` part of storage: what a workspace chose about how it is served
//! (today one choice, `store_bodies`: whether the request log keeps bodies). A workspace that
//! never chose has no row, and the server's default applies.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::json;

use super::{AuditEntry, StoreResult};

/// Workspaces' settings. Every instance sharing a database reads the same rows.
#[async_trait]
pub trait WorkspaceSettings: Send + Sync + 'static {
    /// What the workspace chose; `None` when it never chose.
    async fn workspace_settings(&self, workspace_id: &str) -> StoreResult<Option<SettingsRecord>>;

    /// Every workspace's choices (a small table: one row per workspace that chose), for the
    /// copy the request path reads.
    async fn all_workspace_settings(&self) -> StoreResult<Vec<SettingsRecord>>;

    /// Applies `change` in one transaction: when it changes what is stored, writes the new row
    /// and `audit` (its details set to the values before and after); otherwise writes nothing.
    /// Returns the settings now stored (`None`: still never chose) and whether it wrote.
    async fn update_workspace_settings(
        &self,
        change: SettingsChange,
        audit: AuditEntry,
    ) -> StoreResult<(Option<SettingsRecord>, bool)>;
}

/// A workspace's stored choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsRecord {
    pub workspace_id: String,
    /// Whether the request log keeps its requests' bodies (redacted, capped).
    pub store_bodies: bool,
    pub updated_at: DateTime<Utc>,
}

/// A change asked for by `PUT /v1/settings`.
#[derive(Debug, Clone)]
pub struct SettingsChange {
    pub workspace_id: String,
    /// The new `store_bodies`, when the request names it.
    pub store_bodies: Option<bool>,
    /// What `store_bodies` is for a workspace that never chose (the server's default), for the
    /// audit entry's "before".
    pub default_store_bodies: bool,
    pub at: DateTime<Utc>,
}

impl SettingsChange {
    /// The row to store after `before` (what is stored now), or `None` when nothing changes:
    /// a field not named keeps its value, and naming the value already stored changes nothing.
    /// A workspace that never chose, naming a value, chooses it (even the default's).
    pub fn apply(&self, before: Option<&SettingsRecord>) -> Option<SettingsRecord> {
        let wanted = self.store_bodies?;
        if before.is_some_and(|b| b.store_bodies == wanted) {
            return None;
        }
        Some(SettingsRecord {
            workspace_id: self.workspace_id.clone(),
            store_bodies: wanted,
            updated_at: self.at,
        })
    }

    /// The audit details of a change from `before` to `after`: each side's values in effect
    /// (the default's when the workspace had not chosen). Never a secret: settings hold none.
    pub fn details(&self, before: Option<&SettingsRecord>, after: &SettingsRecord) -> String {
        let was = before.map_or(self.default_store_bodies, |b| b.store_bodies);
        json!({
            "field": "store_bodies",
            "before": {"store_bodies": was, "chosen": before.is_some()},
            "after": {"store_bodies": after.store_bodies, "chosen": true},
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(store_bodies: Option<bool>) -> SettingsChange {
        SettingsChange {
            workspace_id: "w".into(),
            store_bodies,
            default_store_bodies: false,
            at: crate::store::now(),
        }
    }

    #[test]
    fn only_a_different_named_value_changes_the_row() {
        let stored = change(Some(true)).apply(None).unwrap();
        assert!(stored.store_bodies);
        assert_eq!(change(Some(true)).apply(Some(&stored)), None);
        assert_eq!(change(None).apply(Some(&stored)), None);
        assert_eq!(change(None).apply(None), None);
        assert!(
            !change(Some(false))
                .apply(Some(&stored))
                .unwrap()
                .store_bodies
        );
    }

    #[test]
    fn details_name_the_field_and_both_values() {
        let after = change(Some(true)).apply(None).unwrap();
        let details: serde_json::Value =
            serde_json::from_str(&change(Some(true)).details(None, &after)).unwrap();
        assert_eq!(details["field"], "store_bodies");
        assert_eq!(details["before"]["store_bodies"], false);
        assert_eq!(details["after"]["store_bodies"], true);
    }
}
