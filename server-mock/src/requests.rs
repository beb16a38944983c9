//! `/v1/requests`: the gateway's request log, one entry per request to chat completions,
//! messages or responses: who sent it, which model and deployment answered and why, its status,
//! timings, tokens and credits. Written by [`crate::request_log`].

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, Path, State};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::{Authenticated, require};
use crate::credits::Credits;
use crate::format::timestamp;
use crate::http::error::{ApiError, ErrorBody, Result, truncate};
use crate::http::extract::Query;
use crate::http::pagination::ListEnvelope;
use crate::http::routes::Routes;
use crate::request_log::RequestLog;
use crate::store::{RequestEntry, RequestFilter, StatusFilter, Store, StoreError};

/// Routes of this resource.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<RequestLog>: FromRef<S>,
{
    Routes::new()
        .get("/v1/requests", list)
        .get("/v1/requests/{id}", show)
}

/// One gateway request.
#[derive(Debug, Serialize, ToSchema)]
pub struct RequestView {
    /// The request id its answer carried (`x-request-id`, and `x-tokctl-request-id` on the
    /// agents' paths).
    pub id: String,
    /// When it arrived, RFC 3339, UTC.
    pub created_at: String,
    /// The token that sent it (absent for an API key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_id: Option<String>,
    /// The API key that sent it (absent for a token).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// That token's or key's name.
    pub credential_name: Option<String>,
    /// `/v1/chat/completions`, `/v1/messages` or `/v1/responses`.
    pub endpoint: String,
    /// The model the request named (`auto`, `auto-cheap`, a catalogue model).
    pub model: Option<String>,
    /// The catalogue model that answered.
    pub routed_model: Option<String>,
    /// The deployment of `routed_model` that answered, when it lists deployments.
    pub deployment: Option<String>,
    /// Why it was routed so.
    pub route_reason: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// The error code, when it failed (a stream cut after its first token keeps status 200).
    pub error: Option<String>,
    pub stream: bool,
    /// Milliseconds from arrival to a stream's first token.
    pub time_to_first_token_ms: Option<f64>,
    /// Milliseconds from arrival to the answer's end.
    pub duration_ms: f64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Of `prompt_tokens`, read from the provider's cache.
    pub cached_tokens: Option<u64>,
    /// Credits consumed, exact (decimal text).
    #[schema(value_type = Option<String>)]
    pub credits: Option<Credits>,
    /// Atomic units of the workspace's x402 token that an agent's payment settled for it.
    #[schema(pattern = "^[0-9]+$")]
    pub x402_settled: Option<String>,
    /// The agent's session (`X-Claude-Code-Session-Id` or `x-tokctl-session-id`).
    pub session_id: Option<String>,
    /// The request's body as it came, secrets redacted and cut at the server's cap, when the
    /// workspace kept bodies at the time (`store_bodies` of `PUT /v1/settings`, or the server's
    /// `--request-log-bodies` default); only in a single request's read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// A whole answer's message (GenAI output messages, JSON text), likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
}

fn millis(micros: i64) -> f64 {
    micros as f64 / 1000.0
}

impl From<RequestEntry> for RequestView {
    fn from(e: RequestEntry) -> Self {
        let (token_id, key_id) = match e.credential_id {
            Some(id) if id.starts_with("key_") => (None, Some(id)),
            other => (other, None),
        };
        RequestView {
            id: e.id,
            created_at: timestamp(e.created_at),
            token_id,
            key_id,
            credential_name: e.credential_name,
            endpoint: e.endpoint,
            model: e.model,
            routed_model: e.routed_model,
            deployment: e.deployment,
            route_reason: e.route_reason,
            status: e.status,
            error: e.error,
            stream: e.stream,
            time_to_first_token_ms: e.first_token_us.map(millis),
            duration_ms: millis(e.total_us),
            prompt_tokens: e.prompt_tokens,
            completion_tokens: e.completion_tokens,
            cached_tokens: e.cached_tokens,
            credits: e.credits,
            x402_settled: e.x402_settled,
            session_id: e.session_id,
            request_body: e.request_body,
            response_body: e.response_body,
        }
    }
}

/// A filter's value; an empty one (`?status=`, `?model=`) filters nothing, as an absent one.
fn given<'q>(query: &'q Query, name: &str) -> Option<&'q str> {
    query.get(name).filter(|value| !value.trim().is_empty())
}

