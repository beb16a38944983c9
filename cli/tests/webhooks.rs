//! `tokctl webhooks ...`: configuration, `listen` receiving signed events, `verify`.

mod common;

#[path = "webhooks/listen.rs"]
mod listen;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Env, stderr, stdout};
use listen::{Listen, event_body, free_port, one_shot, post};
use serde_json::Value;
use tokctl_sdk::webhooks::sign;

#[test]
fn endpoints_are_managed_from_the_cli() {
    let env = Env::new();
    let created = env.json(&[
        "webhooks",
        "create",
        "https://example.test/hook",
        "--event",
        "token.rotated",
    ]);
    let id = created["id"].as_str().unwrap().to_string();
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(env.json(&["webhooks", "list"]).as_array().unwrap().len(), 1);
    assert!(env.json(&["webhooks", "get", &id]).get("secret").is_none());
    let output = env
        .tokctl()
        .args(["webhooks", "test", &id])
        .output()
        .unwrap();
    assert!(stdout(&output).trim().starts_with("evt_"));
    env.tokctl()
        .args(["webhooks", "delete", &id])
        .assert()
        .success();
    assert_eq!(
        env.tokctl()
            .args(["webhooks", "get", &id])
            .output()
            .unwrap()
            .status
            .code(),
        Some(5)
    );
    let bad = env
        .tokctl()
        .args(["webhooks", "create", "ftp://x", "--event", "token.rotated"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("url"));
}

#[test]
fn testing_a_disabled_endpoint_fails_with_one_line() {
    let env = Env::new();
    // A receiver that answers 410 Gone, which disables the endpoint.
    let (url, gone) = one_shot("410 Gone");
    let created = env.json(&["webhooks", "create", &url, "--event", "token.rotated"]);
    let id = created["id"].as_str().unwrap().to_string();
    env.tokctl()
        .args(["webhooks", "test", &id])
        .assert()
        .success();
    gone.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while env.json(&["webhooks", "get", &id])["status"] != "disabled" {
        assert!(Instant::now() < deadline, "the endpoint was not disabled");
        std::thread::sleep(Duration::from_millis(20));
    }

    let refused = env
        .tokctl()
        .args(["webhooks", "test", &id])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(6), "conflict");
    assert!(stdout(&refused).is_empty());
    let message = stderr(&refused);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("disabled"), "{message}");
}

#[test]
fn listen_verifies_prints_forwards_and_refuses_tampered_deliveries() {
    let env = Env::new();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let created = env.json(&["webhooks", "create", &url, "--event", "token.rotated"]);
    let secret = created["secret"].as_str().unwrap().to_string();
    // Whatever listen verifies it also forwards, with its headers, to this one-shot receiver.
    let (forward_url, forwarded) = one_shot("200 OK");
    let mut listen = Listen::start(&env, port, &secret, Some(&forward_url), Stdio::piped());

    let (token_id, _) = env.create("ci", &["tokens:read"]);
    env.tokctl()
        .args(["tokens", "rotate", &token_id, "-q"])
        .assert()
        .success();
    let mut out = BufReader::new(listen.child.stdout.take().unwrap());
    let mut event = String::new();
    out.read_line(&mut event).unwrap();
    let event: Value = serde_json::from_str(&event).expect("one JSON line per event when piped");
    assert_eq!(event["type"], "token.rotated");
    assert_eq!(event["data"]["id"], token_id.as_str());
    let relayed = forwarded.join().unwrap().to_lowercase();
    assert!(relayed.starts_with("post /relay"), "{relayed}");
    assert!(
        relayed.contains("x-service-signature: sha256=")
            && relayed.contains("x-service-event-id: evt_")
    );

    // A real signature, made with the right secret, of another body: refused and reported.
    let body = event_body("evt_forged");
    let other = event_body("evt_other");
    let signature = sign(secret.as_bytes(), other.as_bytes());
    assert_eq!(post(port, &signature, &body), 401);
    let refusal = listen.next_stderr_line();
    assert!(refusal.contains("rejected"), "{refusal}");
}

#[test]
fn listen_reports_a_failing_forward_target_and_still_acknowledges() {
    let env = Env::new();
    let port = free_port();
    let (forward_url, forwarded) = one_shot("500 Internal Server Error");
    let mut listen = Listen::start(&env, port, "whsec_test", Some(&forward_url), Stdio::null());
    let body = event_body("evt_1");
    assert_eq!(
        post(port, &sign(b"whsec_test", body.as_bytes()), &body),
        200
    );
    forwarded.join().unwrap();
    let report = listen.next_stderr_line();
    assert!(
        report.contains("evt_1") && report.contains("answered 500"),
        "{report}"
    );
}

#[test]
fn listen_acknowledges_and_exits_0_once_stdout_is_closed() {
    let env = Env::new();
    let port = free_port();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut listen = Listen::start(&env, port, "whsec_test", None, Stdio::from(writer));
    let body = event_body("evt_1");
    assert_eq!(
        post(port, &sign(b"whsec_test", body.as_bytes()), &body),
        200
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = listen.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "listen kept running");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn verify_checks_a_signature_from_stdin() {
    let env = Env::new();
    // GitHub's published example for the same scheme.
    let good = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    let ok = env
        .bare()
        .args([
            "webhooks",
            "verify",
            "--secret",
            "It's a Secret to Everybody",
            "--signature",
            good,
        ])
        .write_stdin("Hello, World!")
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let tampered = env
        .bare()
        .args([
            "webhooks",
            "verify",
            "--secret",
            "It's a Secret to Everybody",
            "--signature",
            good,
        ])
        .write_stdin("Hello, World?")
        .output()
        .unwrap();
    assert_eq!(tampered.status.code(), Some(1));
    assert!(stderr(&tampered).contains("does not match"));
}
