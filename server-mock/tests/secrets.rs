//! Secrets never reach the database (SQLite's file, PostgreSQL's rows) or the logs, even at
//! trace level.

mod common;

use common::both;

use common::{Options, Server, id, secret};
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn the_database_and_trace_logs_never_hold_a_secret() {
        let mut server = Server::start_with(Options {
            env: vec![("RUST_LOG", "trace")],
            ..Default::default()
        });
        let mut secrets = vec![server.admin_key.clone()];
        let created = server
            .create_token("watched", &["tokens:read", "tokens:rotate"])
            .await;
        secrets.push(secret(&created));
        let rotated: Value = server
            .post(
                &format!("/v1/tokens/{}/rotate", id(&created)),
                &secret(&created),
                &json!({}),
            )
            .await
            .json()
            .await
            .unwrap();
        secrets.push(secret(&rotated));
        // Use every secret, including the stale one, so each passes through auth and the logs.
        for s in &secrets {
            server.get("/v1/tokens", s).await;
        }
        let reader = server.admin(&[
            "create-key",
            "--workspace",
            "default",
            "--scope",
            "tokens:read",
        ]);
        server.get("/v1/tokens", &reader).await;
        secrets.push(reader);
        assert!(server.stop());

        let logs = server.logs();
        assert!(
            logs.contains("TRACE") || logs.contains("DEBUG"),
            "trace logging was on"
        );
        for s in &secrets {
            assert!(!logs.contains(s.as_str()), "a secret reached the logs");
        }
        if let Some(stored) = common::backend::stored_text(&server.dir) {
            assert!(stored.contains("token.rotated"), "the database was read");
            for s in &secrets {
                let hex = hex::encode(s.as_bytes());
                assert!(!stored.contains(s.as_str()) && !stored.contains(&hex), "a secret is stored");
            }
        }
        let mut files = 0;
        for entry in std::fs::read_dir(&server.dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap() == "admin.key" {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            files += 1;
            for s in &secrets {
                let found = bytes.windows(s.len()).any(|w| w == s.as_bytes());
                assert!(!found, "a secret is stored in {}", path.display());
            }
        }
        assert!(files >= 1, "the data directory was checked");
    }
}
