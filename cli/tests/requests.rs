//! `tokctl requests list|show` against the real gateway: the request log as an operator reads
//! it, filtered, as a script reads it, and followed as requests come.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::{Env, stderr, stdout};
use serde_json::{Value, json};

/// Sends a chat completion as `key` with request id `id`; returns the status.
fn chat(env: &Env, key: &str, id: &str, model: &str) -> u16 {
    let url = format!("{}/chat/completions", env.base_url);
    let body = json!({"model": model, "messages": [{"role": "user", "content": "hi"}]});
    env.block_on(async {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(key)
            .header("x-request-id", id)
            .json(&body)
            .send()
            .await
            .expect("send")
            .status()
            .as_u16()
    })
}

#[test]
fn list_filters_and_show_read_the_log_as_people_and_scripts_do() {
    let env = Env::new();
    let (_, agent) = env.create("agent", &["chat:write"]);
    assert_eq!(
        chat(&env, &env.admin_key.clone(), "req-admin", "sim-fast"),
        200
    );
    assert_eq!(chat(&env, &agent, "req-agent", "sim-mini"), 200);
    assert_eq!(chat(&env, &agent, "req-refused", "no-such-model"), 404);

    let all = env.json(&["requests", "list"]);
    let ids: Vec<_> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["req-refused", "req-agent", "req-admin"]);

    // Filters as flags, the token by name; --quiet prints the ids a script needs.
    let output = env
        .tokctl()
        .args([
            "requests", "list", "--token", "agent", "--status", "2xx", "-q",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "req-agent\n");
    let limited = env.json(&["requests", "list", "--limit", "1", "--since", "1h"]);
    assert_eq!(limited.as_array().unwrap().len(), 1);
    assert_eq!(limited[0]["id"], "req-refused");

    // A plain listing names who sent each and what answered.
    let output = env.tokctl().args(["requests", "list"]).output().unwrap();
    let text = stdout(&output);
    let agent_line = text.lines().find(|l| l.contains("req-agent")).unwrap();
    assert!(
        agent_line.contains("agent") && agent_line.contains("sim-mini"),
        "{text}"
    );
    let refused_line = text.lines().find(|l| l.contains("req-refused")).unwrap();
    assert!(refused_line.contains("404"), "{text}");

    let shown: Value = env.json(&["requests", "show", "req-agent"]);
    assert_eq!(shown["credential_name"], "agent");
    assert_eq!(shown["routed_model"], "sim-mini");
    let output = env
        .tokctl()
        .args(["requests", "show", "req-agent"])
        .output()
        .unwrap();
    let text = stdout(&output);
    assert!(
        text.lines()
            .any(|l| l.starts_with("routed model") && l.ends_with("sim-mini")),
        "{text}"
    );

    // Mistakes: one line, non-zero, no debug output.
    let output = env
        .tokctl()
        .args(["requests", "show", "req-nothing"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = stderr(&output);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("No request with id req-nothing"), "{err}");
    let output = env
        .tokctl()
        .args(["requests", "list", "--since", "last tuesday"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let output = env
        .tokctl()
        .args(["requests", "list", "--status", "9xx"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("status must be"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn follow_prints_what_was_there_then_each_new_request_once_logged() {
    let env = Env::new();
    assert_eq!(
        chat(&env, &env.admin_key.clone(), "before", "sim-fast"),
        200
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tokctl"));
    for var in Env::UNSET {
        child.env_remove(var);
    }
    let mut child = child
        .envs(env.vars())
        .env("TOKCTL_API_KEY", &env.admin_key)
        .args(["requests", "list", "--follow", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = || -> Value {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a line within 30 s");
        serde_json::from_str(&line).expect("one JSON object per line")
    };
    assert_eq!(next()["id"], "before");
    assert_eq!(chat(&env, &env.admin_key.clone(), "after", "sim-mini"), 200);
    let after = next();
    assert_eq!(after["id"], "after");
    assert_eq!(after["routed_model"], "sim-mini");
    child.kill().unwrap();
    child.wait().unwrap();
}
