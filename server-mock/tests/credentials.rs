//! `POST /v1/credentials/revoke`: whoever holds a leaked secret may revoke it without any
//! credential; the answer is 202 whatever was live; each revocation is audited in its own
//! workspace with actor `leak-report`; bad bodies are refused; reports have their own rate limit
//! per address.

mod common;

use std::collections::BTreeMap;

use common::{Options, Server, assert_error, both, id, postgres, secret};
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use tokctl_secrets::{Kind, seal};

const PATH: &str = "/v1/credentials/revoke";
/// The server's `LEAK_REPORT_RATE_LIMIT`.
const LIMIT: i64 = 30;

/// Reports `secrets` with no credential of our own.
async fn report(server: &Server, secrets: &[&str]) -> Response {
    let request = reqwest::Client::new().post(server.url(PATH));
    request
        .json(&json!({ "credentials": secrets }))
        .send()
        .await
        .unwrap()
}

/// Asserts a 202 `{"received": n}` and returns the request id it was answered under.
async fn accepted(response: Response, n: usize) -> String {
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.headers()["x-ratelimit-limit"], "30");
    let request_id = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({ "received": n }));
    request_id
}

/// The workspace's audit entries written by leak reports, newest first.
async fn leak_entries(server: &Server, key: &str) -> Vec<Value> {
    let audit = json_of(server.get("/v1/audit?per_page=100", key).await).await;
    let entries = audit["data"].as_array().unwrap().iter();
    entries
        .filter(|e| e["actor"] == "leak-report")
        .cloned()
        .collect()
}

async fn json_of(response: Response) -> Value {
    response.json().await.unwrap()
}

async fn status_of(server: &Server, token_id: &str) -> Value {
    let path = format!("/v1/tokens/{token_id}");
    json_of(server.get(&path, &server.admin_key).await).await["status"].clone()
}

both! {
    #[tokio::test]
    async fn a_reported_token_stops_working_at_once_and_the_revocation_is_audited() {
        let server = Server::start();
        let token = server.create_token("leaked", &["tokens:read"]).await;
        assert_eq!(server.get("/v1/tokens", &secret(&token)).await.status(), 200);

        let request_id = accepted(report(&server, &[&secret(&token)]).await, 1).await;
        assert_error(server.get("/v1/tokens", &secret(&token)).await, 401, "unauthorized").await;
        assert_eq!(status_of(&server, &id(&token)).await, "revoked");

        let entries = leak_entries(&server, &server.admin_key).await;
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert_eq!(entries[0]["action"], "token.revoked");
        assert_eq!(entries[0]["token_id"], id(&token).as_str());
        assert_eq!(entries[0]["request_id"], request_id.as_str());
        // The usual filter finds it beside revocations by DELETE.
        let path = format!("/v1/audit?action=token.revoked&token_id={}", id(&token));
        let filtered = json_of(server.get(&path, &server.admin_key).await).await;
        assert_eq!(filtered["meta"]["total"], 1, "{filtered}");
    }
}

both! {
    #[tokio::test]
    async fn a_reported_api_key_stops_working_and_its_dashboard_sessions_end() {
        let server = Server::start();
        let body = json!({"name": "laptop", "scopes": ["tokens:read"]});
        let key: Value = json_of(server.post("/v1/keys", &server.admin_key, &body).await).await;
        let key_secret = key["key"].as_str().unwrap().to_string();
        let client = reqwest::Client::new();
        let signed_in = client.post(server.url("/session")).json(&json!({ "key": key_secret }));
        let signed_in = signed_in.send().await.unwrap();
        assert_eq!(signed_in.status(), StatusCode::CREATED);
        let cookie = signed_in.headers()["set-cookie"].to_str().unwrap();
        let cookie = cookie.split(';').next().unwrap().to_string();
        let session = client.get(server.url("/session")).header("cookie", &cookie);
        assert_eq!(session.try_clone().unwrap().send().await.unwrap().status(), 200);

        let request_id = accepted(report(&server, &[&key_secret]).await, 1).await;
        assert_error(server.get("/v1/tokens", &key_secret).await, 401, "unauthorized").await;
        assert_eq!(session.send().await.unwrap().status(), 401);
        let entries = leak_entries(&server, &server.admin_key).await;
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert_eq!(entries[0]["action"], "key.revoked");
        assert_eq!(entries[0]["key_id"], id(&key).as_str());
        assert_eq!(entries[0]["request_id"], request_id.as_str());
        let keys = json_of(server.get("/v1/keys?status=revoked", &server.admin_key).await).await;
        assert_eq!(keys["data"][0]["id"], key["id"], "{keys}");
    }
}

