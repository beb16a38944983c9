//! Which database a test's servers use. A test declared with [`both!`] runs twice: on SQLite
//! (`name::sqlite`), and on PostgreSQL (`name::postgres`) when `TOKCTL_TEST_DATABASE_URL` names
//! a server to make databases on. There each data directory a test starts a server in gets a
//! database of its own (a restart on the same directory finds its data again), dropped when
//! the test ends, passed or failed.
//!
//! Without `TOKCTL_TEST_DATABASE_URL` the PostgreSQL half is skipped, and each test binary says
//! so once on stderr; under `CI=true` that is a failure instead, so the half cannot silently
//! stop running.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once};

use tokctl_server::store::postgres::DatabaseUrl;
use tokio_postgres::NoTls;
use tokio_postgres::types::ToSql;

/// The variable naming the PostgreSQL server tests make their databases on.
pub const URL_VAR: &str = "TOKCTL_TEST_DATABASE_URL";

/// The backend of the running test.
#[derive(Clone)]
pub enum Backend {
    Sqlite,
    Postgres(Arc<Databases>),
}

tokio::task_local! {
    static BACKEND: Backend;
}

/// Declares a test that runs on both backends: `$name::sqlite` and `$name::postgres`.
#[allow(unused_macros)]
macro_rules! both {
    ($(#[$attr:meta])* async fn $name:ident() $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(#[$attr])*
            async fn sqlite() {
                crate::common::backend::on_sqlite(async move $body).await
            }

            $(#[$attr])*
            async fn postgres() {
                crate::common::backend::on_postgres(async move $body).await
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use both;

/// Declares a test of what only a shared database has (several instances): PostgreSQL only.
#[allow(unused_macros)]
macro_rules! postgres {
    ($(#[$attr:meta])* async fn $name:ident() $body:block) => {
        $(#[$attr])*
        async fn $name() {
            crate::common::backend::on_postgres(async move $body).await
        }
    };
}
#[allow(unused_imports)]
pub(crate) use postgres;

/// Declares a test of several instances on one database: on PostgreSQL (`$name::postgres`),
/// and again through PgBouncer in session mode (`$name::pgbouncer`), as operators behind a
/// connection pooler run it.
#[allow(unused_macros)]
macro_rules! instances {
    ($(#[$attr:meta])* async fn $name:ident() $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(#[$attr])*
            async fn postgres() {
                crate::common::backend::on_postgres(async move $body).await
            }

            $(#[$attr])*
            async fn pgbouncer() {
                crate::common::backend::on_pgbouncer(async move $body).await
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use instances;

/// Runs a test body (or part of one) on SQLite.
pub async fn on_sqlite<T>(body: impl Future<Output = T>) -> T {
    BACKEND.scope(Backend::Sqlite, body).await
}

/// Runs a test body on PostgreSQL, or says it was skipped.
pub async fn on_postgres(body: impl Future<Output = ()>) {
    let Some(server) = postgres_server() else {
        return;
    };
    let databases = Arc::new(Databases {
        server,
        through: None,
        made: Mutex::default(),
    });
    BACKEND.scope(Backend::Postgres(databases), body).await
}

/// Runs a test body on PostgreSQL with its servers connecting through PgBouncer in session
/// mode, or says it was skipped.
pub async fn on_pgbouncer(body: impl Future<Output = ()>) {
    let Some(server) = postgres_server() else {
        return;
    };
    let Some(bouncer) = super::pgbouncer::session(&server) else {
        return;
    };
    let databases = Arc::new(Databases {
        server,
        through: Some(bouncer),
        made: Mutex::default(),
    });
    BACKEND.scope(Backend::Postgres(databases), body).await
}

/// The URL of the PostgreSQL server to make test databases on, if there is one.
pub fn postgres_server() -> Option<String> {
    let Ok(raw) = std::env::var(URL_VAR) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but {URL_VAR} is not set: the PostgreSQL half of the tests would not run"
        );
        static SKIPPED: Once = Once::new();
        SKIPPED.call_once(|| {
            // Straight to stderr, past the test harness's capture: the skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "note: {URL_VAR} is not set: the PostgreSQL half of these tests was skipped \
                 (set it to e.g. postgres://postgres@127.0.0.1:5432/postgres to run it)"
            );
        });
        return None;
    };
    if let Err(why) = raw.parse::<DatabaseUrl>() {
        panic!("{URL_VAR}: {why}");
    }
    Some(raw)
}

/// The backend of the running test (SQLite outside a [`both!`] test).
pub fn current() -> Backend {
    BACKEND.try_with(Clone::clone).unwrap_or(Backend::Sqlite)
}

/// A new database of the running PostgreSQL test, for servers started with
/// `Options::database` (dropped with the test).
pub fn new_database() -> String {
    let Backend::Postgres(databases) = current() else {
        panic!("new_database outside a PostgreSQL test");
    };
    let key = std::env::temp_dir().join(format!(
        "tokctl-shared-{}",
        databases.made.lock().unwrap().len()
    ));
    databases.url_for(&key)
}

/// The databases a PostgreSQL test made, one per data directory; dropped with the test.
pub struct Databases {
    server: String,
    /// The connection pooler servers reach them through, if any.
    through: Option<Arc<super::pgbouncer::PgBouncer>>,
    made: Mutex<HashMap<PathBuf, String>>,
}

impl Databases {
    /// The URL of `dir`'s database, made on first use.
    pub fn url_for(&self, dir: &Path) -> String {
        let mut made = self.made.lock().unwrap();
        let name = made
            .entry(dir.to_path_buf())
            .or_insert_with(|| create_database(&self.server));
        let url = with_database(&self.server, name);
        match &self.through {
            Some(bouncer) => bouncer.url(&url),
            None => url,
        }
    }
}

impl Drop for Databases {
    fn drop(&mut self) {
        let names: Vec<String> = self.made.lock().unwrap().values().cloned().collect();
        for name in names {
            run_on(
                &self.server,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

/// A new, empty database on the server at URL `server`; returns its name.
pub fn create_database(server: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut random = [0u8; 4];
    getrandom::fill(&mut random).unwrap();
    let name = format!(
        "tokctl_test_{}_{n}_{}",
        std::process::id(),
        hex::encode(random)
    );
    run_on(server, &format!("CREATE DATABASE {name}"));
    name
}

/// `server` (a URL) with database `name` instead of its own.
pub fn with_database(server: &str, name: &str) -> String {
    let mut url = url::Url::parse(server).expect("a database URL");
    url.set_path(&format!("/{name}"));
    url.to_string()
}

/// Runs one statement on the server at URL `server` (in its own database).
fn run_on(server: &str, sql: &str) {
    in_database(server, async |client| {
        client.batch_execute(sql).await.unwrap()
    })
}

/// Runs `work` with a client of the database at `url`, on a thread with its own runtime, so it
/// can be called from anywhere (an async test, a `Drop`).
fn in_database<T: Send>(
    url: &str,
    work: impl AsyncFnOnce(tokio_postgres::Client) -> T + Send,
) -> T {
    std::thread::scope(|scope| {
        scope
            .spawn(|| block_on(async { work(connect(url).await).await }))
            .join()
            .expect("database work")
    })
}

fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .unwrap_or_else(|err| panic!("cannot connect to {URL_VAR}: {err}"));
    tokio::spawn(connection);
    client
}

/// A statement on the data of the server(s) on `dir`, for a test that changes stored data
/// behind a stopped server's back: `sqlite` on its file, or `postgres` on its database.
/// Returns the rows changed.
pub fn execute(
    dir: &Path,
    sqlite: (&str, &[&dyn rusqlite::ToSql]),
    postgres: (&str, &[&(dyn ToSql + Sync)]),
) -> u64 {
    match current() {
        Backend::Sqlite => {
            let db = rusqlite::Connection::open(dir.join("tokctl.db")).unwrap();
            db.execute(sqlite.0, sqlite.1).unwrap() as u64
        }
        Backend::Postgres(databases) => in_database(&databases.url_for(dir), async |client| {
            client.execute(postgres.0, postgres.1).await.unwrap()
        }),
    }
}

/// One value (the first column of the first row) from the data on `dir`, as [`execute`].
pub fn one<T>(
    dir: &Path,
    sqlite: (&str, &[&dyn rusqlite::ToSql]),
    postgres: (&str, &[&(dyn ToSql + Sync)]),
) -> T
where
    T: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a> + Send,
{
    first(dir, sqlite, postgres).expect("a row")
}

/// The first column of the first row, if there is a row, from the data on `dir`.
pub fn first<T>(
    dir: &Path,
    sqlite: (&str, &[&dyn rusqlite::ToSql]),
    postgres: (&str, &[&(dyn ToSql + Sync)]),
) -> Option<T>
where
    T: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a> + Send,
{
    use rusqlite::OptionalExtension;
    match current() {
        Backend::Sqlite => {
            let db = rusqlite::Connection::open(dir.join("tokctl.db")).unwrap();
            db.query_row(sqlite.0, sqlite.1, |row| row.get(0))
                .optional()
                .unwrap()
        }
        Backend::Postgres(databases) => in_database(&databases.url_for(dir), async |client| {
            let row = client.query_opt(postgres.0, postgres.1).await.unwrap();
            row.map(|row| row.get(0))
        }),
    }
}

/// Everything a PostgreSQL test's database on `dir` holds, every row of every table as text
/// (`bytea` as hex); `None` on SQLite, whose data is the file in `dir`.
pub fn stored_text(dir: &Path) -> Option<String> {
    let Backend::Postgres(databases) = current() else {
        return None;
    };
    let text = in_database(&databases.url_for(dir), async |client| {
        let tables = client
            .query(
                "SELECT table_name::text FROM information_schema.tables
                 WHERE table_schema = 'public'",
                &[],
            )
            .await
            .unwrap();
        let mut text = String::new();
        for table in tables {
            let name: String = table.get(0);
            for row in client
                .query(&format!("SELECT t::text FROM \"{name}\" t"), &[])
                .await
                .unwrap()
            {
                text.push_str(row.get(0));
                text.push('\n');
            }
        }
        text
    });
    Some(text)
}

/// A count (the first column of the first row of `sql`) in the PostgreSQL database at `url`.
pub fn count_at(url: &str, sql: &str) -> i64 {
    in_database(url, async |client| {
        client.query_one(sql, &[]).await.unwrap().get(0)
    })
}
