//! `/v1/tokens`: create, list, get, rotate, revoke tokens, and change their spending limits
//! (`limits.rs`).

pub mod limits;
pub mod rotate;

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use serde_json::value::RawValue;

use self::limits::LimitsView;
use crate::auth::{Authenticated, require};
use crate::credits::Credits;
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{ApiJson, IgnoredBody, Query, TokenId};
use crate::http::pagination::ListEnvelope;
use crate::http::routes::Routes;
use crate::last_used::LastUsed;
use crate::secrets::{CredentialKind, Secret, new_id, new_secret};
use crate::store::Scope;
use crate::store::actions;
use crate::store::{
    self, AuditEntry, NewToken, Spend, Store, StoreError, TokenFilter, TokenRecord, TokenStatus,
};
use crate::validate;
use crate::webhooks::Hub;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Hub>: FromRef<S>,
    Arc<LastUsed>: FromRef<S>,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new()
        .get("/v1/tokens", list)
        .post("/v1/tokens", create)
        .get("/v1/tokens/{id}", show)
        .patch("/v1/tokens/{id}", limits::update)
        .delete("/v1/tokens/{id}", revoke)
        .post("/v1/tokens/{id}/rotate", rotate::rotate)
}

/// Body of `POST /v1/tokens`. Unknown fields are ignored.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"name": "ci-deploy", "scopes": ["tokens:read", "tokens:rotate"],
    "expires_at": "2099-01-01T00:00:00Z"}))]
pub struct CreateToken {
    /// 1 to 100 characters once surrounding whitespace is trimmed, no control characters;
    /// unique among the workspace's tokens that are not revoked.
    #[schema(schema_with = crate::validate::name_schema)]
    pub name: String,
    /// Scope names (`GET /v1/scopes`), at least one, each held by the caller; repeats are
    /// ignored.
    #[schema(schema_with = crate::validate::scope_names_schema)]
    pub scopes: Vec<String>,
    /// An RFC 3339 datetime with a time zone, in the future; absent or null: never expires.
    #[serde(default)]
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    /// Tokens only (API keys have no limits): credits the token may spend per period through
    /// the chat gateway, more than 0, at most 9 decimal places; absent or null: no limit.
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    pub credit_limit: Option<Box<RawValue>>,
    /// Tokens only: when the limit's period starts again, on the UTC calendar (`daily`,
    /// `weekly` from Monday, `monthly` from the 1st) or `never` (the default).
    #[serde(default)]
    #[schema(value_type = Option<limits::ResetName>)]
    pub limit_reset: Option<Box<RawValue>>,
}

/// A token as the API shows it. `token` (the secret) appears only in create and rotate
/// responses; `expires_at` is absent when the token never expires. Deliberately not `Debug`:
/// it may hold a secret.
#[derive(Serialize, ToSchema)]
pub struct TokenView {
    /// `tok_` + 24 characters of `[0-9a-z]`; stable across rotation.
    #[schema(pattern = "^tok_[0-9a-z]{24}$")]
    pub id: String,
    pub name: String,
    /// The secret, shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[schema(schema_with = crate::validate::scope_names_schema)]
    pub scopes: Vec<&'static str>,
    /// `active`, `expired` or `revoked`.
    #[schema(value_type = TokenStatusName)]
    pub status: &'static str,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    /// Null until first use; later uses may show up to a minute late.
    #[schema(format = DateTime)]
    pub last_used_at: Option<String>,
    /// The credential that created the token (`key_...` or `tok_...`).
    pub created_by: String,
    /// Its spending limit and the current period's spend; absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsView>,
    /// While a rotation's overlap lasts: when the secret it replaced stops working (RFC 3339,
    /// UTC); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub previous_secret_expires_at: Option<String>,
}

/// A token's status, as `status` shows it and the `status` filter takes it.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum TokenStatusName {
    Active,
    Expired,
    Revoked,
}