both! {
    #[tokio::test]
    async fn any_mix_is_202_with_its_length_and_only_live_secrets_are_revoked_once() {
        let server = Server::start();
        let live = server.create_token("live", &["tokens:read"]).await;
        let twice = server.create_token("twice", &["tokens:read"]).await;
        let gone = server.create_token("gone", &["tokens:read"]).await;
        let kept = server.create_token("kept", &["tokens:read"]).await;
        let path = format!("/v1/tokens/{}", id(&gone));
        assert_eq!(server.delete(&path, &server.admin_key).await.status(), 204);
        // One character off: no longer this token's secret (nor any secret at all). The last
        // character is replaced by another (one secret in 62 ends in `x`).
        let kept_secret = secret(&kept);
        let other = if kept_secret.ends_with('x') { 'y' } else { 'x' };
        let near_miss = format!("{}{other}", &kept_secret[..39]);
        let spaced = format!("  {}\n", secret(&twice));
        let unknown_token = seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
        let unknown_key = seal(Kind::ApiKey, "0123456789abcdefghijABCDEFGHIJ");
        let (live_secret, twice_secret) = (secret(&live), secret(&twice));
        let gone_secret = secret(&gone);
        let mix: [&str; 10] = [
            &live_secret, &twice_secret, &spaced, &gone_secret, &near_miss, &unknown_token,
            &unknown_key, "hello", "", "tkt_short",
        ];

        let request_id = accepted(report(&server, &mix).await, mix.len()).await;
        assert_eq!(status_of(&server, &id(&live)).await, "revoked");
        assert_eq!(status_of(&server, &id(&twice)).await, "revoked");
        assert_eq!(status_of(&server, &id(&kept)).await, "active");
        let entries = leak_entries(&server, &server.admin_key).await;
        let mut about: Vec<&str> = entries.iter().map(|e| e["token_id"].as_str().unwrap())
            .collect();
        about.sort();
        let mut wanted = [id(&live), id(&twice)];
        wanted.sort();
        assert_eq!(about, wanted, "{entries:?}");
        assert!(entries.iter().all(|e| e["request_id"] == request_id.as_str()), "{entries:?}");

        // The same answer again, and for nothing live at all; no further revocation is written.
        accepted(report(&server, &mix).await, mix.len()).await;
        accepted(report(&server, &[&unknown_token]).await, 1).await;
        assert_eq!(leak_entries(&server, &server.admin_key).await.len(), 2);
    }
}

both! {
    #[tokio::test]
    async fn secrets_of_two_workspaces_are_each_audited_in_their_own() {
        let server = Server::start();
        let ours = server.create_token("ours", &["tokens:read"]).await;
        let acme_key = server.admin(&["create-workspace", "acme"]);
        let body = json!({"name": "theirs", "scopes": ["tokens:read"]});
        let theirs = json_of(server.post("/v1/tokens", &acme_key, &body).await).await;

        let both = report(&server, &[&secret(&ours), &secret(&theirs)]).await;
        let request_id = accepted(both, 2).await;
        for (key, token) in [(&server.admin_key, &ours), (&acme_key, &theirs)] {
            let entries = leak_entries(&server, key).await;
            assert_eq!(entries.len(), 1, "{entries:?}");
            assert_eq!(entries[0]["token_id"], id(token).as_str());
            assert_eq!(entries[0]["request_id"], request_id.as_str());
        }
        assert_error(server.get("/v1/tokens", &secret(&theirs)).await, 401, "unauthorized").await;
    }
}

both! {
    #[tokio::test]
    async fn no_credential_is_needed_and_an_authorization_header_is_ignored() {
        let server = Server::start();
        let headers = ["Bearer tka_garbage", "nonsense", "Bearer "];
        for (n, authorization) in headers.into_iter().enumerate() {
            let token = server.create_token(&format!("t{n}"), &["tokens:read"]).await;
            let response = reqwest::Client::new()
                .post(server.url(PATH))
                .header("authorization", authorization)
                .json(&json!({ "credentials": [secret(&token)] }))
                .send()
                .await
                .unwrap();
            accepted(response, 1).await;
            assert_eq!(status_of(&server, &id(&token)).await, "revoked");
        }
        // Reporting the very key that signs the request is no exception.
        let key = server.admin(&["create-key", "--workspace", "default", "--name", "spare"]);
        accepted(server.post(PATH, &key, &json!({ "credentials": [key] })).await, 1).await;
        assert_error(server.get("/v1/tokens", &key).await, 401, "unauthorized").await;
    }
}

