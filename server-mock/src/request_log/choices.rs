//! Workspaces' settings as the request path reads them: a copy in memory, so deciding whether a
//! request's body is kept costs a map lookup, never a database round trip. This instance's own
//! changes (`PUT /v1/settings`) are copied in at once; instances sharing PostgreSQL re-read the
//! whole table every [`REFRESH_EVERY`], so a change made through another takes effect here within
//! that delay (an instance alone on its database reads it once).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use chrono::{DateTime, Utc};
// Looked up on every logged request: foldhash, several times cheaper than SipHash for ids.
use foldhash::HashMap;

use crate::store::{SettingsRecord, Store, StoreResult};

/// How often every workspace's settings are read again (changes made through other instances).
pub const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// What each workspace chose, and the default for those that never chose.
pub struct Choices {
    /// Whether a workspace that never chose keeps bodies (`--request-log-bodies`).
    default_store_bodies: bool,
    /// Set once the table was read: until then no body is kept (a workspace that turned them
    /// off is never mistaken for one that did not choose).
    loaded: AtomicBool,
    /// Each workspace that chose: its choice and when it made it (the newer of two copies wins).
    chosen: RwLock<HashMap<String, (bool, DateTime<Utc>)>>,
}

impl Choices {
    /// No workspace's choice known yet; `default_store_bodies` for those that never chose.
    pub fn new(default_store_bodies: bool) -> Self {
        Choices {
            default_store_bodies,
            loaded: AtomicBool::new(false),
            chosen: RwLock::default(),
        }
    }

    /// Whether a workspace that never chose keeps bodies.
    pub fn default_store_bodies(&self) -> bool {
        self.default_store_bodies
    }

    /// Whether `workspace_id`'s requests keep their bodies now (never before the table was read).
    pub fn store_bodies(&self, workspace_id: &str) -> bool {
        if !self.loaded.load(Ordering::Acquire) {
            return false;
        }
        let chosen = self.chosen.read().unwrap_or_else(|e| e.into_inner());
        chosen
            .get(workspace_id)
            .map_or(self.default_store_bodies, |(on, _)| *on)
    }

    /// Takes in `record` unless a newer choice of its workspace is already known.
    pub fn remember(&self, record: &SettingsRecord) {
        let mut chosen = self.chosen.write().unwrap_or_else(|e| e.into_inner());
        let newer = chosen
            .get(&record.workspace_id)
            .is_none_or(|(_, at)| *at <= record.updated_at);
        if newer {
            chosen.insert(
                record.workspace_id.clone(),
                (record.store_bodies, record.updated_at),
            );
        }
    }

    /// Reads every workspace's settings from `store`.
    pub async fn load(&self, store: &Arc<dyn Store>) -> StoreResult<()> {
        let records = store.all_workspace_settings().await?;
        for record in &records {
            self.remember(record);
        }
        self.loaded.store(true, Ordering::Release);
        Ok(())
    }

    /// Reads every workspace's settings every [`REFRESH_EVERY`] while the database is shared
    /// (alone on it, only until a first read succeeds); runs until then or until aborted.
    pub async fn run(self: Arc<Self>, store: Arc<dyn Store>) {
        loop {
            // Alone on its database, an instance makes every change itself and sees it at once:
            // reading again is for instances sharing one, and for a first read that failed.
            if self.loaded.load(Ordering::Acquire) && !store.shared() {
                return;
            }
            tokio::time::sleep(REFRESH_EVERY).await;
            if let Err(err) = self.load(&store).await {
                err.log("could not read the workspaces' settings");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(on: bool, at: DateTime<Utc>) -> SettingsRecord {
        SettingsRecord {
            workspace_id: "w".into(),
            store_bodies: on,
            updated_at: at,
        }
    }

    #[test]
    fn nothing_is_kept_before_the_table_is_read_then_choices_beat_the_default() {
        let choices = Choices::new(true);
        assert!(!choices.store_bodies("w"));
        choices.loaded.store(true, Ordering::Release);
        assert!(choices.store_bodies("w"));
        let now = Utc::now();
        choices.remember(&record(false, now));
        assert!(!choices.store_bodies("w"));
        assert!(choices.store_bodies("other"));
        // An older copy (a refresh read before this instance's change) does not undo it.
        choices.remember(&record(true, now - chrono::Duration::seconds(1)));
        assert!(!choices.store_bodies("w"));
        choices.remember(&record(true, now + chrono::Duration::seconds(1)));
        assert!(choices.store_bodies("w"));
    }
}
