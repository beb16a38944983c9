//! `GET /v1/openapi.json`, generated from the handlers' annotations so it cannot drift.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::{audit, models, scopes, tokens, usage, webhooks};

#[derive(OpenApi)]
#[openapi(
    info(title = "tokctl token API", description = "Token management API of tokctl-server."),
    paths(tokens::create, tokens::list, tokens::show, tokens::rotate, tokens::revoke,
          scopes::list, audit::list, models::list, usage::list, webhooks::create,
          webhooks::list, webhooks::show, webhooks::remove, webhooks::test, webhooks::deliveries),
    modifiers(&BearerAuth),
    security(("bearer" = []))
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The OpenAPI document of the token API.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// Serves [`document`].
pub async fn serve() -> Json<utoipa::openapi::OpenApi> {
    Json(document())
}
