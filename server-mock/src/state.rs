//! What every handler shares.

use std::sync::Arc;

use crate::audit::actions;
use crate::auth::Principal;
use crate::chat::Gateway;
use crate::error::ApiError;
use crate::last_used::LastUsed;
use crate::rate_limit::RateLimiter;
use crate::store::{AuditEntry, Store};
use crate::webhooks::Hub;

/// Shared state: one reference count to clone, however many parts it has.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The parts of [`AppState`].
pub struct Shared {
    pub store: Arc<dyn Store>,
    pub limiter: RateLimiter,
    /// Leak reports per client address, apart from `limiter`'s budgets.
    pub leak_reports: RateLimiter,
    pub last_used: LastUsed,
    pub gateway: Arc<Gateway>,
    pub webhooks: Arc<Hub>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// State over `store` with `rate_limit` requests per minute per workspace and
    /// `leak_report_rate_limit` leak reports per minute per client address.
    pub fn new(
        store: Arc<dyn Store>,
        (rate_limit, leak_report_rate_limit): (u32, u32),
        gateway: Gateway,
        webhooks: Hub,
    ) -> Self {
        let limiter = RateLimiter::new(rate_limit, store.window_counter());
        let leak_reports = RateLimiter::new(leak_report_rate_limit, store.window_counter());
        AppState(Arc::new(Shared {
            store,
            limiter,
            leak_reports,
            last_used: LastUsed::default(),
            gateway: Arc::new(gateway),
            webhooks: Arc::new(webhooks),
        }))
    }

    /// Records that `principal` was refused (missing scope, escalation) in the audit log.
    pub async fn audit_denied(
        &self,
        principal: &Principal,
        token_id: Option<String>,
        request_id: Option<String>,
    ) -> Result<(), ApiError> {
        let entry = AuditEntry::new(
            &principal.workspace_id,
            actions::AUTH_DENIED,
            &principal.credential_id,
        )
        .token(token_id)
        .request(request_id);
        Ok(self.store.record_audit(entry).await?)
    }
}
