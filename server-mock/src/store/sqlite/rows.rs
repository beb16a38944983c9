//! Row mapping and the SQL of tokens, API keys, workspaces and the audit log.

use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::credits::Credits;
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::{
    AuditEntry, AuditFilter, Credential, Limit, Listing, NewApiKey, NewToken, Page, PageRequest,
    Reset, StoreError, StoreResult, TokenFilter, TokenRecord, TokenStatus, Workspace,
};
use crate::store::{format_stored, parse_stored};

/// The columns [`token_from_row`] reads, selected from [`TOKENS`].
pub(super) const TOKEN_COLUMNS: &str = "id, workspace_id, name, scopes, created_at, expires_at, \
     revoked_at, last_used_at, created_by, previous_expires_at, credit_limit, reset, since";

/// Tokens, each with its limit's row when it has one (read with the token: showing a token
/// without a limit needs nothing more).
pub(super) const TOKENS: &str =
    "tokens LEFT JOIN token_limits ON token_limits.token_id = tokens.id";

/// An API key's columns in [`TOKEN_COLUMNS`]' shape (keys have no limits).
const KEY_COLUMNS: &str = "id, workspace_id, name, scopes, created_at, expires_at, revoked_at, \
     last_used_at, created_by, previous_expires_at, NULL, NULL, NULL";

pub(super) fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

pub(super) fn from_micros(value: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(value).unwrap_or_default()
}

pub(super) fn token_from_row(row: &Row<'_>) -> rusqlite::Result<TokenRecord> {
    Ok(TokenRecord {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        name: row.get(2)?,
        scopes: parse_stored(&row.get::<_, String>(3)?),
        created_at: from_micros(row.get(4)?),
        expires_at: row.get::<_, Option<i64>>(5)?.map(from_micros),
        revoked_at: row.get::<_, Option<i64>>(6)?.map(from_micros),
        last_used_at: row.get::<_, Option<i64>>(7)?.map(from_micros),
        created_by: row.get(8)?,
        previous_secret_expires_at: row.get::<_, Option<i64>>(9)?.map(from_micros),
        limit: limit_at(row, 10)?,
    })
}

/// The limit in a row's columns `credit_limit, reset, since` from `at` on (all NULL: none).
pub(super) fn limit_at(row: &Row<'_>, at: usize) -> rusqlite::Result<Option<Limit>> {
    let (credit_limit, reset, since): (Option<i64>, Option<String>, Option<i64>) =
        (row.get(at)?, row.get(at + 1)?, row.get(at + 2)?);
    Ok(
        match (credit_limit, reset.as_deref().and_then(Reset::parse), since) {
            (Some(credit_limit), Some(reset), Some(since)) => Some(Limit {
                credit_limit: Credits::from_column(credit_limit),
                reset,
                since: from_micros(since),
            }),
            _ => None,
        },
    )
}

pub(super) fn audit_from_row(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        action: row.get(2)?,
        actor: row.get(3)?,
        token_id: row.get(4)?,
        request_id: row.get(5)?,
        created_at: from_micros(row.get(6)?),
        details: row.get(7)?,
    })
}

pub(super) fn fetch_token(
    conn: &Connection,
    workspace_id: &str,
    id: &str,
) -> StoreResult<Option<TokenRecord>> {
    let sql = format!("SELECT {TOKEN_COLUMNS} FROM {TOKENS} WHERE id = ?1 AND workspace_id = ?2");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![id, workspace_id], token_from_row)
        .optional()?)
}

pub(super) fn insert_audit(conn: &Connection, entry: &AuditEntry) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO audit_log (id, workspace_id, action, actor, token_id, request_id, created_at,
                                details)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        entry.id,
        entry.workspace_id,
        entry.action,
        entry.actor,
        entry.token_id,
        entry.request_id,
        micros(entry.created_at),
        entry.details
    ])?;
    Ok(())
}

pub(super) fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(e, _)
        if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// Inserts an API key; [`StoreError::NameTaken`] when a live key of the workspace has its name.
pub(super) fn insert_api_key(conn: &Connection, key: &NewApiKey) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO api_keys (id, workspace_id, name, secret_digest, scopes, created_at,
                               expires_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        key.id,
        key.workspace_id,
        key.name,
        key.digest.0.as_slice(),
        format_stored(&key.scopes),
        micros(key.created_at),
        key.expires_at.map(micros),
        key.created_by
    ])
    .map_err(|err| match is_unique_violation(&err) {
        true => StoreError::NameTaken,
        false => err.into(),
    })?;
    Ok(())
}

pub(super) fn insert_workspace(conn: &Connection, workspace: &Workspace) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO workspaces (id, name, created_at) VALUES (?1, ?2, ?3)",
        params![workspace.id, workspace.name, micros(Utc::now())],
    )
    .map_err(|err| match is_unique_violation(&err) {
        true => StoreError::WorkspaceExists,
        false => err.into(),
    })?;
    Ok(())
}

/// SQL condition for a status filter, and whether it takes `now` as a parameter.
pub(super) fn status_condition(status: Option<TokenStatus>) -> (&'static str, bool) {
    match status {
        None => ("", false),
        Some(TokenStatus::Active) => (
            " AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
            true,
        ),
        Some(TokenStatus::Expired) => (" AND revoked_at IS NULL AND expires_at <= ?", true),
        Some(TokenStatus::Revoked) => (" AND revoked_at IS NOT NULL", false),
    }
}

