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
use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::postgres::{DatabaseUrl, connect_migrated};
use super::{WEBHOOK_KEY_CHECK, sqlite};
use crate::seal::Sealer;

/// Rows read from SQLite at a time.
const CHUNK: usize = 1000;

/// How a column is carried over.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Bytes,
    Int8,
    Int4,
    /// Microseconds since the epoch in SQLite, `timestamptz` in PostgreSQL.
    Time,
}

impl Kind {
    fn pg_type(self) -> Type {
        match self {
            Kind::Text => Type::TEXT,
            Kind::Bytes => Type::BYTEA,
            Kind::Int8 => Type::INT8,
            Kind::Int4 => Type::INT4,
            Kind::Time => Type::TIMESTAMPTZ,
        }
    }

    /// The SQLite value as PostgreSQL takes it (`NULL` stays `NULL`).
    fn convert(self, value: Value) -> anyhow::Result<Box<dyn ToSql + Send + Sync>> {
        Ok(match (self, value) {
            (Kind::Text, Value::Text(text)) => Box::new(Some(text)),
            (Kind::Text, Value::Null) => Box::new(None::<String>),
            (Kind::Bytes, Value::Blob(bytes)) => Box::new(Some(bytes)),
            (Kind::Bytes, Value::Null) => Box::new(None::<Vec<u8>>),
            (Kind::Int8, Value::Integer(n)) => Box::new(Some(n)),
            (Kind::Int8, Value::Null) => Box::new(None::<i64>),
            (Kind::Int4, Value::Integer(n)) => Box::new(Some(i32::try_from(n)?)),
            (Kind::Int4, Value::Null) => Box::new(None::<i32>),
            (Kind::Time, Value::Integer(micros)) => Box::new(Some(
                DateTime::<Utc>::from_timestamp_micros(micros).context("a time out of range")?,
            )),
            (Kind::Time, Value::Null) => Box::new(None::<DateTime<Utc>>),
            (_, other) => bail!("unexpected value {:?}", other.data_type()),
        })
    }
}

/// A table to copy: its name, and each column as SQLite gives it (an expression) and where it
/// goes. In an order that respects references.
struct Table {
    name: &'static str,
    columns: &'static [(&'static str, &'static str, Kind)],
}

