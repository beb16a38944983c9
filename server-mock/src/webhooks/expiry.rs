//! `token.expiring`: at `expires_at - offset` for each configured offset (default 7 days and
//! 1 day), once per token and offset, only for moments after the token's creation and only
//! while it is still active. A moment missed while the server was down fires once on restart.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::{Hub, event};
use crate::format::timestamp;
use crate::store::{EventMaker, Store, StoreError};
use crate::telemetry::Backoff;

/// The default notice offsets.
pub const DEFAULT_NOTICES: &str = "7d,1d";

/// How often due notices are looked for.
const SCAN_EVERY: Duration = Duration::from_millis(500);

/// Parses offsets such as `7d,1d`; each keeps its text as the event's `notice`.
pub fn parse_notices(raw: &str) -> Result<Vec<(String, Duration)>, String> {
    raw.split(',')
        .map(|part| {
            let label = part.trim().to_string();
            humantime::parse_duration(&label)
                .map(|offset| (label.clone(), offset))
                .map_err(|err| format!("{label:?}: {err}"))
        })
        .collect()
}

/// Runs until aborted.
pub async fn run(hub: Arc<Hub>, store: Arc<dyn Store>, notices: Vec<(String, Duration)>) {
    let offsets: Vec<(String, chrono::Duration)> = notices
        .into_iter()
        .filter_map(|(label, d)| chrono::Duration::from_std(d).ok().map(|d| (label, d)))
        .collect();
    let maker: EventMaker = Arc::new(|token, notice| {
        event(
            &token.workspace_id,
            "token.expiring",
            json!({
                "id": token.id,
                "name": token.name,
                "expires_at": token.expires_at.map(timestamp),
                "notice": notice,
            }),
        )
    });
    let mut backoff = Backoff::new(SCAN_EVERY);
    loop {
        let found = store.expiring_notices(offsets.clone(), maker.clone()).await;
        let pause = backoff.after(found.as_ref().is_err_and(StoreError::is_unavailable));
        match found {
            Ok(0) => {}
            Ok(_) => hub.wake.notify_one(),
            Err(err) => err.log("could not look for expiring tokens"),
        }
        tokio::time::sleep(pause).await;
    }
}
