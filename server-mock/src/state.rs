//! The one place that assembles what handlers share. Each resource takes only the parts it
//! uses, as axum substates (`State<Arc<dyn Store>>`, `State<Arc<Hub>>`, ...): [`FromRef`]
//! below hands each out, so no resource imports this file.

use std::sync::Arc;

use axum::extract::FromRef;

use crate::chat::Gateway;
use crate::last_used::LastUsed;
use crate::rate_limit::{Limits, RateLimiter};
use crate::request_log::RequestLog;
use crate::store::Store;
use crate::telemetry::Metrics;
use crate::usage::Ledger;
use crate::webhooks::Hub;

/// Shared state: one reference count to clone, however many parts it has.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The parts of [`AppState`].
pub struct Shared {
    pub store: Arc<dyn Store>,
    /// The workspace and per-address budgets, and leak reports' own.
    pub limits: Arc<Limits>,
    pub last_used: Arc<LastUsed>,
    pub gateway: Arc<Gateway>,
    pub webhooks: Arc<Hub>,
    /// Operators' metrics (the gateway's own, shared).
    pub metrics: Metrics,
    /// The request log's writer (which `GET /v1/requests` flushes before reading).
    pub requests: Arc<RequestLog>,
    /// Whether gateway requests are logged.
    pub logging: bool,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// State over `store` with `rate_limit` requests per minute per workspace and
    /// `leak_report_rate_limit` leak reports per minute per client address, logging gateway
    /// requests as `request_log` says (none when it is `None`).
    pub fn new(
        store: Arc<dyn Store>,
        (rate_limit, leak_report_rate_limit): (u32, u32),
        gateway: Gateway,
        webhooks: Hub,
        request_log: Option<crate::request_log::LogConfig>,
    ) -> Self {
        let limits = Limits {
            api: RateLimiter::new(rate_limit, store.window_counter()),
            leak_reports: RateLimiter::new(leak_report_rate_limit, store.window_counter()),
        };
        AppState(Arc::new(Shared {
            store,
            limits: Arc::new(limits),
            last_used: Arc::default(),
            metrics: gateway.metrics.clone(),
            gateway: Arc::new(gateway),
            webhooks: Arc::new(webhooks),
            requests: Arc::new(RequestLog::new(request_log.unwrap_or_default())),
            logging: request_log.is_some(),
        }))
    }
}

impl FromRef<AppState> for Arc<dyn Store> {
    fn from_ref(state: &AppState) -> Self {
        state.store.clone()
    }
}

impl FromRef<AppState> for Arc<Limits> {
    fn from_ref(state: &AppState) -> Self {
        state.limits.clone()
    }
}

impl FromRef<AppState> for Arc<LastUsed> {
    fn from_ref(state: &AppState) -> Self {
        state.last_used.clone()
    }
}

impl FromRef<AppState> for Arc<Gateway> {
    fn from_ref(state: &AppState) -> Self {
        state.gateway.clone()
    }
}

impl FromRef<AppState> for Arc<Ledger> {
    fn from_ref(state: &AppState) -> Self {
        state.gateway.ledger.clone()
    }
}

impl FromRef<AppState> for Arc<RequestLog> {
    fn from_ref(state: &AppState) -> Self {
        state.requests.clone()
    }
}

impl FromRef<AppState> for Arc<Hub> {
    fn from_ref(state: &AppState) -> Self {
        state.webhooks.clone()
    }
}
