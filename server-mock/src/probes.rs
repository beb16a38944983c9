//! What orchestrators and load balancers ask, with no credential and no rate limit:
//!
//! - `GET /livez`: is the process serving? 200 whatever its database does, so a liveness probe
//!   never restarts an instance for a database outage (a restart cannot bring the database
//!   back, and restarting every instance at once turns a short outage into a full one).
//! - `GET /readyz`: can it serve requests now? 200 when its store answers, 503 in the API's
//!   error shape with the reason when not (take the instance out of rotation, keep it running).
//! - `GET /healthz`: readiness with its first body, kept for existing users.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::http::error::{ApiError, ErrorBody, Refused};
use crate::http::routes::Routes;
use crate::store::{Store, StoreError};

/// Routes of the probes.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
{
    Routes::new()
        .get("/livez", livez)
        .get("/readyz", readyz)
        .get("/healthz", healthz)
}

/// The answer of `/livez`, and of `/readyz` and `/healthz` when ready.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`, or (`/healthz` only) `unavailable` while the database cannot be reached.
    #[schema(example = "ok")]
    pub status: &'static str,
    /// `ok`, `unreachable`, or `newer_schema` (a newer server migrated it); absent from
    /// `/livez`, which does not ask the database.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "ok")]
    pub database: Option<&'static str>,
    /// How the server reaches its PostgreSQL database, as its last connection went: whether it
    /// is encrypted and the certificate verified (absent on SQLite and from `/livez`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "TLS 1.3, certificate verified for db.example.com")]
    pub database_tls: Option<String>,
}

impl Health {
    /// Ready, with how `store` reaches its database.
    fn ready(store: &dyn Store) -> Self {
        Health {
            status: "ok",
            database: Some("ok"),
            database_tls: store.connection(),
        }
    }
}

/// Liveness: 200 while the process serves HTTP, whatever its database does. Use it for a
/// liveness probe; it never touches the database.
#[utoipa::path(get, path = "/livez", tag = "health", security(()),
    responses((status = 200, description = "The process serves", body = Health)))]
pub async fn livez() -> Json<Health> {
    Json(Health {
        status: "ok",
        database: None,
        database_tls: None,
    })
}

/// Readiness: 200 when the store answers; 503 in the API's error shape (`service_unavailable`,
/// with the reason, and `Retry-After`) when not. Use it for a readiness probe or a load
/// balancer's health check: an instance that is not ready keeps running and comes back into
/// rotation by itself when its database answers again.
#[utoipa::path(get, path = "/readyz", tag = "health", security(()),
    responses((status = 200, description = "The server and its database answer", body = Health),
        (status = 503, description = "The database cannot be reached, or a newer server migrated it past this one's schema; the message says why",
            body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before asking again")))))]
pub async fn readyz(State(store): State<Arc<dyn Store>>) -> Response {
    match store.health().await {
        Ok(()) => Json(Health::ready(store.as_ref())).into_response(),
        Err(err) => {
            // A probe asks every few seconds: the outage itself is logged where it is noticed.
            tracing::debug!(error = %err, "readiness: database unavailable");
            ApiError::NotReady(format!("Not ready: {err}")).into_response()
        }
    }
}

/// Whether the server can serve: 200 with `{"status": "ok", "database": "ok"}`, or 503 with
/// `"status": "unavailable"` while its database cannot be reached. Readiness, as `/readyz`, with
/// its first body; not for a liveness probe (use `/livez`).
#[utoipa::path(get, path = "/healthz", tag = "health", security(()),
    responses((status = 200, description = "The server and its database answer", body = Health),
        (status = 503, description = "The database cannot be reached", body = Health)))]
pub async fn healthz(State(store): State<Arc<dyn Store>>) -> Response {
    match store.health().await {
        Ok(()) => Json(Health::ready(store.as_ref())).into_response(),
        Err(err) => {
            // Asked every few seconds: the outage itself is logged where it is noticed.
            tracing::debug!(error = %err, "health check: database unavailable");
            let database = match err {
                StoreError::NewerSchema { .. } => "newer_schema",
                _ => "unreachable",
            };
            let unavailable = Health {
                status: "unavailable",
                database: Some(database),
                database_tls: None,
            };
            let mut response = (StatusCode::SERVICE_UNAVAILABLE, Json(unavailable)).into_response();
            response.extensions_mut().insert(Refused::Probe);
            response
        }
    }
}
