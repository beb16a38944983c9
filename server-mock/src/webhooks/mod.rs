//! Webhooks: endpoint configuration (`/v1/webhooks`), the durable outbox, and signed delivery.

pub mod delivery;
pub mod expiry;
mod id;
pub mod seal;
mod views;

use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::audit::actions;
use crate::auth::{Authenticated, require};
use crate::error::{ApiError, ErrorBody, Result};
use crate::extract::{ApiJson, Query};
use crate::pagination::ListEnvelope;
use crate::secrets::new_id;
use crate::state::AppState;
use crate::store::{self, AuditEntry, Endpoint, NewEvent, StoreError};
use crate::tokens::timestamp;
pub use id::WebhookId;
pub use views::{AttemptView, CreateEndpoint, EndpointView};

/// Event types an endpoint can subscribe to.
pub const EVENT_TYPES: [&str; 2] = ["token.rotated", "token.expiring"];

/// The default retry schedule: about a day in all, like Svix's.
pub const DEFAULT_SCHEDULE: &str = "5s,30s,2m,10m,30m,1h,2h,4h,8h,8h";

/// What the webhook machinery shares: the sealing key, the worker's wake-up, the schedule.
pub struct Hub {
    pub sealer: seal::Sealer,
    pub wake: tokio::sync::Notify,
    /// Wait before retry n (after attempt n fails); past its end a delivery fails for good.
    pub schedule: Vec<Duration>,
    pub http: reqwest::Client,
}

impl Hub {
    /// A hub over `sealer` retrying on `schedule`.
    pub fn new(sealer: seal::Sealer, schedule: Vec<Duration>) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Hub {
            sealer,
            wake: tokio::sync::Notify::new(),
            schedule,
            http,
        }
    }
}

/// Parses a schedule such as `1s,2s,5s`.
pub fn parse_schedule(raw: &str) -> std::result::Result<Vec<Duration>, String> {
    raw.split(',')
        .map(|part| {
            humantime::parse_duration(part.trim()).map_err(|err| format!("{part:?}: {err}"))
        })
        .collect()
}

/// An event body: `{"id", "type", "created_at", "data": {...}}`, never a secret.
pub fn event(workspace_id: &str, kind: &str, data: serde_json::Value) -> NewEvent {
    let id = new_id("evt_");
    let created_at = store::now();
    let body = json!({"id": id, "type": kind, "created_at": timestamp(created_at), "data": data});
    NewEvent {
        id,
        workspace_id: workspace_id.to_string(),
        kind: kind.to_string(),
        body: body.to_string(),
        created_at,
    }
}

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/webhooks", get(list).post(create))
        .route("/v1/webhooks/{id}", get(show).delete(remove))
        .route("/v1/webhooks/{id}/test", post(test))
        .route("/v1/webhooks/{id}/deliveries", get(deliveries))
}

fn validate(body: &CreateEndpoint) -> Result<(String, Vec<String>)> {
    let url = body.url.trim();
    let parsed = reqwest::Url::parse(url)
        .map_err(|_| ApiError::Unprocessable("url must be an http or https URL".into()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(ApiError::Unprocessable(
            "url must be an http or https URL".into(),
        ));
    }
    if body.events.is_empty() {
        return Err(ApiError::Unprocessable(
            "events must name at least one event type".into(),
        ));
    }
    let mut events = Vec::new();
    for kind in &body.events {
        if !EVENT_TYPES.contains(&kind.as_str()) {
            return Err(ApiError::Unprocessable(format!(
                "events: unknown event type {:?}; known: {}",
                crate::error::truncate(kind, 40),
                EVENT_TYPES.join(", ")
            )));
        }
        if !events.contains(kind) {
            events.push(kind.clone());
        }
    }
    Ok((url.to_string(), events))
}

/// Records a change to the workspace's endpoints in the audit log.
async fn audit<R: crate::auth::Requirement>(
    state: &AppState,
    auth: &Authenticated<R>,
    action: &str,
) -> Result<()> {
    let entry = AuditEntry::new(
        &auth.principal.workspace_id,
        action,
        &auth.principal.credential_id,
    )
    .request(auth.request_id.clone());
    Ok(state.store.record_audit(entry).await?)
}

/// Add an endpoint; the answer holds its signing secret, shown only this once.
#[utoipa::path(post, path = "/v1/webhooks", tag = "webhooks", request_body = CreateEndpoint,
    responses((status = 201, body = EndpointView), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksWrite>,
    ApiJson(body): ApiJson<CreateEndpoint>,
) -> Result<impl IntoResponse> {
    let (url, events) = validate(&body)?;
    let secret = crate::secrets::new_webhook_secret();
    let sealed = state.webhooks.sealer.seal(&secret).map_err(|err| {
        tracing::error!(error = %err, "could not seal a webhook secret");
        ApiError::Internal
    })?;
    let endpoint = Endpoint {
        id: new_id("whk_"),
        workspace_id: auth.principal.workspace_id.clone(),
        url,
        events,
        secret_sealed: sealed,
        created_at: store::now(),
        disabled: false,
    };
    state.store.create_endpoint(endpoint.clone()).await?;
    audit(&state, &auth, actions::WEBHOOK_CREATED).await?;
    let location = format!("/v1/webhooks/{}", endpoint.id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(EndpointView::new(endpoint, Some(secret))),
    ))
}

