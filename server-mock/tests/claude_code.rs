//! Claude Code itself (npm `@anthropic-ai/claude-code`, pinned) in print mode through the
//! gateway's `/v1/messages` with a tokctl token (issue 38, point 3): a plain answer from a
//! simulated model; a turn where Claude behind the gateway (the faithful mock) asks for a `Bash`
//! call that Claude Code runs and whose result comes back in its next request; a token over its
//! credit limit, whose message Claude Code shows. Claude Code is installed into `target/agents`
//! from the npm registry the first time; without npm or the registry the test says it was
//! skipped, except under `CI=true`, where it fails. Anything Claude Code would send beyond
//! loopback goes to a proxy that is not there (`HTTPS_PROXY` on a closed loopback port), and
//! its non-essential traffic is off.

mod common;

use std::path::Path;
use std::process::Output;

use common::agents::{self, said};
use common::anthropic::{Anthropic, gateway};
use serde_json::{Value, json};

const VERSION: &str = "2.1.332";

/// `claude -p PROMPT` in `dir`, pointed at `base` with `token`, with `args`.
async fn print(
    binary: &Path,
    dir: &Path,
    base: &str,
    token: &str,
    prompt: &str,
    args: &[&str],
) -> Output {
    let env = [
        ("ANTHROPIC_BASE_URL", base),
        ("ANTHROPIC_AUTH_TOKEN", token),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_ERROR_REPORTING", "1"),
    ];
    let all: Vec<&str> = ["-p", prompt]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    agents::run(binary, dir, &env, &all).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_answers_runs_a_tool_and_shows_a_limit_through_the_gateway() {
    let Some(binary) = agents::installed("@anthropic-ai/claude-code", VERSION, "claude").await
    else {
        return;
    };
    let mock = Anthropic::start().await;
    let (_tmp, server) = gateway(&mock, "max_output_tokens = 64000", &[]);
    let created: Value = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &json!({"name": "claude-code", "scopes": ["chat:write"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let token = common::secret(&created);
    let work = tempfile::tempdir().unwrap();

    // A plain answer from a simulated model.
    let out = print(
        &binary,
        work.path(),
        &server.base,
        &token,
        "hello there",
        &["--model", "local"],
    )
    .await;
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("[local] You said:"),
        "{}",
        said(&out)
    );

    // Claude asks for Bash; Claude Code runs it and sends the result back.
    let args = ["--model", "claude", "--allowedTools", "Bash"];
    let out = print(
        &binary,
        work.path(),
        &server.base,
        &token,
        "run-tool please",
        &args,
    )
    .await;
    assert!(out.status.success(), "{}", said(&out));
    let proof = std::fs::read_to_string(work.path().join("proof.txt")).unwrap_or_default();
    assert_eq!(proof.trim(), "tool-ran", "{}", said(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("It is 18°C in Paris."),
        "{}",
        said(&out)
    );
    let seen = mock.seen();
    let answered = seen.iter().find(|s| {
        s.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|m| {
                m["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|b| b["type"] == "tool_result" && b["tool_use_id"] == "toolu_01Bash")
            })
    });
    assert!(answered.is_some(), "no request carried the Bash result");
    assert!(
        seen.iter().all(|s| s.body["model"] == "claude-sonnet-4-5"),
        "Claude's upstream name"
    );

    // A token over its credit limit: Claude Code shows the limit's message.
    let limited: Value = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &json!({"name": "poor", "scopes": ["chat:write"],
            "credit_limit": "0.000001", "limit_reset": "daily"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let poor = common::secret(&limited);
    let out = print(
        &binary,
        work.path(),
        &server.base,
        &poor,
        "hello there",
        &["--model", "local"],
    )
    .await;
    assert!(said(&out).contains("credit limit"), "{}", said(&out));
}
