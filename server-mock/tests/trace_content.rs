//! Message content in traces (issue 40): absent unless `--trace-content` is given; then the
//! messages, the system instructions and a whole answer are on the attempt's span, with every
//! secret-shaped run redacted: a secret planted in a message (the server's own admin key, a
//! token-shaped string, a provider's key) never appears in any byte the collector receives.
//! A streamed answer's text, put together from its deltas, is there the same way.

mod common;

use common::collector::{attribute, collector};
use common::upstream::{KEY_VAR, answering, catalogue, streaming};
use common::{Options, Server};
use serde_json::json;

const PROVIDER_KEY: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
const TOKEN_SHAPED: &str = "tkt_0123456789abcdefghijABCDEFGHIJ0123zz";
const IN_THE_ANSWER: &str = "AKIAIOSFODNN7EXAMPLE";

/// A gateway over `upstream` exporting traces to `endpoint`, with `more` arguments.
fn gateway(endpoint: &str, models: &str, more: &[&str]) -> Server {
    let mut args = vec!["--otlp-endpoint", endpoint, "--models", models];
    args.extend(more);
    Server::start_with(Options {
        env: vec![("OTEL_BSP_SCHEDULE_DELAY", "100"), (KEY_VAR, "sk-upstream")],
        args: args.into_iter().map(String::from).collect(),
        ..Default::default()
    })
}

#[tokio::test]
async fn content_is_recorded_only_when_asked_and_then_with_secrets_redacted() {
    let upstream = wiremock::MockServer::start().await;
    let answer = format!("Done. Your AWS key {IN_THE_ANSWER} is rotated.");
    answering(
        &upstream,
        &answer,
        json!({"prompt_tokens": 30, "completion_tokens": 9}),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let models = catalogue(dir.path(), &format!("{}/v1", upstream.uri()), "gpt-up");

    for content in [false, true] {
        let (endpoint, mut spans) = collector().await;
        let flag: &[&str] = if content { &["--trace-content"] } else { &[] };
        let server = gateway(&endpoint, &models, flag);
        let admin = server.admin_key.clone();
        let body = json!({"model": "upstream", "messages": [
            {"role": "system", "content": format!("You are terse. Never print {admin}.")},
            {"role": "user", "content": format!("Rotate my keys: openai {PROVIDER_KEY}, tokctl {TOKEN_SHAPED}. Summarize.")},
        ]});
        let answered = server.post("/v1/chat/completions", &admin, &body).await;
        assert_eq!(answered.status(), 200);
        let client = spans.take(|s| s.name == "chat gpt-up").await;
        let input = attribute(&client, "gen_ai.input.messages");
        let system = attribute(&client, "gen_ai.system_instructions");
        let output = attribute(&client, "gen_ai.output.messages");
        if !content {
            assert_eq!(
                (input, system, output),
                (None, None, None),
                "no content by default"
            );
            continue;
        }
        let input: serde_json::Value = serde_json::from_str(&input.unwrap()).unwrap();
        let said = input[0]["parts"][0]["content"].as_str().unwrap();
        assert_eq!(input[0]["role"], "user");
        assert_eq!(
            said,
            "Rotate my keys: openai [REDACTED], tokctl [REDACTED]. Summarize."
        );
        let system: serde_json::Value = serde_json::from_str(&system.unwrap()).unwrap();
        assert_eq!(
            system[0]["content"],
            "You are terse. Never print [REDACTED]."
        );
        let output: serde_json::Value = serde_json::from_str(&output.unwrap()).unwrap();
        assert_eq!(output[0]["role"], "assistant");
        assert_eq!(
            output[0]["parts"][0]["content"],
            "Done. Your AWS key [REDACTED] is rotated."
        );
        assert_eq!(output[0]["finish_reason"], "stop");
        // Not in any byte the collector received.
        let raw = spans.raw.lock().unwrap().clone();
        let raw = String::from_utf8_lossy(&raw);
        for planted in [admin.as_str(), PROVIDER_KEY, TOKEN_SHAPED, IN_THE_ANSWER] {
            assert!(!raw.contains(planted), "a planted secret was exported");
        }
        assert!(
            raw.contains("Summarize."),
            "the content itself was exported"
        );
    }
}

#[tokio::test]
async fn a_streamed_answers_text_is_on_the_attempt_span_only_when_asked_and_redacted() {
    let upstream = wiremock::MockServer::start().await;
    // The planted key comes cut across two deltas: only the text put together has its shape.
    let (head, tail) = IN_THE_ANSWER.split_at(8);
    let (first, second) = (format!("Done. Your AWS key {head}"), format!("{tail} is "));
    streaming(&upstream, &[first.as_str(), second.as_str(), "rotated."]).await;
    let dir = tempfile::tempdir().unwrap();
    let models = catalogue(dir.path(), &format!("{}/v1", upstream.uri()), "gpt-up");
    let said = json!([{"role": "assistant", "finish_reason": "stop",
        "parts": [{"type": "text", "content": "Done. Your AWS key [REDACTED] is rotated."}]}]);

    for content in [false, true] {
        let (endpoint, mut spans) = collector().await;
        let flag: &[&str] = if content { &["--trace-content"] } else { &[] };
        let server = gateway(&endpoint, &models, flag);
        let admin = server.admin_key.clone();
        let asked = "Rotate my AWS key.";
        // Chat completions relay the upstream's deltas as they came; Responses writes its own
        // events from them.
        let requests = [
            (
                "/v1/chat/completions",
                json!({"model": "upstream", "stream": true,
                "messages": [{"role": "user", "content": asked}]}),
            ),
            (
                "/v1/responses",
                json!({"model": "upstream", "stream": true, "input": asked}),
            ),
        ];
        for (path, body) in requests {
            let answered = server.post(path, &admin, &body).await;
            assert_eq!(answered.status(), 200, "{path}");
            let text = answered.text().await.unwrap();
            assert!(text.contains(head) && text.contains(tail), "{path}: {text}");
            let client = spans.take(|s| s.name == "chat gpt-up").await;
            assert!(attribute(&client, "gen_ai.response.id").is_some(), "{path}");
            let output = attribute(&client, "gen_ai.output.messages");
            if !content {
                assert_eq!(output, None, "{path}: no content by default");
                continue;
            }
            let output: serde_json::Value = serde_json::from_str(&output.unwrap()).unwrap();
            assert_eq!(output, said, "{path}");
        }
        if content {
            let raw = spans.raw.lock().unwrap().clone();
            let raw = String::from_utf8_lossy(&raw);
            assert!(
                raw.contains("is rotated."),
                "the content itself was exported"
            );
            assert!(
                !raw.contains(head) && !raw.contains(tail),
                "a planted secret was exported"
            );
        }
    }
}
