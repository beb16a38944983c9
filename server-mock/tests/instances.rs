//! Several instances on one PostgreSQL database, as behind a load balancer: every rule of the
//! contract holds across them as within one. Each test runs real server processes on one
//! database of its own (PostgreSQL only: SQLite serves one process). Expiry notices across
//! instances are in `instances/expiry.rs`.

mod common;
#[path = "instances/expiry.rs"]
mod expiry;

use std::collections::HashMap;
use std::time::Duration;

use common::hooks::{
    attempts, eventually, fast_retries, free_addr, holding_receiver, next, receiver, send_test,
    subscribe, verify,
};
use common::{Options, Server, chat_json, id, instances, secret};
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

fn limited(rate_limit: u32) -> Options<'static> {
    Options {
        rate_limit: Some(rate_limit),
        ..Default::default()
    }
}

instances! {
    #[tokio::test]
    async fn a_secret_rotated_or_revoked_on_one_instance_is_refused_by_the_other_at_once() {
        let a = Server::start_with(limited(1_000_000));
        let b = a.another(limited(1_000_000));
        let key = &a.admin_key;
        for round in 0..200 {
            // Each way round in turn: one instance changes, the other must refuse at once.
            let (changer, other) = if round % 2 == 0 { (&a, &b) } else { (&b, &a) };
            let token = changer
                .create_token(&format!("t{round}"), &["tokens:read", "tokens:rotate"])
                .await;
            let path = format!("/v1/tokens/{}", id(&token));
            let old = secret(&token);
            // The other instance has the secret and the token in its cache.
            assert_eq!(other.get("/v1/tokens", &old).await.status(), StatusCode::OK);
            assert_eq!(other.get(&path, key).await.status(), StatusCode::OK);

            let rotated: Value = changer
                .post(&format!("{path}/rotate"), key, &json!({}))
                .await
                .json()
                .await
                .unwrap();
            let new = secret(&rotated);
            assert_eq!(
                other.get("/v1/tokens", &old).await.status(),
                StatusCode::UNAUTHORIZED,
                "round {round}: the old secret still worked on the other instance"
            );
            assert_eq!(other.get("/v1/tokens", &new).await.status(), StatusCode::OK);

            let revoked = changer.delete(&path, key).await;
            assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
            assert_eq!(
                other.get("/v1/tokens", &new).await.status(),
                StatusCode::UNAUTHORIZED,
                "round {round}: a revoked secret still worked on the other instance"
            );
            let shown: Value = other.get(&path, key).await.json().await.unwrap();
            assert_eq!(shown["status"], "revoked", "round {round}");
        }
    }
}

/// Status and rate-limit headers of one answer.
#[derive(Debug)]
struct Reply {
    status: u16,
    limit: i64,
    remaining: i64,
    reset: i64,
}

async fn reply(response: reqwest::Response) -> Reply {
    let header =
        |name: &str| -> i64 { response.headers()[name].to_str().unwrap().parse().unwrap() };
    Reply {
        status: response.status().as_u16(),
        limit: header("x-ratelimit-limit"),
        remaining: header("x-ratelimit-remaining"),
        reset: header("x-ratelimit-reset"),
    }
}

/// Waits, if needed, until at least 10 s of the current one-minute window remain, so that a
/// burst of requests falls in one window.
async fn early_in_a_window() {
    let into = chrono::Utc::now().timestamp().rem_euclid(60);
    if into > 50 {
        tokio::time::sleep(Duration::from_secs((61 - into) as u64)).await;
    }
}

instances! {
    #[tokio::test]
    async fn the_rate_limit_counts_both_instances_together() {
        let a = Server::start_with(limited(20));
        let b = a.another(limited(20));
        early_in_a_window().await;
        let mut replies = Vec::new();
        for n in 0..40 {
            let server = if n % 2 == 0 { &a } else { &b };
            replies.push(reply(server.get("/v1/tokens", &a.admin_key).await).await);
        }
        let reset = replies[0].reset;
        assert!(replies.iter().all(|r| r.reset == reset && r.limit == 20), "{replies:?}");
        let accepted: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
        assert_eq!(accepted.len(), 20, "{replies:?}");
        // Both instances count down one window together: 19, 18, ... 0, alternating.
        let remaining: Vec<i64> = accepted.iter().map(|r| r.remaining).collect();
        assert_eq!(remaining, (0..20).rev().collect::<Vec<i64>>(), "{replies:?}");
        assert!(replies[20..].iter().all(|r| r.status == 429 && r.remaining == 0), "{replies:?}");
    }
}