pub(super) fn page_bounds(page: PageRequest, total: u64) -> Option<(i64, i64)> {
    let offset = page.offset();
    (offset < total).then_some((page.per_page as i64, offset as i64))
}

/// One page of a workspace's tokens or API keys, newest first.
pub(super) fn list_tokens(
    conn: &Connection,
    listing: Listing,
    workspace_id: String,
    filter: TokenFilter,
    page: PageRequest,
    now: DateTime<Utc>,
) -> StoreResult<Page<TokenRecord>> {
    let (condition, takes_now) = status_condition(filter.status);
    let table = listing.table();
    let (columns, from) = match listing {
        Listing::Tokens => (TOKEN_COLUMNS, TOKENS),
        Listing::Keys => (KEY_COLUMNS, table),
    };
    let mut args: Vec<Value> = vec![Value::Text(workspace_id)];
    if takes_now {
        args.push(Value::Integer(micros(now)));
    }
    let total: i64 = conn
        .prepare_cached(&format!(
            "SELECT COUNT(*) FROM {table} WHERE workspace_id = ?{condition}"
        ))?
        .query_row(params_from_iter(&args), |r| r.get(0))?;
    let total = total as u64;
    let Some((limit, offset)) = page_bounds(page, total) else {
        return Ok(Page {
            items: Vec::new(),
            total,
        });
    };
    args.extend([Value::Integer(limit), Value::Integer(offset)]);
    let sql = format!(
        "SELECT {columns} FROM {from} WHERE workspace_id = ?{condition}
         ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?"
    );
    let items = conn
        .prepare_cached(&sql)?
        .query_map(params_from_iter(&args), token_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { items, total })
}

/// One page of a workspace's audit log, newest first.
pub(super) fn list_audit(
    conn: &Connection,
    workspace_id: String,
    filter: AuditFilter,
    page: PageRequest,
) -> StoreResult<Page<AuditEntry>> {
    // NULL filters match everything.
    let condition = "workspace_id = ?1 AND (?2 IS NULL OR token_id = ?2)
                     AND (?3 IS NULL OR action = ?3)";
    let total: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM audit_log WHERE {condition}"))?
        .query_row(params![workspace_id, filter.token_id, filter.action], |r| {
            r.get(0)
        })?;
    let total = total as u64;
    let Some((limit, offset)) = page_bounds(page, total) else {
        return Ok(Page {
            items: Vec::new(),
            total,
        });
    };
    let sql = format!(
        "SELECT id, workspace_id, action, actor, token_id, request_id, created_at, details
         FROM audit_log WHERE {condition} ORDER BY seq DESC LIMIT ?4 OFFSET ?5"
    );
    let items = conn
        .prepare_cached(&sql)?
        .query_map(
            params![workspace_id, filter.token_id, filter.action, limit, offset],
            audit_from_row,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { items, total })
}

/// The credential whose secret has `digest`, compared in constant time.
pub(super) fn find_credential(
    conn: &Connection,
    kind: CredentialKind,
    digest: &SecretDigest,
) -> StoreResult<Option<Credential>> {
    let sql = match kind {
        // The current secret, or the one the last rotation replaced (until its overlap ends).
        CredentialKind::Token => {
            "SELECT id, workspace_id, scopes, expires_at, revoked_at, last_used_at,
                    secret_digest, NULL
             FROM tokens WHERE secret_digest = ?1
             UNION ALL
             SELECT id, workspace_id, scopes, expires_at, revoked_at, last_used_at,
                    previous_digest, previous_expires_at
             FROM tokens WHERE previous_digest = ?1"
        }
        CredentialKind::ApiKey => {
            "SELECT id, workspace_id, scopes, expires_at, revoked_at, last_used_at, secret_digest,
                    NULL
             FROM api_keys WHERE secret_digest = ?1"
        }
    };
    let found = conn
        .prepare_cached(sql)?
        .query_row(params![digest.0.as_slice()], |row| {
            let stored: Vec<u8> = row.get(6)?;
            Ok((
                Credential {
                    id: row.get(0)?,
                    kind,
                    workspace_id: row.get(1)?,
                    scopes: parse_stored(&row.get::<_, String>(2)?),
                    expires_at: row.get::<_, Option<i64>>(3)?.map(from_micros),
                    revoked: row.get::<_, Option<i64>>(4)?.is_some(),
                    last_used_at: row.get::<_, Option<i64>>(5)?.map(from_micros),
                    secret_expires_at: row.get::<_, Option<i64>>(7)?.map(from_micros),
                },
                stored,
            ))
        })
        .optional()?;
    Ok(found
        .filter(|(_, stored)| digest.matches(stored))
        .map(|(credential, _)| credential))
}

/// Inserts a token and its audit entry; [`StoreError::NameTaken`] when a live token of the
/// workspace has its name.
pub(super) fn create_token(
    conn: &Connection,
    token: NewToken,
    audit: &AuditEntry,
) -> StoreResult<TokenRecord> {
    conn.prepare_cached(
        "INSERT INTO tokens (id, workspace_id, name, secret_digest, scopes, created_at,
                             expires_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        token.id,
        token.workspace_id,
        token.name,
        token.digest.0.as_slice(),
        format_stored(&token.scopes),
        micros(token.created_at),
        token.expires_at.map(micros),
        token.created_by
    ])
    .map_err(|err| match is_unique_violation(&err) {
        true => StoreError::NameTaken,
        false => err.into(),
    })?;
    insert_audit(conn, audit)?;
    Ok(token.into_record())
}
