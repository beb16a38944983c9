//! `/v1/audit`: the workspace's audit log (an entry per mutation and per denied request).

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::format::timestamp;
use crate::http::error::{ErrorBody, Result};
use crate::http::extract::Query;
use crate::http::pagination::ListEnvelope;
use crate::http::routes::Routes;
use crate::store::{AuditEntry, AuditFilter, Store};

pub use crate::store::actions;

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new().get("/v1/audit", list)
}

/// One audit log entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditView {
    /// `aud_...`.
    pub id: String,
    /// `token.created`, `token.rotated`, `token.revoked`, `auth.denied`, ...
    pub action: String,
    /// The credential that made the request (`key_...` or `tok_...`).
    pub actor: String,
    /// The token the entry is about, if any.
    pub token_id: Option<String>,
    /// The API key the entry is about (`key.created`, `key.revoked`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The `x-request-id` of the request.
    pub request_id: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// What changed, when the action says more (`token.limit_changed`: the limit `before` and
    /// `after`, each `credit_limit` and `limit_reset`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Box<serde_json::value::RawValue>>,
}

impl From<AuditEntry> for AuditView {
    fn from(entry: AuditEntry) -> Self {
        // Storage keeps the one subject of an entry, a token or a key, in one column.
        let (token_id, key_id) = match entry.token_id {
            Some(id) if id.starts_with("key_") => (None, Some(id)),
            other => (other, None),
        };
        AuditView {
            id: entry.id,
            action: entry.action,
            actor: entry.actor,
            token_id,
            key_id,
            request_id: entry.request_id,
            created_at: timestamp(entry.created_at),
            details: entry
                .details
                .and_then(|text| serde_json::value::RawValue::from_string(text).ok()),
        }
    }
}

/// List audit entries, newest first.
#[utoipa::path(get, path = "/v1/audit", tag = "audit",
    params(crate::http::pagination::PageParams,
        ("token_id" = Option<String>, Query, description = "Only entries about this token"),
        ("key_id" = Option<String>, Query, description = "Only entries about this API key (with `token_id` as well: none)"),
        ("action" = Option<String>, Query, description = "Only entries with this action, e.g. token.rotated")),
    responses((status = 200, body = ListEnvelope<AuditView>),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::AuditRead>,
    query: Query,
) -> Result<Json<ListEnvelope<AuditView>>> {
    let page = query.page_request()?;
    let subject = match (query.get("token_id"), query.get("key_id")) {
        // Filters combine: no entry is about a token and an API key at once.
        (Some(token), Some(key)) if token != key => {
            return Ok(Json(ListEnvelope::new(Vec::new(), page, 0)));
        }
        (token, key) => token.or(key),
    };
    let filter = AuditFilter {
        token_id: subject.map(str::to_string),
        action: query.get("action").map(str::to_string),
    };
    let found = store
        .list_audit(&auth.principal.workspace_id, filter, page)
        .await?;
    let data = found.items.into_iter().map(AuditView::from).collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}
