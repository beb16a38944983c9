//! Providers by name, against a mock standing in for each provider: the path each request
//! takes, the header its key goes in, and the quirk each preset carries; and
//! `tokctl-server catalogue check`, which prints what a catalogue resolves to without starting.

mod common;

use common::upstream::{answering, chunks, content};
use common::{Options, Server, exit_of};
use serde_json::{Value, json};
use std::fmt::Write;
use std::time::Duration;

/// One preset as its provider documents it (docs/api.md, "Providers by name"): the path of its
/// base URL, its key's header, and what a client's `max_completion_tokens`, a stream and a
/// text-only content list become.
struct Expected {
    name: &'static str,
    path: &'static str,
    api_key_header: bool,
    cap: &'static str,
    stream_usage: bool,
    text_content: bool,
}

const fn expected(
    name: &'static str,
    path: &'static str,
    cap: &'static str,
    stream_usage: bool,
    text_content: bool,
) -> Expected {
    Expected {
        name,
        path,
        api_key_header: false,
        cap,
        stream_usage,
        text_content,
    }
}

const PRESETS: &[Expected] = &[
    expected("gemini", "/v1beta/openai", "max_tokens", true, false),
    expected("groq", "/openai/v1", "max_completion_tokens", true, false),
    expected("deepseek", "", "max_tokens", true, true),
    expected("mistral", "/v1", "max_tokens", false, false),
    expected("together", "/v1", "max_tokens", true, false),
    expected("xai", "/v1", "max_tokens", true, false),
    expected("fireworks", "/inference/v1", "max_tokens", true, false),
    expected("openrouter", "/api/v1", "max_tokens", false, false),
    Expected {
        api_key_header: true,
        ..expected("azure", "/openai/v1", "max_completion_tokens", true, false)
    },
    expected(
        "bedrock",
        "/openai/v1",
        "max_completion_tokens",
        true,
        false,
    ),
];

fn key_var(name: &str) -> String {
    format!("TOKCTL_TEST_{}_KEY", name.to_uppercase())
}

