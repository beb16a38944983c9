//! The PostgreSQL SQL of tokens, API keys, workspaces and the audit log.

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use super::audit::{audit_params, insert_audit};
use super::db::limits;
use super::error::violates;
use super::spend::{limit_of, spends};
use super::{sync, webhooks};
use crate::secrets::{CredentialKind, SecretDigest};
use crate::store::TokenStore;
use crate::store::{
    AuditEntry, Credential, Limit, ListedToken, Listing, NewEvent, NewToken, Page, PageRequest,
    StoreError, StoreResult, TokenFilter, TokenRecord, TokenStatus,
};
use crate::store::{format_stored, parse_stored};
#[allow(unused_imports)]
use async_trait::async_trait;

/// The columns [`token`] reads, selected from [`TOKENS`].
pub(super) const TOKEN_COLUMNS: &str = "id, workspace_id, name, scopes, created_at, expires_at, \
     revoked_at, last_used_at, created_by, previous_expires_at, credit_limit, reset, since";

/// Tokens, each with its limit's row when it has one (read with the token: showing a token
/// without a limit needs nothing more).
pub(super) const TOKENS: &str =
    "tokens LEFT JOIN token_limits ON token_limits.token_id = tokens.id";

/// An API key's columns in [`TOKEN_COLUMNS`]' shape (keys have no limits).
const KEY_COLUMNS: &str = "id, workspace_id, name, scopes, created_at, expires_at, revoked_at, \
     last_used_at, created_by, previous_expires_at, NULL::int8, NULL::text, NULL::timestamptz";

pub(super) fn token(row: &Row) -> TokenRecord {
    TokenRecord {
        id: row.get(0),
        workspace_id: row.get(1),
        name: row.get(2),
        scopes: parse_stored(row.get(3)),
        created_at: row.get(4),
        expires_at: row.get(5),
        revoked_at: row.get(6),
        last_used_at: row.get(7),
        created_by: row.get(8),
        previous_secret_expires_at: row.get(9),
        limit: limit_of(row, 10),
    }
}

/// The credential whose secret has `digest`, compared in constant time.
pub(super) async fn find_credential(
    c: &impl GenericClient,
    kind: CredentialKind,
    digest: &SecretDigest,
) -> StoreResult<Option<Credential>> {
    let sql = match kind {
        // The current secret, or the one the last rotation replaced (until its overlap ends).
        CredentialKind::Token => {
            "SELECT id, workspace_id, scopes, expires_at, revoked_at IS NOT NULL, last_used_at,
                    secret_digest, NULL::timestamptz
             FROM tokens WHERE secret_digest = $1
             UNION ALL
             SELECT id, workspace_id, scopes, expires_at, revoked_at IS NOT NULL, last_used_at,
                    previous_digest, previous_expires_at
             FROM tokens WHERE previous_digest = $1"
        }
        CredentialKind::ApiKey => {
            "SELECT id, workspace_id, scopes, expires_at, revoked_at IS NOT NULL, last_used_at,
                    secret_digest, NULL::timestamptz
             FROM api_keys WHERE secret_digest = $1"
        }
    };
    let row = c
        .query_opt(&c.prepare_cached(sql).await?, &[&digest.0.as_slice()])
        .await?;
    Ok(row
        .filter(|row| digest.matches(row.get::<_, &[u8]>(6)))
        .map(|row| Credential {
            id: row.get(0),
            kind,
            workspace_id: row.get(1),
            scopes: parse_stored(row.get(2)),
            expires_at: row.get(3),
            revoked: row.get(4),
            last_used_at: row.get(5),
            secret_expires_at: row.get(7),
        }))
}

/// Inserts a token and its audit entry in one statement; [`StoreError::NameTaken`] when a live
/// token of the workspace has its name.
pub(super) async fn create_token(
    c: &impl GenericClient,
    token: &NewToken,
    audit: &AuditEntry,
) -> StoreResult<()> {
    // The limit's row goes in with the token's (one statement: the reference is checked at its
    // end), when it has one.
    let sql = "WITH token AS (
                   INSERT INTO tokens (id, workspace_id, name, secret_digest, scopes, created_at,
                                       expires_at, created_by)
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)),
               limited AS (
                   INSERT INTO token_limits (token_id, credit_limit, reset, since)
                   SELECT $1, $17, $18, $6 WHERE $17::int8 IS NOT NULL)
               INSERT INTO audit_log (id, workspace_id, action, actor, token_id, request_id,
                                      created_at, details)
               VALUES ($9, $10, $11, $12, $13, $14, $15, $16)";
    let scopes = format_stored(&token.scopes);
    let digest = token.digest.0.as_slice();
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![
        &token.id,
        &token.workspace_id,
        &token.name,
        &digest,
        &scopes,
        &token.created_at,
        &token.expires_at,
        &token.created_by,
    ];
    params.extend(audit_params(audit));
    let credit_limit = token.limit.map(|limit| limit.credit_limit.to_column());
    let reset = token.limit.map(|limit| limit.reset.as_str());
    params.extend([&credit_limit as &(dyn ToSql + Sync), &reset]);
    match c.execute(&c.prepare_cached(sql).await?, &params).await {
        Err(err) if violates(&err, "tokens_live_name") => Err(StoreError::NameTaken),
        other => other.map(|_| ()).map_err(Into::into),
    }
}

