//! `GET /metrics` on the operators' own listener (`--metrics-listen`), never on the public one:
//! the Prometheus text exposition of [`crate::telemetry`]'s metrics, with the figures that are
//! read rather than counted (circuit states, the webhook outbox, database pools) brought up to
//! date first.

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;
use crate::telemetry::registry;

/// How often recorded histogram samples are folded into their buckets between scrapes.
pub const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves `GET /metrics` on `listener` (until aborted), folding samples into their buckets
/// every few seconds between scrapes.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) {
    let metrics = state.metrics.clone();
    let upkeep = async move {
        let mut tick = tokio::time::interval(UPKEEP_EVERY);
        loop {
            tick.tick().await;
            // Folding a few seconds of samples is CPU work: off the workers serving requests.
            let metrics = metrics.clone();
            let _ = tokio::task::spawn_blocking(move || metrics.upkeep()).await;
        }
    };
    let timeout = crate::http::listen::DEFAULT_HEADER_TIMEOUT;
    let app = router(state);
    tokio::select! {
        () = upkeep => {}
        () = crate::http::listen::serve(listener, app, timeout, std::future::pending()) => {}
    }
}

/// The metrics listener's routes: `/metrics`, and 404 for anything else.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "not found: metrics are at /metrics\n",
            )
        })
        .with_state(state)
}

/// The exposition, in Prometheus' text format 0.0.4 (what `promtool check metrics` reads).
async fn metrics(State(state): State<AppState>) -> Response {
    let metrics = &state.metrics;
    state.gateway.health.publish();
    match state.store.outbox_depth().await {
        Ok(depth) => metrics.gauge(registry::OUTBOX, &[]).set(depth as f64),
        Err(err) => err.log("metrics: cannot read the webhook outbox"),
    }
    for pool in state.store.pools() {
        let name = ("db_client_connection_pool_name", pool.name);
        for (state, count) in [("idle", pool.idle), ("used", pool.used)] {
            let labels = [name, ("db_client_connection_state", state)];
            metrics
                .gauge(registry::DB_CONNECTIONS, &labels)
                .set(count as f64);
        }
        metrics
            .gauge(registry::DB_MAX, &[name])
            .set(pool.max as f64);
        metrics
            .gauge(registry::DB_PENDING, &[name])
            .set(pool.waiting as f64);
    }
    // Rendering folds every sample since the last upkeep: off the workers serving requests.
    let metrics = metrics.clone();
    let Ok(body) = tokio::task::spawn_blocking(move || metrics.render()).await else {
        let failed = "the metrics could not be rendered; see the server's log\n";
        return (StatusCode::INTERNAL_SERVER_ERROR, failed).into_response();
    };
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response()
}