impl TokenView {
    pub(crate) fn new(
        last_used: &LastUsed,
        record: TokenRecord,
        secret: Option<&Secret>,
        spend: Option<&Spend>,
    ) -> Self {
        let now = store::now();
        let last_used = record.last_used_at.max(last_used.pending(&record.id));
        let previous = record.previous_secret_expires_at.filter(|at| *at > now);
        TokenView {
            status: record.status(now).as_str(),
            id: record.id,
            name: record.name,
            token: secret.map(|s| s.expose().to_string()),
            scopes: record.scopes.iter().map(|s| s.as_str()).collect(),
            created_at: timestamp(record.created_at),
            expires_at: record.expires_at.map(timestamp),
            last_used_at: last_used.map(timestamp),
            created_by: record.created_by,
            limits: spend.map(LimitsView::from),
            previous_secret_expires_at: previous.map(timestamp),
        }
    }
}

/// Create a token.
#[utoipa::path(post, path = "/v1/tokens", tag = "tokens", operation_id = "create_token",
    request_body = CreateToken,
    responses(
        (status = 201, description = "Created; the body holds the secret once", body = TokenView,
            headers(("Location" = String, description = "The token's URL"))),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "Missing tokens:write, or asks for a scope the caller lacks", body = ErrorBody),
        (status = 409, description = "Name in use", body = ErrorBody),
        (status = 422, description = "A value out of bounds (the message names the field)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn create(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::TokensWrite>,
    ApiJson(body): ApiJson<CreateToken>,
) -> Result<impl IntoResponse> {
    let now = store::now();
    let (name, scopes, expires_at) = validate_new(store.as_ref(), &auth, &body, now).await?;
    let limit = limits::new_limit(
        body.credit_limit.as_deref(),
        body.limit_reset.as_deref(),
        now,
    )?;
    let secret = new_secret(CredentialKind::Token);
    let token = NewToken {
        id: new_id("tok_"),
        workspace_id: auth.principal.workspace_id.clone(),
        name,
        scopes,
        digest: secret.digest(),
        created_at: now,
        expires_at,
        created_by: auth.principal.credential_id.clone(),
        limit,
    };
    let audit = entry(&auth, actions::TOKEN_CREATED, &token.id);
    let record = match store.create_token(token, audit).await {
        Err(StoreError::NameTaken) => {
            return Err(ApiError::Conflict(
                "A token with this name already exists in the workspace".into(),
            ));
        }
        other => other?,
    };
    let location = format!("/v1/tokens/{}", record.id);
    let spend = limit.map(|limit| Spend {
        period: limit.period(now),
        limit,
        spent: Credits::ZERO,
        reserved: Credits::ZERO,
    });
    let view = TokenView::new(&last_used, record, Some(&secret), spend.as_ref());
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(view),
    ))
}

