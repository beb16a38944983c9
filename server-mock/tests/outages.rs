//! What operators read of a PostgreSQL outage: one warning when the database becomes
//! unreachable (with the cause) and one when it is back (how long it was away, how many
//! requests were refused), nothing per refused request or per worker tick in between; and
//! probes that tell liveness from readiness throughout.

mod common;

use std::time::Duration;

use common::hooks::eventually;
use common::proxy::{Proxy, postgres_addr, through};
use common::{Options, Server, postgres};
use reqwest::StatusCode;

/// A probe's status.
async fn probe(server: &Server, path: &str) -> StatusCode {
    reqwest::get(server.url(path)).await.unwrap().status()
}

/// How many API requests the test makes while the database is away.
const REFUSED: usize = 7;

postgres! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_outage_writes_two_warnings_and_counts_the_refused_requests() {
        let proxy = Proxy::start(postgres_addr()).await;
        let server = Server::start_with(Options {
            database: Some(through(&proxy, &common::backend::new_database())),
            args: vec!["--database-timeout".into(), "2s".into()],
            ..Default::default()
        });
        let token = server.create_token("before", &["tokens:read"]).await;
        assert!(token["token"].is_string(), "{token}");
        let from = server.logs().len();

        proxy.cut();
        for _ in 0..REFUSED {
            let refused = server.get("/v1/tokens", &server.admin_key).await;
            assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        }
        for _ in 0..3 {
            assert_eq!(probe(&server, "/readyz").await, StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(probe(&server, "/healthz").await, StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(probe(&server, "/livez").await, StatusCode::OK);
        }
        // The workers keep asking meanwhile (the outbox every half second at first): long
        // enough for several of their ticks.
        eventually("the outage to be logged", || async {
            server.logs()[from..].contains("database unreachable").then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_secs(3)).await;

        proxy.restore().await;
        // Probes are not counted among the refused requests; the first answer ends the outage.
        eventually("readiness", || async {
            (probe(&server, "/readyz").await == StatusCode::OK).then_some(())
        })
        .await;
        assert_eq!(server.get("/v1/tokens", &server.admin_key).await.status(), StatusCode::OK);

        let logs = server.logs();
        let loud: Vec<&str> = logs[from..]
            .lines()
            .filter(|line| line.contains(" WARN ") || line.contains(" ERROR "))
            .collect();
        assert_eq!(loud.len(), 2, "two warnings for one outage, nothing else:\n{}", &logs[from..]);
        assert!(
            loud[0].contains("database unreachable: requests are answered 503 until it is back")
                && loud[0].contains(&format!("database=\"127.0.0.1:{}/", proxy.addr.port()))
                && loud[0].contains("error="),
            "{}",
            loud[0]
        );
        let back = loud[1];
        assert!(back.contains("database reachable again after "), "{back}");
        assert!(
            back.contains(&format!("; {REFUSED} requests were refused meanwhile")),
            "{back}"
        );
        let away_ms: u64 = back
            .split("away_ms=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("{back}"));
        assert!(away_ms >= 3000, "away at least the 3 s waited: {back}");
    }
}
