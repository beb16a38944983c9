//! The notices a limit sends: `token.limit_threshold` at 80 and 95 %, `token.limit_reached` at
//! 100 % or at the first refusal, each once per token and period across instances.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokctl_server::credits::Credits;

use super::{
    catalogue, chat, credits, gateway, limit_refusal, limited, options, times, usage_of, worst_case,
};
use crate::common::both;
use crate::common::hooks::{free_addr, next, receiver, subscribe, verify};
use crate::common::{Server, assert_error, id, secret};

both! {
    #[tokio::test]
    async fn notices_at_80_95_and_100_percent_come_once_per_period() {
        let (_tmp, server) = gateway();
        let second = server.database.as_ref().map(|_| {
            let models = catalogue(&server.dir);
            server.another(options(&models, None))
        });
        let instances: Vec<&Server> = std::iter::once(&server).chain(second.as_ref()).collect();
        let addr = free_addr();
        let (mut rx, _task) = receiver(addr, 200).await;
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"),
            &["token.limit_threshold", "token.limit_reached"]).await;
        let signing = endpoint["secret"].as_str().unwrap().to_string();
        let worst = worst_case(&server).await;
        let token = limited(&server, "bot", times(worst, 20), "daily").await;
        let secret = secret(&token);
        let mut events = Vec::new();
        for (i, expected) in [(16, 80), (19, 95), (20, 100)] {
            while events.len() < i {
                let server = instances[events.len() % instances.len()];
                assert_eq!(chat(server, &secret, 5).await.status(), StatusCode::OK);
                events.push(());
            }
            let body = verify(&signing, &next(&mut rx).await);
            assert_eq!(body["data"]["threshold"], expected, "{body}");
            assert_eq!(body["data"]["id"], id(&token));
            assert_eq!(body["data"]["name"], "bot");
            assert_eq!(credits(&body["data"]["spent"]), times(worst, i as u64));
            assert_eq!(credits(&body["data"]["credit_limit"]), times(worst, 20));
            let kind = if expected == 100 { "token.limit_reached" } else { "token.limit_threshold" };
            assert_eq!(body["type"], kind);
            assert!(!body.to_string().contains(&secret), "never the secret");
        }
        // The wall, hit again by refused requests on both instances: no second notice. The
        // test event queued after them arrives next.
        for server in &instances {
            limit_refusal(chat(server, &secret, 5).await).await;
        }
        let test_id = crate::common::hooks::send_test(&server, endpoint["id"].as_str().unwrap()).await;
        let body = verify(&signing, &next(&mut rx).await);
        assert_eq!(body["id"], test_id, "{body}");
    }
}

both! {
    #[tokio::test]
    async fn a_refused_request_is_the_wall_when_the_spend_stops_short_of_it() {
        let (_tmp, server) = gateway();
        let addr = free_addr();
        let (mut rx, _task) = receiver(addr, 200).await;
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.limit_reached"]).await;
        let worst = worst_case(&server).await;
        // Room for one and a half requests: the second is refused at 50 % spent.
        let token = limited(&server, "half", Credits::from_nanos(worst.nanos() * 3 / 2), "weekly").await;
        assert_eq!(chat(&server, &secret(&token), 5).await.status(), StatusCode::OK);
        let refused = chat(&server, &secret(&token), 5).await;
        let message = limit_refusal(refused).await;
        assert!(message.contains("resets at"), "{message}");
        let body = verify(endpoint["secret"].as_str().unwrap(), &next(&mut rx).await);
        assert_eq!((body["type"].as_str(), body["data"]["refused"].as_bool()), (Some("token.limit_reached"), Some(true)));
        assert_eq!(credits(&body["data"]["spent"]), worst);
        // Rotation keeps the limit and the period's spend (the token keeps its id): the new
        // secret is refused all the same.
        let rotated: Value = server
            .post(&format!("/v1/tokens/{}/rotate", id(&token)), &server.admin_key, &json!({}))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(credits(&rotated["limits"]["spent"]), worst, "{rotated}");
        limit_refusal(chat(&server, &secret(&rotated), 5).await).await;
        // Usage narrowed to the token: one request; an unknown token is 404.
        assert_eq!(usage_of(&server, &id(&token)).await["requests"], 1);
        let unknown = server.get("/v1/usage?token_id=tok_000000000000000000000000", &server.admin_key).await;
        assert_error(unknown, 404, "not_found").await;
    }
}
