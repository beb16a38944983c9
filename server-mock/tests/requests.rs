//! The request log (issue 40, point 2): each gateway request is listed by `GET /v1/requests`,
//! newest first, with who sent it, the model that answered, its status, timings, tokens and
//! credits; filters and pagination hold on both backends; instances sharing PostgreSQL each
//! write their own and either lists all; retention deletes exactly what is older than it.
//! A workspace that keeps bodies keeps a streamed answer's text too, redacted.

mod common;

use common::both;
use common::hooks::eventually;
use common::{Options, Server, assert_error, id, instances, secret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Sends a chat completion with `key` (streamed when `stream`), with extra headers; returns
/// the status and the body's text (a stream read to its end).
async fn ask(
    server: &Server,
    key: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> (StatusCode, String) {
    let mut request = server.request(Method::POST, "/v1/chat/completions", key);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.json(&body).send().await.unwrap();
    let status = response.status();
    (status, response.text().await.unwrap())
}

/// A server keeping the request log, whose simulated models answer without delay.
fn logging() -> Server {
    Server::start_with(Options {
        args: vec![
            "--request-log".into(),
            "--sim-token-delay-ms".into(),
            "0".into(),
        ],
        ..Default::default()
    })
}

/// `GET /v1/requests` with a query, as the admin key.
async fn listed(server: &Server, query: &str) -> Value {
    let response = server
        .get(&format!("/v1/requests{query}"), &server.admin_key)
        .await;
    assert_eq!(response.status(), StatusCode::OK, "{query}");
    response.json().await.unwrap()
}

/// The ids of a listing, in order.
fn ids(page: &Value) -> Vec<&str> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["id"].as_str().unwrap())
        .collect()
}

