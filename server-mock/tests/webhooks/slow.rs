//! One endpoint that never answers, with more due deliveries than there are slots, holds up
//! no other endpoint: it never has more than its share of attempts in flight.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::Server;
use crate::common::both;
use crate::common::hooks::{
    attempts, fast_retries, free_addr, next, receiver, stuck_receiver, subscribe,
};

/// Attempts in flight at once, over all endpoints (`delivery.rs`).
const SLOTS: usize = 64;
/// Attempts in flight at once to one endpoint (`delivery.rs`).
const PER_ENDPOINT: usize = 4;

both! {
    #[tokio::test]
    async fn a_stuck_endpoint_with_a_backlog_does_not_hold_up_the_others() {
        let (stuck_addr, mut connections, _hold) = stuck_receiver().await;
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 200).await;
        let server = Server::start_with(fast_retries());
        let stuck = subscribe(
            &server,
            &format!("http://{stuck_addr}/hook"),
            &["token.rotated"],
        )
        .await;
        let stuck_id = stuck["id"].as_str().unwrap();
        let healthy = subscribe(&server, &format!("http://{addr}/hook"), &["token.expiring"]).await;

        for _ in 0..SLOTS + 10 {
            let queued = server
                .post(
                    &format!("/v1/webhooks/{stuck_id}/test"),
                    &server.admin_key,
                    &json!({}),
                )
                .await;
            assert_eq!(queued.status(), StatusCode::ACCEPTED);
        }
        // The stuck endpoint holds its share of the slots.
        let mut open = 0;
        while open < PER_ENDPOINT {
            open = tokio::time::timeout(std::time::Duration::from_secs(20), connections.recv())
                .await
                .expect("the stuck endpoint is being attempted")
                .unwrap();
        }

        let queued: Value = server
            .post(
                &format!("/v1/webhooks/{}/test", healthy["id"].as_str().unwrap()),
                &server.admin_key,
                &json!({}),
            )
            .await
            .json()
            .await
            .unwrap();
        let received = next(&mut inbox).await;
        assert_eq!(
            received.headers["x-service-event-id"],
            queued["id"].as_str().unwrap()
        );

        // It arrived while every attempt to the stuck endpoint was still waiting (10 s limit), and
        // the stuck endpoint never had more than its share open.
        let stuck_attempts = attempts(&server, stuck_id).await;
        assert_eq!(
            stuck_attempts["meta"]["total"], 0,
            "{}",
            stuck_attempts["meta"]
        );
        while let Ok(count) = connections.try_recv() {
            open = count;
        }
        assert_eq!(open, PER_ENDPOINT);
    }
}
