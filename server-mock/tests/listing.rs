//! Listing: newest first, page bounds, and the status filter.

mod common;

use common::both;

use common::{Server, assert_error, id, secret};
use serde_json::{Value, json};

both! {
    #[tokio::test]
    async fn pagination_is_newest_first_with_bounds() {
        let server = Server::start();
        let mut ids = Vec::new();
        for n in 0..30 {
            ids.push(id(&server
                .create_token(&format!("t{n:02}"), &["tokens:read"])
                .await));
        }
        ids.reverse();
        let key = &server.admin_key;

        let first: Value = server.get("/v1/tokens", key).await.json().await.unwrap();
        assert_eq!(
            first["meta"],
            json!({"page": 1, "per_page": 25, "total": 30})
        );
        let second: Value = server
            .get("/v1/tokens?page=2", key)
            .await
            .json()
            .await
            .unwrap();
        let walked: Vec<String> = first["data"]
            .as_array()
            .unwrap()
            .iter()
            .chain(second["data"].as_array().unwrap())
            .map(id)
            .collect();
        assert_eq!(walked, ids, "every token once, newest first");
        assert!(
            first["data"][0].get("token").is_none(),
            "lists never show secrets"
        );

        let all: Value = server
            .get("/v1/tokens?per_page=100", key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(all["data"].as_array().unwrap().len(), 30);
        let small: Value = server
            .get("/v1/tokens?per_page=1&page=30", key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(small["data"][0]["id"], ids[29].as_str());
        let beyond: Value = server
            .get("/v1/tokens?page=99999999", key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(beyond["data"], json!([]));
        assert_eq!(beyond["meta"]["total"], 30);

        for query in [
            "page=0",
            "page=-1",
            "per_page=0",
            "per_page=101",
            "page=99999999999999999999999",
            "status=paused",
        ] {
            let response = server.get(&format!("/v1/tokens?{query}"), key).await;
            assert_error(response, 422, "unprocessable_entity").await;
        }
        for query in ["page=abc", "per_page=1.5", "page="] {
            let response = server.get(&format!("/v1/tokens?{query}"), key).await;
            assert_error(response, 400, "bad_request").await;
        }
    }
}

both! {
    #[tokio::test]
    async fn status_filter_selects_each_state() {
        let server = Server::start();
        let key = &server.admin_key;
        let active = server.create_token("a", &["tokens:read"]).await;
        let revoked = server.create_token("r", &["tokens:read"]).await;
        server
            .delete(&format!("/v1/tokens/{}", id(&revoked)), key)
            .await;
        for (status, expected) in [("active", id(&active)), ("revoked", id(&revoked))] {
            let page: Value = server
                .get(&format!("/v1/tokens?status={status}"), key)
                .await
                .json()
                .await
                .unwrap();
            assert_eq!(page["meta"]["total"], 1, "{status}");
            assert_eq!(page["data"][0]["id"], expected.as_str());
            assert_eq!(page["data"][0]["status"], status);
        }
        let _ = secret(&active);
    }
}
