//! A limit takes effect at once: each change is shown by a token read from the cache, and a
//! request authenticated before a token's first limit is held by it when admitted after.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokctl_server::credits::Credits;

use super::{ask, chat, credits, gateway, limited, patch, shown, token_limits};
use crate::common::both;
use crate::common::{id, secret};

both! {
    #[tokio::test]
    async fn a_cached_token_shows_each_change_of_its_limit_and_each_charge_at_once() {
        // A token's limit is read with the token and kept with it in the read cache; its spend
        // is read afresh. Each read below follows a read that cached the token.
        let (_tmp, server) = gateway();
        let token = server.create_token("cached", &["chat:write"]).await;
        let id = id(&token);
        for _ in 0..2 {
            let plain = shown(&server, &id).await;
            assert!(plain.get("limits").is_none(), "{plain}");
        }
        assert_eq!(patch(&server, &id, json!({"credit_limit": 1})).await.status(), StatusCode::OK);
        let limits = token_limits(&server, &token).await;
        assert_eq!((limits["credit_limit"].clone(), limits["reset"].clone()), (json!(1), json!("never")));
        assert_eq!(patch(&server, &id, json!({"limit_reset": "weekly"})).await.status(), StatusCode::OK);
        assert_eq!(token_limits(&server, &token).await["reset"], "weekly");

        let cost = {
            let response = chat(&server, &secret(&token), 5).await;
            assert_eq!(response.status(), StatusCode::OK);
            let body: Value = response.json().await.unwrap();
            credits(&body["platform"]["credits_consumed"])
        };
        let limits = token_limits(&server, &token).await;
        assert_eq!(credits(&limits["spent"]), cost);
        assert_eq!(credits(&limits["remaining"]), Credits::from_nanos(1_000_000_000 - cost.nanos()));
        // A page with limited tokens around a plain one: each shows its own limit and spend.
        limited(&server, "other", Credits::from_nanos(2_000_000_000), "daily").await;
        server.create_token("plain", &["chat:write"]).await;
        limited(&server, "newest", Credits::from_nanos(3_000_000_000), "monthly").await;
        let listed: Value = server.get("/v1/tokens", &server.admin_key).await.json().await.unwrap();
        let listed = listed["data"].as_array().unwrap();
        assert_eq!(listed.len(), 4);
        for token in listed {
            let own = shown(&server, &crate::common::id(token)).await;
            assert_eq!(token.get("limits"), own.get("limits"), "{token}");
        }
        assert_eq!(listed[3]["limits"], limits, "the list shows what the token shows");

        assert_eq!(patch(&server, &id, json!({"credit_limit": null})).await.status(), StatusCode::OK);
        let plain = shown(&server, &id).await;
        assert!(plain.get("limits").is_none(), "{plain}");
    }
}

both! {
    #[tokio::test]
    async fn a_request_authenticated_before_the_first_limit_is_held_by_it_when_admitted_after() {
        // The request is counted (and its credential read, unlimited) before the PATCH and
        // admitted after its answer: it must reserve, and a nano-credit fits no worst case.
        let (_tmp, server) = gateway();
        let token = server.create_token("agent", &["chat:write"]).await;
        assert_eq!(chat(&server, &secret(&token), 5).await.status(), StatusCode::OK);
        let held = crate::common::inflight::Held::send(&server, &secret(&token), &ask(5)).await;
        let set = patch(&server, &id(&token), json!({"credit_limit": "0.000000001"})).await;
        assert_eq!(set.status(), StatusCode::OK);
        let (status, answer) = held.finish().await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "{answer}");
        assert!(answer.contains("credit_limit_reached"), "{answer}");
    }
}