/// Every table, parents before children. A delivery the stopped server had leased is due now.
const TABLES: &[Table] = &[
    Table {
        name: "workspaces",
        columns: &[
            ("id", "id", Kind::Text),
            ("name", "name", Kind::Text),
            ("created_at", "created_at", Kind::Time),
        ],
    },
    Table {
        name: "api_keys",
        columns: &[
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("secret_digest", "secret_digest", Kind::Bytes),
            ("scopes", "scopes", Kind::Text),
            ("created_at", "created_at", Kind::Time),
            ("revoked_at", "revoked_at", Kind::Time),
            ("name", "name", Kind::Text),
            ("expires_at", "expires_at", Kind::Time),
            ("last_used_at", "last_used_at", Kind::Time),
            ("created_by", "created_by", Kind::Text),
            ("previous_expires_at", "previous_expires_at", Kind::Time),
        ],
    },
    Table {
        name: "tokens",
        columns: &[
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("name", "name", Kind::Text),
            ("secret_digest", "secret_digest", Kind::Bytes),
            ("scopes", "scopes", Kind::Text),
            ("created_at", "created_at", Kind::Time),
            ("expires_at", "expires_at", Kind::Time),
            ("revoked_at", "revoked_at", Kind::Time),
            ("last_used_at", "last_used_at", Kind::Time),
            ("created_by", "created_by", Kind::Text),
            ("previous_digest", "previous_digest", Kind::Bytes),
            ("previous_expires_at", "previous_expires_at", Kind::Time),
        ],
    },
    Table {
        name: "audit_log",
        columns: &[
            ("seq", "seq", Kind::Int8),
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("action", "action", Kind::Text),
            ("actor", "actor", Kind::Text),
            ("token_id", "token_id", Kind::Text),
            ("request_id", "request_id", Kind::Text),
            ("created_at", "created_at", Kind::Time),
            ("details", "details", Kind::Text),
        ],
    },
    Table {
        name: "usage_ledger",
        columns: &[
            ("seq", "seq", Kind::Int8),
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("request_id", "request_id", Kind::Text),
            ("model", "model", Kind::Text),
            ("prompt_tokens", "prompt_tokens", Kind::Int8),
            ("completion_tokens", "completion_tokens", Kind::Int8),
            ("nanocredits", "nanocredits", Kind::Int8),
            ("wallet", "wallet", Kind::Text),
            ("created_at", "created_at", Kind::Time),
            ("token_id", "token_id", Kind::Text),
        ],
    },
    Table {
        name: "token_limits",
        columns: &[
            ("token_id", "token_id", Kind::Text),
            ("credit_limit", "credit_limit", Kind::Int8),
            ("reset", "reset", Kind::Text),
            ("since", "since", Kind::Time),
        ],
    },
    Table {
        name: "spend_holds",
        columns: &[
            ("id", "id", Kind::Text),
            ("token_id", "token_id", Kind::Text),
            ("nanocredits", "nanocredits", Kind::Int8),
            ("created_at", "created_at", Kind::Time),
            ("expires_at", "expires_at", Kind::Time),
        ],
    },
    Table {
        name: "limit_notices",
        columns: &[
            ("token_id", "token_id", Kind::Text),
            ("period_start", "period_start", Kind::Time),
            ("threshold", "threshold", Kind::Int4),
            ("created_at", "created_at", Kind::Time),
        ],
    },
    Table {
        name: "webhook_endpoints",
        columns: &[
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("url", "url", Kind::Text),
            ("events", "events", Kind::Text),
            ("secret_sealed", "secret_sealed", Kind::Bytes),
            ("created_at", "created_at", Kind::Time),
            ("disabled_at", "disabled_at", Kind::Time),
            ("deleted_at", "deleted_at", Kind::Time),
        ],
    },
    Table {
        name: "webhook_events",
        columns: &[
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("type", "type", Kind::Text),
            ("body", "body", Kind::Text),
            ("created_at", "created_at", Kind::Time),
        ],
    },
    Table {
        name: "webhook_deliveries",
        columns: &[
            ("id", "id", Kind::Int8),
            ("event_id", "event_id", Kind::Text),
            ("endpoint_id", "endpoint_id", Kind::Text),
            ("state", "state", Kind::Text),
            ("attempts", "attempts", Kind::Int4),
            (
                "CASE WHEN leased = 1 THEN MIN(next_attempt_at, CAST(strftime('%s', 'now') AS INTEGER) * 1000000) ELSE next_attempt_at END",
                "next_attempt_at",
                Kind::Time,
            ),
        ],
    },
    Table {
        name: "webhook_attempts",
        columns: &[
            ("id", "id", Kind::Int8),
            ("endpoint_id", "endpoint_id", Kind::Text),
            ("event_id", "event_id", Kind::Text),
            ("event_type", "event_type", Kind::Text),
            ("attempt", "attempt", Kind::Int4),
            ("status_code", "status_code", Kind::Int4),
            ("error", "error", Kind::Text),
            ("duration_ms", "duration_ms", Kind::Int8),
            ("next_retry_at", "next_retry_at", Kind::Time),
            ("created_at", "created_at", Kind::Time),
        ],
    },
    Table {
        name: "webhook_expiry_notices",
        columns: &[
            ("token_id", "token_id", Kind::Text),
            ("notice", "notice", Kind::Text),
        ],
    },
    Table {
        name: "x402_settings",
        columns: &[
            ("workspace_id", "workspace_id", Kind::Text),
            ("pay_to", "pay_to", Kind::Text),
            ("network", "network", Kind::Text),
            ("asset", "asset", Kind::Text),
            ("asset_name", "asset_name", Kind::Text),
            ("asset_version", "asset_version", Kind::Text),
            ("asset_decimals", "asset_decimals", Kind::Int4),
            ("credit_price", "credit_price", Kind::Text),
            ("facilitator_url", "facilitator_url", Kind::Text),
            ("updated_at", "updated_at", Kind::Time),
        ],
    },
    Table {
        name: "x402_nonces",
        columns: &[
            ("network", "network", Kind::Text),
            ("contract", "contract", Kind::Text),
            ("payer", "payer", Kind::Text),
            ("nonce", "nonce", Kind::Text),
            ("created_at", "created_at", Kind::Time),
        ],
    },
    Table {
        name: "x402_payments",
        columns: &[
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("request_id", "request_id", Kind::Text),
            ("usage_id", "usage_id", Kind::Text),
            ("model", "model", Kind::Text),
            ("scheme", "scheme", Kind::Text),
            ("network", "network", Kind::Text),
            ("asset", "asset", Kind::Text),
            ("payer", "payer", Kind::Text),
            ("authorized", "authorized", Kind::Text),
            ("amount", "amount", Kind::Text),
            ("status", "status", Kind::Text),
            ("tx_hash", "tx_hash", Kind::Text),
            ("error", "error", Kind::Text),
            ("payment", "payment", Kind::Text),
            ("requirements", "requirements", Kind::Text),
            ("facilitator_url", "facilitator_url", Kind::Text),
            ("attempts", "attempts", Kind::Int4),
            ("next_attempt_at", "next_attempt_at", Kind::Time),
            ("expires_at", "expires_at", Kind::Time),
            ("created_at", "created_at", Kind::Time),
            ("settled_at", "settled_at", Kind::Time),
        ],
    },
    Table {
        name: "settings",
        columns: &[
            ("name", "name", Kind::Text),
            ("value", "value", Kind::Bytes),
        ],
    },
];

/// Id columns that PostgreSQL numbers itself, set past the copied ones.
const SEQUENCES: &[(&str, &str)] = &[
    ("audit_log", "seq"),
    ("usage_ledger", "seq"),
    ("webhook_deliveries", "id"),
    ("webhook_attempts", "id"),
];

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
    let mut statement = conn.prepare(&format!(
        "SELECT {} FROM {} ORDER BY rowid",
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
