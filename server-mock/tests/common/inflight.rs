//! A chat request held between its authentication and its admission: its head is sent (the
//! server authenticates and counts it at once) and its body only later (the handler admits it
//! once the body is read). Tests change the token in between.

use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Server;

/// A request sent up to the middle of its body.
pub struct Held {
    stream: TcpStream,
    rest: Vec<u8>,
}

/// The workspace's rate-limit window that `server` reports to `secret`: when it ends (the
/// `X-RateLimit-Reset` second) and how many requests are left in it.
async fn window(server: &Server, secret: &str) -> (u64, u64) {
    let response = server.get("/v1/scopes", secret).await;
    let header =
        |name: &str| -> u64 { response.headers()[name].to_str().unwrap().parse().unwrap() };
    (header("x-ratelimit-reset"), header("x-ratelimit-remaining"))
}

/// How many times a request is sent again when the minute's window turns over before it is
/// seen counted (the count it was made in is then gone).
const ATTEMPTS: u32 = 3;

impl Held {
    /// Sends `body` to `server`'s chat completions with `secret`, all but the last half of the
    /// body, and returns once the server has counted it (its authentication has run).
    pub async fn send(server: &Server, secret: &str, body: &Value) -> Held {
        for _ in 0..ATTEMPTS {
            if let Some(held) = Held::try_send(server, secret, body).await {
                return held;
            }
        }
        panic!("the rate-limit window turned over {ATTEMPTS} times before the request was counted");
    }

    /// One attempt of [`Held::send`]: `None` (the connection dropped, so the request is never
    /// admitted) when the window turned over before the request was seen counted.
    async fn try_send(server: &Server, secret: &str, body: &Value) -> Option<Held> {
        let (reset, before) = window(server, secret).await;
        let body = body.to_string().into_bytes();
        let address = server.url("").trim_start_matches("http://").to_string();
        let mut stream = TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {secret}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let (first, rest) = body.split_at(body.len() / 2);
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(first).await.unwrap();
        // Counted: after `probes` probes in the same window, one request fewer is left than the
        // probes account for.
        let mut probes = 0;
        loop {
            probes += 1;
            let (now_reset, remaining) = window(server, secret).await;
            if now_reset != reset {
                return None;
            }
            if remaining + probes < before {
                break;
            }
            tokio::task::yield_now().await;
        }
        Some(Held {
            stream,
            rest: rest.to_vec(),
        })
    }

    /// Sends the rest of the body and returns the answer's status and body.
    pub async fn finish(mut self) -> (StatusCode, String) {
        self.stream.write_all(&self.rest).await.unwrap();
        let mut answer = Vec::new();
        self.stream.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer).to_string();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .and_then(|code| StatusCode::from_u16(code).ok())
            .unwrap_or_else(|| panic!("no status line in {answer:?}"));
        (status, answer)
    }
}