#[tokio::test]
async fn each_preset_sends_its_path_its_key_header_and_its_quirks() {
    let upstream = wiremock::MockServer::start().await;
    answering(
        &upstream,
        "hi",
        json!({"prompt_tokens": 3, "completion_tokens": 1}),
    )
    .await;
    let tmp = tempfile::tempdir().unwrap();
    let mut models = String::new();
    for preset in PRESETS {
        let (name, path) = (preset.name, preset.path);
        let var = key_var(name);
        let _ = write!(
            models,
            "[[models]]\nid = \"{name}-model\"\nprovider = \"{name}\"\n\
             base_url = \"{}{path}\"\napi_key_env = \"{var}\"\nupstream_model = \"{name}-up\"\n\
             prompt_price = 1\ncompletion_price = 1\nquality = 0.5\nlatency_ms = 1\n\n",
            upstream.uri()
        );
    }
    let file = tmp.path().join("models.toml");
    std::fs::write(&file, models).unwrap();
    let keys: Vec<(String, String)> = PRESETS
        .iter()
        .map(|p| (key_var(p.name), format!("secret-{}", p.name)))
        .collect();
    let server = Server::start_with(Options {
        env: keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        args: vec!["--models".into(), file.display().to_string()],
        ..Default::default()
    });

    let parts = json!([{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]);
    let image = json!([{"type": "text", "text": "and"},
                       {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]);
    for preset in PRESETS {
        let model = format!("{}-model", preset.name);
        let whole = json!({"model": model, "max_completion_tokens": 40,
                           "messages": [{"role": "user", "content": parts},
                                        {"role": "user", "content": image, "name": "ada"}]});
        let (status, answer) = common::chat_json(&server, whole).await;
        assert_eq!(status, 200, "{model}: {answer}");
        assert_eq!(answer["choices"][0]["message"]["content"], "hi");
        let streamed = json!({"model": model, "stream": true,
                              "messages": [{"role": "user", "content": "hi"}]});
        let response = server
            .post("/v1/chat/completions", &server.admin_key, &streamed)
            .await;
        assert_eq!(response.status(), 200, "{model}");
        assert_eq!(content(&chunks(&response.text().await.unwrap())), "hi");
    }

    let received = upstream.received_requests().await.unwrap();
    for preset in PRESETS {
        let name = preset.name;
        let sent: Vec<(&wiremock::Request, Value)> = received
            .iter()
            .map(|r| (r, serde_json::from_slice::<Value>(&r.body).unwrap()))
            .filter(|(_, body)| body["model"] == format!("{name}-up"))
            .collect();
        assert_eq!(sent.len(), 2, "{name}: one whole request and one stream");
        let secret = format!("secret-{name}");
        for (request, _) in &sent {
            assert_eq!(
                request.url.path(),
                format!("{}/chat/completions", preset.path),
                "{name}"
            );
            let header = |h: &str| request.headers.get(h).map(|v| v.to_str().unwrap());
            match preset.api_key_header {
                true => {
                    assert_eq!(header("api-key"), Some(secret.as_str()), "{name}");
                    assert_eq!(header("authorization"), None, "{name}");
                }
                false => {
                    let bearer = format!("Bearer {secret}");
                    assert_eq!(header("authorization"), Some(bearer.as_str()), "{name}");
                    assert_eq!(header("api-key"), None, "{name}");
                }
            }
        }
        let (whole, stream) = (&sent[0].1, &sent[1].1);
        let other = match preset.cap {
            "max_tokens" => "max_completion_tokens",
            _ => "max_tokens",
        };
        assert_eq!(whole[preset.cap], 40, "{name}: {whole}");
        assert!(whole.get(other).is_none(), "{name}: {whole}");
        let content = &whole["messages"][0]["content"];
        match preset.text_content {
            true => assert_eq!(content, "Hello", "{name}"),
            false => assert_eq!(content, &parts, "{name}"),
        }
        let second = &whole["messages"][1];
        assert_eq!(
            second["content"], image,
            "{name}: a list with an image goes as it came"
        );
        assert_eq!(
            second["name"], "ada",
            "{name}: the message's other fields go too"
        );
        assert_eq!(stream["stream"], true);
        match preset.stream_usage {
            true => assert_eq!(stream["stream_options"]["include_usage"], true, "{name}"),
            false => assert!(stream.get("stream_options").is_none(), "{name}: {stream}"),
        }
    }
}

#[test]
fn catalogue_check_prints_what_each_model_resolves_to_without_starting() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("models.toml");
    std::fs::write(
        &file,
        "[[models]]\nid = \"gpt-east\"\nprovider = \"azure\"\nresource = \"contoso-east\"\n\
         upstream_model = \"gpt-4o-prod\"\nprompt_price = 2.5\ncompletion_price = 10\n\
         quality = 0.85\nlatency_ms = 500\n\n\
         [[models]]\nid = \"oss\"\nprovider = \"bedrock\"\nregion = \"us-west-2\"\n\
         prompt_price = 0.1\ncompletion_price = 0.3\nquality = 0.7\nlatency_ms = 300\n",
    )
    .unwrap();
    let check = |file: &std::path::Path, set: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tokctl-server"));
        command.args(["catalogue", "check"]).arg(file);
        command.env_remove("AWS_BEARER_TOKEN_BEDROCK");
        match set {
            true => command.env("AZURE_OPENAI_API_KEY", "never-printed"),
            false => command.env_remove("AZURE_OPENAI_API_KEY"),
        };
        exit_of(&mut command, Duration::from_secs(30))
    };
    let out = check(&file, true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    for line in [
        "gpt-east (azure)",
        "  POST https://contoso-east.openai.azure.com/openai/v1/chat/completions",
        "  key: api-key from $AZURE_OPENAI_API_KEY (set)",
        "  upstream model: gpt-4o-prod",
        "  POST https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1/chat/completions",
        "  key: Authorization: Bearer from $AWS_BEARER_TOKEN_BEDROCK (NOT SET: requests will fail until it is)",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line:?} in\n{stdout}");
    }
    assert!(stdout.contains("cap as max_completion_tokens"), "{stdout}");
    assert!(
        !stdout.contains("never-printed"),
        "the key's value is never shown"
    );

    std::fs::write(
        &file,
        "[[models]]\nid = \"gpt-east\"\nprovider = \"azure\"\nprompt_price = 1\n\
         completion_price = 1\nquality = 0.5\nlatency_ms = 1\n",
    )
    .unwrap();
    let out = check(&file, false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("model \"gpt-east\": the azure provider needs resource"),
        "{stderr}"
    );
}