/// List endpoints, newest first.
#[utoipa::path(get, path = "/v1/webhooks", tag = "webhooks",
    responses((status = 200, body = ListEnvelope<EndpointView>), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksRead>,
    query: Query,
) -> Result<Json<ListEnvelope<EndpointView>>> {
    let page = query.page_request()?;
    let found = state
        .store
        .list_endpoints(&auth.principal.workspace_id, page)
        .await?;
    let data = found
        .items
        .into_iter()
        .map(|e| EndpointView::new(e, None))
        .collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

async fn find(state: &AppState, workspace_id: &str, id: &str) -> Result<Endpoint> {
    state
        .store
        .get_endpoint(workspace_id, id)
        .await?
        .ok_or_else(|| id::not_found(id))
}

/// One endpoint (never its secret).
#[utoipa::path(get, path = "/v1/webhooks/{id}", tag = "webhooks",
    responses((status = 200, body = EndpointView), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksRead>,
    WebhookId(id): WebhookId,
) -> Result<Json<EndpointView>> {
    let endpoint = find(&state, &auth.principal.workspace_id, &id).await?;
    Ok(Json(EndpointView::new(endpoint, None)))
}

/// Delete an endpoint; its pending deliveries are dropped.
#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "webhooks",
    responses((status = 204, description = "Deleted"), (status = 404, body = ErrorBody)))]
pub async fn remove(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksWrite>,
    WebhookId(id): WebhookId,
) -> Result<StatusCode> {
    match state
        .store
        .delete_endpoint(&auth.principal.workspace_id, &id)
        .await
    {
        Err(StoreError::NotFound) => Err(id::not_found(&id)),
        Err(err) => Err(err.into()),
        Ok(()) => {
            audit(&state, &auth, actions::WEBHOOK_DELETED).await?;
            Ok(StatusCode::NO_CONTENT)
        }
    }
}

/// Send a `webhook.test` event to this endpoint; 409 when it is disabled (nothing would be sent).
#[utoipa::path(post, path = "/v1/webhooks/{id}/test", tag = "webhooks",
    responses((status = 202, description = "Queued; the body names the event"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn test(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksWrite>,
    WebhookId(id): WebhookId,
) -> Result<impl IntoResponse> {
    let endpoint = find(&state, &auth.principal.workspace_id, &id).await?;
    if endpoint.disabled {
        return Err(ApiError::Conflict(format!(
            "Webhook endpoint {} is disabled (its receiver answered 410 Gone); no event can be sent to it",
            endpoint.id
        )));
    }
    let event = event(
        &endpoint.workspace_id,
        "webhook.test",
        json!({"id": endpoint.id}),
    );
    let event_id = event.id.clone();
    state.store.enqueue_for(&endpoint.id, event).await?;
    state.webhooks.wake.notify_one();
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"id": event_id, "type": "webhook.test"})),
    ))
}

/// Delivery attempts to this endpoint, newest first.
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "webhooks",
    responses((status = 200, body = ListEnvelope<AttemptView>), (status = 404, body = ErrorBody)))]
pub async fn deliveries(
    State(state): State<AppState>,
    auth: Authenticated<require::WebhooksRead>,
    WebhookId(id): WebhookId,
    query: Query,
) -> Result<Json<ListEnvelope<AttemptView>>> {
    let page = query.page_request()?;
    let endpoint = find(&state, &auth.principal.workspace_id, &id).await?;
    let found = state.store.list_attempts(&endpoint.id, page).await?;
    let data = found.items.into_iter().map(AttemptView::from).collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}
