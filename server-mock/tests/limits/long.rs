//! A stream that outlives its reservation's life: the reservation is extended while the stream
//! lives, so the limit still holds the requests made meanwhile. The life is an hour; the test
//! build shortens it to one second (`TOKCTL_TEST_HOLD_LIFE_MS`).

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{catalogue, credits, limit_refusal, limited, options, shown};
use crate::common::both;
use crate::common::hooks::eventually;
use crate::common::{Server, id, secret};

/// When the token's reservation now expires, in microseconds since the epoch (`None` once
/// there is none).
fn expiry(server: &Server, token_id: &str) -> Option<i64> {
    crate::common::backend::first(
        &server.dir,
        (
            "SELECT expires_at FROM spend_holds WHERE token_id = ?1",
            &[&token_id],
        ),
        (
            "SELECT (EXTRACT(EPOCH FROM expires_at) * 1000000)::bigint FROM spend_holds \
             WHERE token_id = $1",
            &[&token_id],
        ),
    )
}

both! {
    #[tokio::test]
    async fn a_stream_longer_than_its_reservation_s_life_keeps_it_and_the_limit_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let mut settings = options(&catalogue(tmp.path()), None);
        // 15 tokens, 500 ms apart: a stream of about 7.5 s, against a life of 1 s.
        settings.args.splice(2..4, ["--sim-token-delay-ms".to_string(), "500".to_string()]);
        settings.env.push(("TOKCTL_TEST_HOLD_LIFE_MS", "1000"));
        let server = Server::start_with(settings);
        let body = json!({"model": "mini", "max_tokens": 15, "stream": true,
                          "messages": [{"role": "user", "content": "How are limits kept?"}]});
        // Its worst case, as a whole answer costs it (the simulated model fills 15 tokens).
        let mut whole = body.clone();
        whole["stream"] = json!(false);
        let priced: Value = server.post("/v1/chat/completions", &server.admin_key, &whole).await.json().await.unwrap();
        let worst = credits(&priced["platform"]["credits_consumed"]);
        let token = limited(&server, "streamer", worst, "never").await;

        let response = server.post("/v1/chat/completions", &secret(&token), &body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut stream = response.bytes_stream();
        stream.next().await.unwrap().unwrap();
        let first = expiry(&server, &id(&token)).expect("a reservation while the stream lives");

        // Past its first expiry, the reservation has been extended and still counts.
        eventually("the reservation to outlive its first expiry", || async {
            let now = chrono::Utc::now().timestamp_micros();
            expiry(&server, &id(&token)).filter(|at| *at > first && now > first + 200_000)
        })
        .await;
        let limits = shown(&server, &id(&token)).await["limits"].clone();
        assert_eq!(credits(&limits["reserved"]), worst, "{limits}");
        let whole_request = json!({"model": "mini", "max_tokens": 15,
                                   "messages": [{"role": "user", "content": "And meanwhile?"}]});
        let refused = server.post("/v1/chat/completions", &secret(&token), &whole_request).await;
        limit_refusal(refused).await;

        // The stream ends, charged; nothing stays held or extended, and never past the limit.
        let mut text = String::new();
        while let Some(piece) = stream.next().await {
            text.push_str(&String::from_utf8_lossy(&piece.unwrap()));
        }
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
        let limits = shown(&server, &id(&token)).await["limits"].clone();
        assert_eq!((credits(&limits["spent"]), credits(&limits["reserved"])), (worst, credits(&json!(0))), "{limits}");
        assert_eq!(expiry(&server, &id(&token)), None);
    }
}