both! {
    #[tokio::test]
    async fn bodies_other_than_1_to_100_strings_are_refused() {
        let server = Server::start();
        let send = |content_type: &'static str, body: String| {
            let request = reqwest::Client::new().post(server.url(PATH));
            request.header("content-type", content_type).body(body).send()
        };
        let json = "application/json";
        for body in ["{", "[]", "{}", r#"{"credentials":"x"}"#, r#"{"credentials":[1]}"#,
                     r#"{"credentials":null}"#] {
            assert_error(send(json, body.into()).await.unwrap(), 400, "bad_request").await;
        }
        // Over 64 KiB, or not declared JSON: 400 as everywhere in the API.
        let huge = format!(r#"{{"credentials":["{}"]}}"#, "a".repeat(70_000));
        assert_error(send(json, huge).await.unwrap(), 400, "bad_request").await;
        let plain = send("text/plain", r#"{"credentials":["a"]}"#.into()).await.unwrap();
        assert_error(plain, 400, "bad_request").await;
        // Well-formed, but no secret or more than 100: 422 naming the field.
        let many: Vec<String> = (0..101).map(|n| format!("s{n}")).collect();
        for list in [vec![], many] {
            let response = send(json, json!({ "credentials": list }).to_string()).await.unwrap();
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(message.contains("credentials"), "{message}");
        }
        let hundred: Vec<String> = (0..100).map(|n| format!("s{n}")).collect();
        let response = send(json, json!({ "credentials": hundred }).to_string()).await.unwrap();
        accepted(response, 100).await;
        let get = reqwest::Client::new().get(server.url(PATH)).send().await.unwrap();
        assert_eq!(get.status(), StatusCode::NOT_FOUND);
    }
}

/// A reply's status and rate-limit headers.
#[derive(Debug)]
struct Reply {
    status: u16,
    limit: i64,
    remaining: i64,
    reset: i64,
}

fn reply(response: &Response) -> Reply {
    let header =
        |name: &str| -> i64 { response.headers()[name].to_str().unwrap().parse().unwrap() };
    Reply {
        status: response.status().as_u16(),
        limit: header("x-ratelimit-limit"),
        remaining: header("x-ratelimit-remaining"),
        reset: header("x-ratelimit-reset"),
    }
}

/// Reports one unknown secret `n` times from this address, to `servers` in turn; the first 429
/// gets its error body and `Retry-After` checked. Asserts that in each window the reports were
/// counted down one at a time (29, 28, ... whichever instance took them) and refused only once
/// none remained; returns how many were refused.
async fn flood(servers: &[&Server], n: usize) -> usize {
    let unknown = seal(Kind::Token, "0123456789abcdefghijABCDEFGHIJ");
    let mut windows: BTreeMap<i64, Vec<Reply>> = BTreeMap::new();
    let mut refused = 0;
    for i in 0..n {
        let response = report(servers[i % servers.len()], &[&unknown]).await;
        let reply = reply(&response);
        assert_eq!(reply.limit, LIMIT, "{reply:?}");
        if reply.status == 429 {
            refused += 1;
            if refused == 1 {
                let retry: u64 = response.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((1..=60).contains(&retry), "{retry}");
                assert_error(response, 429, "rate_limited").await;
            }
        } else {
            assert_eq!(reply.status, 202, "{reply:?}");
        }
        windows.entry(reply.reset).or_default().push(reply);
    }
    for replies in windows.values() {
        let taken = replies.iter().take_while(|r| r.status == 202).count() as i64;
        let first = replies[0].remaining;
        assert!(first < LIMIT, "{replies:?}");
        let remaining: Vec<i64> = replies.iter().map(|r| r.remaining).collect();
        let mut wanted: Vec<i64> = (first + 1 - taken..=first).rev().collect();
        wanted.resize(replies.len(), 0);
        assert_eq!(remaining, wanted, "{replies:?}");
        // A refusal only once the last report the window allowed was taken.
        let full = taken == 0 || first + 1 == taken;
        assert!(full || taken == replies.len() as i64, "{replies:?}");
    }
    refused
}

both! {
    #[tokio::test]
    async fn reports_have_their_own_budget_per_address() {
        let server = Server::start_with(Options { rate_limit: Some(1000), ..Default::default() });
        // 61 reports span at most two windows: at least one is refused.
        assert!(flood(&[&server], 2 * LIMIT as usize + 1).await >= 1);
        // The address's other budgets are untouched: a signed request, and an anonymous one.
        let signed = server.get("/v1/tokens", &server.admin_key).await;
        assert_eq!(signed.status(), StatusCode::OK);
        assert_eq!(signed.headers()["x-ratelimit-limit"], "1000");
        let anonymous = reqwest::Client::new().get(server.url("/v1/tokens")).send().await.unwrap();
        assert_error(anonymous, 401, "unauthorized").await;
    }
}

postgres! {
    #[tokio::test]
    async fn instances_revoke_for_each_other_and_count_reports_together() {
        let a = Server::start();
        let b = a.another(Options::default());
        let token = a.create_token("leaked", &["tokens:read"]).await;
        // Instance b has the secret in its cache; a report through a ends it on b at once.
        assert_eq!(b.get("/v1/tokens", &secret(&token)).await.status(), 200);
        accepted(report(&a, &[&secret(&token)]).await, 1).await;
        assert_error(b.get("/v1/tokens", &secret(&token)).await, 401, "unauthorized").await;
        // Alternating between them: one count of 30 per window, not 30 each.
        assert!(flood(&[&a, &b], 2 * LIMIT as usize + 1).await >= 1);
    }
}
