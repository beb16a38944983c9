//! Which instances are alive. An instance that delivers webhooks takes a number and holds an
//! advisory lock on it, on a connection of its own, for as long as it runs. When the process
//! dies its connection closes and PostgreSQL releases the lock at once, so other instances see
//! (in `pg_locks`) that the leases bearing its number are orphaned and take them over, without
//! waiting for the leases to run out. If the connection drops while the process lives, it
//! reconnects and takes the lock again.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config, NoTls};

use super::schema::INSTANCE_SPACE;
use crate::store::StoreResult;

/// This instance's number and the task holding its lock.
pub struct Presence {
    pub number: i32,
    task: JoinHandle<()>,
}

impl Presence {
    /// Takes a number and holds its lock.
    pub async fn start(config: Config) -> StoreResult<Self> {
        let (client, connection) = config.connect(NoTls).await?;
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
                tracing::warn!(
                    number,
                    "lost the connection that marks this instance alive; reconnecting"
                );
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    match reconnect(&config, number).await {
                        Ok((client, task)) => {
                            _client = client;
                            connection = task;
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
    number: i32,
) -> StoreResult<(Client, JoinHandle<Result<(), tokio_postgres::Error>>)> {
    let (client, connection) = config.connect(NoTls).await?;
    let task = tokio::spawn(connection);
    lock(&client, number).await?;
    Ok((client, task))
}
