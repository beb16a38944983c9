//! The reference server embedded in-process on 127.0.0.1:0 with a temporary data directory.
#![allow(dead_code)]

use std::time::Duration;

use tokctl_sdk::{Client, RetryPolicy};
use tokctl_server::{ServeConfig, serve};
use tokio::sync::oneshot;

/// A running server; stops when dropped.
pub struct TestServer {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    /// The admin key written on first start.
    pub admin_key: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), String>>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::with_rate_limit(1000).await
    }

    pub async fn with_rate_limit(rate_limit: u32) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = ServeConfig {
            listen: "127.0.0.1:0".into(),
            data_dir: dir.path().join("data"),
            rate_limit,
        };
        let (bound_tx, bound_rx) = oneshot::channel();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stop_rx.await;
            };
            let on_bound = |addr| {
                let _ = bound_tx.send(addr);
            };
            serve(config, on_bound, shutdown)
                .await
                .map_err(|e| e.to_string())
        });
        let addr = bound_rx.await.expect("server bound");
        let admin_key =
            std::fs::read_to_string(dir.path().join("data/admin.key")).expect("admin.key");
        TestServer {
            base_url: format!("http://{addr}/v1"),
            admin_key: admin_key.trim().to_string(),
            stop: Some(stop_tx),
            task: Some(task),
            _dir: dir,
        }
    }

    /// An SDK client with `key`.
    pub fn client(&self, key: &str) -> Client {
        Client::builder()
            .base_url(&self.base_url)
            .api_key(key)
            .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(10)))
            .build()
            .expect("client")
    }

    /// An SDK client with the admin key.
    pub fn admin(&self) -> Client {
        self.client(&self.admin_key)
    }

    /// Stops gracefully; returns what `serve` returned.
    pub async fn stop(mut self) -> Result<(), String> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await.map_err(|e| e.to_string())?,
            None => Ok(()),
        }
    }
}
