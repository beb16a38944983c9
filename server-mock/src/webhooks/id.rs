//! The `:id` path segment of the webhook routes.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

use crate::http::error::{ApiError, truncate};

/// A `:id` path segment naming a webhook endpoint. Anything that cannot be one (not UTF-8
/// after percent-decoding, or not `whk_` and 24 of `[0-9a-z]`) is a 404 in the API's error
/// body, like an id that names no endpoint.
pub struct WebhookId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for WebhookId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NotFound("No webhook endpoint with that id".into()))?;
        if is_webhook_id(&id) {
            Ok(WebhookId(id))
        } else {
            Err(not_found(&id))
        }
    }
}

/// The 404 for an id that names no endpoint of the workspace.
pub fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("No webhook endpoint with id {}", truncate(id, 64)))
}

fn is_webhook_id(id: &str) -> bool {
    id.strip_prefix("whk_").is_some_and(|rest| {
        rest.len() == 24
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::is_webhook_id;

    #[test]
    fn only_the_shape_of_new_ids_is_an_id() {
        let made = crate::secrets::new_id("whk_");
        assert!(is_webhook_id(&made), "{made}");
        for bad in [
            "",
            "whk_",
            "tok_abcdefghijklmnopqrstuvwx",
            "whk_ABCDEFGHIJKLMNOPQRSTUVWX",
        ] {
            assert!(!is_webhook_id(bad), "{bad}");
        }
    }
}