instances! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_requests_on_both_instances_never_pass_the_limit() {
        let a = Server::start_with(limited(20));
        let b = a.another(limited(20));
        early_in_a_window().await;
        let key = a.admin_key.as_str();
        let requests = (0..40).map(|n| {
            let server = if n % 2 == 0 { &a } else { &b };
            async move { reply(server.get("/v1/tokens", key).await).await }
        });
        let replies = join_all(requests).await;
        let mut remaining: Vec<i64> = replies
            .iter()
            .filter(|r| r.status == 200)
            .map(|r| r.remaining)
            .collect();
        remaining.sort();
        // Exactly 20 accepted, each with its own place in the window.
        assert_eq!(remaining, (0..20).collect::<Vec<i64>>(), "{replies:?}");
    }
}

instances! {
    #[tokio::test]
    async fn a_limit_changed_on_one_instance_shows_on_the_other_at_once() {
        // Each instance keeps a token's limit with the token in its cache; a change made
        // through one drops it from the other's before the other answers its next request.
        let a = Server::start_with(limited(1_000_000));
        let b = a.another(limited(1_000_000));
        let key = &a.admin_key;
        let token = a.create_token("limited", &["chat:write"]).await;
        let path = format!("/v1/tokens/{}", id(&token));
        async fn credit_limit(server: &Server, path: &str, key: &str) -> Option<Value> {
            let shown: Value = server.get(path, key).await.json().await.unwrap();
            shown.get("limits").map(|limits| limits["credit_limit"].clone())
        }
        for round in 0..20 {
            let (changer, other) = if round % 2 == 0 { (&a, &b) } else { (&b, &a) };
            // The other instance has the token, with its limit as it was, in its cache.
            assert_eq!(credit_limit(other, &path, key).await, (round > 0).then(|| json!(round)),
                       "round {round}: before the change");
            let changed = changer
                .request(reqwest::Method::PATCH, &path, key)
                .json(&json!({"credit_limit": round + 1}))
                .send()
                .await
                .unwrap();
            assert_eq!(changed.status(), StatusCode::OK);
            assert_eq!(credit_limit(other, &path, key).await, Some(json!(round + 1)),
                       "round {round}: the other instance's read");
        }
    }
}

instances! {
    #[tokio::test]
    async fn a_first_limit_set_on_one_instance_holds_the_other_from_its_answer_on() {
        // After the PATCH's answer through A, no request of the token is admitted by B without
        // a reservation: neither the next one nor one B authenticated (with the credential
        // cached as unlimited) before the PATCH and admits after it. A nano-credit fits no
        // request's worst case, so a reservation shows as 402.
        let a = Server::start_with(limited(1_000_000));
        let b = a.another(limited(1_000_000));
        let token = a.create_token("agent", &["chat:write"]).await;
        let path = format!("/v1/tokens/{}", id(&token));
        let ask = json!({"model": "auto", "max_tokens": 5,
                         "messages": [{"role": "user", "content": "hello"}]});
        let change = |limit: Value| {
            a.request(reqwest::Method::PATCH, &path, &a.admin_key)
                .json(&json!({"credit_limit": limit}))
                .send()
        };
        for round in 0..10 {
            let before = b.post("/v1/chat/completions", &secret(&token), &ask).await;
            assert_eq!(before.status(), StatusCode::OK, "round {round}");
            let held = common::inflight::Held::send(&b, &secret(&token), &ask).await;
            assert_eq!(change(json!("0.000000001")).await.unwrap().status(), StatusCode::OK);
            let (status, answer) = held.finish().await;
            assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "round {round}, in flight: {answer}");
            let after = b.post("/v1/chat/completions", &secret(&token), &ask).await;
            assert_eq!(after.status(), StatusCode::PAYMENT_REQUIRED, "round {round}, next");
            assert_eq!(change(Value::Null).await.unwrap().status(), StatusCode::OK);
        }
    }
}

