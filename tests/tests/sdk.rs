//! Every SDK method against the real reference server.

mod common;

use std::time::Duration;

use chrono::Utc;
use common::TestServer;
use futures::TryStreamExt;
use tokctl_sdk::{CreateToken, ListAudit, ListTokens, RetryPolicy, RevokeOutcome, TokenStatus};

#[tokio::test]
async fn create_get_rotate_revoke_round_trip() {
    let server = TestServer::start().await;
    let admin = server.admin();
    let expires = Utc::now() + chrono::Duration::days(30);
    let created = admin
        .tokens()
        .create(
            &CreateToken::new("ci-deploy")
                .scopes(["tokens:read", "tokens:rotate"])
                .expires_at(expires),
        )
        .await
        .unwrap();
    assert_eq!(created.status, TokenStatus::Active);
    assert_eq!(created.scopes, ["tokens:read", "tokens:rotate"]);
    assert_eq!(
        created.expires_at.map(|t| t.timestamp_micros()),
        Some(expires.timestamp_micros())
    );
    let old_secret = created.secret.clone().expect("secret on create");

    // The token itself works as a credential and rotates itself.
    let as_token = server.client(old_secret.expose());
    let fetched = as_token.tokens().get(&created.id).await.unwrap();
    assert!(fetched.secret.is_none());
    assert!(fetched.last_used_at.is_some());
    let rotated = as_token.tokens().rotate(&created.id).await.unwrap();
    let new_secret = rotated.secret.clone().expect("secret on rotate");
    assert_ne!(new_secret, old_secret);
    assert_eq!(
        (rotated.id.as_str(), rotated.name.as_str()),
        (created.id.as_str(), "ci-deploy")
    );

    let err = as_token.tokens().get(&created.id).await.unwrap_err();
    assert!(err.is_unauthorized(), "the old secret is refused: {err:?}");
    let as_new = server.client(new_secret.expose());
    assert_eq!(
        as_new.tokens().get(&created.id).await.unwrap().id,
        created.id
    );

    assert_eq!(
        admin.tokens().revoke(&created.id).await.unwrap(),
        RevokeOutcome::Revoked
    );
    assert_eq!(
        admin.tokens().revoke(&created.id).await.unwrap(),
        RevokeOutcome::AlreadyGone
    );
    assert!(
        as_new
            .tokens()
            .get(&created.id)
            .await
            .unwrap_err()
            .is_unauthorized()
    );
    let revoked = admin.tokens().get(&created.id).await.unwrap();
    assert_eq!(revoked.status, TokenStatus::Revoked);
    assert!(
        admin
            .tokens()
            .rotate(&created.id)
            .await
            .unwrap_err()
            .is_not_found()
    );
}

#[tokio::test]
async fn list_and_list_all_walk_every_page_newest_first() {
    let server = TestServer::start().await;
    let admin = server.admin();
    let mut ids = Vec::new();
    for n in 0..130 {
        let token = admin
            .tokens()
            .create(&CreateToken::new(format!("t{n:03}")).scope("tokens:read"))
            .await
            .unwrap();
        ids.push(token.id);
    }
    ids.reverse();
    let first = admin.tokens().list(&ListTokens::new()).await.unwrap();
    assert_eq!((first.data.len(), first.meta.total), (25, 130));
    assert!(first.has_next());

    let all: Vec<_> = admin
        .tokens()
        .list_all(ListTokens::new())
        .try_collect()
        .await
        .unwrap();
    let walked: Vec<String> = all.into_iter().map(|t| t.id).collect();
    assert_eq!(walked, ids);

    admin.tokens().revoke(&ids[0]).await.unwrap();
    let revoked: Vec<_> = admin
        .tokens()
        .list_all(ListTokens::new().status(TokenStatus::Revoked))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(revoked.len(), 1);
    assert_eq!(revoked[0].id, ids[0]);
}

