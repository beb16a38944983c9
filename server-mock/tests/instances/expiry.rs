//! Each `token.expiring` notice fires once, whichever instance scans.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::hooks::{
    attempts, eventually, fast_retries, free_addr, next, receiver, subscribe,
};
use crate::common::{self, Server, id, instances};

instances! {
    #[tokio::test]
    async fn each_expiry_notice_fires_once_across_instances() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let options = || {
            let mut options = fast_retries();
            options.args.extend(["--expiring-notice".into(), "3s".into()]);
            options
        };
        let a = Server::start_with(options());
        let b = a.another(options());
        let endpoint = subscribe(&a, &format!("http://{addr}/hook"), &["token.expiring"]).await;
        // Notices fire 3 s before expiry and only for tokens made before that moment: 10 s
        // leaves 7 s to make the ten, however slow the machine.
        let expiry = chrono::Utc::now() + chrono::Duration::seconds(10);
        let expires = expiry.to_rfc3339();
        let mut tokens = Vec::new();
        for n in 0..10 {
            let server = if n % 2 == 0 { &a } else { &b };
            let body = json!({"name": format!("short-{n}"), "scopes": ["tokens:read"], "expires_at": expires});
            let created: Value = server
                .post("/v1/tokens", &a.admin_key, &body)
                .await
                .json()
                .await
                .unwrap();
            tokens.push(id(&created));
        }
        // Both instances scan every half second; each notice is written and sent once.
        let mut notices: HashMap<String, usize> = HashMap::new();
        let count = |notices: &mut HashMap<String, usize>, received: &common::hooks::Received| {
            let body: Value = serde_json::from_slice(&received.body).unwrap();
            assert_eq!(body["type"], "token.expiring");
            *notices.entry(body["data"]["id"].as_str().unwrap().into()).or_default() += 1;
        };
        while notices.len() < tokens.len() {
            count(&mut notices, &next(&mut inbox).await);
        }

        // A notice can be written until its token expires: wait until both instances say every
        // token has.
        for server in [&a, &b] {
            eventually("every token to be expired", || async {
                for token in &tokens {
                    let shown: Value = server
                        .get(&format!("/v1/tokens/{token}"), &a.admin_key)
                        .await
                        .json()
                        .await
                        .unwrap();
                    if shown["status"] != "expired" {
                        return None;
                    }
                }
                Some(())
            })
            .await;
        }
        // Then a scan that began after that, seen by its notice: one more token, made now,
        // whose notice is due in 5 s. Scans take turns across instances (one holds the scan
        // lock for its whole transaction), so one that read the clock before the expiry has
        // written all it would.
        let late = json!({"name": "late", "scopes": ["tokens:read"],
                          "expires_at": (chrono::Utc::now() + chrono::Duration::seconds(8)).to_rfc3339()});
        let late: Value = b
            .post("/v1/tokens", &a.admin_key, &late)
            .await
            .json()
            .await
            .unwrap();
        let late = id(&late);
        while !notices.contains_key(&late) {
            count(&mut notices, &next(&mut inbox).await);
        }
        // Every delivery recorded, then whatever else arrived counted: nothing came twice.
        let endpoint_id = endpoint["id"].as_str().unwrap();
        eventually("every notice's attempt to be recorded", || async {
            let listed = attempts(&b, endpoint_id).await;
            (listed["meta"]["total"].as_u64() >= Some(11)).then_some(())
        })
        .await;
        while let Ok(received) = inbox.try_recv() {
            count(&mut notices, &received);
        }
        assert_eq!(attempts(&a, endpoint_id).await["meta"]["total"], 11);
        let written = common::backend::count_at(
            a.database.as_deref().unwrap(),
            "SELECT COUNT(*) FROM webhook_events WHERE type = 'token.expiring'",
        );
        assert_eq!(written, 11, "one event per token and notice");
        assert!(notices.values().all(|n| *n == 1), "{notices:?}");
        assert_eq!(notices.len(), 11, "{notices:?}");
        assert!(tokens.iter().all(|t| notices.contains_key(t)));
    }
}
