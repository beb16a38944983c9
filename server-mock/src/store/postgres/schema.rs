//! The PostgreSQL schema, applied as numbered migrations at start under an advisory lock, so
//! that instances starting together on an empty database create it once. The tables match the
//! SQLite schema's (same names and columns; times as `timestamptz`, digests as `bytea`) plus
//! what several instances share: the change log that keeps their caches exact, request counts,
//! and the numbers that tell which instances are alive.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_postgres::Client;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::migrations::MIGRATIONS;
use super::pooler;
use super::url::DatabaseUrl;
use crate::store::{StoreError, StoreResult};

/// First key of every advisory lock this server takes (`'tokc'`), so it never meets another
/// application's locks in the same database.
pub const LOCK_SPACE: i32 = 0x746f_6b63;
/// Second key of the lock held while migrating and bootstrapping.
pub const SETUP_LOCK: i32 = 0;
/// Second key of the lock held by the instance scanning for `token.expiring` notices.
pub const EXPIRY_LOCK: i32 = 1;
/// First key of the locks that say an instance is alive; the second key is its number.
pub const INSTANCE_SPACE: i32 = LOCK_SPACE + 1;

/// Brings the database up to the newest schema. Instances that start together wait for each
/// other on an advisory lock; each migration runs in its own transaction.
pub async fn migrate(client: &mut Client) -> StoreResult<()> {
    client
        .execute(
            "SELECT pg_advisory_lock($1, $2)",
            &[&LOCK_SPACE, &SETUP_LOCK],
        )
        .await?;
    let applied = apply(client).await;
    let unlocked = client
        .execute(
            "SELECT pg_advisory_unlock($1, $2)",
            &[&LOCK_SPACE, &SETUP_LOCK],
        )
        .await;
    applied?;
    unlocked?;
    Ok(())
}

async fn apply(client: &mut Client) -> StoreResult<()> {
    let tracked: bool = client
        .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])
        .await?
        .get(0);
    if !tracked {
        client
            .batch_execute(
                "CREATE TABLE schema_migrations (
                     version     INTEGER PRIMARY KEY,
                     applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
                 )",
            )
            .await?;
    }
    let current: i32 = client.query_one(VERSION_SQL, &[]).await?.get(0);
    check(current)?;
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let version = index as i32 + 1;
        let tx = client.transaction().await?;
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version) VALUES ($1)",
            &[&version],
        )
        .await?;
        tx.commit().await?;
        tracing::info!(version, "applied PostgreSQL migration");
    }
    Ok(())
}

/// The version of the schema PostgreSQL holds now.
pub const VERSION_SQL: &str = "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";

/// Refuses a schema `found` newer than this server's (a newer server migrated it).
pub fn check(found: i32) -> StoreResult<()> {
    match found as usize > MIGRATIONS.len() {
        true => Err(crate::store::StoreError::NewerSchema {
            found: i64::from(found),
            known: MIGRATIONS.len(),
        }),
        false => Ok(()),
    }
}

/// A connection of its own to `url` through `tls`, once the schema is up to date; its
/// connection task ends when the client is dropped.
pub async fn connect_migrated(
    url: &DatabaseUrl,
    timeout: Duration,
    tls: MakeRustlsConnect,
) -> StoreResult<(tokio_postgres::Client, JoinHandle<()>)> {
    let unreachable = |cause: String| {
        StoreError::Unavailable(format!(
            "cannot connect to PostgreSQL at {}: {cause}",
            url.target()
        ))
    };
    let config = url.connection_config(timeout);
    let connecting = config.connect(tls.clone());
    let (mut client, connection) = match tokio::time::timeout(timeout, connecting).await {
        Ok(Ok(connected)) => connected,
        Ok(Err(err)) => return Err(unreachable(url.explain(&err))),
        Err(_) => return Err(unreachable(format!("no answer within {timeout:?}"))),
    };
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let probed = pooler::refuse_shared_sessions(&client, &config, tls);
    match tokio::time::timeout(timeout, probed).await {
        Ok(Err(StoreError::Backend(why))) => {
            let target = url.target();
            return Err(StoreError::Backend(format!(
                "cannot use PostgreSQL at {target}: {why}"
            )));
        }
        Ok(Err(err)) => return Err(unreachable(err.to_string())),
        Ok(Ok(())) => {}
        Err(_) => return Err(unreachable(format!("no answer within {timeout:?}"))),
    }
    migrate(&mut client).await?;
    Ok((client, connection))
}
