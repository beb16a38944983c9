//! What `copy-to-postgres` copies: every table, parents before children, each column as SQLite
//! gives it and the PostgreSQL type it becomes.

use anyhow::{Context, bail};
use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use tokio_postgres::types::{ToSql, Type};

/// How a column is carried over.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Text,
    Bytes,
    Int8,
    Int4,
    /// 0 or 1 in SQLite, `boolean` in PostgreSQL.
    Bool,
    /// Microseconds since the epoch in SQLite, `timestamptz` in PostgreSQL.
    Time,
}

impl Kind {
    pub(super) fn pg_type(self) -> Type {
        match self {
            Kind::Text => Type::TEXT,
            Kind::Bytes => Type::BYTEA,
            Kind::Int8 => Type::INT8,
            Kind::Int4 => Type::INT4,
            Kind::Bool => Type::BOOL,
            Kind::Time => Type::TIMESTAMPTZ,
        }
    }

    /// The SQLite value as PostgreSQL takes it (`NULL` stays `NULL`).
    pub(super) fn convert(self, value: Value) -> anyhow::Result<Box<dyn ToSql + Send + Sync>> {
        Ok(match (self, value) {
            (Kind::Text, Value::Text(text)) => Box::new(Some(text)),
            (Kind::Text, Value::Null) => Box::new(None::<String>),
            (Kind::Bytes, Value::Blob(bytes)) => Box::new(Some(bytes)),
            (Kind::Bytes, Value::Null) => Box::new(None::<Vec<u8>>),
            (Kind::Int8, Value::Integer(n)) => Box::new(Some(n)),
            (Kind::Int8, Value::Null) => Box::new(None::<i64>),
            (Kind::Int4, Value::Integer(n)) => Box::new(Some(i32::try_from(n)?)),
            (Kind::Int4, Value::Null) => Box::new(None::<i32>),
            (Kind::Bool, Value::Integer(n)) => Box::new(Some(n != 0)),
            (Kind::Bool, Value::Null) => Box::new(None::<bool>),
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
pub(super) struct Table {
    pub(super) name: &'static str,
    pub(super) columns: &'static [(&'static str, &'static str, Kind)],
}

/// Every table, parents before children. A delivery the stopped server had leased is due now.
pub(super) const TABLES: &[Table] = &[
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
            ("deployment", "deployment", Kind::Text),
        ],
    },
    Table {
        name: "request_log",
        columns: &[
            ("seq", "seq", Kind::Int8),
            ("id", "id", Kind::Text),
            ("workspace_id", "workspace_id", Kind::Text),
            ("created_at", "created_at", Kind::Time),
            ("credential_id", "credential_id", Kind::Text),
            ("endpoint", "endpoint", Kind::Text),
            ("model", "model", Kind::Text),
            ("routed_model", "routed_model", Kind::Text),
            ("deployment", "deployment", Kind::Text),
            ("route_reason", "route_reason", Kind::Text),
            ("status", "status", Kind::Int8),
            ("error", "error", Kind::Text),
            ("stream", "stream", Kind::Bool),
            ("first_token_us", "first_token_us", Kind::Int8),
            ("total_us", "total_us", Kind::Int8),
            ("prompt_tokens", "prompt_tokens", Kind::Int8),
            ("completion_tokens", "completion_tokens", Kind::Int8),
            ("cached_tokens", "cached_tokens", Kind::Int8),
            ("nanocredits", "nanocredits", Kind::Int8),
            ("x402_settled", "x402_settled", Kind::Text),
            ("session_id", "session_id", Kind::Text),
            ("request_body", "request_body", Kind::Text),
            ("response_body", "response_body", Kind::Text),
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
        name: "workspace_settings",
        columns: &[
            ("workspace_id", "workspace_id", Kind::Text),
            ("store_bodies", "store_bodies", Kind::Bool),
            ("updated_at", "updated_at", Kind::Time),
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
pub(super) const SEQUENCES: &[(&str, &str)] = &[
    ("audit_log", "seq"),
    ("usage_ledger", "seq"),
    ("request_log", "seq"),
    ("webhook_deliveries", "id"),
    ("webhook_attempts", "id"),
];
