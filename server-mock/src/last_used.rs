//! `last_used_at` without a disk write per request: a token's first use is written at once,
//! later uses are kept in memory and flushed in batches (the contract allows up to a minute).

use foldhash::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::store::{Credential, Store};

/// How often pending uses are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(15);

/// Uses not yet written, by token or API key id.
#[derive(Default)]
pub struct LastUsed {
    pending: Mutex<HashMap<String, DateTime<Utc>>>,
}

impl LastUsed {
    /// Notes that `credential` was used at `now`.
    pub async fn record(
        &self,
        store: &Arc<dyn Store>,
        credential: &Credential,
        now: DateTime<Utc>,
    ) {
        if credential.last_used_at.is_none() {
            if let Err(err) = store
                .record_last_used(vec![(credential.id.clone(), now)])
                .await
            {
                err.log("could not record a first use");
            }
            return;
        }
        self.lock().insert(credential.id.clone(), now);
    }

    /// The newest use of `id` not yet written, if any.
    pub fn pending(&self, id: &str) -> Option<DateTime<Utc>> {
        self.lock().get(id).copied()
    }

    /// Writes every pending use.
    pub async fn flush(&self, store: &Arc<dyn Store>) {
        let uses: Vec<_> = self.lock().drain().collect();
        if uses.is_empty() {
            return;
        }
        if let Err(err) = store.record_last_used(uses.clone()).await {
            err.log("could not record token uses; kept for the next flush");
            // Kept, unless a newer use came meanwhile.
            let mut pending = self.lock();
            for (id, at) in uses {
                let newest = pending.entry(id).or_insert(at);
                *newest = (*newest).max(at);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, DateTime<Utc>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}
