//! Authentication and scopes: a layer that resolves the bearer credential and spends the rate
//! limit of its workspace (or of the client address), and an extractor that enforces a scope.

pub mod require;
pub mod session;

pub use require::{Authenticated, Requirement};

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;

use crate::http::error::{ApiError, ErrorCode};
use crate::last_used::LastUsed;
use crate::rate_limit::{Bucket, Limits};
use crate::secrets::{CredentialKind, SecretDigest, classify, is_token_id};
use crate::store::Scope;
use crate::store::{self, AuditEntry, Credential, Store, actions};
use crate::telemetry::Traced;
use crate::telemetry::traces::Admission;

/// Who is calling: the credential that authenticated and what it may do.
#[derive(Debug, Clone)]
pub struct Principal {
    /// `key_...` or `tok_...`.
    pub credential_id: String,
    pub workspace_id: String,
    pub scopes: Vec<Scope>,
}

/// Why a request is not authenticated. `workspace_id` is known when the credential exists but
/// may no longer be used (revoked, expired), so the denial can be audited.
#[derive(Debug, Clone)]
pub struct Denied {
    message: &'static str,
    /// 403 rather than 401: a dashboard session without its CSRF header.
    forbidden: bool,
    credential_id: Option<String>,
    workspace_id: Option<String>,
}

impl Denied {
    fn invalid() -> Self {
        Denied::because("Missing or invalid API key")
    }

    /// A dashboard session that has ended (signed out, its key revoked, or 12 hours passed).
    pub(crate) fn session_ended() -> Self {
        Denied::because(session::SESSION_ENDED)
    }

    /// A dashboard session's request without its CSRF header (or with another session's).
    pub(crate) fn csrf(credential: &Credential) -> Self {
        Denied {
            message: "Missing or invalid X-CSRF-Token header: requests signed in with the \
                      dashboard's session cookie must carry the session's CSRF token",
            forbidden: true,
            credential_id: Some(credential.id.clone()),
            workspace_id: Some(credential.workspace_id.clone()),
        }
    }

    fn because(message: &'static str) -> Self {
        Denied {
            message,
            forbidden: false,
            credential_id: None,
            workspace_id: None,
        }
    }
}

/// What the auth layer found, for the extractor.
type Outcome = Result<Principal, Denied>;

/// A credential presented in a well-formed `Authorization` header (or signed in to the
/// dashboard) and found in storage.
struct Presented {
    /// What to confirm once the request is counted on a shared backend; `None` for a session,
    /// read from the database itself.
    confirm: Option<(CredentialKind, SecretDigest)>,
    credential: Credential,
}

/// Anthropic's header for the key.
static X_API_KEY: axum::http::HeaderName = axum::http::HeaderName::from_static("x-api-key");

/// The credential presented (`Authorization: Bearer`, or `x-api-key` as Anthropic's clients send
/// it), or why there is none usable. Without either header, the dashboard's session cookie
/// (with its CSRF header) stands for the key that signed in.
async fn resolve(
    store: &dyn Store,
    headers: &HeaderMap,
) -> Result<Result<Presented, Denied>, ApiError> {
    let bearer = headers.get(AUTHORIZATION);
    // Anthropic's clients present the key as `x-api-key` instead (looked for only then).
    let api_key = match bearer {
        Some(_) => None,
        None => headers.get(&X_API_KEY),
    };
    if bearer.is_none() && api_key.is_none() {
        return match session::cookie(headers) {
            Some(secret) => Ok(session::resolve(store, headers, secret)
                .await?
                .map(|credential| Presented {
                    confirm: None,
                    credential,
                })),
            None => Ok(Err(Denied::invalid())),
        };
    }
    let presented = match (bearer, api_key) {
        (Some(header), _) => header
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, secret)| secret.trim()),
        (None, key) => key.and_then(|v| v.to_str().ok()).map(str::trim),
    };
    let Some((secret, kind)) = presented.and_then(|s| classify(s).map(|kind| (s, kind))) else {
        return Ok(Err(Denied::invalid()));
    };
    let digest = SecretDigest::of(secret);
    let Some(credential) = store.find_credential(kind, digest).await? else {
        return Ok(Err(Denied::invalid()));
    };
    Ok(usable(credential).map(|credential| Presented {
        confirm: Some((kind, digest)),
        credential,
    }))
}

/// The credential once the request is counted, as storage now knows it (see
/// `Store::confirm_credential`), or why it is no longer usable.
async fn confirm(
    store: &dyn Store,
    presented: Presented,
) -> Result<Result<Credential, Denied>, ApiError> {
    let Some((kind, digest)) = presented.confirm else {
        return Ok(Ok(presented.credential));
    };
    let confirmed = store
        .confirm_credential(kind, digest, presented.credential)
        .await?;
    Ok(match confirmed {
        Some(credential) => usable(credential),
        None => Err(Denied::invalid()),
    })
}

/// `credential` if it may be used now: neither revoked nor expired.
pub(crate) fn usable(credential: Credential) -> Result<Credential, Denied> {
    let now = store::now();
    let denied = |message| Denied {
        message,
        forbidden: false,
        credential_id: Some(credential.id.clone()),
        workspace_id: Some(credential.workspace_id.clone()),
    };
    if credential.revoked {
        return Err(denied("Missing or invalid API key"));
    }
    if credential.expires_at.is_some_and(|at| at <= now) {
        return Err(denied("Token has expired"));
    }
    // A secret a rotation replaced stops at the exact end of its overlap, on every instance:
    // the time travels with the credential, cached or not.
    if credential.secret_expires_at.is_some_and(|at| at <= now) {
        return Err(denied("Missing or invalid API key"));
    }
    Ok(credential)
}

