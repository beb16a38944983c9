//! Helpers for `tokctl webhooks listen`: the process, plain HTTP over std sockets, and a
//! one-shot receiver.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::Env;

/// A running `tokctl webhooks listen`, its stderr read line by line.
pub struct Listen {
    pub child: Child,
    stderr: mpsc::Receiver<String>,
}

impl Listen {
    /// Starts listening on `port` and waits for its "listening on" line.
    pub fn start(
        env: &Env,
        port: u16,
        secret: &str,
        forward_to: Option<&str>,
        stdout: Stdio,
    ) -> Listen {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("tokctl"));
        for var in Env::UNSET {
            command.env_remove(var);
        }
        command
            .args(["webhooks", "listen", "--port", &port.to_string()])
            .envs(env.vars())
            .env("TOKCTL_WEBHOOK_SECRET", secret)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped());
        if let Some(url) = forward_to {
            command.args(["--forward-to", url]);
        }
        let mut child = command.spawn().unwrap();
        let (tx, stderr) = mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut listen = Listen { child, stderr };
        let first = listen.next_stderr_line();
        assert!(
            first.starts_with(&format!("listening on http://127.0.0.1:{port}")),
            "{first}"
        );
        listen
    }

    /// The next line on stderr, waiting at most 20 s.
    pub fn next_stderr_line(&mut self) -> String {
        self.stderr
            .recv_timeout(Duration::from_secs(20))
            .expect("a line on stderr within 20 s")
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `token.rotated` event body with id `event_id`.
pub fn event_body(event_id: &str) -> String {
    serde_json::json!({
        "id": event_id,
        "type": "token.rotated",
        "created_at": "2026-01-01T00:00:00Z",
        "data": {"id": "tok_1"},
    })
    .to_string()
}

/// POSTs `body` to `127.0.0.1:port/hook` with `signature`; returns the status.
pub fn post(port: u16, signature: &str, body: &str) -> u16 {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        socket,
        "POST /hook HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n\
         x-service-signature: {signature}\r\nx-service-event-id: evt_1\r\n\
         x-service-timestamp: 1767225600\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut status_line = String::new();
    BufReader::new(socket).read_line(&mut status_line).unwrap();
    status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {status_line:?}"))
}

/// A receiver at `http://127.0.0.1:PORT/relay` that answers one request with `status`
/// (e.g. `200 OK`); the thread returns the request it read, headers and body.
pub fn one_shot(status: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/relay", listener.local_addr().unwrap());
    let thread = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        while !complete(&request) {
            let n = socket.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        write!(
            socket,
            "HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    (url, thread)
}

/// Whether `request` holds its headers and as many body bytes as they announce.
fn complete(request: &[u8]) -> bool {
    let text = String::from_utf8_lossy(request);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    body.len() >= length
}