/// List tokens, newest first.
#[utoipa::path(get, path = "/v1/tokens", tag = "tokens", operation_id = "list_tokens",
    params(crate::http::pagination::PageParams,
        ("status" = Option<TokenStatusName>, Query, description = "Only tokens with this status; default all")),
    responses((status = 200, body = ListEnvelope<TokenView>),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 422, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::TokensRead>,
    query: Query,
) -> Result<Json<ListEnvelope<TokenView>>> {
    let page = query.page_request()?;
    let status = status_filter(&query)?;
    let found = store
        .list_tokens(
            &auth.principal.workspace_id,
            TokenFilter { status },
            page,
            Utc::now(),
        )
        .await?;
    let data = found
        .items
        .into_iter()
        .map(|listed| TokenView::new(&last_used, listed.token, None, listed.spend.as_ref()))
        .collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

/// The `status` query parameter of a list of tokens or keys: none, or a known status (else 422).
pub(crate) fn status_filter(query: &Query) -> Result<Option<TokenStatus>> {
    match query.get("status") {
        None => Ok(None),
        Some("active") => Ok(Some(TokenStatus::Active)),
        Some("expired") => Ok(Some(TokenStatus::Expired)),
        Some("revoked") => Ok(Some(TokenStatus::Revoked)),
        Some(_) => Err(ApiError::Unprocessable(
            "status must be one of active, expired, revoked".into(),
        )),
    }
}

/// Get one token, whatever its status (never its secret).
#[utoipa::path(get, path = "/v1/tokens/{id}", tag = "tokens", operation_id = "get_token",
    params(TokenIdParam),
    responses((status = 200, body = TokenView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::TokensRead>,
    TokenId(id): TokenId,
) -> Result<Json<TokenView>> {
    let record = store
        .get_token(&auth.principal.workspace_id, &id)
        .await?
        .ok_or_else(|| ApiError::token_not_found(&id))?;
    let spend = limits::spend_of(store.as_ref(), [&record]).await?;
    Ok(Json(TokenView::new(
        &last_used,
        record,
        None,
        spend.get(&id),
    )))
}

/// Revoke a token permanently. A 404 means it is already revoked or unknown: callers may treat
/// it as success.
#[utoipa::path(delete, path = "/v1/tokens/{id}", tag = "tokens", operation_id = "revoke_token",
    params(TokenIdParam),
    responses((status = 204, description = "Revoked"),
        (status = 400, description = "A body was sent that is not JSON", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "Already revoked, unknown, or in another workspace", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn revoke(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::TokensRevoke>,
    TokenId(id): TokenId,
    _body: IgnoredBody,
) -> Result<StatusCode> {
    let audit = entry(&auth, actions::TOKEN_REVOKED, &id);
    match store
        .revoke_token(&auth.principal.workspace_id, &id, audit)
        .await
    {
        Err(StoreError::NotFound) => Err(ApiError::token_not_found(&id)),
        other => other.map(|()| StatusCode::NO_CONTENT).map_err(Into::into),
    }
}

/// A storage refusal to change token `id`, as the API says it: unknown or revoked 404, expired
/// 409.
pub(crate) fn change_refused(id: &str, err: StoreError) -> ApiError {
    match err {
        StoreError::NotFound => ApiError::token_not_found(id),
        StoreError::Expired => ApiError::Conflict("Token has expired; create a new token".into()),
        other => other.into(),
    }
}

/// An audit entry for `action` by the caller, about `token_id` (a token, or an API key).
pub(crate) fn entry<R: crate::auth::Requirement>(
    auth: &Authenticated<R>,
    action: &str,
    token_id: &str,
) -> AuditEntry {
    AuditEntry::new(
        &auth.principal.workspace_id,
        action,
        &auth.principal.credential_id,
    )
    .token(Some(token_id.to_string()))
    .request(auth.request_id.clone())
}

/// The name, scopes and expiry of a new token or API key, checked: the scopes must be known and
/// held by the caller (no privilege escalation: a refusal is audited), the expiry in the future.
pub(crate) async fn validate_new<R: crate::auth::Requirement>(
    store: &dyn Store,
    auth: &Authenticated<R>,
    body: &CreateToken,
    now: DateTime<Utc>,
) -> Result<(String, Vec<Scope>, Option<DateTime<Utc>>)> {
    let name = validate::name(&body.name)?;
    let scopes = validate::scopes(&body.scopes)?;
    if let Some(missing) = scopes.iter().find(|s| !auth.principal.scopes.contains(s)) {
        crate::auth::audit_denied(
            store,
            &auth.principal,
            crate::auth::about(None, &auth.principal.credential_id),
            auth.request_id.clone(),
        )
        .await?;
        return Err(ApiError::Forbidden(format!(
            "Cannot grant scope {}: the caller does not hold it",
            missing.as_str()
        )));
    }
    let expires_at = body
        .expires_at
        .as_deref()
        .map(|raw| validate::expiry(raw, now))
        .transpose()?;
    Ok((name, scopes, expires_at))
}

/// The `{id}` of a token path.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TokenIdParam {
    /// The token's id (`tok_...`); anything else is a 404.
    #[param(pattern = "^tok_[0-9a-z]{24}$")]
    pub id: String,
}