/// A `since`/`until` bound: RFC 3339 with a time zone (an empty one is not).
fn moment(query: &Query, name: &str) -> Result<Option<DateTime<Utc>>> {
    let Some(raw) = query.get(name) else {
        return Ok(None);
    };
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|at| Some(at.with_timezone(&Utc)))
        .map_err(|_| {
            ApiError::Unprocessable(format!(
                "{name} must be an RFC 3339 datetime with a time zone, e.g. 2030-01-01T00:00:00Z"
            ))
        })
}

/// A `status` filter: a class (`2xx`, `4xx`, `5xx`) or one status (`429`).
fn status(query: &Query) -> Result<Option<StatusFilter>> {
    let Some(raw) = given(query, "status") else {
        return Ok(None);
    };
    let wrong = || {
        ApiError::Unprocessable(
            "status must be a class (2xx, 4xx, 5xx) or a status from 100 to 599".into(),
        )
    };
    let raw = raw.trim().to_ascii_lowercase();
    if let Some(class) = raw.strip_suffix("xx") {
        return match class.parse::<u16>() {
            Ok(class @ 1..=5) => Ok(Some(StatusFilter::Class(class))),
            _ => Err(wrong()),
        };
    }
    match raw.parse::<u16>() {
        Ok(status @ 100..=599) => Ok(Some(StatusFilter::Exact(status))),
        _ => Err(wrong()),
    }
}

/// List the workspace's gateway requests, newest first.
#[utoipa::path(get, path = "/v1/requests", tag = "requests",
    params(crate::http::pagination::PageParams,
        ("token_id" = Option<String>, Query, description = "Only requests this token sent"),
        ("key_id" = Option<String>, Query, description = "Only requests this API key sent (with `token_id` as well: none)"),
        ("model" = Option<String>, Query, description = "Only requests naming this model or answered by it"),
        ("status" = Option<String>, Query, pattern = "^([1-5][0-9][0-9]|[1-5][xX][xX])?$", description = "Only requests answered with this status class (2xx, 4xx, 5xx) or status (429)"),
        ("since" = Option<String>, Query, format = DateTime, description = "Only requests that arrived at or after this RFC 3339 time"),
        ("until" = Option<String>, Query, format = DateTime, description = "Only requests that arrived before this RFC 3339 time"),
        ("session_id" = Option<String>, Query, description = "Only requests of this agent session")),
    responses((status = 200, body = ListEnvelope<RequestView>),
        (status = 400, description = "Malformed query", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 422, description = "A filter, page or per_page out of bounds", body = ErrorBody),
        (status = 429, body = ErrorBody)))]
pub async fn list(
    State(store): State<Arc<dyn Store>>,
    State(log): State<Arc<RequestLog>>,
    auth: Authenticated<require::RequestsRead>,
    query: Query,
) -> Result<Json<ListEnvelope<RequestView>>> {
    let page = query.page_request()?;
    let credential = match (given(&query, "token_id"), given(&query, "key_id")) {
        // Filters combine: no request was sent by a token and an API key at once.
        (Some(token), Some(key)) if token != key => {
            return Ok(Json(ListEnvelope::new(Vec::new(), page, 0)));
        }
        (token, key) => token.or(key),
    };
    let filter = RequestFilter {
        credential_id: credential.map(str::to_string),
        model: given(&query, "model").map(str::to_string),
        status: status(&query)?,
        since: moment(&query, "since")?,
        until: moment(&query, "until")?,
        session_id: given(&query, "session_id").map(str::to_string),
    };
    // What this instance has not written yet is shown too.
    log.flush(&store).await;
    let found = store
        .list_requests(&auth.principal.workspace_id, filter, page)
        .await?;
    let data = found.items.into_iter().map(RequestView::from).collect();
    Ok(Json(ListEnvelope::new(data, page, found.total)))
}

/// Show one gateway request (the newest with that id, when a client reused one).
#[utoipa::path(get, path = "/v1/requests/{id}", tag = "requests",
    params(("id" = String, Path, description = "The request id its answer carried")),
    responses((status = 200, body = RequestView),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    State(log): State<Arc<RequestLog>>,
    auth: Authenticated<require::RequestsRead>,
    id: std::result::Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Json<RequestView>> {
    let Ok(Path(id)) = id else {
        return Err(ApiError::NotFound("No request with that id".into()));
    };
    log.flush(&store).await;
    match store.get_request(&auth.principal.workspace_id, &id).await {
        Ok(entry) => Ok(Json(RequestView::from(entry))),
        Err(StoreError::NotFound) => Err(ApiError::NotFound(format!(
            "No request with id {}",
            truncate(&id, 64)
        ))),
        Err(err) => Err(err.into()),
    }
}
