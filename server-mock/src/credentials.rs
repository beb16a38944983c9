//! `/v1/credentials/revoke`: revocation by possession. Whoever holds a leaked token secret or API
//! key may kill it without any credential of their own; the answer is the same whatever was
//! live, so it reveals nothing about the secrets sent.

use std::collections::HashSet;
use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{client_address, find_credential};
use crate::http::error::{ApiError, ErrorBody};
use crate::http::extract::ApiJson;
use crate::http::request_id::RequestId;
use crate::http::routes::Routes;
use crate::rate_limit::{Bucket, Limits};
use crate::secrets::{CredentialKind, classify};
use crate::store::actions;
use crate::store::{AuditEntry, Store, StoreError};

/// Most secrets one report may hold.
pub const MAX_CREDENTIALS: usize = 100;
/// The audit actor of a revocation by leak report.
pub const ACTOR: &str = "leak-report";

/// Routes of this resource (outside the auth layer: no credential is needed).
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<dyn Store>: FromRef<S>,
    Arc<Limits>: FromRef<S>,
{
    Routes::new().post("/v1/credentials/revoke", revoke)
}

/// Body of `POST /v1/credentials/revoke`. Unknown fields are ignored.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"credentials": ["tkt_0123456789abcdefghijABCDEFGHIJ1a2B3c"]}))]
pub struct LeakReport {
    /// 1 to 100 strings, each a token secret (`tkt_...`) or an API key (`tka_...`) found where
    /// it should not be. Anything else is accepted and ignored.
    #[schema(min_items = 1, max_items = 100)]
    pub credentials: Vec<String>,
}

/// The answer to a leak report: how many strings arrived (duplicates and strings that are no
/// secret included), never which of them were live.
#[derive(Debug, Serialize, ToSchema)]
pub struct Received {
    /// The length of `credentials`.
    #[schema(example = 1)]
    pub received: usize,
}

/// Report leaked secrets, so that every live one among them is revoked.
///
/// Each live token or API key among them is revoked at once, as by `DELETE` (an API key's
/// dashboard sessions end too), with an audit entry in its workspace whose actor is
/// `leak-report`; no webhook event is sent. No credential is needed (an `Authorization` header
/// is ignored), and the answer is 202 whatever was live. Leak reports have a rate limit of
/// their own per client address.
#[utoipa::path(post, path = "/v1/credentials/revoke", tag = "credentials",
    operation_id = "revoke_credentials", security(()),
    request_body = LeakReport,
    responses(
        (status = 202, description = "Received; every live secret among them is revoked", body = Received),
        (status = 400, description = "Not JSON, not `{\"credentials\": [strings]}`, or larger than 64 KiB", body = ErrorBody),
        (status = 422, description = "`credentials` holds no secret or more than 100", body = ErrorBody),
        (status = 429, description = "Too many leak reports from this address", body = ErrorBody)))]
pub async fn revoke(
    State(store): State<Arc<dyn Store>>,
    State(limits): State<Arc<Limits>>,
    request: Request,
) -> Response {
    let bucket = Bucket::LeakReports(client_address(&request));
    let request_id = request.extensions().get::<RequestId>().map(|r| r.0.clone());
    limits
        .leak_reports
        .counted(bucket, async {
            let ApiJson(report) = ApiJson::<LeakReport>::from_request(request, &()).await?;
            let received = report.credentials.len();
            if !(1..=MAX_CREDENTIALS).contains(&received) {
                return Err(ApiError::Unprocessable(format!(
                    "credentials must hold 1 to {MAX_CREDENTIALS} secrets, not {received}"
                )));
            }
            let mut seen = HashSet::new();
            for secret in &report.credentials {
                let secret = secret.trim();
                if seen.insert(secret) {
                    revoke_one(store.as_ref(), secret, &request_id).await?;
                }
            }
            Ok((StatusCode::ACCEPTED, Json(Received { received })).into_response())
        })
        .await
}

/// Revokes the credential whose secret is `secret` if it is not revoked yet (expired ones too:
/// harmless, and it ends the question). A string that is no well-formed secret never reaches
/// storage.
async fn revoke_one(
    store: &dyn Store,
    secret: &str,
    request_id: &Option<String>,
) -> Result<(), ApiError> {
    let Some(kind) = classify(secret) else {
        return Ok(());
    };
    let Some(credential) = find_credential(store, kind, secret).await? else {
        return Ok(());
    };
    if credential.revoked {
        return Ok(());
    }
    let (workspace, id) = (&credential.workspace_id, &credential.id);
    let audit = |action| {
        AuditEntry::new(workspace, action, ACTOR)
            .token(Some(id.clone()))
            .request(request_id.clone())
    };
    let revoked = match kind {
        CredentialKind::Token => {
            let audit = audit(actions::TOKEN_REVOKED);
            store.revoke_token(workspace, id, audit).await
        }
        CredentialKind::ApiKey => {
            let audit = audit(actions::KEY_REVOKED);
            store.revoke_api_key(workspace, id, audit).await
        }
    };
    match revoked {
        Ok(()) => {
            tracing::info!(workspace = %workspace, credential = %id, "revoked by a leak report");
            Ok(())
        }
        // Revoked meanwhile by someone else: nothing left to do.
        Err(StoreError::NotFound) => Ok(()),
        Err(err) => Err(err.into()),
    }
}
