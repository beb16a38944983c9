//! The log's queue: what a refused write keeps, and what it drops past its bound.

use super::*;
use crate::store::sqlite::SqliteStore;
use crate::store::{PageRequest, RequestEntry, RequestFilter, Workspace, request_batch};

const T0: i64 = 1_700_000_000_000_000;

/// A request of workspace `w` with id `id`, arrived `n` microseconds after T0, ended.
fn finish(log: &Arc<RequestLog>, id: &str, n: i64) {
    let at = chrono::DateTime::from_timestamp_micros(T0 + n);
    let logged = log.open(id, at, "/v1/chat/completions", None);
    logged.caller("w", "tok_1");
    logged.asked("mock", false);
    logged.status(200, None);
}

async fn ids(store: &Arc<dyn Store>) -> Vec<String> {
    let page = PageRequest {
        page: 1,
        per_page: 100,
    };
    let listed = store
        .list_requests("w", RequestFilter::default(), page)
        .await
        .unwrap();
    listed.items.into_iter().map(|e| e.id).collect()
}

/// A write the database refuses loses nothing: its entries wait, ahead of newer ones, and the
/// next flush writes them all.
#[tokio::test]
async fn entries_a_refused_write_kept_are_written_by_the_next_flush() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(dir.path()).unwrap());
    let workspace = Workspace {
        id: "w".into(),
        name: "w".into(),
    };
    store.create_workspace(workspace).await.unwrap();
    let log = Arc::new(RequestLog::new(LogConfig::default()));
    finish(&log, "a", 1);
    finish(&log, "b", 2);
    // Refused from beside the server: a trigger that fails every batch written.
    let side = rusqlite::Connection::open(dir.path().join("tokctl.db")).unwrap();
    side.busy_timeout(Duration::from_secs(10)).unwrap();
    side.execute_batch(
        "CREATE TRIGGER refuse BEFORE INSERT ON request_log_batches
         BEGIN SELECT RAISE(FAIL, 'refused'); END",
    )
    .unwrap();
    log.flush(&store).await;
    assert!(ids(&store).await.is_empty());
    assert_eq!(log.kept().entries, 2);
    finish(&log, "c", 3);
    side.execute_batch("DROP TRIGGER refuse").unwrap();
    log.flush(&store).await;
    assert_eq!(ids(&store).await, ["c", "b", "a"]);
    assert_eq!(log.kept().entries, 0);
    store.close().await;
}

/// Past the bound, whole batches go, oldest first, and what is left is at most the bound.
#[test]
fn past_the_bound_the_oldest_batches_are_dropped() {
    let entries: Vec<RequestEntry> = (0..3 * request_batch::MOST as i64)
        .map(|n| RequestEntry {
            id: format!("req_{n}"),
            workspace_id: "w".into(),
            created_at: chrono::DateTime::from_timestamp_micros(T0 + n).unwrap(),
            ..RequestEntry::default()
        })
        .collect();
    let mut batches = RequestBatch::of(&entries);
    assert_eq!(batches.len(), 3);
    let most = request_batch::MOST;
    assert_eq!(keep_newest(&mut batches, 3 * most), 0);
    assert_eq!(batches.len(), 3);
    assert_eq!(keep_newest(&mut batches, 2 * most + 1), most);
    assert_eq!(batches.len(), 2);
    let first = batches[0].entries();
    assert_eq!(first[0].id, format!("req_{most}"));
    assert_eq!(keep_newest(&mut batches, most), most);
    assert_eq!(batches.len(), 1);
    assert_eq!(keep_newest(&mut batches, 0), most);
    assert!(batches.is_empty());
}