pub(super) async fn fetch_token(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
) -> StoreResult<Option<TokenRecord>> {
    let sql = format!("SELECT {TOKEN_COLUMNS} FROM {TOKENS} WHERE id = $1 AND workspace_id = $2");
    let row = c
        .query_opt(&c.prepare_cached(&sql).await?, &[&id, &workspace_id])
        .await?;
    Ok(row.as_ref().map(token))
}

/// The condition of a status filter (on `$2`, now, when it takes it).
fn status_condition(status: Option<TokenStatus>) -> &'static str {
    match status {
        None => "",
        Some(TokenStatus::Active) => {
            " AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)"
        }
        Some(TokenStatus::Expired) => " AND revoked_at IS NULL AND expires_at <= $2",
        Some(TokenStatus::Revoked) => " AND revoked_at IS NOT NULL",
    }
}

/// One page of the workspace's tokens or API keys, newest first: the page and its total in one
/// statement (one snapshot), or a count alone past the last page.
pub(super) async fn list_tokens(
    c: &impl GenericClient,
    listing: Listing,
    workspace_id: &str,
    filter: TokenFilter,
    page: PageRequest,
    now: DateTime<Utc>,
) -> StoreResult<Page<TokenRecord>> {
    let condition = status_condition(filter.status);
    let table = listing.table();
    let (columns, from) = match listing {
        Listing::Tokens => (TOKEN_COLUMNS, TOKENS),
        Listing::Keys => (KEY_COLUMNS, table),
    };
    let (limit, offset) = limits(page);
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&workspace_id];
    let takes_now = condition.contains("$2");
    if takes_now {
        params.push(&now);
    }
    let next = params.len() + 1;
    let sql = format!(
        "SELECT {columns}, COUNT(*) OVER () FROM {from} WHERE workspace_id = $1{condition}
         ORDER BY created_at DESC, id DESC LIMIT ${next} OFFSET ${}",
        next + 1
    );
    params.extend([&limit as &(dyn ToSql + Sync), &offset]);
    let rows = c.query(&c.prepare_cached(&sql).await?, &params).await?;
    let total = match rows.first() {
        Some(row) => row.get::<_, i64>(13),
        None => {
            params.truncate(params.len() - 2);
            let sql = format!("SELECT COUNT(*) FROM {table} WHERE workspace_id = $1{condition}");
            c.query_one(&c.prepare_cached(&sql).await?, &params)
                .await?
                .get(0)
        }
    };
    Ok(Page {
        items: rows.iter().map(token).collect(),
        total: total as u64,
    })
}

/// Replaces an active token's secret, with its audit entry, its event and its change-log
/// entry, in the caller's transaction. [`StoreError::NotFound`] when unknown or revoked,
/// [`StoreError::Expired`] when expired.
pub(super) async fn rotate(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
    digest: &SecretDigest,
    previous_until: Option<DateTime<Utc>>,
    audit: &AuditEntry,
    event: &NewEvent,
) -> StoreResult<TokenRecord> {
    let now = audit.created_at;
    // The right-hand sides read the row as it was: the replaced secret becomes the previous one
    // (only with an overlap), and any earlier previous one is gone.
    // The updated row is named as the table, so that TOKENS joins its limit to it.
    let sql = format!(
        "WITH tokens AS (
             UPDATE tokens SET
                 previous_digest = CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE secret_digest END,
                 previous_expires_at = $5, secret_digest = $1
             WHERE id = $2 AND workspace_id = $3 AND revoked_at IS NULL
               AND (expires_at IS NULL OR expires_at > $4)
             RETURNING *)
         SELECT {TOKEN_COLUMNS} FROM {TOKENS}"
    );
    let row = c
        .query_opt(
            &sql,
            &[
                &digest.0.as_slice(),
                &id,
                &workspace_id,
                &now,
                &previous_until,
            ],
        )
        .await?;
    let Some(row) = row else {
        let found = fetch_token(c, workspace_id, id).await?;
        return Err(match found.map(|t| t.status(now)) {
            Some(TokenStatus::Expired) => StoreError::Expired,
            _ => StoreError::NotFound,
        });
    };
    insert_audit(c, audit).await?;
    webhooks::enqueue(c, event, None).await?;
    sync::changed(c, &[id.to_string()]).await?;
    Ok(token(&row))
}