instances! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_name_is_unique_across_instances() {
        let a = Server::start_with(limited(1_000_000));
        let b = a.another(limited(1_000_000));
        for round in 0..10 {
            let body = json!({"name": format!("deploy-{round}"), "scopes": ["tokens:read"]});
            let creates = (0..8).map(|n| {
                let server = if n % 2 == 0 { &a } else { &b };
                server.post("/v1/tokens", &a.admin_key, &body)
            });
            let statuses: Vec<u16> = join_all(creates)
                .await
                .iter()
                .map(|r| r.status().as_u16())
                .collect();
            assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
            assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 7, "{statuses:?}");
        }
    }
}

instances! {
    #[tokio::test]
    async fn each_webhook_attempt_is_made_by_one_instance() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let a = Server::start_with(fast_retries());
        let b = a.another(fast_retries());
        let endpoint = subscribe(&a, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        let endpoint_id = endpoint["id"].as_str().unwrap();
        // Queued through both; both instances' workers claim from the one outbox.
        for n in 0..60 {
            send_test(if n % 2 == 0 { &a } else { &b }, endpoint_id).await;
        }
        let mut sent: HashMap<String, usize> = HashMap::new();
        while sent.len() < 60 {
            let received = next(&mut inbox).await;
            let event = received.headers["x-service-event-id"].to_str().unwrap().to_string();
            *sent.entry(event).or_default() += 1;
        }
        eventually("every attempt to be recorded", || async {
            let listed = attempts(&b, endpoint_id).await;
            (listed["meta"]["total"].as_u64() >= Some(60)).then_some(())
        })
        .await;
        let listed = attempts(&a, endpoint_id).await;
        assert_eq!(listed["meta"]["total"], 60, "one attempt per event");
        assert!(listed["data"].as_array().unwrap().iter().all(|t| t["attempt"] == 1));
        while let Ok(received) = inbox.try_recv() {
            let event = received.headers["x-service-event-id"].to_str().unwrap().to_string();
            *sent.entry(event).or_default() += 1;
        }
        let twice: Vec<_> = sent.iter().filter(|(_, n)| **n > 1).collect();
        assert!(twice.is_empty(), "sent more than once: {twice:?}");
    }
}

