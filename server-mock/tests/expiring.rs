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
            .extend(["--expiring-notice".into(), "6s,3s".into()]);
        let server = Server::start_with(options);
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.expiring"]).await;
        let secret = endpoint["secret"].as_str().unwrap();
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
        // short: its 6 s moment is before it exists, its 3 s one 2 s after (time enough to be
        // made on a loaded machine), with 3 s to be found in. long: 6 s before expiry (4 s from
        // now) and 3 s before (7 s from now).
        let short = create("short", 5).await;
        let long = create("long", 10).await;
        let revoked = create("revoked", 10).await;
        let gone = server
            .delete(&format!("/v1/tokens/{}", id(&revoked)), &server.admin_key)
            .await;
        assert_eq!(gone.status(), StatusCode::NO_CONTENT);

        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(notice(verify(secret, &next(&mut inbox).await)));
        }

        // A notice can fire until its token expires: wait until every token has, then for a
        // scan that began after that, seen by the notice of a token made now (due in 2 s).
        // Scans run one after another, so by then every earlier one has written all it would.
        for token in [&short, &long] {
            let path = format!("/v1/tokens/{}", id(token));
            eventually("the tokens to expire", || async {
                let shown: Value = server.get(&path, &server.admin_key).await.json().await.unwrap();
                (shown["status"] == "expired").then_some(())
            })
            .await;
        }
        let marker = create("marker", 5).await;
        while !seen.iter().any(|(token, _)| *token == id(&marker)) {
            seen.push(notice(verify(secret, &next(&mut inbox).await)));
        }
        let endpoint_id = endpoint["id"].as_str().unwrap();
        eventually("every notice's attempt to be recorded", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["meta"]["total"].as_u64() >= Some(4)).then_some(())
        })
        .await;
        while let Ok(received) = inbox.try_recv() {
            seen.push(notice(verify(secret, &received)));
        }

        // long: 6 s and 3 s before expiry; short and the marker: only 3 s (their 6 s moments
        // came before they existed); the revoked token: nothing. Nothing twice.
        seen.sort();
        let mut expected = vec![
            (id(&long), "3s".to_string()),
            (id(&long), "6s".to_string()),
            (id(&short), "3s".to_string()),
            (id(&marker), "3s".to_string()),
        ];
        expected.sort();
        assert_eq!(seen, expected);
        assert_eq!(attempts(&server, endpoint_id).await["meta"]["total"], 4);
        let written = common::backend::one::<i64>(
            &server.dir,
            ("SELECT COUNT(*) FROM webhook_events WHERE type = 'token.expiring'", &[]),
            ("SELECT COUNT(*) FROM webhook_events WHERE type = 'token.expiring'", &[]),
        );
        assert_eq!(written, 4, "one event per token and notice");
    }
}

/// A `token.expiring` event's token id and notice.
fn notice(body: Value) -> (String, String) {
    assert_eq!(body["type"], "token.expiring");
    let data = &body["data"];
    assert!(data["expires_at"].is_string() && data["name"].is_string());
    (
        data["id"].as_str().unwrap().to_string(),
        data["notice"].as_str().unwrap().to_string(),
    )
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
