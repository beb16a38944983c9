//! `/v1/audit`: the workspace's audit log (an entry per mutation and per denied request).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::error::{ErrorBody, Result};
use crate::extract::Query;
use crate::pagination::ListEnvelope;
use crate::routes::Routes;
use crate::state::AppState;
use crate::store::{AuditEntry, AuditFilter};
use crate::tokens::timestamp;

/// The audit actions the server writes.
pub mod actions {
    /// A token was created.
    pub const TOKEN_CREATED: &str = "token.created";
    /// A token's secret was replaced.
    pub const TOKEN_ROTATED: &str = "token.rotated";
    /// A token was revoked.
    pub const TOKEN_REVOKED: &str = "token.revoked";
    /// A webhook endpoint was added.
    pub const WEBHOOK_CREATED: &str = "webhook.created";
    /// A webhook endpoint was deleted.
    pub const WEBHOOK_DELETED: &str = "webhook.deleted";
    /// A request was refused: revoked or expired credential, missing scope, escalation.
    pub const AUTH_DENIED: &str = "auth.denied";
}

/// Routes of this resource.
pub fn routes() -> Routes {
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
    /// The `x-request-id` of the request.
    pub request_id: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
}

impl From<AuditEntry> for AuditView {
    fn from(entry: AuditEntry) -> Self {
        AuditView {
            id: entry.id,
            action: entry.action,
            actor: entry.actor,
            token_id: entry.token_id,
            request_id: entry.request_id,
            created_at: timestamp(entry.created_at),
        }
    }
}

/// List audit entries, newest first.
#[utoipa::path(get, path = "/v1/audit", tag = "audit",
    params(crate::pagination::PageParams,
        ("token_id" = Option<String>, Query, description = "Only entries about this token"),
        ("action" = Option<String>, Query, description = "Only entries with this action, e.g. token.rotated")),
    responses((status = 200, body = ListEnvelope<AuditView>),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: Authenticated<require::AuditRead>,
    query: Query,
) -> Result<Json<ListEnvelope<AuditView>>> {
    let page = query.page_request()?;
    let filter = AuditFilter {
        token_id: query.get("token_id").map(str::to_string),
        action: query.get("action").map(str::to_string),
    };
    let found = state
        .store
        .list_audit(&auth.principal.workspace_id, filter, page)
        .await?;
    let data = found.items.into_iter().map(AuditView::from).collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}