instances! {
    #[tokio::test]
    async fn an_instance_killed_mid_delivery_has_its_delivery_finished_by_the_other() {
        let addr = free_addr();
        let (mut held, _task) = holding_receiver(addr).await;
        let mut a = Server::start_with(fast_retries());
        let endpoint = subscribe(&a, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        let endpoint_id = endpoint["id"].as_str().unwrap();
        let event_id = send_test(&a, endpoint_id).await;
        // A is in the middle of the attempt (the receiver holds it) when it is killed.
        let first = tokio::time::timeout(Duration::from_secs(20), held.recv())
            .await
            .expect("A's attempt")
            .unwrap();
        let b = a.another(fast_retries());
        // B's worker is running (its presence lock is taken after its start-up release), so
        // only what B does while running can finish A's delivery.
        let url = a.database.clone().unwrap();
        eventually("B to be marked alive", || async {
            let alive = common::backend::count_at(
                &url,
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
                   AND classid = 1953459044 AND objsubid = 2
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            );
            (alive == 2).then_some(())
        })
        .await;
        a.crash();
        drop(first);

        // B takes the delivery over, without waiting for A's lease to run out.
        let second = tokio::time::timeout(Duration::from_secs(20), held.recv())
            .await
            .expect("B takes the delivery over within 20 s")
            .unwrap();
        let body = verify(endpoint["secret"].as_str().unwrap(), &second.received);
        assert_eq!(body["id"], event_id.as_str());
        second.answer.send(200).unwrap();
        let listed = eventually("B's attempt to be recorded", || async {
            let listed = attempts(&b, endpoint_id).await;
            (listed["meta"]["total"] == 1).then_some(listed)
        })
        .await;
        assert_eq!(listed["data"][0]["event_id"], event_id.as_str(), "{listed}");
        assert_eq!(listed["data"][0]["status_code"], 200, "{listed}");
    }
}

instances! {
    #[tokio::test]
    async fn usage_on_either_instance_shows_every_instances_completions() {
        let fast = || Options {
            args: vec!["--sim-token-delay-ms".into(), "0".into()],
            ..Default::default()
        };
        let a = Server::start_with(fast());
        let b = a.another(fast());
        let ask = json!({"model": "auto", "messages": [{"role": "user", "content": "hello there"}]});
        let mut requests = 0;
        for (server, times) in [(&a, 3), (&b, 2)] {
            for _ in 0..times {
                let (status, _) = chat_json(server, ask.clone()).await;
                assert_eq!(status, StatusCode::OK);
                requests += 1;
            }
        }
        let mut streamed = ask.clone();
        streamed["stream"] = json!(true);
        let stream = b
            .post("/v1/chat/completions", &b.admin_key, &streamed)
            .await
            .text()
            .await
            .unwrap();
        assert!(stream.trim_end().ends_with("data: [DONE]"));
        requests += 1;
        // At once, on both: each answer was in the ledger before it ended.
        let totals_a: Value = a.get("/v1/usage", &a.admin_key).await.json().await.unwrap();
        let totals_b: Value = b.get("/v1/usage", &b.admin_key).await.json().await.unwrap();
        assert_eq!(totals_a["totals"]["requests"], requests, "{totals_a}");
        assert_eq!(totals_a["totals"], totals_b["totals"]);
    }
}

instances! {
    #[tokio::test]
    async fn instances_share_the_webhook_key_and_one_with_another_key_refuses_to_start() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let mut a = Server::start_with(fast_retries());
        let b = a.another(fast_retries());
        let endpoint = subscribe(&a, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        // Only B is left: it opens the secret A sealed, and signs with it.
        assert!(a.stop());
        send_test(&b, endpoint["id"].as_str().unwrap()).await;
        let body = verify(endpoint["secret"].as_str().unwrap(), &next(&mut inbox).await);
        assert_eq!(body["type"], "webhook.test");

        let tmp = tempfile::tempdir().unwrap();
        let output = common::exit_of(
            std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"))
                .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
                .arg(tmp.path().join("data"))
                .args(["--database-url", b.database.as_deref().unwrap()])
                .arg("--webhook-key-file")
                .arg(tmp.path().join("other.key"))
                .env_remove("TOKCTL_DATABASE_URL"),
            Duration::from_secs(20),
        );
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("tokctl-server: the webhook key in "), "{stderr}");
        assert!(last.contains("other.key") && last.contains("--webhook-key-file"), "{stderr}");
        assert!(!String::from_utf8_lossy(&output.stdout).contains("listening"));
    }
}

instances! {
    #[tokio::test]
    async fn instances_starting_together_on_an_empty_database_bootstrap_once() {
        let url = common::backend::new_database();
        let keys = tempfile::tempdir().unwrap();
        let key_file = keys.path().join("webhook.key").display().to_string();
        let servers: Vec<Server> = std::thread::scope(|scope| {
            let starting: Vec<_> = (0..3)
                .map(|_| {
                    let (url, key_file) = (url.clone(), key_file.clone());
                    scope.spawn(move || {
                        Server::start_with(Options {
                            database: Some(url),
                            args: vec!["--webhook-key-file".into(), key_file],
                            ..Default::default()
                        })
                    })
                })
                .collect();
            starting.into_iter().map(|s| s.join().unwrap()).collect()
        });
        let creators: Vec<&Server> = servers.iter().filter(|s| !s.admin_key.is_empty()).collect();
        assert_eq!(creators.len(), 1, "exactly one instance wrote admin.key");
        let printed = servers
            .iter()
            .filter(|s| s.stdout().contains("Admin API key"))
            .count();
        assert_eq!(printed, 1, "exactly one instance printed the key");
        let key = &creators[0].admin_key;
        for server in &servers {
            let listed: Value = server.get("/v1/tokens", key).await.json().await.unwrap();
            assert_eq!(listed["meta"]["total"], 0, "{listed}");
        }
        let count = |sql: &str| common::backend::count_at(&url, sql);
        assert_eq!(count("SELECT COUNT(*) FROM workspaces"), 1);
        assert_eq!(count("SELECT COUNT(*) FROM api_keys"), 1);
    }
}
