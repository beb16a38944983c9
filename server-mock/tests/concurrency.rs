//! Exactness under concurrency: the rate limit, unique names, and rotation.

mod common;

use common::both;

use std::collections::{BTreeMap, HashSet};

use common::{Options, Server, assert_error, id, secret};
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

const LIMIT: u32 = 20;
const CLIENTS: usize = 16;

fn header(response: &reqwest::Response, name: &str) -> i64 {
    response.headers()[name].to_str().unwrap().parse().unwrap()
}

/// What one reply said about the rate limit.
struct Reply {
    reset: i64,
    status: u16,
    remaining: i64,
    retry_after: Option<String>,
}

/// Sends `total` GETs from 16 concurrent clients.
async fn burst(server: &Server, key: &str, total: usize) -> Vec<Reply> {
    let per_client = total / CLIENTS;
    let clients = (0..CLIENTS).map(|_| async {
        let mut seen = Vec::new();
        for _ in 0..per_client {
            let response = server.get("/v1/tokens", key).await;
            assert_eq!(header(&response, "x-ratelimit-limit"), i64::from(LIMIT));
            seen.push(Reply {
                reset: header(&response, "x-ratelimit-reset"),
                status: response.status().as_u16(),
                remaining: header(&response, "x-ratelimit-remaining"),
                retry_after: response
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_string()),
            });
        }
        seen
    });
    join_all(clients).await.into_iter().flatten().collect()
}

/// Per window: never more accepted than the limit, each accepted request saw a distinct
/// remaining count, and every refusal is a 429 with Retry-After and remaining 0.
fn check_windows(replies: &[Reply]) -> usize {
    let mut windows: BTreeMap<i64, Vec<&Reply>> = BTreeMap::new();
    for reply in replies {
        windows.entry(reply.reset).or_default().push(reply);
    }
    assert!(
        windows.len() <= 2,
        "a test this short spans at most two windows"
    );
    let mut refused = 0;
    for (reset, replies) in windows {
        let accepted: Vec<i64> = replies
            .iter()
            .filter(|r| r.status == 200)
            .map(|r| r.remaining)
            .collect();
        assert!(
            accepted.len() <= LIMIT as usize,
            "window {reset}: {} accepted",
            accepted.len()
        );
        let distinct: HashSet<i64> = accepted.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            accepted.len(),
            "remaining repeated in window {reset}"
        );
        assert!(accepted.iter().all(|r| (0..LIMIT as i64).contains(r)));
        if replies.iter().any(|r| r.status != 200) {
            // A window that refused anything had accepted exactly the limit first.
            assert_eq!(accepted.len(), LIMIT as usize, "window {reset}");
        }
        for reply in replies.iter().filter(|r| r.status != 200) {
            assert_eq!(reply.status, 429);
            assert_eq!(reply.remaining, 0);
            let retry: i64 = reply
                .retry_after
                .as_deref()
                .expect("Retry-After on 429")
                .parse()
                .unwrap();
            assert!((1..=60).contains(&retry));
            refused += 1;
        }
    }
    refused
}

both! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_rate_limit_is_exact_under_16_concurrent_clients() {
        let server = Server::start_with(Options {
            rate_limit: Some(LIMIT),
            ..Default::default()
        });
        let total = 3 * LIMIT as usize + 4; // 64: at least LIMIT refusals even across a window edge
        let replies = burst(&server, &server.admin_key, total).await;
        assert_eq!(replies.len(), total);
        let refused = check_windows(&replies);
        assert!(refused >= LIMIT as usize, "only {refused} refused");

        // The 429 itself carries the error body (within two windows' worth of requests, one comes).
        for _ in 0..=2 * LIMIT {
            let response = server.get("/v1/tokens", &server.admin_key).await;
            if response.status() == StatusCode::TOO_MANY_REQUESTS {
                assert_error(response, 429, "rate_limited").await;
                return;
            }
        }
        panic!("no 429 after {} more requests", 2 * LIMIT + 1);
    }
}

both! {
    #[tokio::test]
    async fn a_request_refused_by_the_rate_limit_is_not_a_use_of_its_token() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let options = || Options {
            rate_limit: Some(LIMIT),
            ..Default::default()
        };
        let mut server = Server::start_in(&dir, options());
        let token = server.create_token("unused", &["tokens:read"]).await;
        let mut refused = false;
        for _ in 0..=2 * LIMIT {
            let response = server.get("/v1/tokens", &server.admin_key).await;
            if response.status() == StatusCode::TOO_MANY_REQUESTS {
                refused = true;
                break;
            }
        }
        assert!(refused, "the workspace's budget ran out");
        let response = server.get("/v1/tokens", &secret(&token)).await;
        if response.status() != StatusCode::TOO_MANY_REQUESTS {
            // A new window began in between; the token was used after all, nothing to check.
            assert_eq!(response.status(), StatusCode::OK);
            return;
        }
        // A first use is written at once, so a crash would not lose it; restart with fresh windows.
        server.crash();
        let server = Server::start_in(&dir, options());
        let shown: Value = server
            .get(&format!("/v1/tokens/{}", id(&token)), &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(shown["last_used_at"], Value::Null, "{shown}");
    }
}

both! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn unauthenticated_requests_are_limited_per_address_apart_from_the_workspace() {
        let server = Server::start_with(Options {
            rate_limit: Some(LIMIT),
            ..Default::default()
        });
        let replies = burst(&server, "tka_not_a_real_key", 3 * LIMIT as usize + 4).await;
        let refused = replies.iter().filter(|r| r.status == 429).count();
        let denied = replies.iter().filter(|r| r.status == 401).count();
        assert_eq!(refused + denied, replies.len());
        assert!(refused >= LIMIT as usize);
        assert!(denied <= 2 * LIMIT as usize);
        // The workspace's own budget is untouched by the anonymous flood.
        let response = server.get("/v1/tokens", &server.admin_key).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}

both! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_creates_of_one_name_yield_exactly_one_201() {
        let server = Server::start();
        let body = json!({"name": "race", "scopes": ["tokens:read"]});
        let attempts = (0..16).map(|_| server.post("/v1/tokens", &server.admin_key, &body));
        let statuses: Vec<u16> = join_all(attempts)
            .await
            .iter()
            .map(|r| r.status().as_u16())
            .collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == 201).count(),
            1,
            "{statuses:?}"
        );
        assert_eq!(
            statuses.iter().filter(|s| **s == 409).count(),
            15,
            "{statuses:?}"
        );
        let listed: Value = server
            .get("/v1/tokens", &server.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(listed["meta"]["total"], 1);
    }
}

both! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn fifty_concurrent_rotations_leave_exactly_one_valid_secret() {
        let server = Server::start();
        let created = server.create_token("spin", &["tokens:read"]).await;
        let path = format!("/v1/tokens/{}/rotate", id(&created));
        let empty = json!({});
        let rotations = (0..50).map(|_| server.post(&path, &server.admin_key, &empty));
        let mut secrets = vec![secret(&created)];
        for response in join_all(rotations).await {
            assert_eq!(response.status(), StatusCode::OK);
            secrets.push(secret(&response.json::<Value>().await.unwrap()));
        }
        assert_eq!(
            secrets.iter().collect::<HashSet<_>>().len(),
            51,
            "every secret is new"
        );
        let checks = secrets.iter().map(|s| server.get("/v1/tokens", s));
        let statuses: Vec<u16> = join_all(checks)
            .await
            .iter()
            .map(|r| r.status().as_u16())
            .collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "{statuses:?}"
        );
        assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 50);
    }
}
