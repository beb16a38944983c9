//! A TCP proxy between a server and its database, which a test can cut (every connection
//! closed, new ones refused: the database went away), stall (connections stay open and nothing
//! passes: a network partition) and restore.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// Bytes read while stalled (held until the restore), either way.
    held: Arc<AtomicUsize>,
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
            held: Arc::default(),
        };
        proxy.accept(listener);
        proxy
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
        self.tasks.lock().unwrap().abort_all();
    }

    /// How many bytes have been read while stalled, held for the restore: a test sees from it
    /// that something was sent to the database.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
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
        let (pipes, pipe_mode, held) =
            (self.tasks.clone(), self.mode.subscribe(), self.held.clone());
        tasks.lock().unwrap().spawn(async move {
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else { continue };
                        pipes.lock().unwrap().spawn(pipe(client, target, pipe_mode.clone(), held.clone()));
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

/// Copies bytes both ways while the proxy is open; holds them while it is stalled (what a cut
/// finds held is lost with its connection).
async fn pipe(
    client: TcpStream,
    target: SocketAddr,
    mode: watch::Receiver<Mode>,
    held: Arc<AtomicUsize>,
) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        _ = copy(client_read, server_write, mode.clone(), held.clone()) => {}
        _ = copy(server_read, client_write, mode, held) => {}
    }
}

async fn copy(
    mut from: impl AsyncReadExt + Unpin,
    mut to: impl AsyncWriteExt + Unpin,
    mut mode: watch::Receiver<Mode>,
    held: Arc<AtomicUsize>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        // Read even while stalled (what arrives is held, and counted), pass on only when open.
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if *mode.borrow() != Mode::Open {
            held.fetch_add(n, Ordering::SeqCst);
        }
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
