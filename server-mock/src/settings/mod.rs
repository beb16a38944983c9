//! `/v1/settings`: the caller's workspace's settings, read (`settings:read`) and changed
//! (`settings:write`, audited as `settings.updated`). Today one setting: `store_bodies`, whether
//! the request log keeps its requests' bodies (redacted, capped). The request path reads them
//! from memory ([`Choices`]).

pub use crate::request_log::choices::{Choices, REFRESH_EVERY};

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::auth::Authenticated;
use crate::auth::require::{SettingsRead, SettingsWrite};
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::ApiJson;
use crate::http::routes::Routes;
use crate::request_log::RequestLog;
use crate::store::{self, AuditEntry, SettingsChange, SettingsRecord, Store, actions};

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<RequestLog>: FromRef<S>,
{
    Routes::new()
        .get("/v1/settings", show)
        .put("/v1/settings", update)
}

/// Body of `PUT /v1/settings`: each field optional (one not sent keeps its value); unknown
/// fields are ignored.
#[derive(ToSchema)]
#[schema(example = json!({"store_bodies": true}))]
pub struct UpdateSettings {
    /// Keep each gateway request's body and a whole answer's message in the request log,
    /// secrets redacted and cut at the server's cap (`true`), or keep no body (`false`).
    #[schema(required = false)]
    pub store_bodies: bool,
}

/// The workspace's settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingsView {
    /// Whether the request log keeps this workspace's request and answer bodies (redacted,
    /// capped). Until the workspace chooses, the server's default (`--request-log-bodies`).
    pub store_bodies: bool,
    /// When the workspace last changed its settings (RFC 3339, UTC); null while it never chose
    /// and the server's defaults apply.
    #[schema(format = DateTime, required = true)]
    pub updated_at: Option<String>,
}

impl SettingsView {
    fn new(record: Option<SettingsRecord>, choices: &Choices) -> Self {
        match record {
            Some(record) => SettingsView {
                store_bodies: record.store_bodies,
                updated_at: Some(timestamp(record.updated_at)),
            },
            None => SettingsView {
                store_bodies: choices.default_store_bodies(),
                updated_at: None,
            },
        }
    }
}

/// The workspace's settings.
#[utoipa::path(get, path = "/v1/settings", tag = "settings", operation_id = "get_settings",
    responses((status = 200, body = SettingsView),
        (status = 401, body = ErrorBody), (status = 403, description = "Missing settings:read", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    State(log): State<Arc<RequestLog>>,
    auth: Authenticated<SettingsRead>,
) -> Result<Json<SettingsView>> {
    let record = store
        .workspace_settings(&auth.principal.workspace_id)
        .await?;
    Ok(Json(SettingsView::new(record, log.settings())))
}

/// Change the workspace's settings: fields sent are set, others kept. A change is audited as
/// `settings.updated` (details: the field, its value before and after); sending the values
/// already in place changes nothing and writes no entry. This instance applies a change at
/// once; other instances sharing the database within a few seconds.
#[utoipa::path(put, path = "/v1/settings", tag = "settings", operation_id = "update_settings",
    request_body = UpdateSettings,
    responses((status = 200, body = SettingsView),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, description = "Missing settings:write", body = ErrorBody),
        (status = 422, description = "A field of the wrong type (the message names it)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn update(
    State(store): State<Arc<dyn Store>>,
    State(log): State<Arc<RequestLog>>,
    auth: Authenticated<SettingsWrite>,
    ApiJson(body): ApiJson<Map<String, Value>>,
) -> Result<Json<SettingsView>> {
    let store_bodies = match body.get("store_bodies") {
        None => None,
        Some(Value::Bool(on)) => Some(*on),
        Some(_) => {
            return Err(ApiError::Unprocessable(
                "store_bodies must be true or false".into(),
            ));
        }
    };
    let choices = log.settings();
    let change = SettingsChange {
        workspace_id: auth.principal.workspace_id.clone(),
        store_bodies,
        default_store_bodies: choices.default_store_bodies(),
        at: store::now(),
    };
    let audit = AuditEntry::new(
        &auth.principal.workspace_id,
        actions::SETTINGS_UPDATED,
        &auth.principal.credential_id,
    )
    .request(auth.request_id.clone());
    let (record, _changed) = store.update_workspace_settings(change, audit).await?;
    if let Some(record) = &record {
        choices.remember(record);
    }
    Ok(Json(SettingsView::new(record, choices)))
}