#[tokio::test]
async fn scopes_and_audit() {
    let server = TestServer::start().await;
    let admin = server.admin();
    let scopes = admin.scopes().list().await.unwrap();
    assert_eq!(scopes.len(), tokctl_sdk::scopes::ALL.len());
    assert!(
        scopes
            .iter()
            .any(|s| s.name == "tokens:rotate" && !s.description.is_empty())
    );

    let token = admin
        .tokens()
        .create(&CreateToken::new("audited").scope("tokens:read"))
        .await
        .unwrap();
    admin.tokens().rotate(&token.id).await.unwrap();
    let page = admin
        .audit()
        .list(&ListAudit::new().token_id(&token.id))
        .await
        .unwrap();
    let actions: Vec<_> = page.data.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["token.rotated", "token.created"]);
    let rotations: Vec<_> = admin
        .audit()
        .list_all(ListAudit::new().action("token.rotated"))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rotations.len(), 1);
    assert!(rotations[0].request_id.is_some());
}

#[tokio::test]
async fn errors_from_the_real_server_map_to_helpers() {
    let server = TestServer::start().await;
    let admin = server.admin();
    let reader = admin
        .tokens()
        .create(&CreateToken::new("reader").scope("tokens:read"))
        .await
        .unwrap();
    let as_reader = server.client(reader.secret.as_ref().unwrap().expose());

    let err = admin
        .tokens()
        .get("tok_000000000000000000000000")
        .await
        .unwrap_err();
    assert!(err.is_not_found());
    let err = admin
        .tokens()
        .create(&CreateToken::new("reader").scope("tokens:read"))
        .await
        .unwrap_err();
    assert!(err.is_conflict());
    let err = as_reader
        .tokens()
        .create(&CreateToken::new("x").scope("tokens:read"))
        .await
        .unwrap_err();
    assert!(err.is_forbidden());
    assert!(err.to_string().contains("tokens:write"), "{err}");
    let err = admin
        .tokens()
        .create(
            &CreateToken::new("past")
                .scope("tokens:read")
                .expires_at(Utc::now() - chrono::Duration::days(1)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(422));
    let err = server
        .client("tka_wrong")
        .tokens()
        .list(&ListTokens::new())
        .await
        .unwrap_err();
    assert!(err.is_unauthorized() && !err.is_token_expired());
    assert!(admin.rate_limit().is_some_and(|r| r.limit == 1000));
}

#[tokio::test]
async fn rate_limited_calls_report_the_window() {
    let server = TestServer::with_rate_limit(3).await;
    let client = tokctl_sdk::Client::builder()
        .base_url(&server.base_url)
        .api_key(&server.admin_key)
        .retry_policy(RetryPolicy::default().max_rate_limit_wait(Duration::ZERO))
        .build()
        .unwrap();
    let mut outcomes = Vec::new();
    for _ in 0..8 {
        outcomes.push(client.scopes().list().await);
    }
    let limited: Vec<_> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    // At most two windows: at most six accepted.
    assert!(limited.len() >= 2, "{} refused", limited.len());
    for err in limited {
        assert!(err.is_rate_limited());
        let window = err.rate_limit().expect("headers on 429");
        assert_eq!((window.limit, window.remaining), (3, 0));
        assert!(window.reset > Utc::now() - chrono::Duration::seconds(1));
    }
}

#[tokio::test]
async fn a_rotation_with_an_overlap_leaves_the_old_secret_working_until_it_ends() {
    let server = TestServer::start().await;
    let admin = server.admin();
    let created = admin
        .tokens()
        .create(&CreateToken::new("fleet").scope("tokens:read"))
        .await
        .unwrap();
    let old = server.client(created.secret.as_ref().unwrap().expose());
    let rotated = admin
        .tokens()
        .rotate_with_overlap(&created.id, Duration::from_secs(600))
        .await
        .unwrap();
    let until = rotated
        .previous_secret_expires_at
        .expect("the overlap's end");
    let left = until - Utc::now();
    assert!(left > chrono::Duration::minutes(9) && left <= chrono::Duration::minutes(10));
    assert_eq!(old.tokens().get(&created.id).await.unwrap().id, created.id);
    // A second rotation, without an overlap, ends the first one at once.
    admin.tokens().rotate(&created.id).await.unwrap();
    let err = old.tokens().get(&created.id).await.unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    let err = admin
        .tokens()
        .rotate_with_overlap(&created.id, Duration::from_secs(25 * 3600))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(422));
}
