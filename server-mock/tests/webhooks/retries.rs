//! The retry schedule, and attempts that end after their endpoint was deleted or disabled.

use chrono::{DateTime, FixedOffset};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::both;
use crate::common::hooks::{
    attempts, eventually, fast_retries, free_addr, holding_receiver, next, receiver, send_test,
    subscribe,
};
use crate::common::{Options, Server, assert_error};

fn time(value: &Value) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp")).unwrap()
}

/// The delivery row's state, read from the server's data.
fn delivery_state(server: &Server, event_id: &str) -> String {
    crate::common::backend::one(
        &server.dir,
        (
            "SELECT state FROM webhook_deliveries WHERE event_id = ?1",
            &[&event_id],
        ),
        (
            "SELECT state FROM webhook_deliveries WHERE event_id = $1",
            &[&event_id],
        ),
    )
}

both! {
    #[tokio::test]
    async fn failures_are_retried_on_the_schedule_then_given_up() {
        let addr = free_addr();
        let (mut inbox, _task) = receiver(addr, 500).await;
        let server = Server::start_with(Options {
            args: vec!["--webhook-retry-schedule".into(), "1s,1s".into()],
            ..Default::default()
        });
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        let endpoint_id = endpoint["id"].as_str().unwrap();
        let event_id = send_test(&server, endpoint_id).await;

        // The first attempt and one per entry of the schedule.
        for _ in 0..3 {
            let received = next(&mut inbox).await;
            assert_eq!(received.headers["x-service-event-id"], event_id.as_str());
        }
        let listed = eventually("three recorded attempts", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["meta"]["total"] == 3).then_some(listed)
        })
        .await;
        let mut data = listed["data"].as_array().unwrap().clone();
        data.reverse();
        let numbers: Vec<u64> = data
            .iter()
            .map(|a| a["attempt"].as_u64().unwrap())
            .collect();
        assert_eq!(numbers, [1, 2, 3], "{listed}");
        for attempt in &data {
            assert_eq!(attempt["event_id"], event_id.as_str());
            assert_eq!(attempt["status_code"], 500);
        }
        for pair in data.windows(2) {
            // Retrying: the next attempt is 1 s away, give or take the 20 % jitter, and is not
            // made before then.
            let (made, next_at) = (
                time(&pair[0]["created_at"]),
                time(&pair[0]["next_retry_at"]),
            );
            let wait = (next_at - made).num_milliseconds();
            assert!((799..=1200).contains(&wait), "waited {wait} ms: {listed}");
            assert!(time(&pair[1]["created_at"]) >= next_at, "{listed}");
        }
        assert!(
            data[2]["next_retry_at"].is_null(),
            "the schedule is spent: {listed}"
        );

        // Given up for good: nothing will claim it again, and a later event still arrives.
        assert_eq!(delivery_state(&server, &event_id), "failed");
        let later = send_test(&server, endpoint_id).await;
        let received = next(&mut inbox).await;
        assert_eq!(received.headers["x-service-event-id"], later.as_str());
    }
}

both! {
    #[tokio::test]
    async fn an_attempt_in_flight_when_the_endpoint_is_disabled_is_not_retried() {
        let addr = free_addr();
        let (mut held, _task) = holding_receiver(addr).await;
        let server = Server::start_with(fast_retries());
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        let endpoint_id = endpoint["id"].as_str().unwrap();
        send_test(&server, endpoint_id).await;
        send_test(&server, endpoint_id).await;
        let first = tokio::time::timeout(std::time::Duration::from_secs(20), held.recv())
            .await
            .expect("a first request")
            .unwrap();
        let second = tokio::time::timeout(std::time::Duration::from_secs(20), held.recv())
            .await
            .expect("a second request while the first is held")
            .unwrap();

        // The first answer disables the endpoint; the second, still in flight, then fails.
        first.answer.send(410).unwrap();
        eventually("the endpoint to be disabled", || async {
            let shown: Value = server
                .get(&format!("/v1/webhooks/{endpoint_id}"), &server.admin_key)
                .await
                .json()
                .await
                .unwrap();
            (shown["status"] == "disabled").then_some(())
        })
        .await;
        second.answer.send(500).unwrap();
        let listed = eventually("both attempts recorded", || async {
            let listed = attempts(&server, endpoint_id).await;
            (listed["meta"]["total"] == 2).then_some(listed)
        })
        .await;
        // Attempts are listed by when they were sent, and the two went out together: either
        // may come first.
        let failed = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["status_code"] == 500)
            .unwrap_or_else(|| panic!("the 500 attempt: {listed}"));
        assert!(failed["next_retry_at"].is_null(), "no retry: {listed}");
        let second_id = second.received.headers["x-service-event-id"]
            .to_str()
            .unwrap();
        assert_eq!(delivery_state(&server, second_id), "abandoned");

        let refused = server
            .post(
                &format!("/v1/webhooks/{endpoint_id}/test"),
                &server.admin_key,
                &json!({}),
            )
            .await;
        assert_error(refused, 409, "conflict").await;
    }
}

both! {
    #[tokio::test]
    async fn an_attempt_in_flight_when_the_endpoint_is_deleted_is_not_retried() {
        let addr = free_addr();
        let (mut held, _task) = holding_receiver(addr).await;
        let server = Server::start_with(fast_retries());
        let endpoint = subscribe(&server, &format!("http://{addr}/hook"), &["token.rotated"]).await;
        let endpoint_id = endpoint["id"].as_str().unwrap();
        let event_id = send_test(&server, endpoint_id).await;
        let request = tokio::time::timeout(std::time::Duration::from_secs(20), held.recv())
            .await
            .expect("a request")
            .unwrap();

        let deleted = server
            .delete(&format!("/v1/webhooks/{endpoint_id}"), &server.admin_key)
            .await;
        assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
        request.answer.send(500).unwrap();

        // Once the attempt is recorded its outcome is settled: the delivery stays abandoned.
        let no_retry: bool = eventually("the attempt to be recorded", || async {
            crate::common::backend::first(
                &server.dir,
                (
                    "SELECT next_retry_at IS NULL FROM webhook_attempts WHERE event_id = ?1",
                    &[&event_id],
                ),
                (
                    "SELECT next_retry_at IS NULL FROM webhook_attempts WHERE event_id = $1",
                    &[&event_id],
                ),
            )
        })
        .await;
        assert!(no_retry, "no retry is scheduled");
        assert_eq!(delivery_state(&server, &event_id), "abandoned");
    }
}
