//! Fallback when an upstream fails before answering, 502 and 504 when every candidate fails,
//! and the budget cap when an upstream reports more than it was allowed.

mod common;

use common::both;

use common::upstream::{answering, catalogue_with, chat, gateway, gateway_for};
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

both! {
    #[tokio::test]
    async fn a_failing_upstream_falls_back_before_the_first_byte() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(503).set_body_string("overloaded"))
            .expect(2)
            .mount(&upstream)
            .await;
        let (_tmp, server) = gateway_for(&upstream);
        let quality_first = json!({"model": "auto", "route_strategy": {"cost_weight": 0, "quality_weight": 1},
            "messages": [{"role": "user", "content": "hi"}]});
        let answer: Value = chat(&server, quality_first.clone())
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(answer["platform"]["routed_model"], "local");
        let reason = answer["platform"]["route_reason"].as_str().unwrap();
        assert!(
            reason.contains("fell back to local after upstream"),
            "{reason}"
        );
        assert!(reason.contains("503"), "{reason}");

        let mut streamed = quality_first;
        streamed["stream"] = json!(true);
        let text = chat(&server, streamed).await.text().await.unwrap();
        assert!(text.contains("fell back to local") && text.ends_with("data: [DONE]\n\n"));
    }
}

both! {
    #[tokio::test]
    async fn when_every_candidate_fails_the_answer_is_502() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(500))
            .mount(&upstream)
            .await;
        let (_tmp, server) = gateway_for(&upstream);
        let response = chat(
            &server,
            json!({"model": "upstream", "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "upstream_error");
    }
}

both! {
    #[tokio::test]
    async fn a_stream_that_ends_before_answering_falls_back_too() {
        let upstream = MockServer::start().await;
        // 200 and a well-formed but empty stream: nothing was produced, so another model may answer.
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw("data: [DONE]\n\n", "text/event-stream"),
            )
            .expect(1)
            .mount(&upstream)
            .await;
        let (_tmp, server) = gateway_for(&upstream);
        let text = chat(
            &server,
            json!({"model": "auto", "stream": true,
            "route_strategy": {"cost_weight": 0, "quality_weight": 1},
            "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await
        .text()
        .await
        .unwrap();
        assert!(text.contains("fell back to local after upstream"), "{text}");
        assert!(!text.contains("\"error\""), "{text}");
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    }
}

both! {
    #[tokio::test]
    async fn when_every_candidate_times_out_the_answer_is_504() {
        let upstream = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(3)))
            .mount(&upstream)
            .await;
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue_with(
            tmp.path(),
            &format!("{}/v1", upstream.uri()),
            "m",
            "timeout_ms = 200",
        );
        let server = gateway(&models, "k");
        for stream in [false, true] {
            let response = chat(
                &server,
                json!({"model": "upstream", "stream": stream,
                "messages": [{"role": "user", "content": "hi"}]}),
            )
            .await;
            assert_eq!(response.status(), StatusCode::GATEWAY_TIMEOUT);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["code"], "upstream_timeout", "{body}");
        }
    }
}

both! {
    #[tokio::test]
    async fn credits_never_exceed_the_budget_even_when_the_upstream_reports_more() {
        let upstream = MockServer::start().await;
        let usage = json!({"prompt_tokens": 11, "completion_tokens": 100_000, "total_tokens": 100_011});
        answering(&upstream, "far too long", usage).await;
        let (_tmp, server) = gateway_for(&upstream);
        // Worst case for 10 completion tokens is well under 0.05 credits; the upstream then claims
        // 100,000 tokens (200 credits at this price).
        let ask = json!({"model": "upstream", "max_tokens": 10, "budget_limit": 0.05,
            "messages": [{"role": "user", "content": "hi"}]});
        let whole: Value = chat(&server, ask.clone()).await.json().await.unwrap();
        assert_eq!(whole["platform"]["credits_consumed"], 0.05, "{whole}");
        let mut streamed = ask;
        streamed["stream"] = json!(true);
        let text = chat(&server, streamed).await.text().await.unwrap();
        assert!(text.contains("\"credits_consumed\":0.05"), "{text}");
    }
}

both! {
    #[tokio::test]
    async fn a_stream_that_sends_its_headers_and_then_nothing_times_out_and_falls_back() {
        // Headers at once, then only a keep-alive comment, then silence.
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(|| async {
                let stalled = futures::stream::once(async {
                    Ok::<_, std::convert::Infallible>(bytes::Bytes::from_static(b": keep-alive\n\n"))
                })
                .chain(futures::stream::pending());
                axum::response::Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(axum::body::Body::from_stream(stalled))
                    .unwrap()
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let tmp = tempfile::tempdir().unwrap();
        let models = catalogue_with(tmp.path(), &format!("http://{addr}/v1"), "m", "timeout_ms = 300");
        let server = gateway(&models, "k");

        // A regression would wait on the upstream for minutes: fail after 10 s instead.
        let limit = std::time::Duration::from_secs(10);
        let named = chat(&server, json!({"model": "upstream", "stream": true,
            "messages": [{"role": "user", "content": "hi"}]}));
        let named = tokio::time::timeout(limit, named).await.expect("an answer within 10 s");
        assert_eq!(named.status(), StatusCode::GATEWAY_TIMEOUT);
        let body: Value = named.json().await.unwrap();
        assert_eq!(body["error"]["code"], "upstream_timeout", "{body}");
        // `auto` (quality first ranks the upstream first) falls back to the simulated model.
        let text = chat(&server, json!({"model": "auto", "stream": true,
            "route_strategy": {"cost_weight": 0, "quality_weight": 1},
            "messages": [{"role": "user", "content": "hi"}]}));
        let text = tokio::time::timeout(limit, async { text.await.text().await.unwrap() })
            .await
            .expect("an answer within 10 s");
        assert!(text.contains("fell back to local after upstream (timed out) failed before answering"), "{text}");
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    }
}