both! {
    #[tokio::test]
    async fn each_gateway_request_is_logged_newest_first_with_who_answered_and_what_it_cost() {
        let server = logging();
        let token = server.create_token("ci-bot", &["chat:write"]).await;
        let (token_key, token_id) = (secret(&token), id(&token));

        let whole = json!({"model": "auto", "messages": [{"role": "user", "content": "hello there"}]});
        let (status, text) = ask(&server, &server.admin_key, whole, &[("x-request-id", "req-whole")]).await;
        assert_eq!(status, StatusCode::OK);
        let answer: Value = serde_json::from_str(&text).unwrap();

        let streamed = json!({"model": "sim-mini", "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "user", "content": "count to five"}]});
        let headers = [("x-request-id", "req-stream"), ("x-tokctl-session-id", "session-1")];
        let (status, text) = ask(&server, &token_key, streamed, &headers).await;
        assert_eq!(status, StatusCode::OK);
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");

        let unknown = json!({"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]});
        let (status, _) = ask(&server, &token_key, unknown, &[("x-request-id", "req-refused")]).await;
        assert!(status.is_client_error(), "{status}");

        // Not a gateway request: not logged.
        assert_eq!(server.get("/v1/tokens", &server.admin_key).await.status(), StatusCode::OK);

        let all = listed(&server, "").await;
        assert_eq!(ids(&all), ["req-refused", "req-stream", "req-whole"], "{all}");
        assert_eq!(all["meta"]["total"], 3);

        let [refused, stream, whole] = [0, 1, 2].map(|i| all["data"][i].clone());
        // The whole answer: the admin key, the model that answered, the answer's own figures.
        assert_eq!(whole["endpoint"], "/v1/chat/completions");
        assert!(whole["key_id"].as_str().unwrap().starts_with("key_"), "{whole}");
        assert!(whole.get("token_id").is_none(), "{whole}");
        assert_eq!(whole["model"], "auto");
        assert_eq!(whole["routed_model"], answer["platform"]["routed_model"]);
        assert_eq!(whole["route_reason"], answer["platform"]["route_reason"]);
        assert_eq!(whole["status"], 200);
        assert_eq!(whole["error"], Value::Null);
        assert_eq!(whole["stream"], false);
        assert_eq!(whole["prompt_tokens"], answer["usage"]["prompt_tokens"]);
        assert_eq!(whole["completion_tokens"], answer["usage"]["completion_tokens"]);
        assert_eq!(whole["credits"], answer["platform"]["credits_consumed"]);
        assert_eq!(whole["time_to_first_token_ms"], Value::Null);
        assert!(whole["duration_ms"].as_f64().unwrap() > 0.0, "{whole}");

        // The stream: the token by id and name, its session, its first token before its end.
        assert_eq!(stream["token_id"], token_id.as_str());
        assert_eq!(stream["credential_name"], "ci-bot");
        assert_eq!(stream["session_id"], "session-1");
        assert_eq!(stream["stream"], true);
        assert_eq!(stream["routed_model"], "sim-mini");
        assert!(stream["completion_tokens"].as_u64().unwrap() > 0, "{stream}");
        let first = stream["time_to_first_token_ms"].as_f64().unwrap();
        assert!(first > 0.0 && first <= stream["duration_ms"].as_f64().unwrap(), "{stream}");

        // The refusal: its status and code, nothing routed.
        assert!((400..500).contains(&refused["status"].as_u64().unwrap()), "{refused}");
        assert!(refused["error"].is_string(), "{refused}");
        assert_eq!(refused["routed_model"], Value::Null);
        assert_eq!(refused["model"], "no-such-model");

        let shown = server.get("/v1/requests/req-stream", &server.admin_key).await;
        assert_eq!(shown.status(), StatusCode::OK);
        assert_eq!(shown.json::<Value>().await.unwrap(), stream);
        let missing = server.get("/v1/requests/req-nothing", &server.admin_key).await;
        assert_error(missing, 404, "not_found").await;
    }
}

both! {
    #[tokio::test]
    async fn an_entry_is_found_by_the_id_its_answer_carried_even_when_a_client_sends_it_again() {
        let server = logging();
        let body = |model: &str| json!({"model": model, "messages": [{"role": "user", "content": "hi"}]});
        // No id sent: the server makes one, and the answer carries it.
        let response = server.request(Method::POST, "/v1/chat/completions", &server.admin_key)
            .json(&body("sim-mini")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let made = response.headers()["x-request-id"].to_str().unwrap().to_string();
        let shown: Value = server.get(&format!("/v1/requests/{made}"), &server.admin_key).await.json().await.unwrap();
        assert_eq!((shown["id"].as_str(), shown["model"].as_str()), (Some(made.as_str()), Some("sim-mini")), "{shown}");
        // A client retrying with that id: the lookup finds the newer request.
        let (status, _) = ask(&server, &server.admin_key, body("auto"), &[("x-request-id", made.as_str())]).await;
        assert_eq!(status, StatusCode::OK);
        let shown: Value = server.get(&format!("/v1/requests/{made}"), &server.admin_key).await.json().await.unwrap();
        assert_eq!(shown["model"], "auto", "{shown}");
        assert_eq!(ids(&listed(&server, "").await), [made.as_str(), made.as_str()]);
        // An id of the server's shape whose time is not now arrived now all the same.
        let forged = format!("req_{}", "0".repeat(24));
        let (status, _) = ask(&server, &server.admin_key, body("sim-mini"), &[("x-request-id", forged.as_str())]).await;
        assert_eq!(status, StatusCode::OK);
        let shown: Value = server.get(&format!("/v1/requests/{forged}"), &server.admin_key).await.json().await.unwrap();
        assert_eq!(shown["created_at"].as_str().map(|at| at.starts_with("1970")), Some(false), "{shown}");
        assert_eq!(ids(&listed(&server, "").await)[0], forged);
    }
}

both! {
    #[tokio::test]
    async fn filters_and_pages_combine_and_bad_filters_are_named() {
        let server = logging();
        let token = server.create_token("agent", &["chat:write"]).await;
        let body = |model: &str| json!({"model": model, "messages": [{"role": "user", "content": "hi"}]});
        for (n, (key, model, session)) in [
            (server.admin_key.clone(), "sim-mini", "s1"),
            (secret(&token), "sim-fast", "s1"),
            (secret(&token), "sim-mini", "s2"),
            (secret(&token), "no-such-model", "s2"),
        ].into_iter().enumerate() {
            let request_id = format!("r{n}");
            let headers = [("x-request-id", request_id.as_str()), ("x-claude-code-session-id", session)];
            ask(&server, &key, body(model), &headers).await;
        }
        let token_id = id(&token);
        let cases = [
            (format!("?token_id={token_id}"), vec!["r3", "r2", "r1"]),
            ("?model=sim-mini".to_string(), vec!["r2", "r0"]),
            ("?status=2xx".to_string(), vec!["r2", "r1", "r0"]),
            ("?status=4XX".to_string(), vec!["r3"]),
            ("?status=200".to_string(), vec!["r2", "r1", "r0"]),
            ("?session_id=s2".to_string(), vec!["r3", "r2"]),
            (format!("?token_id={token_id}&model=sim-mini&session_id=s2"), vec!["r2"]),
            ("?since=2000-01-01T00:00:00Z".to_string(), vec!["r3", "r2", "r1", "r0"]),
            ("?until=2000-01-01T00:00:00Z".to_string(), vec![]),
            ("?since=2999-01-01T00:00:00%2B02:00".to_string(), vec![]),
            // An empty filter filters nothing.
            ("?status=&model=&token_id=&session_id=".to_string(), vec!["r3", "r2", "r1", "r0"]),
        ];
        for (query, expected) in cases {
            let page = listed(&server, &query).await;
            assert_eq!(ids(&page), expected, "{query}: {page}");
            assert_eq!(page["meta"]["total"], expected.len(), "{query}");
        }
        // Bounds at an entry's own time: since takes it in, until leaves it out.
        let all = listed(&server, "").await;
        let at = all["data"][1]["created_at"].as_str().unwrap().replace('+', "%2B");
        assert_eq!(ids(&all)[1], "r2");
        assert_eq!(ids(&listed(&server, &format!("?since={at}")).await), ["r3", "r2"]);
        assert_eq!(ids(&listed(&server, &format!("?until={at}")).await), ["r1", "r0"]);
        let second = listed(&server, "?per_page=2&page=2").await;
        assert_eq!(ids(&second), ["r1", "r0"]);
        assert_eq!(second["meta"]["total"], 4);
        assert_eq!(second["meta"]["page"], 2);
        let past = listed(&server, "?per_page=2&page=3").await;
        assert_eq!(ids(&past), Vec::<&str>::new());

        for query in ["?status=6xx", "?status=abc", "?since=yesterday", "?until=2030-01-01", "?until=", "?per_page=0"] {
            let response = server.get(&format!("/v1/requests{query}"), &server.admin_key).await;
            let message = assert_error(response, 422, "unprocessable_entity").await;
            assert!(!message.is_empty(), "{query}");
        }
        // Reading the log takes its own scope.
        let reader = server.create_token("reader", &["usage:read"]).await;
        let denied = server.get("/v1/requests", &secret(&reader)).await;
        assert_error(denied, 403, "forbidden").await;
        let allowed = server.create_token("log-reader", &["requests:read"]).await;
        let page: Value = server.get("/v1/requests", &secret(&allowed)).await.json().await.unwrap();
        assert_eq!(page["meta"]["total"], 4);
    }
}

both! {
    #[tokio::test]
    async fn retention_deletes_exactly_the_entries_older_than_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let start = |clock: &'static str, retention: &str| {
            Server::start_in(&dir, Options {
                env: vec![("TOKCTL_TEST_CLOCK", clock)],
                args: vec!["--request-log".into(), "--sim-token-delay-ms".into(), "0".into(),
                    "--request-log-retention".into(), retention.into()],
                ..Default::default()
            })
        };
        let body = json!({"model": "sim-mini", "messages": [{"role": "user", "content": "hi"}]});
        // Day 0 and day 20, each logged by the server of its day.
        for (clock, request_id) in [("2026-01-01T00:00:00Z", "day-0"), ("2026-01-21T00:00:00Z", "day-20")] {
            let mut server = start(clock, "365d");
            let (status, _) = ask(&server, &server.admin_key.clone(), body.clone(), &[("x-request-id", request_id)]).await;
            assert_eq!(status, StatusCode::OK);
            assert!(server.stop());
        }
        // Day 40 with 30 days' retention: day 0 is older than it, day 20 is not.
        let mut server = start("2026-02-10T00:00:00Z", "30d");
        assert_eq!(ids(&listed(&server, "").await), ["day-20"]);
        assert!(server.stop());
        // Deleted, not hidden: a longer retention does not bring it back.
        let server = start("2026-02-10T00:00:00Z", "365d");
        assert_eq!(ids(&listed(&server, "").await), ["day-20"]);
    }
}

#[tokio::test]
async fn without_request_log_nothing_is_logged() {
    let server = Server::start_with(Options {
        args: vec!["--sim-token-delay-ms".into(), "0".into()],
        ..Default::default()
    });
    let body = json!({"model": "sim-mini", "messages": [{"role": "user", "content": "hi"}]});
    let (status, _) = ask(&server, &server.admin_key, body, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed(&server, "").await["meta"]["total"], 0);
}

instances! {
    #[tokio::test]
    async fn each_instance_logs_its_own_requests_and_either_lists_both() {
        let options = || Options {
            args: vec!["--request-log".into(), "--sim-token-delay-ms".into(), "0".into()],
            ..Default::default()
        };
        let a = Server::start_with(options());
        let b = a.another(options());
        let body = json!({"model": "sim-mini", "messages": [{"role": "user", "content": "hi"}]});
        let key = a.admin_key.clone();
        assert_eq!(ask(&a, &key, body.clone(), &[("x-request-id", "on-a")]).await.0, StatusCode::OK);
        assert_eq!(ask(&b, &key, body, &[("x-request-id", "on-b")]).await.0, StatusCode::OK);
        // Each instance writes its entries within a second; either shows both, newest first.
        for server in [&a, &b] {
            eventually("both instances' requests", || async {
                let response = server.get("/v1/requests", &key).await;
                let page: Value = response.json().await.ok()?;
                (ids(&page) == ["on-b", "on-a"]).then_some(())
            })
            .await;
        }
    }
}

both! {
    #[tokio::test]
    async fn bodies_are_kept_only_when_asked_redacted_and_cut_at_the_cap() {
        let planted = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        let body = |text: &str| json!({"model": "sim-mini", "messages": [{"role": "user", "content": text}]});
        let keeping = Server::start_with(Options {
            args: ["--request-log", "--request-log-bodies", "--request-log-body-cap", "300", "--sim-token-delay-ms", "0"]
                .map(String::from).to_vec(),
            ..Default::default()
        });
        let key = keeping.admin_key.clone();
        let asked = format!("my key is {planted}, rotate it");
        assert_eq!(ask(&keeping, &key, body(&asked), &[("x-request-id", "small")]).await.0, StatusCode::OK);
        let long = "a".repeat(1_000);
        assert_eq!(ask(&keeping, &key, body(&long), &[("x-request-id", "long")]).await.0, StatusCode::OK);

        let small: Value = keeping.get("/v1/requests/small", &key).await.json().await.unwrap();
        let kept = small["request_body"].as_str().unwrap();
        assert!(kept.contains("my key is [REDACTED], rotate it") && !kept.contains(planted), "{kept}");
        let answer: Value = serde_json::from_str(small["response_body"].as_str().unwrap()).unwrap();
        assert_eq!(answer[0]["role"], "assistant");
        assert!(answer[0]["parts"][0]["content"].as_str().is_some_and(|t| !t.is_empty()), "{answer}");
        let long: Value = keeping.get("/v1/requests/long", &key).await.json().await.unwrap();
        let cut = long["request_body"].as_str().unwrap();
        assert!(cut.starts_with(r#"{"messages""#) && cut.ends_with("more bytes not kept]"), "{cut}");
        assert!(cut.len() < 360, "cut at 300 bytes: {}", cut.len());
        // A listing leaves bodies out.
        let page = listed(&keeping, "").await;
        assert!(page["data"][0].get("request_body").is_none(), "{page}");

        // Without --request-log-bodies nothing of the content is kept.
        let plain = logging();
        let key = plain.admin_key.clone();
        assert_eq!(ask(&plain, &key, body(&asked), &[("x-request-id", "plain")]).await.0, StatusCode::OK);
        let shown: Value = plain.get("/v1/requests/plain", &key).await.json().await.unwrap();
        assert!(shown.get("request_body").is_none() && shown.get("response_body").is_none(), "{shown}");
    }
}

both! {
    #[tokio::test]
    async fn a_streamed_answers_text_is_its_kept_body_redacted_while_the_workspace_keeps_bodies() {
        use common::upstream::{KEY_VAR, catalogue, chunks, content};
        let upstream = wiremock::MockServer::start().await;
        // A provider's key, cut across two deltas: only the text put together has its shape.
        let planted = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        let (head, tail) = planted.split_at(16);
        let (first, second) = (format!("Rotated. The old key {head}"), format!("{tail} is "));
        common::upstream::streaming(&upstream, &[first.as_str(), second.as_str(), "revoked."]).await;
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "gpt-up");
        let server = Server::start_with(Options {
            env: vec![(KEY_VAR, "sk-upstream")],
            args: vec!["--request-log".into(), "--models".into(), models],
            ..Default::default()
        });
        let key = server.admin_key.clone();
        let chat = json!({"model": "upstream", "stream": true, "messages": [{"role": "user", "content": "rotate my key"}]});
        let store_bodies = |on: bool| {
            let request = server.request(Method::PUT, "/v1/settings", &key).json(&json!({"store_bodies": on}));
            async move { assert_eq!(request.send().await.unwrap().status(), StatusCode::OK) }
        };
        let shown = |id: &str| {
            let request = server.request(Method::GET, &format!("/v1/requests/{id}"), &key);
            async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
        };

        store_bodies(true).await;
        let (status, text) = ask(&server, &key, chat.clone(), &[("x-request-id", "chat-kept")]).await;
        assert_eq!(status, StatusCode::OK);
        // The client gets the answer as the upstream said it; the log keeps it redacted.
        assert_eq!(content(&chunks(&text)), format!("Rotated. The old key {planted} is revoked."));
        // Anthropic's Messages, written here from the same deltas.
        let messages = json!({"model": "upstream", "stream": true, "max_tokens": 100,
            "messages": [{"role": "user", "content": "rotate my key"}]});
        let response = reqwest::Client::new().post(server.url("/v1/messages"))
            .header("x-api-key", &key).header("anthropic-version", "2023-06-01").header("x-request-id", "messages-kept")
            .json(&messages).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        assert!(text.contains("event: message_stop"), "{text}");

        let said = json!([{"role": "assistant", "finish_reason": "stop",
            "parts": [{"type": "text", "content": "Rotated. The old key [REDACTED] is revoked."}]}]);
        for id in ["chat-kept", "messages-kept"] {
            let entry = shown(id).await;
            assert_eq!(entry["stream"], true, "{entry}");
            let body = entry["response_body"].as_str().unwrap_or_else(|| panic!("{id}: {entry}"));
            assert!(!body.contains(head) && !body.contains(tail), "{id}: {body}");
            assert_eq!(serde_json::from_str::<Value>(body).unwrap(), said, "{id}");
        }

        // Bodies off: neither the request's nor the answer's is kept.
        store_bodies(false).await;
        let (status, _) = ask(&server, &key, chat, &[("x-request-id", "chat-plain")]).await;
        assert_eq!(status, StatusCode::OK);
        let entry = shown("chat-plain").await;
        assert_eq!(entry["stream"], true, "{entry}");
        assert!(entry.get("request_body").is_none() && entry.get("response_body").is_none(), "{entry}");
    }
}