fn principal(credential: Credential) -> Principal {
    Principal {
        credential_id: credential.id,
        workspace_id: credential.workspace_id,
        scopes: credential.scopes,
    }
}

/// Layer: resolves the credential, counts the request against its workspace (or the client
/// address when there is no valid credential), refuses with 429 past the limit, and writes the
/// rate-limit headers on every response.
///
/// When storage fails before the request is counted (a shared database that is unreachable),
/// the answer is that failure (503) with `Retry-After` and no rate-limit headers: nothing was
/// counted, so there is nothing true to say about the window.
pub async fn layer(
    State(store): State<Arc<dyn Store>>,
    State(limits): State<Arc<Limits>>,
    State(last_used): State<Arc<LastUsed>>,
    mut request: Request,
    next: Next,
) -> Response {
    // While traces are on: the span of authentication and admission, under the request's.
    let span = request.extensions().get::<Traced>().map(Traced::admission);
    let resolved = match resolve(store.as_ref(), request.headers()).await {
        Ok(resolved) => resolved,
        Err(err) => return refused(span, err.into_response()),
    };
    let bucket = match &resolved {
        Ok(presented) => Bucket::Workspace(presented.credential.workspace_id.clone()),
        Err(_) => Bucket::Address(client_address(&request)),
    };
    let decision = match limits.api.check(bucket, Utc::now().timestamp()).await {
        Ok(decision) => decision,
        Err(err) => return refused(span, ApiError::from(err).into_response()),
    };
    // On a shared backend the credential may have come from a cache the count has just brought
    // up to date: it is confirmed now. One changed meanwhile is refused; it was counted against
    // its workspace, which can only refuse a later request early, never admit one too many.
    let resolved = match resolved {
        Ok(presented) if decision.allowed && store.shared() => {
            match confirm(store.as_ref(), presented).await {
                Ok(confirmed) => confirmed,
                Err(err) => {
                    let mut response = refused(span, err.into_response());
                    decision.write_headers(response.headers_mut());
                    return response;
                }
            }
        }
        Ok(presented) => Ok(presented.credential),
        Err(denied) => Err(denied),
    };
    let mut response = if decision.allowed {
        // Only a request that is let through counts as a use of its credential.
        let outcome: Outcome = match resolved {
            Ok(credential) => {
                last_used.record(&store, &credential, store::now()).await;
                Ok(principal(credential))
            }
            Err(denied) => Err(denied),
        };
        if let Some(span) = span {
            authenticated(&request, span, &outcome);
        }
        request.extensions_mut().insert(outcome);
        next.run(request).await
    } else {
        if let Some(span) = span {
            span.failed("rate_limited", "over the workspace's rate limit".into());
        }
        ApiError::RateLimited {
            retry_after: decision.retry_after,
        }
        .into_response()
    };
    decision.write_headers(response.headers_mut());
    response
}

/// Notes what authentication found on the admission span, and names the credential on the
/// request's span (`tokctl.token_id` or `tokctl.key_id`: ids, never secrets). A refusal ends
/// the span; so does a request let through, unless the gateway serves it: then the span is
/// handed on with the request's for the gateway to end once it admitted the request (routing,
/// the token's limit, the budget, a payment).
fn authenticated(request: &Request, span: Admission, outcome: &Outcome) {
    let principal = match outcome {
        Ok(principal) => principal,
        Err(denied) => {
            span.failed("unauthorized", denied.message.into());
            return;
        }
    };
    let name = match is_token_id(&principal.credential_id) {
        true => "tokctl.token_id",
        false => "tokctl.key_id",
    };
    let Some(traced) = request.extensions().get::<Traced>() else {
        return span.end();
    };
    span.credential(traced, name, &principal.credential_id);
    // The gateway's paths are those of the request log.
    if crate::request_log::LOGGED_PATHS.contains(&request.uri().path()) {
        traced.hand_on(span);
    } else {
        span.end();
    }
}

/// Ends the admission span (when traced) as failed with `refusal`'s code, and gives `refusal`
/// back.
fn refused(span: Option<Admission>, refusal: Response) -> Response {
    match span {
        Some(span) => {
            span.refused(ErrorCode::of(&refusal), refusal.status().as_u16());
            refusal
        }
        None => refusal,
    }
}

/// The address the request came from (unspecified when the server was not told).
pub(crate) fn client_address(request: &Request) -> IpAddr {
    address_in(request.extensions())
}

/// The client address among a request's extensions.
pub(crate) fn address_in(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip())
}

/// The token a request path names (`.../tokens/tok_...`), for audit entries.
fn target_token(path: &str) -> Option<String> {
    let mut segments = path.split('/').skip_while(|s| *s != "tokens").skip(1);
    segments
        .next()
        .filter(|id| is_token_id(id))
        .map(str::to_string)
}

/// The token a denial is about: the one the path names, else the refused credential when it is
/// a token.
pub fn about(target: Option<String>, credential_id: &str) -> Option<String> {
    target.or_else(|| is_token_id(credential_id).then(|| credential_id.to_string()))
}

/// The credential of kind `kind` whose secret is `secret`, as storage knows it once the request
/// was counted (see `Store::confirm_credential`), whatever its status.
pub(crate) async fn find_credential(
    store: &dyn Store,
    kind: CredentialKind,
    secret: &str,
) -> Result<Option<Credential>, ApiError> {
    let digest = SecretDigest::of(secret);
    let Some(found) = store.find_credential(kind, digest).await? else {
        return Ok(None);
    };
    Ok(store.confirm_credential(kind, digest, found).await?)
}

/// Records that `principal` was refused (missing scope, escalation) in the audit log.
pub(crate) async fn audit_denied(
    store: &dyn Store,
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
    Ok(store.record_audit(entry).await?)
}
