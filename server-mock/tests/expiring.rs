//! `token.expiring`: both offsets, never before a token's creation, once per token and
//! offset, and caught up once after downtime.

mod common;

use common::both;

use common::hooks::{
    attempts, eventually, fast_retries, free_addr, next, receiver, subscribe, verify,
};
use common::{Server, id};
use reqwest::StatusCode;
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn expiring_notices_fire_once_per_offset_and_only_after_creation() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let mut options = fast_retries();
        options
            .args
            .extend(["--expiring-notice".into(), "3s,1s".into()]);
        let server = Server::start_with(options);
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.expiring"]).await;
        let create = |name: &'static str, seconds: i64| {
            let expires = (chrono::Utc::now() + chrono::Duration::seconds(seconds)).to_rfc3339();
            let server = &server;
            async move {
                let response = server
                    .post(
                        "/v1/tokens",
                        &server.admin_key,
                        &json!({"name": name, "scopes": ["tokens:read"], "expires_at": expires}),
                    )
                    .await;
                assert_eq!(response.status(), StatusCode::CREATED);
                response.json::<Value>().await.unwrap()
            }
        };
        let long = create("long", 5).await;
        let short = create("short", 2).await;
        let revoked = create("revoked", 5).await;
        server
            .delete(&format!("/v1/tokens/{}", id(&revoked)), &server.admin_key)
            .await;

        // long: 3 s and 1 s before expiry; short: only 1 s (its 3 s moment came before it existed).
        let mut seen = Vec::new();
        while seen.len() < 3 {
            let body = verify(
                endpoint["secret"].as_str().unwrap(),
                &next(&mut inbox).await,
            );
            assert_eq!(body["type"], "token.expiring");
            let data = &body["data"];
            assert!(data["expires_at"].is_string() && data["name"].is_string());
            seen.push((
                data["id"].as_str().unwrap().to_string(),
                data["notice"].as_str().unwrap().to_string(),
            ));
        }
        seen.sort();
        let mut expected = vec![
            (id(&long), "1s".to_string()),
            (id(&long), "3s".to_string()),
            (id(&short), "1s".to_string()),
        ];
        expected.sort();
        assert_eq!(seen, expected);
        assert!(
            inbox.try_recv().is_err(),
            "nothing for the revoked token, nothing twice"
        );
    }
}

both! {
    #[tokio::test]
    async fn a_notice_missed_while_down_fires_once_on_restart() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let options = || {
            let mut options = fast_retries();
            options
                .args
                .extend(["--expiring-notice".into(), "1h".into()]);
            options
        };
        let mut server = Server::start_in(&dir, options());
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.expiring"]).await;
        let expires = (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339();
        let token: Value = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "later", "scopes": ["tokens:read"], "expires_at": expires}),
            )
            .await
            .json()
            .await
            .unwrap();
        assert!(server.stop());

        // While the server is down, its 1 h notice moment passes.
        move_notice_into_the_past(&dir, &id(&token));

        let mut server = Server::start_in(&dir, options());
        let body = verify(
            endpoint["secret"].as_str().unwrap(),
            &next(&mut inbox).await,
        );
        assert_eq!(
            (body["data"]["id"].as_str(), body["data"]["notice"].as_str()),
            (Some(id(&token).as_str()), Some("1h"))
        );
        // Delivered and recorded, so the next start has nothing of it left to resend.
        let endpoint_id = endpoint["id"].as_str().unwrap();
        eventually("the notice's attempt to be recorded", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["meta"]["total"] == 1).then_some(())
        })
        .await;
        // A marker whose notice moment will also have passed before the next start.
        let marker: Value = server
            .post(
                "/v1/tokens",
                &server.admin_key,
                &json!({"name": "marker", "scopes": ["tokens:read"], "expires_at": expires}),
            )
            .await
            .json()
            .await
            .unwrap();
        assert!(server.stop());
        move_notice_into_the_past(&dir, &id(&marker));

        // Another restart sends the marker's notice and nothing again for the first token: the
        // scan that finds the marker would find a repeat in the same pass (one transaction), so
        // once the marker's notice is in, the outbox holds everything that scan wrote.
        let _server = Server::start_in(&dir, options());
        let body = verify(
            endpoint["secret"].as_str().unwrap(),
            &next(&mut inbox).await,
        );
        assert_eq!(body["data"]["id"], id(&marker).as_str(), "{body}");
        let notices = |token_id: String| {
            common::backend::one::<i64>(
                &dir,
                (
                    "SELECT COUNT(*) FROM webhook_events
                     WHERE type = 'token.expiring' AND json_extract(body, '$.data.id') = ?1",
                    &[&token_id],
                ),
                (
                    "SELECT COUNT(*) FROM webhook_events
                     WHERE type = 'token.expiring' AND (body::jsonb)->'data'->>'id' = $1",
                    &[&token_id],
                ),
            )
        };
        assert_eq!(notices(id(&token)), 1, "one notice for the first token");
        assert_eq!(notices(id(&marker)), 1);
        assert!(
            inbox.try_recv().is_err(),
            "nothing but the marker's notice after the restart"
        );
    }
}

/// With the server stopped: the token was made two hours ago and expires in thirty minutes,
/// so its 1 h notice moment passed while the server was down.
fn move_notice_into_the_past(dir: &std::path::Path, token_id: &str) {
    let now = chrono::Utc::now();
    let (made, expires) = (
        now - chrono::Duration::hours(2),
        now + chrono::Duration::minutes(30),
    );
    let (made_micros, expires_micros) = (made.timestamp_micros(), expires.timestamp_micros());
    let changed = common::backend::execute(
        dir,
        (
            "UPDATE tokens SET created_at = ?1, expires_at = ?2 WHERE id = ?3",
            &[&made_micros, &expires_micros, &token_id],
        ),
        (
            "UPDATE tokens SET created_at = $1, expires_at = $2 WHERE id = $3",
            &[&made, &expires, &token_id],
        ),
    );
    assert_eq!(changed, 1);
}
