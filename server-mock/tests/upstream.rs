//! The `openai` provider against wiremock and against a second reference server: what is
//! passed through, streamed and billed.

mod common;

use common::both;

use common::upstream::{
    behind_sse, catalogue, chat, chunks, content, delta, events, gateway, gateway_for, sse,
};
use common::{Options, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

both! {
    #[tokio::test]
    async fn requests_pass_through_unchanged_with_the_cap_and_upstream_usage_is_billed() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", "Bearer upstream-secret"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": "up-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi from upstream"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
            })))
            .expect(1)
            .mount(&upstream)
            .await;
        let tmp = tempfile::tempdir().unwrap();
        let server = gateway(
            &catalogue(tmp.path(), &format!("{}/v1", upstream.uri()), "gpt-test"),
            "upstream-secret",
        );
        let tools = json!([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]);
        let response = chat(&server, json!({
            "model": "upstream", "temperature": 0.3, "max_tokens": 50, "tools": tools,
            "tool_choice": "auto", "top_p": 0.9, "budget_limit": 10, "route_strategy": {"cost_weight": 1},
            "messages": [{"role": "user", "content": "hi", "name": "ada"}]
        }))
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(
            answer["choices"][0]["message"]["content"],
            "Hi from upstream"
        );
        assert_eq!(answer["usage"]["prompt_tokens"], 11);
        let credits = answer["platform"]["credits_consumed"].as_f64().unwrap();
        assert!((credits - (11.0 * 1.0 + 7.0 * 2.0) / 1000.0).abs() < 1e-12);

        let sent: Value =
            serde_json::from_slice(&upstream.received_requests().await.unwrap()[0].body).unwrap();
        assert_eq!(sent["model"], "gpt-test");
        assert_eq!(sent["temperature"], 0.3);
        assert_eq!(sent["max_tokens"], 50);
        assert_eq!(sent["tools"], tools);
        assert_eq!(sent["tool_choice"], "auto");
        assert_eq!(sent["top_p"], 0.9, "unknown fields pass through");
        assert_eq!(sent["messages"][0]["name"], "ada");
        assert_eq!(sent["stream"], false);
        for ours in ["budget_limit", "route_strategy", "agent_wallet"] {
            assert!(sent.get(ours).is_none(), "{ours} leaked upstream");
        }
    }
}

