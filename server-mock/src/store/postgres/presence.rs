//! Which instances are alive. An instance that delivers webhooks takes a number and holds an
//! advisory lock on it, on a connection of its own, for as long as it runs. When the process
//! dies its connection closes and PostgreSQL releases the lock at once, so other instances see
//! (in `pg_locks`) that the leases bearing its number are orphaned and take them over, without
//! waiting for the leases to run out. If the connection drops while the process lives, it
//! reconnects and takes the lock again.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::schema::INSTANCE_SPACE;
use crate::store::StoreResult;

/// This instance's number and the task holding its lock.
pub struct Presence {
    pub number: i32,
    task: JoinHandle<()>,
}

impl Presence {
    /// Takes a number and holds its lock, on a connection through `tls`.
    pub async fn start(config: Config, tls: MakeRustlsConnect) -> StoreResult<Self> {
        let (client, connection) = config.connect(tls.clone()).await?;
        let mut connection = tokio::spawn(connection);
        let number: i32 = client
            .query_one("SELECT nextval('instance_numbers')::int4", &[])
            .await?
            .get(0);
        lock(&client, number).await?;
        let task = tokio::spawn(async move {
            let mut _client = client;
            loop {
                let _ = (&mut connection).await;
                // Not a warning: a lost database is one, logged where it is noticed.
                tracing::info!(
                    number,
                    "lost the connection that marks this instance alive; reconnecting"
                );
                // Every second, whatever the outage's length: while it is not marked alive the
                // other instances take over its webhook deliveries.
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    match reconnect(&config, tls.clone(), number).await {
                        Ok((client, task)) => {
                            _client = client;
                            connection = task;
                            tracing::info!(number, "this instance is marked alive again");
                            break;
                        }
                        Err(err) => tracing::debug!(error = %err, "still cannot reconnect"),
                    }
                }
            }
        });
        Ok(Presence { number, task })
    }

    /// Releases the lock (the connection closes), so others take over at once.
    pub fn stop(&self) {
        self.task.abort();
    }
}

async fn lock(client: &Client, number: i32) -> StoreResult<()> {
    client
        .execute(
            "SELECT pg_advisory_lock($1, $2)",
            &[&INSTANCE_SPACE, &number],
        )
        .await?;
    Ok(())
}

async fn reconnect(
    config: &Config,
    tls: MakeRustlsConnect,
    number: i32,
) -> StoreResult<(Client, JoinHandle<Result<(), tokio_postgres::Error>>)> {
    let (client, connection) = config.connect(tls).await?;
    let task = tokio::spawn(connection);
    lock(&client, number).await?;
    Ok((client, task))
}
