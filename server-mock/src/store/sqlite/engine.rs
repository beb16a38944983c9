//! Runs SQLite off the async runtime: one writer thread that commits queued writes in groups
//! (one fsync for many acknowledged writes), and a small pool of read connections used from
//! tokio's blocking threads.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;
use rusqlite::config::DbConfig;
use tokio::sync::oneshot;

use crate::store::cache::Cache;
use crate::store::{StoreError, StoreResult};

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 512;
/// Most idle read connections kept.
const MAX_IDLE_READERS: usize = 16;
/// Read connections opened, their schema loaded, when the engine starts (more are opened as
/// concurrent reads need them): the first reads do not wait for one, and what a run of requests
/// costs does not depend on when in the run its connections were opened.
const READERS_AT_START: usize = 4;
/// Prepared statements kept per connection.
const STATEMENT_CACHE: usize = 256;

type Reply = Box<dyn FnOnce(StoreResult<()>) + Send>;
/// A write: runs in the group's transaction and returns its reply and the ids of the cached
/// rows it changed.
type Job = Box<dyn FnOnce(&Connection) -> (Reply, Vec<String>) + Send>;

/// Opens a connection with the settings every connection shares.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: an acknowledged rotation or revocation survives a crash or power loss.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // A plan never depends on the values bound to it. Without this, SQLite (with the STAT4
    // build the bundled library has) marks a statement whose plan looked at a bound value (an
    // ORDER BY with LIMIT ?, a table-valued function's argument) to be compiled again whenever
    // that value is bound anew: every execution of a cached list statement was parsed and
    // planned again, about 100,000 instructions each (BENCHMARKS.md, issue 35).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    // Room for every statement the store prepares (about a hundred), so that a mix of requests
    // does not evict and parse again what the next request runs (rusqlite keeps 16).
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(conn)
}

/// A read connection with the schema loaded (its first statement would otherwise parse it).
fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = open(path)?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
    Ok(conn)
}

/// The writer thread and the read pool of one database file.
pub struct Engine {
    path: PathBuf,
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    writer_thread: Mutex<Option<JoinHandle<()>>>,
    readers: Arc<Mutex<Vec<Connection>>>,
}

impl Engine {
    /// Starts the writer on an open, migrated connection; commits that change rows kept in
    /// `cache` drop them from it (see [`Cache`]).
    pub fn start(path: PathBuf, conn: Connection, cache: Arc<Cache>) -> Self {
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || write_loop(conn, rx, &cache))
            .ok();
        // One that fails to open now is opened by the read that needs it (and fails it there).
        let readers = (0..READERS_AT_START)
            .filter_map(|_| open_reader(&path).ok())
            .collect();
        Engine {
            path,
            writer: Mutex::new(thread.as_ref().map(|_| tx)),
            writer_thread: Mutex::new(thread),
            readers: Arc::new(Mutex::new(readers)),
        }
    }

    /// Runs `f` in the next write transaction; resolves once that transaction has committed.
    /// An error from `f` undoes only `f`'s own changes. `touches` names the credentials and
    /// tokens whose cached rows `f` may change.
    pub async fn write<T, F>(&self, touches: Vec<String>, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let result = in_savepoint(conn, f);
            let touched = if result.is_ok() { touches } else { Vec::new() };
            let reply: Reply = Box::new(move |committed: StoreResult<()>| {
                let _ = tx.send(committed.and(result));
            });
            (reply, touched)
        });
        let sent = match self.writer.lock() {
            Ok(guard) => guard.as_ref().is_some_and(|w| w.send(job).is_ok()),
            Err(_) => false,
        };
        if !sent {
            return Err(StoreError::Backend("the store is closed".into()));
        }
        rx.await
            .unwrap_or_else(|_| Err(StoreError::Backend("the write was not committed".into())))
    }

    /// Runs `f` in a read transaction on a pooled connection, on a blocking thread.
    pub async fn read<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let pool = self.readers.clone();
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            let idle = pool.lock().ok().and_then(|mut idle| idle.pop());
            let conn = match idle {
                Some(conn) => conn,
                None => open(&path)?,
            };
            // One read transaction: every statement of `f` sees the same snapshot (a page and
            // its total agree even while writes commit).
            let result = run(&conn, "BEGIN").and_then(|()| {
                let result = f(&conn);
                run(&conn, "ROLLBACK").and(result)
            });
            if let Ok(mut idle) = pool.lock()
                && idle.len() < MAX_IDLE_READERS
            {
                idle.push(conn);
            }
            result
        })
        .await
        .unwrap_or_else(|err| Err(StoreError::Backend(format!("read task failed: {err}"))))
    }

    /// Lets queued writes finish, stops the writer and drops the read connections.
    pub async fn close(&self) {
        if let Ok(mut writer) = self.writer.lock() {
            writer.take();
        }
        let thread = self.writer_thread.lock().ok().and_then(|mut t| t.take());
        if let Some(thread) = thread {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        if let Ok(mut idle) = self.readers.lock() {
            idle.clear();
        }
    }
}

fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> StoreResult<T>,
) -> StoreResult<T> {
    run(conn, "SAVEPOINT job")?;
    let result = f(conn);
    if result.is_err() {
        run(conn, "ROLLBACK TO job")?;
    }
    run(conn, "RELEASE job")?;
    result
}

/// Runs a statement without parameters or rows, such as a transaction's start or end, prepared
/// once per connection: these run around every read and write.
fn run(conn: &Connection, sql: &str) -> StoreResult<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

fn write_loop(conn: Connection, jobs: mpsc::Receiver<Job>, cache: &Cache) {
    while let Ok(first) = jobs.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        commit_group(&conn, group, cache);
    }
    if let Err(err) = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)") {
        tracing::warn!(error = %err, "final checkpoint failed");
    }
}

fn commit_group(conn: &Connection, group: Vec<Job>, cache: &Cache) {
    if let Err(err) = run(conn, "BEGIN IMMEDIATE") {
        // Dropping the jobs unrun tells every waiter that the write failed.
        tracing::error!(error = %err, jobs = group.len(), "could not start a write transaction");
        return;
    }
    let mut replies = Vec::with_capacity(group.len());
    let mut touched = Vec::new();
    for job in group {
        let (reply, ids) = job(conn);
        replies.push(reply);
        touched.extend(ids);
    }
    let committed = run(conn, "COMMIT");
    if committed.is_err() {
        let _ = run(conn, "ROLLBACK");
    }
    if !touched.is_empty() {
        cache.invalidate(&touched);
    }
    for reply in replies {
        reply(match &committed {
            Ok(()) => Ok(()),
            Err(err) => Err(StoreError::Backend(err.to_string())),
        });
    }
}
