//! A TCP proxy between a server and its database, which a test can cut (every connection
//! closed, new ones refused: the database went away), stall (connections stay open and nothing
//! passes: a network partition) and restore.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// What the proxy does now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Open,
    Stalled,
    Cut,
}

/// A running proxy.
pub struct Proxy {
    /// Where servers connect.
    pub addr: SocketAddr,
    target: SocketAddr,
    mode: watch::Sender<Mode>,
    tasks: Arc<Mutex<JoinSet<()>>>,
}

impl Proxy {
    /// A proxy on a free loopback port in front of `target`.
    pub async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (mode, _) = watch::channel(Mode::Open);
        let proxy = Proxy {
            addr: listener.local_addr().unwrap(),
            target,
            mode,
            tasks: Arc::default(),
        };
        proxy.accept(listener);
        proxy
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
        self.tasks.lock().unwrap().abort_all();
    }

    /// Stops passing bytes, leaving connections open.
    pub fn stall(&self) {
        self.mode.send_replace(Mode::Stalled);
    }

    /// Passes bytes again and, after a cut, accepts connections again on the same address.
    pub async fn restore(&self) {
        let was = self.mode.send_replace(Mode::Open);
        if was == Mode::Cut {
            let listener = TcpListener::bind(self.addr).await.unwrap();
            self.accept(listener);
        }
    }

    fn accept(&self, listener: TcpListener) {
        let (target, mut mode, tasks) = (self.target, self.mode.subscribe(), self.tasks.clone());
        let (pipes, pipe_mode) = (self.tasks.clone(), self.mode.subscribe());
        tasks.lock().unwrap().spawn(async move {
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else { continue };
                        pipes.lock().unwrap().spawn(pipe(client, target, pipe_mode.clone()));
                    }
                    _ = mode.wait_for(|m| *m == Mode::Cut) => return,
                }
            }
        });
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.tasks.lock().unwrap().abort_all();
    }
}

/// Copies bytes both ways while the proxy is open; holds them while it is stalled.
async fn pipe(client: TcpStream, target: SocketAddr, mode: watch::Receiver<Mode>) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        _ = copy(client_read, server_write, mode.clone()) => {}
        _ = copy(server_read, client_write, mode) => {}
    }
}

async fn copy(
    mut from: impl AsyncReadExt + Unpin,
    mut to: impl AsyncWriteExt + Unpin,
    mut mode: watch::Receiver<Mode>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        if mode.wait_for(|m| *m == Mode::Open).await.is_err() {
            return;
        }
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        // Bytes read just before a stall wait for the restore too.
        if mode.wait_for(|m| *m == Mode::Open).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// Where `TOKCTL_TEST_DATABASE_URL`'s PostgreSQL listens.
pub fn postgres_addr() -> SocketAddr {
    let url = url::Url::parse(&std::env::var(super::backend::URL_VAR).unwrap()).unwrap();
    let host = url.host_str().unwrap_or("127.0.0.1");
    let host = if host == "localhost" {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{}", url.port().unwrap_or(5432))
        .parse()
        .unwrap()
}

/// `url` reached through `proxy`.
pub fn through(proxy: &Proxy, url: &str) -> String {
    let mut url = url::Url::parse(url).unwrap();
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(proxy.addr.port())).unwrap();
    url.to_string()
}