/// Revokes an active or expired token, with its audit and change-log entries, in the caller's
/// transaction; [`StoreError::NotFound`] when unknown or already revoked.
pub(super) async fn revoke(
    c: &impl GenericClient,
    workspace_id: &str,
    id: &str,
    audit: &AuditEntry,
) -> StoreResult<()> {
    let changed = c
        .execute(
            "UPDATE tokens SET revoked_at = $1
             WHERE id = $2 AND workspace_id = $3 AND revoked_at IS NULL",
            &[&audit.created_at, &id, &workspace_id],
        )
        .await?;
    if changed == 0 {
        return Err(StoreError::NotFound);
    }
    insert_audit(c, audit).await?;
    sync::changed(c, &[id.to_string()]).await
}

/// Records when tokens and API keys were last used, in the caller's transaction. Rows are
/// locked in id order, then the epoch: two instances' flushes never wait on each other in a
/// cycle.
pub(super) async fn record_uses(
    c: &impl GenericClient,
    mut uses: Vec<(String, DateTime<Utc>)>,
) -> StoreResult<()> {
    uses.sort();
    let (ids, at): (Vec<String>, Vec<DateTime<Utc>>) = uses.into_iter().unzip();
    // Keys (`key_...`) sort before tokens (`tok_...`): one order for both tables, and only the
    // tables that have a use to record are touched.
    let has_keys = ids.first().is_some_and(|id| id.starts_with("key_"));
    let has_tokens = ids.last().is_some_and(|id| !id.starts_with("key_"));
    let tables = [("api_keys", has_keys), ("tokens", has_tokens)];
    for table in tables.into_iter().filter_map(|(t, used)| used.then_some(t)) {
        c.query(
            &format!("SELECT 1 FROM {table} WHERE id = ANY($1) ORDER BY id FOR UPDATE"),
            &[&ids],
        )
        .await?;
        c.execute(
            &format!(
                "UPDATE {table} t SET last_used_at = GREATEST(t.last_used_at, u.at)
                 FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id"
            ),
            &[&ids, &at],
        )
        .await?;
    }
    sync::changed(c, &ids).await
}

#[async_trait]
impl TokenStore for PostgresStore {
    async fn find_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
    ) -> StoreResult<Option<Credential>> {
        // A hit may be stale until the request's count reads the change log; the count is
        // followed by `confirm_credential`.
        let read = || async { with_client!(self, |c| find_credential(&c, kind, &digest).await) };
        self.cache.credential_or(digest.0, read).await
    }

    async fn confirm_credential(
        &self,
        kind: CredentialKind,
        digest: SecretDigest,
        _found: Credential,
    ) -> StoreResult<Option<Credential>> {
        // The count has dropped whatever changed before the request arrived: still cached is
        // still current; gone means changed, and the database says how.
        self.find_credential(kind, digest).await
    }

    async fn create_token(&self, token: NewToken, audit: AuditEntry) -> StoreResult<TokenRecord> {
        with_client!(self, |c| create_token(&c, &token, &audit).await)?;
        Ok(token.into_record())
    }

    async fn list_tokens(
        &self,
        workspace_id: &str,
        filter: TokenFilter,
        page: PageRequest,
        now: DateTime<Utc>,
    ) -> StoreResult<Page<ListedToken>> {
        with_client!(self, |c| {
            let page = list_tokens(&c, Listing::Tokens, workspace_id, filter, page, now).await?;
            // The spends of the page's limited tokens, in one statement.
            let limited: Vec<(&str, Limit)> = page
                .items
                .iter()
                .filter_map(|token| Some((token.id.as_str(), token.limit?)))
                .collect();
            let mut spends = spends(&c, &limited, now).await?.into_iter();
            let items = page.items.into_iter().map(|token| {
                let spend = token.limit.and_then(|_| spends.next());
                ListedToken { token, spend }
            });
            Ok(Page {
                items: items.collect(),
                total: page.total,
            })
        })
    }

    async fn get_token(&self, workspace_id: &str, id: &str) -> StoreResult<Option<TokenRecord>> {
        // Fresh as of the change log read by this request's count.
        let read = || async { with_client!(self, |c| fetch_token(&c, workspace_id, id).await) };
        self.cache.token_or(workspace_id, id, read).await
    }

    async fn rotate_token(
        &self,
        workspace_id: &str,
        id: &str,
        digest: SecretDigest,
        previous_until: Option<DateTime<Utc>>,
        audit: AuditEntry,
        event: NewEvent,
    ) -> StoreResult<TokenRecord> {
        in_transaction!(self, |tx| {
            rotate(
                &tx,
                workspace_id,
                id,
                &digest,
                previous_until,
                &audit,
                &event,
            )
            .await?
        })
    }

    async fn revoke_token(
        &self,
        workspace_id: &str,
        id: &str,
        audit: AuditEntry,
    ) -> StoreResult<()> {
        in_transaction!(self, |tx| { revoke(&tx, workspace_id, id, &audit).await? })
    }

    async fn record_last_used(&self, uses: Vec<(String, DateTime<Utc>)>) -> StoreResult<()> {
        in_transaction!(self, |tx| record_uses(&tx, uses).await?)
    }
}
