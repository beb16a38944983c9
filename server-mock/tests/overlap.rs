//! Rotation with an opt-in overlap (docs/api.md, "Tokens"): both secrets work until the overlap
//! ends, on every instance; the old one is refused from that instant (crossed with the test
//! clock, no waiting); a second rotation ends an earlier overlap at once; without a body,
//! rotation is as the spec says.

mod common;

use common::{Options, Server, assert_error, both, id, secret};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Whether `secret` authenticates on `server` (reading its own token).
async fn works(server: &Server, token_id: &str, secret: &str) -> bool {
    let response = server.get(&format!("/v1/tokens/{token_id}"), secret).await;
    match response.status() {
        StatusCode::OK => true,
        StatusCode::UNAUTHORIZED => false,
        other => panic!("unexpected {other}"),
    }
}

async fn rotate(server: &Server, token_id: &str, body: Option<Value>) -> reqwest::Response {
    let request = server.request(
        reqwest::Method::POST,
        &format!("/v1/tokens/{token_id}/rotate"),
        &server.admin_key,
    );
    match body {
        Some(body) => request.json(&body),
        None => request,
    }
    .send()
    .await
    .unwrap()
}

/// The server and, on PostgreSQL, a second instance beside it.
fn instances(server: &Server) -> Option<Server> {
    server
        .database
        .as_ref()
        .map(|_| server.another(Options::default()))
}

both! {
    #[tokio::test]
    async fn both_secrets_work_during_the_overlap_and_a_second_rotation_ends_it() {
        let server = Server::start();
        let second = instances(&server);
        let all: Vec<&Server> = std::iter::once(&server).chain(second.as_ref()).collect();
        let token = server.create_token("fleet", &["tokens:read"]).await;
        let (token_id, first) = (id(&token), secret(&token));

        let response = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": "10m"}))).await;
        assert_eq!(response.status(), StatusCode::OK);
        let rotated: Value = response.json().await.unwrap();
        let second_secret = secret(&rotated);
        let until: chrono::DateTime<chrono::Utc> =
            rotated["previous_secret_expires_at"].as_str().unwrap().parse().unwrap();
        let left = until - chrono::Utc::now();
        assert!(left > chrono::Duration::minutes(9) && left <= chrono::Duration::minutes(10), "{left}");
        for instance in &all {
            assert!(works(instance, &token_id, &first).await, "the old secret, during the overlap");
            assert!(works(instance, &token_id, &second_secret).await);
            let shown: Value = instance.get(&format!("/v1/tokens/{token_id}"), &second_secret).await.json().await.unwrap();
            assert_eq!(shown["previous_secret_expires_at"], rotated["previous_secret_expires_at"]);
        }
        let audit: Value = server
            .get(&format!("/v1/audit?token_id={token_id}&action=token.rotated"), &server.admin_key)
            .await.json().await.unwrap();
        assert_eq!(audit["data"][0]["details"]["previous_secret_expires_at"], rotated["previous_secret_expires_at"]);

        // A second rotation with its own overlap: the secret it replaces works on, the first
        // one stops at once: never more than two live secrets.
        let rotated: Value = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": "1h"})))
            .await.json().await.unwrap();
        let third = secret(&rotated);
        for instance in &all {
            assert!(!works(instance, &token_id, &first).await, "the first secret, after a second rotation");
            assert!(works(instance, &token_id, &second_secret).await);
            assert!(works(instance, &token_id, &third).await);
        }
        // A rotation without a body is the spec's: the replaced secret stops at once, and so
        // does any overlap before it.
        let rotated: Value = rotate(&server, &token_id, None).await.json().await.unwrap();
        assert!(rotated.get("previous_secret_expires_at").is_none(), "{rotated}");
        let fourth = secret(&rotated);
        for instance in &all {
            assert!(!works(instance, &token_id, &second_secret).await);
            assert!(!works(instance, &token_id, &third).await);
            assert!(works(instance, &token_id, &fourth).await);
        }
        // Revoking ends every secret.
        let rotated: Value = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": "5m"})))
            .await.json().await.unwrap();
        assert!(works(&server, &token_id, &fourth).await);
        server.delete(&format!("/v1/tokens/{token_id}"), &server.admin_key).await;
        for instance in &all {
            assert!(!works(instance, &token_id, &fourth).await);
            assert!(!works(instance, &token_id, &secret(&rotated)).await);
        }
    }
}

both! {
    #[tokio::test]
    async fn overlaps_longer_than_a_day_or_not_durations_are_refused() {
        let server = Server::start();
        let token = server.create_token("ci", &["tokens:read"]).await;
        let token_id = id(&token);
        for bad in [json!("25h"), json!("soon"), json!(600), json!(["10m"])] {
            let response = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": bad}))).await;
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(message.contains("previous_secret_expires_in"), "{message}");
        }
        assert!(works(&server, &token_id, &secret(&token)).await, "a refused rotation changes nothing");
        let response = server
            .request(reqwest::Method::POST, &format!("/v1/tokens/{token_id}/rotate"), &server.admin_key)
            .header("content-type", "application/json")
            .body("{\"previous_secret_expires_in\":")
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
        // `0` is no overlap.
        let rotated: Value = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": "0"})))
            .await.json().await.unwrap();
        assert!(!works(&server, &token_id, &secret(&token)).await);
        assert!(works(&server, &token_id, &secret(&rotated)).await);
    }
}

both! {
    #[tokio::test]
    async fn the_old_secret_is_refused_from_the_instant_the_overlap_ends_on_every_instance() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let mut server = Server::start_in(&dir, Options::default());
        let token = server.create_token("fleet", &["tokens:read"]).await;
        let token_id = id(&token);
        let rotated: Value = rotate(&server, &token_id, Some(json!({"previous_secret_expires_in": "1h"})))
            .await.json().await.unwrap();
        let (old, new) = (secret(&token), secret(&rotated));
        let until: chrono::DateTime<chrono::Utc> =
            rotated["previous_secret_expires_at"].as_str().unwrap().parse().unwrap();
        assert!(server.stop());

        // The instances' clocks 20 s before the end, then at the end itself.
        let at = |offset: chrono::Duration| -> &'static str {
            Box::leak((until + offset).to_rfc3339_opts(chrono::SecondsFormat::Micros, true).into_boxed_str())
        };
        for (clock, old_works) in [(at(chrono::Duration::seconds(-20)), true), (at(chrono::Duration::zero()), false)] {
            let options = || Options { env: vec![("TOKCTL_TEST_CLOCK", clock)], ..Default::default() };
            let mut first = Server::start_in(&dir, options());
            let second = first.database.as_ref().map(|_| first.another(options()));
            for instance in std::iter::once(&first).chain(second.as_ref()) {
                let observed = works(instance, &token_id, &old).await;
                eprintln!("clock {clock} (overlap ends {until}): old secret {} on {}", if observed { "works" } else { "refused" }, instance.base);
                assert_eq!(observed, old_works, "at {clock}");
                assert!(works(instance, &token_id, &new).await);
                let shown: Value = instance.get(&format!("/v1/tokens/{token_id}"), &new).await.json().await.unwrap();
                assert_eq!(shown.get("previous_secret_expires_at").is_some(), old_works, "{shown}");
            }
            drop(second);
            assert!(first.stop());
        }
    }
}
