//! `GET /v1/scopes`: the complete list of scopes a credential can hold, with what each allows.

use std::sync::Arc;

use axum::extract::FromRef;
use serde::Serialize;
use utoipa::ToSchema;

pub use crate::store::Scope;
use crate::store::Store;

/// One item of `GET /v1/scopes`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScopeView {
    /// Wire name, e.g. `tokens:rotate`.
    pub name: &'static str,
    /// What the scope allows.
    pub description: &'static str,
}

impl From<Scope> for ScopeView {
    fn from(scope: Scope) -> Self {
        ScopeView {
            name: scope.as_str(),
            description: scope.description(),
        }
    }
}

/// Routes of this resource.
pub fn routes<S>() -> crate::http::routes::Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
{
    crate::http::routes::Routes::new().get("/v1/scopes", list)
}

/// List every scope with its description (any valid credential may ask).
#[utoipa::path(get, path = "/v1/scopes", tag = "scopes",
    responses((status = 200, body = crate::http::pagination::ListEnvelope<ScopeView>),
        (status = 401, body = crate::http::error::ErrorBody),
        (status = 429, body = crate::http::error::ErrorBody)))]
pub async fn list(
    _auth: crate::auth::Authenticated<crate::auth::require::AnyScope>,
) -> axum::Json<crate::http::pagination::ListEnvelope<ScopeView>> {
    let data: Vec<ScopeView> = Scope::ALL.into_iter().map(ScopeView::from).collect();
    let page = crate::store::PageRequest {
        page: 1,
        per_page: data.len() as u64,
    };
    let total = data.len() as u64;
    axum::Json(crate::http::pagination::ListEnvelope::new(
        data, page, total,
    ))
}
