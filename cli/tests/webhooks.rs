//! `tokctl webhooks ...`: configuration, `listen` receiving signed events, `verify`.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{Env, stderr, stdout};
use serde_json::Value;

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
fn listen_verifies_prints_and_refuses_tampered_deliveries() {
    let env = Env::new();
    let mut listen = Command::new(assert_cmd::cargo::cargo_bin("tokctl"))
        .args([
            "webhooks",
            "listen",
            "--port",
            "0",
            "--secret",
            "placeholder",
        ])
        .envs(env.vars())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The secret is only known once the endpoint exists, so this first listener only gives
    // a free port and a refusal check; the real one starts below with the secret.
    let mut err = BufReader::new(listen.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let url = line.split_whitespace().nth(2).unwrap().to_string();
    listen.kill().unwrap();
    let _ = listen.wait();

    let created = env.json(&[
        "webhooks",
        "create",
        &format!("{url}/hook"),
        "--event",
        "token.rotated",
    ]);
    let secret = created["secret"].as_str().unwrap().to_string();
    let port = url.rsplit(':').next().unwrap().to_string();
    // Whatever listen verifies it also forwards, with its headers, to this one-shot receiver.
    let forward = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let forward_url = format!("http://{}/relay", forward.local_addr().unwrap());
    let forwarded = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = forward.accept().unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&request).contains("token.rotated") {
            let n = socket.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            .unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    let mut listen = Command::new(assert_cmd::cargo::cargo_bin("tokctl"))
        .args([
            "webhooks",
            "listen",
            "--port",
            &port,
            "--forward-to",
            &forward_url,
        ])
        .envs(env.vars())
        .env("TOKCTL_WEBHOOK_SECRET", &secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(listen.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");

    let (token_id, _) = env.create("ci", &["tokens:read"]);
    env.tokctl()
        .args(["tokens", "rotate", &token_id, "-q"])
        .assert()
        .success();
    let mut out = BufReader::new(listen.stdout.take().unwrap());
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

    // A forged delivery is refused with 401 and reported.
    let forged = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-X",
            "POST",
            "-H",
            "x-service-signature: sha256=00",
            "-d",
            "{}",
        ])
        .arg(format!("{url}/hook"))
        .output();
    if let Ok(forged) = forged {
        assert_eq!(stdout(&forged), "401");
        let mut refusal = String::new();
        err.read_line(&mut refusal).unwrap();
        assert!(refusal.contains("rejected"), "{refusal}");
    }
    listen.kill().unwrap();
    let _ = listen.wait();
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
