//! `tokctl-server admin copy-to-postgres`: everything in a SQLite data directory, copied into an
//! empty PostgreSQL database in one transaction (all of it or nothing). Rows keep their ids,
//! digests, sealed secrets and times, so every credential, list and pending webhook delivery
//! carries on as before; only leases of the stopped server are let go.
//!
//! A reader thread streams each table in chunks from SQLite; each chunk goes into PostgreSQL by
//! binary `COPY`, so a table of millions of rows needs neither millions of statements nor
//! memory for all of them.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::postgres::{DatabaseUrl, connect_migrated};
use super::{WEBHOOK_KEY_CHECK, sqlite};
use crate::seal::Sealer;

mod tables;

use tables::{SEQUENCES, TABLES, Table};

/// Rows read from SQLite at a time.
const CHUNK: usize = 1000;

/// Copies the SQLite data in `data_dir` into the empty database at `url`, connecting through
/// `tls`; `sealer` holds the key the data directory's webhook secrets are sealed with, which
/// every instance serving the database must then be given. Returns each table's name and row
/// count.
pub async fn to_postgres(
    data_dir: &Path,
    url: &DatabaseUrl,
    timeout: Duration,
    tls: MakeRustlsConnect,
    sealer: &Sealer,
) -> anyhow::Result<Vec<(&'static str, u64)>> {
    let dir = data_dir.to_path_buf();
    let source = tokio::task::spawn_blocking(move || sqlite::open_migrated(&dir))
        .await??
        .with_context(|| format!("{} holds no SQLite database", data_dir.display()))?;
    let (mut client, connection) = connect_migrated(url, timeout, tls).await?;
    let tx = client.transaction().await?;
    let existing: i64 = tx
        .query_one("SELECT COUNT(*) FROM workspaces", &[])
        .await?
        .get(0);
    if existing > 0 {
        bail!(
            "{} already holds data ({existing} workspaces): copy into an empty database",
            url.target()
        );
    }
    let (chunks, mut reading) = tokio::sync::mpsc::channel::<Chunk>(4);
    let reader = std::thread::spawn(move || read(source, chunks));
    let mut copied = Vec::new();
    for table in TABLES {
        let columns: Vec<&str> = table.columns.iter().map(|(_, to, _)| *to).collect();
        let types: Vec<Type> = table.columns.iter().map(|(_, _, k)| k.pg_type()).collect();
        let sink = tx
            .copy_in(&format!(
                "COPY {} ({}) FROM STDIN (FORMAT binary)",
                table.name,
                columns.join(", ")
            ))
            .await?;
        let writer = BinaryCopyInWriter::new(sink, &types);
        futures::pin_mut!(writer);
        while let Some(chunk) = reading.recv().await {
            let rows = match chunk {
                Chunk::Rows(rows) => rows,
                Chunk::End => break,
                Chunk::Failed(why) => bail!("reading {}: {why}", table.name),
            };
            for row in rows {
                let values: Vec<&(dyn ToSql + Sync)> = row
                    .iter()
                    .map(|v| v.as_ref() as &(dyn ToSql + Sync))
                    .collect();
                writer.as_mut().write(&values).await?;
            }
        }
        copied.push((table.name, writer.as_mut().finish().await?));
    }
    let _ = reader.join();
    for (table, column) in SEQUENCES {
        tx.execute(
            &format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                               COALESCE(MAX({column}), 0) + 1, false) FROM {table}"
            ),
            &[],
        )
        .await?;
    }
    check_key(&tx, sealer).await?;
    tx.commit().await?;
    drop(client);
    let _ = connection.await;
    Ok(copied)
}

/// Makes sure `sealer` opens the copied webhook secrets, and that the database says so: the
/// key check copied along, or (for a data directory that has none yet) one made now.
async fn check_key(tx: &tokio_postgres::Transaction<'_>, sealer: &Sealer) -> anyhow::Result<()> {
    let sealed = tx
        .query("SELECT secret_sealed FROM webhook_endpoints", &[])
        .await?;
    if sealed
        .iter()
        .any(|row| sealer.open(row.get::<_, &[u8]>(0)).is_none())
    {
        bail!("the webhook key given does not open the data directory's webhook secrets");
    }
    let check = tx
        .query_opt(
            "SELECT value FROM settings WHERE name = $1",
            &[&WEBHOOK_KEY_CHECK],
        )
        .await?;
    match check {
        Some(row) if !sealer.opens_check(row.get(0)) => {
            bail!("the webhook key given is not the data directory's")
        }
        Some(_) => {}
        None => {
            tx.execute(
                "INSERT INTO settings (name, value) VALUES ($1, $2)",
                &[&WEBHOOK_KEY_CHECK, &sealer.key_check()?],
            )
            .await?;
        }
    }
    Ok(())
}

/// A piece of a table from the reader thread.
enum Chunk {
    Rows(Vec<Vec<Box<dyn ToSql + Send + Sync>>>),
    /// The table is done; the next chunk starts the next table.
    End,
    Failed(String),
}

/// Reads every table in [`TABLES`] order, in chunks, ending each with [`Chunk::End`].
fn read(source: rusqlite::Connection, chunks: tokio::sync::mpsc::Sender<Chunk>) {
    // One read transaction: every table as of one moment.
    let Ok(snapshot) = source.unchecked_transaction() else {
        let _ = chunks.blocking_send(Chunk::Failed("cannot start a read".into()));
        return;
    };
    for table in TABLES {
        if let Err(why) = read_table(&snapshot, table, &chunks) {
            let _ = chunks.blocking_send(Chunk::Failed(why.to_string()));
            return;
        }
        if chunks.blocking_send(Chunk::End).is_err() {
            return;
        }
    }
}

fn read_table(
    conn: &rusqlite::Connection,
    table: &Table,
    chunks: &tokio::sync::mpsc::Sender<Chunk>,
) -> anyhow::Result<()> {
    let columns: Vec<&str> = table.columns.iter().map(|(from, _, _)| *from).collect();
    // A table numbered by `seq` in its order (the request log is a view of its batches, and a
    // view has no rowid).
    let order = match columns.first() {
        Some(&"seq") => "seq",
        _ => "rowid",
    };
    let mut statement = conn.prepare(&format!(
        "SELECT {} FROM {} ORDER BY {order}",
        columns.join(", "),
        table.name
    ))?;
    let mut rows = statement.query([])?;
    let mut chunk = Vec::with_capacity(CHUNK);
    while let Some(row) = rows.next()? {
        let mut values = Vec::with_capacity(table.columns.len());
        for (index, (_, _, kind)) in table.columns.iter().enumerate() {
            values.push(kind.convert(row.get(index)?)?);
        }
        chunk.push(values);
        if chunk.len() == CHUNK {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            chunks
                .blocking_send(Chunk::Rows(full))
                .map_err(|_| anyhow::anyhow!("the copy stopped"))?;
        }
    }
    if !chunk.is_empty() {
        chunks
            .blocking_send(Chunk::Rows(chunk))
            .map_err(|_| anyhow::anyhow!("the copy stopped"))?;
    }
    Ok(())
}
