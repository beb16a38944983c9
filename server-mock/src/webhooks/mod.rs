//! Webhooks: endpoint configuration (`/v1/webhooks`), the durable outbox, and signed delivery.

pub mod delivery;
pub mod expiry;
mod id;
mod views;

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{FromRef, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::json;

use crate::auth::{Authenticated, require};
use crate::http::error::{ApiError, ErrorBody, Result};
use crate::http::extract::{ApiJson, Query};
use crate::http::pagination::ListEnvelope;
use crate::http::routes::Routes;
use crate::seal::Sealer;
use crate::secrets::new_id;
use crate::store::actions;
use crate::store::{self, AuditEntry, Endpoint, NewEvent, Store, StoreError};
pub use id::WebhookId;
pub use views::{AttemptView, CreateEndpoint, EndpointStatus, EndpointView};

/// Event types an endpoint can subscribe to.
pub const EVENT_TYPES: [&str; 4] = [
    "token.rotated",
    "token.expiring",
    "token.limit_threshold",
    "token.limit_reached",
];

/// The default retry schedule: about a day in all, like Svix's.
pub const DEFAULT_SCHEDULE: &str = "5s,30s,2m,10m,30m,1h,2h,4h,8h,8h";

/// What the webhook machinery shares: the sealing key, the worker's wake-up, the schedule.
pub struct Hub {
    pub sealer: Sealer,
    pub wake: tokio::sync::Notify,
    /// Wait before retry n (after attempt n fails); past its end a delivery fails for good.
    pub schedule: Vec<Duration>,
    pub http: reqwest::Client,
    /// Where delivery attempts are counted.
    pub metrics: crate::telemetry::Metrics,
}

impl Hub {
    /// A hub over `sealer` retrying on `schedule`, counting attempts in `metrics`.
    pub fn new(
        sealer: Sealer,
        schedule: Vec<Duration>,
        metrics: crate::telemetry::Metrics,
    ) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Hub {
            sealer,
            wake: tokio::sync::Notify::new(),
            schedule,
            http,
            metrics,
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
    NewEvent::new(workspace_id, kind, data)
}

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Hub>: FromRef<S>,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new()
        .get("/v1/webhooks", list)
        .post("/v1/webhooks", create)
        .get("/v1/webhooks/{id}", show)
        .delete("/v1/webhooks/{id}", remove)
        .post("/v1/webhooks/{id}/test", test)
        .get("/v1/webhooks/{id}/deliveries", deliveries)
}

pub(crate) fn validate(body: &CreateEndpoint) -> Result<(String, Vec<String>)> {
    let url = body.url.as_str();
    crate::validate::webhook_url(url)?;
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
                crate::http::error::truncate(kind, 40),
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
    store: &dyn Store,
    auth: &Authenticated<R>,
    action: &str,
) -> Result<()> {
    let entry = AuditEntry::new(
        &auth.principal.workspace_id,
        action,
        &auth.principal.credential_id,
    )
    .request(auth.request_id.clone());
    Ok(store.record_audit(entry).await?)
}

/// Add an endpoint; the answer holds its signing secret, shown only this once.
#[utoipa::path(post, path = "/v1/webhooks", tag = "webhooks", operation_id = "create_webhook",
    request_body = CreateEndpoint,
    responses((status = 201, description = "Created; the body holds the signing secret once", body = EndpointView,
            headers(("Location" = String, description = "The endpoint's URL"))),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "A value out of bounds (the message names the field)", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn create(
    State(store): State<Arc<dyn Store>>,
    State(hub): State<Arc<Hub>>,
    auth: Authenticated<require::WebhooksWrite>,
    ApiJson(body): ApiJson<CreateEndpoint>,
) -> Result<impl IntoResponse> {
    let (url, events) = validate(&body)?;
    let secret = crate::secrets::new_webhook_secret();
    let sealed = hub.sealer.seal(&secret).map_err(|err| {
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
    store.create_endpoint(endpoint.clone()).await?;
    audit(store.as_ref(), &auth, actions::WEBHOOK_CREATED).await?;
    let location = format!("/v1/webhooks/{}", endpoint.id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(EndpointView::new(endpoint, Some(secret))),
    ))
}

/// List endpoints, newest first.
#[utoipa::path(get, path = "/v1/webhooks", tag = "webhooks", operation_id = "list_webhooks",
    params(crate::http::pagination::PageParams),
    responses((status = 200, body = ListEnvelope<EndpointView>),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::WebhooksRead>,
    query: Query,
) -> Result<Json<ListEnvelope<EndpointView>>> {
    let page = query.page_request()?;
    let found = store
        .list_endpoints(&auth.principal.workspace_id, page)
        .await?;
    let data = found
        .items
        .into_iter()
        .map(|e| EndpointView::new(e, None))
        .collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

async fn find(store: &dyn Store, workspace_id: &str, id: &str) -> Result<Endpoint> {
    store
        .get_endpoint(workspace_id, id)
        .await?
        .ok_or_else(|| id::not_found(id))
}

/// One endpoint (never its secret).
#[utoipa::path(get, path = "/v1/webhooks/{id}", tag = "webhooks", operation_id = "get_webhook",
    params(WebhookIdParam),
    responses((status = 200, body = EndpointView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::WebhooksRead>,
    WebhookId(id): WebhookId,
) -> Result<Json<EndpointView>> {
    let endpoint = find(store.as_ref(), &auth.principal.workspace_id, &id).await?;
    Ok(Json(EndpointView::new(endpoint, None)))
}

/// Delete an endpoint; its pending deliveries are dropped.
#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "webhooks", operation_id = "delete_webhook",
    params(WebhookIdParam),
    responses((status = 204, description = "Deleted"), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "Unknown, already deleted, or in another workspace", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn remove(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::WebhooksWrite>,
    WebhookId(id): WebhookId,
) -> Result<StatusCode> {
    match store
        .delete_endpoint(&auth.principal.workspace_id, &id)
        .await
    {
        Err(StoreError::NotFound) => Err(id::not_found(&id)),
        Err(err) => Err(err.into()),
        Ok(()) => {
            audit(store.as_ref(), &auth, actions::WEBHOOK_DELETED).await?;
            Ok(StatusCode::NO_CONTENT)
        }
    }
}

/// Send a `webhook.test` event to this endpoint; 409 when it is disabled (nothing would be sent).
#[utoipa::path(post, path = "/v1/webhooks/{id}/test", tag = "webhooks", operation_id = "test_webhook",
    params(WebhookIdParam),
    responses((status = 202, description = "Queued", body = TestEvent),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The endpoint is disabled", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn test(
    State(store): State<Arc<dyn Store>>,
    State(hub): State<Arc<Hub>>,
    auth: Authenticated<require::WebhooksWrite>,
    WebhookId(id): WebhookId,
) -> Result<impl IntoResponse> {
    let endpoint = find(store.as_ref(), &auth.principal.workspace_id, &id).await?;
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
    store.enqueue_for(&endpoint.id, event).await?;
    hub.wake.notify_one();
    Ok((
        StatusCode::ACCEPTED,
        Json(TestEvent {
            id: event_id,
            kind: "webhook.test",
        }),
    ))
}

/// The event `POST /v1/webhooks/{id}/test` queued.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct TestEvent {
    /// `evt_...`, also sent as `x-service-event-id`.
    pub id: String,
    /// `webhook.test`.
    #[serde(rename = "type")]
    #[schema(example = "webhook.test")]
    pub kind: &'static str,
}

/// Delivery attempts to this endpoint, newest first.
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "webhooks",
    operation_id = "list_webhook_deliveries",
    params(WebhookIdParam, crate::http::pagination::PageParams),
    responses((status = 200, body = ListEnvelope<AttemptView>),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn deliveries(
    State(store): State<Arc<dyn Store>>,
    auth: Authenticated<require::WebhooksRead>,
    WebhookId(id): WebhookId,
    query: Query,
) -> Result<Json<ListEnvelope<AttemptView>>> {
    let page = query.page_request()?;
    let endpoint = find(store.as_ref(), &auth.principal.workspace_id, &id).await?;
    let found = store.list_attempts(&endpoint.id, page).await?;
    let data = found.items.into_iter().map(AttemptView::from).collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

/// The `{id}` of a webhook endpoint path.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct WebhookIdParam {
    /// The endpoint's id (`whk_...`); anything else is a 404.
    #[param(pattern = "^whk_[0-9a-z]{24}$")]
    pub id: String,
}
