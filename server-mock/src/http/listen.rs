//! Serving connections: the accept loop, one task per HTTP/1.1 connection, graceful shutdown.
//!
//! This is what `axum::serve` does, with three differences: every accepted socket gets
//! `TCP_NODELAY`; each connection's task runs inside [`Repoll`], which `axum::serve` has no
//! place for (why it matters is in `repoll.rs`); and hyper is given a timer, without which it
//! silently drops its header-read timeout, so a client that opens a connection and never
//! finishes a request would hold it (and its task) for ever.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::serve::Listener;
use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

use crate::http::repoll::Repoll;

/// How long a connection may take to send a request's head (hyper's own default).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting, lets every
/// connection finish the request it is serving, and returns once all have closed.
///
/// A connection is closed when a request's head has not fully arrived `header_timeout` after
/// the server began waiting for it; that also closes keep-alive connections idle that long.
pub async fn serve(
    mut listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    // `stop` closes to tell connections to finish; each holds a `done` receiver until it has.
    let (stop_tx, stop_rx) = watch::channel(());
    let (done_tx, done_rx) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    loop {
        let (tcp, addr) = tokio::select! {
            // Accept errors are retried inside (a pause first when out of file descriptors).
            accepted = Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
        };
        // Answers and streamed chunks go out at once, not after Nagle's wait for an ACK.
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(error = %err, "could not set TCP_NODELAY");
        }
        let connection = connection(
            http.clone(),
            tcp,
            addr,
            app.clone(),
            stop_rx.clone(),
            done_rx.clone(),
        );
        tokio::spawn(Repoll::new(connection));
    }
    drop(listener);
    drop(stop_tx);
    drop(done_rx);
    done_tx.closed().await;
}

/// Serves one connection; on `stop`, finishes the request in flight and closes.
async fn connection(
    http: http1::Builder,
    tcp: TcpStream,
    addr: SocketAddr,
    app: Router,
    mut stop: watch::Receiver<()>,
    _done: watch::Receiver<()>,
) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(ConnectInfo(addr));
        app.clone().oneshot(request)
    });
    let mut conn = pin!(http.serve_connection(TokioIo::new(tcp), service));
    let result = tokio::select! {
        result = conn.as_mut() => result,
        _ = stop.changed() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(err) = result {
        tracing::trace!(error = %err, "connection ended with an error");
    }
}
