//! Dashboard sessions: a person signs in once with an API key and gets an HttpOnly cookie
//! (`SameSite=Strict`, 12 hours) naming a server-side session, which ends on sign-out and when
//! its key is revoked. The key itself never reaches the browser's storage. Requests signed in by
//! the cookie also carry the session's CSRF token in `X-CSRF-Token`, or get 403.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Request, State};
use axum::http::header::{CACHE_CONTROL, COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Duration;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::{Denied, address_in, client_address, find_credential, usable};
use crate::format::timestamp;
use crate::http::error::ApiError;
use crate::http::extract::ApiJson;
use crate::rate_limit::{Bucket, Limits};
use crate::secrets::{CredentialKind, SecretDigest, classify, csrf_token, new_session_secret};
use crate::store::actions;
use crate::store::{self, AuditEntry, Credential, NewSession, SessionRecord, Store};

/// The session cookie's name.
pub const COOKIE_NAME: &str = "tokctl_session";
/// The header that carries the session's CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Why a session cookie no longer signs anyone in.
pub const SESSION_ENDED: &str = "Your dashboard session has ended; sign in again";
/// How long a session lasts.
pub const LIFETIME: Duration = Duration::hours(12);

/// The session secret in the request's cookie, if any.
pub fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The key a session cookie stands for, once the request's CSRF header matches; or why not.
pub async fn resolve(
    store: &dyn Store,
    headers: &HeaderMap,
    secret: &str,
) -> Result<Result<Credential, Denied>, ApiError> {
    let Some(session) = find(store, secret).await? else {
        return Ok(Err(Denied::session_ended()));
    };
    if !csrf_matches(headers, secret) {
        return Ok(Err(Denied::csrf(&session.credential)));
    }
    Ok(usable(session.credential))
}

async fn find(store: &dyn Store, secret: &str) -> Result<Option<SessionRecord>, ApiError> {
    Ok(store
        .find_session(SecretDigest::of(secret), store::now())
        .await?)
}

fn csrf_matches(headers: &HeaderMap, secret: &str) -> bool {
    let expected = csrf_token(secret);
    headers
        .get(CSRF_HEADER)
        .is_some_and(|sent| bool::from(sent.as_bytes().ct_eq(expected.as_bytes())))
}

/// Body of `POST /session`.
#[derive(Deserialize)]
pub struct SignIn {
    /// The API key (`tka_...`).
    pub key: String,
}

/// What the page learns about its session: who is signed in, and the CSRF token to send.
#[derive(Serialize)]
pub struct SessionView {
    pub csrf_token: String,
    pub key: KeySummary,
    pub workspace: WorkspaceSummary,
    /// RFC 3339, UTC: when the session ends by itself.
    pub expires_at: String,
}

/// The signed-in key.
#[derive(Serialize)]
pub struct KeySummary {
    pub id: String,
    pub name: String,
    pub scopes: Vec<&'static str>,
}

/// The key's workspace.
#[derive(Serialize)]
pub struct WorkspaceSummary {
    pub id: String,
    pub name: String,
}

fn view(session: SessionRecord, secret: &str) -> SessionView {
    SessionView {
        csrf_token: csrf_token(secret),
        key: KeySummary {
            id: session.credential.id,
            name: session.key_name,
            scopes: session
                .credential
                .scopes
                .iter()
                .map(|s| s.as_str())
                .collect(),
        },
        workspace: WorkspaceSummary {
            id: session.workspace.id,
            name: session.workspace.name,
        },
        expires_at: timestamp(session.expires_at),
    }
}

/// `POST /session`: checks the key, starts a session and sets its cookie (201).
pub async fn sign_in(
    State(store): State<Arc<dyn Store>>,
    State(limits): State<Arc<Limits>>,
    request: Request,
) -> Response {
    let address = client_address(&request);
    let secure = is_https(request.headers());
    let request_id = request_id(request.extensions());
    counted(&limits, address, async {
        let ApiJson(body) = ApiJson::<SignIn>::from_request(request, &()).await?;
        let key = body.key.trim();
        let credential = match classify(key) {
            Some(CredentialKind::ApiKey) => {
                find_credential(store.as_ref(), CredentialKind::ApiKey, key).await?
            }
            Some(CredentialKind::Token) => {
                return Err(ApiError::Unauthorized(
                    "Sign in with an API key (tka_...); a token's secret cannot sign in".into(),
                ));
            }
            None => None,
        };
        let credential = credential.ok_or_else(|| {
            ApiError::Unauthorized("That API key is not valid; check it and paste it again".into())
        })?;
        if credential.revoked {
            return Err(ApiError::Unauthorized(
                "That API key has been revoked; sign in with another key".into(),
            ));
        }
        if credential.expires_at.is_some_and(|at| at <= store::now()) {
            return Err(ApiError::Unauthorized(
                "That API key has expired; sign in with another key".into(),
            ));
        }
        let secret = new_session_secret();
        let now = store::now();
        let session = NewSession {
            digest: secret.digest(),
            key_id: credential.id.clone(),
            created_at: now,
            expires_at: now + LIFETIME,
        };
        store.create_session(session).await?;
        let audit = AuditEntry::new(
            &credential.workspace_id,
            actions::SESSION_STARTED,
            &credential.id,
        )
        .token(Some(credential.id.clone()))
        .request(request_id);
        store.record_audit(audit).await?;
        let found = find(store.as_ref(), secret.expose())
            .await?
            .ok_or_else(|| ApiError::Unauthorized("The session ended at once".into()))?;
        let cookie = session_cookie(secret.expose(), secure);
        Ok((
            StatusCode::CREATED,
            [(SET_COOKIE, cookie)],
            Json(view(found, secret.expose())),
        )
            .into_response())
    })
    .await
}

/// `GET /session`: the signed-in session (so a reloaded page learns its CSRF token), else 401.
pub async fn show(
    State(store): State<Arc<dyn Store>>,
    State(limits): State<Arc<Limits>>,
    request: Request,
) -> Response {
    let (parts, _) = request.into_parts();
    counted(&limits, address_in(&parts.extensions), async {
        let secret = cookie(&parts.headers).ok_or_else(|| {
            ApiError::Unauthorized("Not signed in: sign in with an API key".into())
        })?;
        let session = find(store.as_ref(), secret)
            .await?
            .filter(|session| usable(session.credential.clone()).is_ok())
            .ok_or_else(|| ApiError::Unauthorized(SESSION_ENDED.into()))?;
        Ok(Json(view(session, secret)).into_response())
    })
    .await
}

/// `DELETE /session`: ends the session (it needs the CSRF header) and clears the cookie (204).
pub async fn sign_out(
    State(store): State<Arc<dyn Store>>,
    State(limits): State<Arc<Limits>>,
    request: Request,
) -> Response {
    let (parts, _) = request.into_parts();
    let secure = is_https(&parts.headers);
    let request_id = request_id(&parts.extensions);
    counted(&limits, address_in(&parts.extensions), async {
        if let Some(secret) = cookie(&parts.headers) {
            if !csrf_matches(&parts.headers, secret) {
                return Err(ApiError::Forbidden(
                    "Missing or invalid X-CSRF-Token header: signing out needs the session's CSRF token"
                        .into(),
                ));
            }
            if let Some(session) = find(store.as_ref(), secret).await? {
                store.delete_session(SecretDigest::of(secret)).await?;
                let key = &session.credential;
                let audit = AuditEntry::new(&key.workspace_id, actions::SESSION_ENDED, &key.id)
                    .token(Some(key.id.clone()))
                    .request(request_id);
                store.record_audit(audit).await?;
            }
        }
        Ok((
            StatusCode::NO_CONTENT,
            [(SET_COOKIE, cleared_cookie(secure))],
        )
            .into_response())
    })
    .await
}

/// Counts the request against the client address (as unauthenticated API requests are), runs
/// `work` if the limit allows, and writes the rate-limit headers either way. Session answers are
/// never cached.
async fn counted(
    limits: &Limits,
    address: IpAddr,
    work: impl Future<Output = Result<Response, ApiError>>,
) -> Response {
    let mut response = limits.api.counted(Bucket::Address(address), work).await;
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn request_id(extensions: &axum::http::Extensions) -> Option<String> {
    extensions
        .get::<crate::http::request_id::RequestId>()
        .map(|r| r.0.clone())
}

fn session_cookie(secret: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE_NAME}={secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        LIFETIME.num_seconds()
    )
}

fn cleared_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}")
}

/// Whether the request reached the proxy in front of the server over HTTPS (the server itself
/// speaks plain HTTP), so the cookie is marked `Secure`.
fn is_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}
