//! Scopes a handler requires: one marker type per scope, and the [`Authenticated`] extractor
//! that refuses a caller without it (401 or 403, audited) before any body is read.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;

use super::{Denied, Outcome, Principal, about, audit_denied, target_token};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::store::{AuditEntry, Scope, Store, actions};

/// The scope a handler needs, named by a marker type (see this module's markers).
pub trait Requirement: Send + Sync + 'static {
    /// `None`: any valid credential will do.
    const SCOPE: Option<Scope>;
}

macro_rules! requirements {
    ($($(#[$doc:meta])* $name:ident => $scope:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name;
        impl Requirement for $name {
            const SCOPE: Option<Scope> = $scope;
        }
    )*};
}

requirements! {
    /// Any valid credential.
    AnyScope => None;
    /// `tokens:read`.
    TokensRead => Some(Scope::TokensRead);
    /// `tokens:write`.
    TokensWrite => Some(Scope::TokensWrite);
    /// `tokens:rotate`.
    TokensRotate => Some(Scope::TokensRotate);
    /// `tokens:revoke`.
    TokensRevoke => Some(Scope::TokensRevoke);
    /// `audit:read`.
    AuditRead => Some(Scope::AuditRead);
    /// `chat:write`.
    ChatWrite => Some(Scope::ChatWrite);
    /// `usage:read`.
    UsageRead => Some(Scope::UsageRead);
    /// `webhooks:read`.
    WebhooksRead => Some(Scope::WebhooksRead);
    /// `webhooks:write`.
    WebhooksWrite => Some(Scope::WebhooksWrite);
    /// `keys:read`.
    KeysRead => Some(Scope::KeysRead);
    /// `keys:write`.
    KeysWrite => Some(Scope::KeysWrite);
    /// `x402:read`.
    X402Read => Some(Scope::X402Read);
    /// `x402:write`.
    X402Write => Some(Scope::X402Write);
    /// `requests:read`.
    RequestsRead => Some(Scope::RequestsRead);
    /// `settings:read`.
    SettingsRead => Some(Scope::SettingsRead);
    /// `settings:write`.
    SettingsWrite => Some(Scope::SettingsWrite);
}

/// Extractor: an authenticated caller holding `R`'s scope. Refuses with 401 or 403 before any
/// body is read, and writes an `auth.denied` audit entry when the workspace is known.
pub struct Authenticated<R: Requirement> {
    pub principal: Principal,
    /// The request id, for audit entries.
    pub request_id: Option<String>,
    _requirement: PhantomData<R>,
}

impl<R: Requirement, S: Send + Sync> FromRequestParts<S> for Authenticated<R>
where
    Arc<dyn Store>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let store = Arc::<dyn Store>::from_ref(state);
        let request_id = parts.extensions.get::<RequestId>().map(|r| r.0.clone());
        // Taken, not copied: a handler has one `Authenticated`, and nothing else reads it.
        let outcome = parts
            .extensions
            .remove::<Outcome>()
            .unwrap_or_else(|| Err(Denied::invalid()));
        // The token the path names, only for an audit entry of a refusal.
        let target = || target_token(parts.uri.path());
        let principal = match outcome {
            Ok(principal) => principal,
            Err(denied) => {
                if let (Some(workspace), Some(actor)) = (denied.workspace_id, denied.credential_id)
                {
                    let entry = AuditEntry::new(&workspace, actions::AUTH_DENIED, &actor)
                        .token(about(target(), &actor))
                        .request(request_id);
                    store.record_audit(entry).await?;
                }
                return Err(match denied.forbidden {
                    true => ApiError::Forbidden(denied.message.into()),
                    false => ApiError::Unauthorized(denied.message.into()),
                });
            }
        };
        if let Some(scope) = R::SCOPE.filter(|s| !principal.scopes.contains(s)) {
            let about = about(target(), &principal.credential_id);
            audit_denied(store.as_ref(), &principal, about, request_id).await?;
            return Err(ApiError::Forbidden(format!(
                "Missing required scope: {}",
                scope.as_str()
            )));
        }
        Ok(Authenticated {
            principal,
            request_id,
            _requirement: PhantomData,
        })
    }
}
