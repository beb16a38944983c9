//! The README's curl walk-through, against the reference server embedded in-process on
//! 127.0.0.1:0 with a temporary data directory, over plain HTTP as curl would.

mod common;

use common::TestServer;

use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn create_list_rotate_revoke() {
    let server = TestServer::start().await;
    let http = reqwest::Client::new();
    let key = server.admin_key.clone();

    let created: Value = http
        .post(format!("{}/tokens", server.base_url))
        .bearer_auth(&key)
        .json(&json!({
            "name": "curl-demo",
            "scopes": ["tokens:read", "tokens:rotate"],
            "expires_at": (chrono::Utc::now() + chrono::Duration::days(365)).to_rfc3339(),
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let old_secret = created["token"].as_str().unwrap().to_string();

    let listed: Value = http
        .get(format!("{}/tokens", server.base_url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["id"], id.as_str());

    // As in the README, the token rotates itself with its own (old) secret.
    let rotated: Value = http
        .post(format!("{}/tokens/{id}/rotate", server.base_url))
        .bearer_auth(&old_secret)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let new_secret = rotated["token"].as_str().unwrap();
    let old = http
        .get(format!("{}/tokens", server.base_url))
        .bearer_auth(&old_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let new = http
        .get(format!("{}/tokens/{id}", server.base_url))
        .bearer_auth(new_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(new.status(), StatusCode::OK);

    let revoked = http
        .delete(format!("{}/tokens/{id}", server.base_url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let after = http
        .get(format!("{}/tokens/{id}", server.base_url))
        .bearer_auth(new_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
    let audit: Value = http
        .get(format!("{}/audit", server.base_url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let actions: Vec<&str> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    for action in [
        "token.created",
        "token.rotated",
        "token.revoked",
        "auth.denied",
    ] {
        assert!(actions.contains(&action), "{action} in {actions:?}");
    }

    // A graceful stop returns cleanly.
    assert_eq!(server.stop().await, Ok(()));
}
