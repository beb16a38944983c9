//! Codex CLI itself (npm `@openai/codex`, pinned) with `codex exec` through a `model_providers`
//! entry pointing at the gateway's `/v1/responses` with a tokctl token (issue 38, point 3): a
//! plain answer from a simulated model, and a turn where an OpenAI-compatible model behind the
//! gateway (wiremock, reached through the internal form) asks for Codex's shell tool, which
//! Codex runs and whose output comes back in its next request. Codex is installed into
//! `target/agents` from the npm registry the first time; without npm or the registry the test
//! says it was skipped, except under `CI=true`, where it fails. Anything Codex would send beyond
//! loopback goes to a proxy that is not there.

mod common;

use std::path::Path;
use std::process::Output;

use common::agents::{self, said};
use common::upstream::{catalogue, delta, gateway, sse};
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

const VERSION: &str = "0.169.0";

/// `codex exec PROMPT` in `dir` with `model` through a provider at `base` keyed by `token`.
async fn exec(
    binary: &Path,
    dir: &Path,
    base: &str,
    token: &str,
    model: &str,
    prompt: &str,
) -> Output {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let config = format!(
        "model = \"{model}\"\nmodel_provider = \"tokctl\"\n\n[model_providers.tokctl]\nname = \"tokctl\"\nbase_url = \"{base}/v1\"\nenv_key = \"TOKCTL_TOKEN\"\nwire_api = \"responses\"\n"
    );
    std::fs::write(home.join(".codex/config.toml"), config).unwrap();
    let env = [("TOKCTL_TOKEN", token)];
    let args = [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        prompt,
    ];
    agents::run(binary, dir, &env, &args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_answers_and_runs_its_shell_tool_through_the_gateway() {
    let Some(binary) = agents::installed("@openai/codex", VERSION, "codex").await else {
        return;
    };
    // The model asks for `exec_command` first; once a tool's output is in the conversation, it
    // answers with text.
    let upstream = MockServer::start().await;
    let mut done = delta("Done: the command ran.");
    done["choices"][0]["finish_reason"] = json!("stop");
    Mock::given(method("POST"))
        .and(body_string_contains("\"role\":\"tool\""))
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse(&[done]), "text/event-stream"))
        .with_priority(1)
        .mount(&upstream)
        .await;
    let call = json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "delta": {"tool_calls": [{"index": 0, "id": "call_exec_1", "type": "function",
            "function": {"name": "exec_command", "arguments": "{\"cmd\":\"echo tool-ran\"}"}}]}}]});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse(&[call]), "text/event-stream"))
        .with_priority(2)
        .mount(&upstream)
        .await;
    let tmp = tempfile::tempdir().unwrap();
    let models = catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "m");
    let server = gateway(&models, "k");
    let created: Value = server
        .post(
            "/v1/tokens",
            &server.admin_key,
            &json!({"name": "codex", "scopes": ["chat:write"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let token = common::secret(&created);
    let work = tempfile::tempdir().unwrap();

    let out = exec(
        &binary,
        work.path(),
        &server.base,
        &token,
        "local",
        "hello there",
    )
    .await;
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("[local] You said:"),
        "{}",
        said(&out)
    );

    let out = exec(
        &binary,
        work.path(),
        &server.base,
        &token,
        "upstream",
        "run the echo",
    )
    .await;
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Done: the command ran."),
        "{}",
        said(&out)
    );
    let requests = upstream.received_requests().await.unwrap();
    let result = requests.iter().find_map(|r| {
        let body: Value = r.body_json().ok()?;
        let messages = body["messages"].as_array()?.clone();
        messages.into_iter().find(|m| m["role"] == "tool")
    });
    let result = result.expect("no request carried the tool's output");
    assert_eq!(result["tool_call_id"], "call_exec_1");
    assert!(
        result["content"].to_string().contains("tool-ran"),
        "{result}"
    );
}