both! {
    #[tokio::test]
    async fn without_max_tokens_the_upstream_still_gets_a_cap() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]
            })))
            .mount(&upstream)
            .await;
        let (_tmp, server) = gateway_for(&upstream);
        let response = chat(
            &server,
            json!({"model": "upstream", "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let sent: Value =
            serde_json::from_slice(&upstream.received_requests().await.unwrap()[0].body).unwrap();
        assert_eq!(
            sent["max_tokens"], 1024,
            "the model's output cap, so a budget can hold"
        );
    }
}

both! {
    #[tokio::test]
    async fn streams_are_forwarded_chunk_by_chunk_and_billed_by_upstream_usage() {
        let body = sse(&[
            delta("Hel"),
            delta("lo"),
            json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            json!({"id": "up", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}),
        ]);
        let (upstream, _tmp, server) = behind_sse(body).await;
        let response = chat(
            &server,
            json!({"model": "upstream", "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
        let text = response.text().await.unwrap();
        let chunks = chunks(&text);
        assert_eq!(content(&chunks), "Hello");
        let last = &chunks[chunks.len() - 2];
        assert_eq!(last["choices"][0]["finish_reason"], "stop");
        assert!(
            (last["platform"]["credits_consumed"].as_f64().unwrap() - (5.0 + 4.0) / 1000.0).abs()
                < 1e-12
        );
        assert_eq!(chunks[chunks.len() - 1]["usage"]["completion_tokens"], 2);
        let sent: Value =
            serde_json::from_slice(&upstream.received_requests().await.unwrap()[0].body).unwrap();
        assert_eq!(sent["stream"], true);
    }
}

both! {
    #[tokio::test]
    async fn upstream_events_are_read_however_the_upstream_writes_them() {
        // Comments and `retry:` between events, an `event:` field, no space after the colon, one
        // chunk split over two `data:` lines, and all three kinds of line end.
        let hel = delta("Hel").to_string();
        let lo = delta("lo").to_string();
        let (lo_head, lo_tail) = lo.split_at(lo.find("\"choices\"").unwrap());
        let stop = json!({"id": "up", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
        let body = format!(
            ": connected\r\n\r\nretry: 3000\r\n\r\nevent: message\r\ndata:{hel}\r\n\r\n\
             data: {lo_head}\ndata: {lo_tail}\n\n: keep-alive\n\ndata: {stop}\r\rdata: [DONE]\n\n"
        );
        let (_upstream, _tmp, server) = behind_sse(body).await;
        let response = chat(&server, json!({"model": "upstream", "stream": true, "messages": [{"role": "user", "content": "hi"}]})).await;
        let text = response.text().await.unwrap();
        let chunks = chunks(&text);
        assert_eq!(content(&chunks), "Hello", "{text}");
        assert_eq!(
            chunks.last().unwrap()["choices"][0]["finish_reason"],
            "stop"
        );
    }
}

both! {
    #[tokio::test]
    async fn an_upstream_that_dies_mid_stream_ends_with_an_error_event_and_done() {
        // One chunk, then the connection ends: no finish_reason, no [DONE].
        let (_upstream, _tmp, server) = behind_sse(format!("data: {}\n\n", delta("partial"))).await;
        let response = chat(&server, json!({"model": "upstream", "stream": true, "messages": [{"role": "user", "content": "hi"}]})).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        let events = events(&text);
        assert_eq!(events.last(), Some(&"[DONE]"));
        let error: Value = serde_json::from_str(events[events.len() - 2]).unwrap();
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("mid-stream"),
            "{error}"
        );
        assert!(events.iter().any(|e| e.contains("partial")));
    }
}

both! {
    #[tokio::test]
    async fn tool_call_deltas_pass_through_verbatim_in_openais_own_chunk_format() {
        // As OpenAI sends them with `include_usage`: `"usage": null` on every chunk until the last,
        // the role in the first delta, tool call arguments in pieces, and (with `n` = 2) a second
        // choice that the gateway does not relay.
        let head = json!({"id": "up", "object": "chat.completion.chunk", "created": 1, "model": "m", "usage": null});
        let with = |choices: Value| {
            let mut chunk = head.clone();
            chunk["choices"] = choices;
            chunk
        };
        let call = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "lookup", "arguments": "{\"q\":"}}]});
        let rest = json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"ada\"}"}}]});
        let body = sse(&[
            with(
                json!([{"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}]),
            ),
            with(json!([{"index": 1, "delta": {"content": "other choice"}, "finish_reason": null}])),
            with(json!([{"index": 0, "delta": call, "finish_reason": null}])),
            with(json!([{"index": 0, "delta": rest, "finish_reason": null}])),
            with(json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
            json!({"id": "up", "object": "chat.completion.chunk", "choices": [],
                   "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}}),
        ]);
        let (_upstream, _tmp, server) = behind_sse(body).await;
        let response = chat(&server, json!({"model": "upstream", "stream": true, "n": 2,
            "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "hi"}]}))
        .await;
        let text = response.text().await.unwrap();
        assert!(!text.contains("other choice"), "{text}");
        let chunks = chunks(&text);
        let deltas: Vec<&Value> = chunks.iter().map(|c| &c["choices"][0]["delta"]).collect();
        assert!(deltas.contains(&&call), "{text}");
        assert!(deltas.contains(&&rest), "{text}");
        let last = &chunks[chunks.len() - 2];
        assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(last["choices"][0]["delta"], json!({}));
        assert_eq!(chunks[chunks.len() - 1]["usage"]["total_tokens"], 13);
    }
}

both! {
    #[tokio::test]
    async fn an_error_chunk_from_the_upstream_ends_the_stream_with_its_message() {
        let body = format!(
            "data: {}\n\ndata: {}\n\n",
            delta("partial"),
            json!({"error": {"message": "overloaded, try later", "type": "server_error"}})
        );
        let (_upstream, _tmp, server) = behind_sse(body).await;
        let response = chat(&server, json!({"model": "upstream", "stream": true, "messages": [{"role": "user", "content": "hi"}]})).await;
        let text = response.text().await.unwrap();
        let events = events(&text);
        assert_eq!(events.last(), Some(&"[DONE]"));
        let error: Value = serde_json::from_str(events[events.len() - 2]).unwrap();
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("overloaded, try later"), "{error}");
    }
}

both! {
    #[tokio::test]
    async fn another_reference_server_serves_as_an_openai_upstream() {
        let origin = Server::start_with(Options {
            args: vec!["--sim-token-delay-ms".into(), "0".into()],
            ..Default::default()
        });
        let tmp = tempfile::tempdir().unwrap();
        let relay = gateway(
            &catalogue(tmp.path(), &format!("{}/v1", origin.base), "sim-fast"),
            &origin.admin_key,
        );
        let ask = json!({"model": "upstream", "messages": [{"role": "user", "content": "relay me"}]});
        let direct: Value = origin
            .post(
                "/v1/chat/completions",
                &origin.admin_key,
                &json!({"model": "sim-fast", "messages": [{"role": "user", "content": "relay me"}]}),
            )
            .await
            .json()
            .await
            .unwrap();
        let relayed: Value = chat(&relay, ask.clone()).await.json().await.unwrap();
        assert_eq!(
            relayed["choices"][0]["message"]["content"],
            direct["choices"][0]["message"]["content"]
        );
        assert_eq!(relayed["usage"], direct["usage"]);

        let mut streamed = ask;
        streamed["stream"] = json!(true);
        let text = chat(&relay, streamed).await.text().await.unwrap();
        let content: String = text
            .split("\n\n")
            .filter_map(|e| e.strip_prefix("data: "))
            .filter_map(|e| serde_json::from_str::<Value>(e).ok())
            .filter_map(|c| {
                c["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(
            content,
            direct["choices"][0]["message"]["content"].as_str().unwrap()
        );
    }
}

both! {
    #[tokio::test]
    async fn an_alias_reaches_its_model_under_the_upstream_s_own_name() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .and(wiremock::matchers::body_partial_json(json!({"model": "m"})))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": "up", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
            })))
            .expect(1)
            .mount(&upstream)
            .await;
        let tmp = tempfile::tempdir().unwrap();
        let models = common::upstream::catalogue_with(
            tmp.path(),
            &format!("{}/v1", upstream.uri()),
            "m",
            "aliases = [\"gpt-4o-mini-2024-07-18\"]",
        );
        let server = gateway(&models, "k");
        let response = chat(&server, json!({"model": "gpt-4o-mini-2024-07-18",
            "messages": [{"role": "user", "content": "hi"}]})).await;
        assert_eq!(response.status(), StatusCode::OK);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["platform"]["routed_model"], "upstream");
        assert_eq!(answer["model"], "upstream");
        assert_eq!(answer["platform"]["route_reason"],
            "requested model upstream (named by its alias gpt-4o-mini-2024-07-18)");
        let listed: Value = server.get("/v1/models", &server.admin_key).await.json().await.unwrap();
        let shown = listed["data"].as_array().unwrap().iter().find(|m| m["id"] == "upstream").unwrap();
        assert_eq!(shown["aliases"], json!(["gpt-4o-mini-2024-07-18"]));
    }
}

both! {
    #[tokio::test]
    async fn an_upstream_delta_over_several_lines_goes_out_as_several_data_lines() {
        let upstream = MockServer::start().await;
        // The delta's JSON breaks a line: SSE carries it as two `data:` lines, joined by `\n`.
        let body = "data: {\"id\":\"u1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\n\
                    data: \"content\":\"hi\"},\"finish_reason\":null}]}\n\n\
                    data: {\"id\":\"u1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                    data: [DONE]\n\n";
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
            .mount(&upstream)
            .await;
        let (_tmp, server) = gateway_for(&upstream);
        let text = chat(&server, json!({"model": "upstream", "stream": true,
            "messages": [{"role": "user", "content": "hi"}]}))
            .await
            .text()
            .await
            .unwrap();
        for line in text.lines() {
            assert!(line.is_empty() || line.starts_with("data: "), "a line outside any field: {line:?}\n{text}");
        }
        let said: Vec<Value> = text
            .split("\n\n")
            .filter(|event| !event.is_empty() && !event.ends_with("[DONE]"))
            .map(|event| {
                let data: Vec<&str> = event.lines().map(|l| l.trim_start_matches("data: ")).collect();
                serde_json::from_str(&data.join("\n")).unwrap()
            })
            .collect();
        assert!(said.iter().any(|chunk| chunk["choices"][0]["delta"]["content"] == "hi"), "{text}");
    }
}
