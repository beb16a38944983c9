//! The README's curl walk-through, against the reference server embedded in-process on
//! 127.0.0.1:0 with a temporary data directory.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokctl_server::{ServeConfig, serve};
use tokio::sync::oneshot;

struct Running {
    base: String,
    admin_key: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), String>>,
    _dir: tempfile::TempDir,
}

async fn start() -> Running {
    let dir = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        listen: "127.0.0.1:0".into(),
        data_dir: dir.path().join("data"),
        rate_limit: 1000,
    };
    let (bound_tx, bound_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stop_rx.await;
        };
        serve(
            config,
            |addr| {
                let _ = bound_tx.send(addr);
            },
            shutdown,
        )
        .await
        .map_err(|e| e.to_string())
    });
    let addr = bound_rx.await.expect("server bound");
    let admin_key = std::fs::read_to_string(dir.path().join("data/admin.key")).unwrap();
    Running {
        base: format!("http://{addr}/v1"),
        admin_key: admin_key.trim().to_string(),
        stop: Some(stop_tx),
        task,
        _dir: dir,
    }
}

#[tokio::test]
async fn create_list_rotate_revoke() {
    let mut server = start().await;
    let http = reqwest::Client::new();
    let key = server.admin_key.clone();

    let created: Value = http
        .post(format!("{}/tokens", server.base))
        .bearer_auth(&key)
        .json(&json!({"name": "ci-deploy", "scopes": ["tokens:read", "tokens:rotate"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let old_secret = created["token"].as_str().unwrap().to_string();

    let listed: Value = http
        .get(format!("{}/tokens", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["id"], id.as_str());

    let rotated: Value = http
        .post(format!("{}/tokens/{id}/rotate", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let new_secret = rotated["token"].as_str().unwrap();
    let old = http
        .get(format!("{}/tokens/{id}", server.base))
        .bearer_auth(&old_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let new = http
        .get(format!("{}/tokens/{id}", server.base))
        .bearer_auth(new_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(new.status(), StatusCode::OK);

    let revoked = http
        .delete(format!("{}/tokens/{id}", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let after = http
        .get(format!("{}/tokens/{id}", server.base))
        .bearer_auth(new_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);

    // A graceful stop returns cleanly.
    server.stop.take().unwrap().send(()).unwrap();
    assert_eq!(server.task.await.unwrap(), Ok(()));
}
