//! The reference server embedded in-process on 127.0.0.1:0 with a temporary data directory.
#![allow(dead_code)]

use std::time::Duration;

use tokctl_sdk::{Client, RetryPolicy};
use tokctl_server::{Running, ServeConfig, spawn};

/// A running server with a temporary data directory.
pub struct TestServer {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    /// The admin key written on first start.
    pub admin_key: String,
    running: Running,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::with_rate_limit(1000).await
    }

    pub async fn with_rate_limit(rate_limit: u32) -> TestServer {
        TestServer::with(|config| config.rate_limit = rate_limit).await
    }

    /// With the model catalogue `models` (TOML, as `--models` reads it) instead of the
    /// built-in simulated models.
    pub async fn with_models(models: &std::path::Path) -> TestServer {
        TestServer::with(|config| config.models = Some(models.to_path_buf())).await
    }

    async fn with(change: impl FnOnce(&mut ServeConfig)) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let data_dir = dir.path().join("data");
        let mut config = ServeConfig {
            rate_limit: 1000,
            request_log: Some(Default::default()),
            sim_token_delay: Duration::ZERO,
            ..ServeConfig::new("127.0.0.1:0", &data_dir)
        };
        change(&mut config);
        let running = spawn(config).await.expect("server started");
        let admin_key = std::fs::read_to_string(data_dir.join("admin.key")).expect("admin.key");
        TestServer {
            base_url: format!("http://{}/v1", running.addr),
            admin_key: admin_key.trim().to_string(),
            running,
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

    /// Stops gracefully; returns what the server returned.
    pub async fn stop(self) -> Result<(), String> {
        self.running.stop().await.map_err(|e| e.to_string())
    }
}
