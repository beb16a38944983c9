//! Behind a connection pooler. Session mode works: every test of several instances runs again
//! through PgBouncer in session mode (`instances.rs`, `name::pgbouncer`). Transaction mode
//! hands one client's database session to others between transactions, which breaks what the
//! server keeps per session (prepared statements, advisory locks, settings): the server sees
//! it at start and refuses in one line that says what to use instead.

mod common;

use std::time::Duration;

use common::backend::{count_at, new_database, postgres_server};
use common::pgbouncer::PgBouncer;
use common::{exit_of, postgres};

postgres! {
    #[tokio::test]
    async fn transaction_pooling_is_refused_at_start_saying_what_to_use_instead() {
    let server = postgres_server().expect("a PostgreSQL test");
    let Some(bouncer) = PgBouncer::start(&server, "transaction") else {
        return;
    };
    let direct = new_database();
    let url = bouncer.url(&direct);
    let tmp = tempfile::tempdir().unwrap();
    let output = exit_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
            .args(["serve", "--listen", "127.0.0.1:0", "--database-url", &url])
            .arg("--data-dir")
            .arg(tmp.path().join("data"))
            .env_remove("TOKCTL_DATABASE_URL"),
        Duration::from_secs(30),
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let port = bouncer.port;
    assert!(
        stderr.starts_with(&format!(
            "tokctl-server: cannot use PostgreSQL at 127.0.0.1:{port}/"
        )) && stderr.contains("connection pooler in transaction or statement mode"),
        "{stderr}"
    );
    assert!(
        stderr.contains("pool_mode = session") && stderr.contains("--database-pool-size"),
        "{stderr}"
    );
    // Refused before anything was written: no table was made through the pooler.
    let tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'";
    assert_eq!(count_at(&direct, tables), 0);
}
}
