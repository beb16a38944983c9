//! `/v1/keys`: the workspace's API keys (the dashboard's Settings > API keys), listed, created
//! and revoked through the API as tokens are.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{ApiJson, IgnoredBody, KeyId, Query};
use crate::http::pagination::ListEnvelope;
use crate::http::routes::Routes;
use crate::last_used::LastUsed;
use crate::secrets::{CredentialKind, Secret, new_id, new_secret};
use crate::store::actions;
use crate::store::{self, KeyRecord, NewApiKey, Store, StoreError, TokenFilter};
use crate::tokens::{CreateToken, TokenStatusName, entry, status_filter, validate_new};

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<LastUsed>: FromRef<S>,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new()
        .get("/v1/keys", list)
        .post("/v1/keys", create)
        .delete("/v1/keys/{id}", revoke)
}

/// An API key as the API shows it. `key` (the secret) appears only in the create response;
/// `expires_at` is absent when the key never expires. Deliberately not `Debug`: it may hold a
/// secret.
#[derive(Serialize, ToSchema)]
pub struct KeyView {
    /// `key_` + 24 characters of `[0-9a-z]`.
    #[schema(pattern = "^key_[0-9a-z]{24}$")]
    pub id: String,
    pub name: String,
    /// The secret (`tka_...`), shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
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
    /// The credential that created the key (`key_...` or `tok_...`), or `admin` for keys made
    /// by the server's admin commands.
    pub created_by: String,
}

impl KeyView {
    fn new(last_used: &LastUsed, record: KeyRecord, secret: Option<&Secret>) -> Self {
        let last_used = record.last_used_at.max(last_used.pending(&record.id));
        KeyView {
            status: record.status(Utc::now()).as_str(),
            id: record.id,
            name: record.name,
            key: secret.map(|s| s.expose().to_string()),
            scopes: record.scopes.iter().map(|s| s.as_str()).collect(),
            created_at: timestamp(record.created_at),
            expires_at: record.expires_at.map(timestamp),
            last_used_at: last_used.map(timestamp),
            created_by: record.created_by,
        }
    }
}

/// The body of `POST /v1/keys` in the document: a token's without the limit fields (keys have
/// no limits; sent, they are ignored as any unknown field is).
pub fn describe(document: &mut Value) {
    let mut body = document["components"]["schemas"]["CreateToken"].clone();
    if let Some(fields) = body["properties"].as_object_mut() {
        fields.remove("credit_limit");
        fields.remove("limit_reset");
    }
    if let Some(body) = body.as_object_mut() {
        body.remove("if");
        body.remove("then");
    }
    document["components"]["schemas"]["CreateKey"] = body;
    document["paths"]["/v1/keys"]["post"]["requestBody"]["content"]["application/json"]["schema"] =
        json!({"$ref": "#/components/schemas/CreateKey"});
}

/// Create an API key (the body is as for tokens, and so are its rules).
#[utoipa::path(post, path = "/v1/keys", tag = "keys", operation_id = "create_key",
    request_body = CreateToken,
    responses(
        (status = 201, description = "Created; the body holds the secret once", body = KeyView,
            headers(("Location" = String, description = "The key's URL"))),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "Missing keys:write, or asks for a scope the caller lacks", body = ErrorBody),
        (status = 409, description = "Name in use by a live key", body = ErrorBody),
        (status = 422, description = "A value out of bounds (the message names the field)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn create(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::KeysWrite>,
    ApiJson(body): ApiJson<CreateToken>,
) -> Result<impl IntoResponse> {
    let now = store::now();
    let (name, scopes, expires_at) = validate_new(store.as_ref(), &auth, &body, now).await?;
    let secret = new_secret(CredentialKind::ApiKey);
    let key = NewApiKey {
        id: new_id("key_"),
        workspace_id: auth.principal.workspace_id.clone(),
        name,
        scopes,
        digest: secret.digest(),
        created_at: now,
        expires_at,
        created_by: auth.principal.credential_id.clone(),
        limit: None,
    };
    let audit = entry(&auth, actions::KEY_CREATED, &key.id);
    let record = match store.create_api_key(key, Some(audit)).await {
        Err(StoreError::NameTaken) => {
            return Err(ApiError::Conflict(
                "An API key with this name already exists in the workspace".into(),
            ));
        }
        other => other?,
    };
    let location = format!("/v1/keys/{}", record.id);
    let view = KeyView::new(&last_used, record, Some(&secret));
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(view),
    ))
}

/// List API keys, newest first (never their secrets).
#[utoipa::path(get, path = "/v1/keys", tag = "keys", operation_id = "list_keys",
    params(crate::http::pagination::PageParams,
        ("status" = Option<TokenStatusName>, Query, description = "Only keys with this status; default all")),
    responses((status = 200, body = ListEnvelope<KeyView>),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 422, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    State(last_used): State<Arc<LastUsed>>,
    auth: Authenticated<require::KeysRead>,
    query: Query,
) -> Result<Json<ListEnvelope<KeyView>>> {
    let page = query.page_request()?;
    let status = status_filter(&query)?;
    let found = store
        .list_api_keys(
            &auth.principal.workspace_id,
            TokenFilter { status },
            page,
            Utc::now(),
        )
        .await?;
    let data = found
        .items
        .into_iter()
        .map(|record| KeyView::new(&last_used, record, None))
        .collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

/// Revoke an API key permanently: it stops working at once, and the dashboard sessions signed in
/// with it end. A key cannot revoke itself (409), so the workspace keeps the key in use.
#[utoipa::path(delete, path = "/v1/keys/{id}", tag = "keys", operation_id = "revoke_key",
    params(("id" = String, Path, description = "The key's id, `key_...`",
        pattern = "^key_[0-9a-z]{24}$")),
    responses((status = 204, description = "Revoked"),
        (status = 400, description = "A body was sent that is not JSON", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "Already revoked, unknown, or in another workspace", body = ErrorBody),
        (status = 409, description = "The key making the request", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn revoke(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::KeysWrite>,
    KeyId(id): KeyId,
    _body: IgnoredBody,
) -> Result<StatusCode> {
    if id == auth.principal.credential_id {
        return Err(ApiError::Conflict(
            "An API key cannot revoke itself; revoke it with another key".into(),
        ));
    }
    let audit = entry(&auth, actions::KEY_REVOKED, &id);
    match store
        .revoke_api_key(&auth.principal.workspace_id, &id, audit)
        .await
    {
        Err(StoreError::NotFound) => Err(ApiError::key_not_found(&id)),
        other => other.map(|()| StatusCode::NO_CONTENT).map_err(Into::into),
    }
}
