//! Refuses a connection pooler that shares database sessions between its clients (PgBouncer's
//! `pool_mode = transaction` or `statement`). This server holds session state that such a
//! pooler hands to other clients between transactions: statements it prepares once per
//! connection, session advisory locks (migrations, the lock that marks an instance alive), and
//! session settings. Session mode, where each client keeps one database session, works.
//!
//! The check, at start: one connection sets a custom setting, a second connection reads it
//! (a pooler that passes sessions around hands it the first one's), then the first reads it
//! back (a pooler may have given its next statement another session). Directly connected, or
//! through a pooler in session mode, the second sees nothing and the first sees its own.

use tokio_postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::{StoreError, StoreResult};

const PROBE: &str = "tokctl.pooler_probe";

/// Fails with the reason and what to use instead when `first`'s database sessions are shared
/// with other clients; opens one more connection from `config` to see.
pub async fn refuse_shared_sessions(
    first: &Client,
    config: &Config,
    tls: MakeRustlsConnect,
) -> StoreResult<()> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|err| StoreError::Backend(err.to_string()))?;
    let mark = hex::encode(random);
    first
        .batch_execute(&format!("SET {PROBE} = '{mark}'"))
        .await?;
    let (second, connection) = config.connect(tls).await?;
    let connection = tokio::spawn(connection);
    let seen_by_second = setting(&second).await;
    drop(second);
    let _ = connection.await;
    let kept_by_first = setting(first).await?;
    if seen_by_second? == Some(mark.clone()) || kept_by_first != Some(mark) {
        return Err(StoreError::Backend(
            "the database is reached through a connection pooler in transaction or statement \
             mode (a session setting moved between clients), which this server cannot use: it \
             keeps prepared statements, advisory locks and settings per session. Set the \
             pooler's pool_mode = session (PgBouncer), or connect to PostgreSQL directly and \
             size this server's own pool with --database-pool-size"
                .into(),
        ));
    }
    Ok(())
}

async fn setting(client: &Client) -> StoreResult<Option<String>> {
    let row = client
        .query_one(&format!("SELECT current_setting('{PROBE}', true)"), &[])
        .await?;
    Ok(row
        .get::<_, Option<String>>(0)
        .filter(|value| !value.is_empty()))
}
