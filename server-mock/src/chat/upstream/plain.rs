//! Plain-HTTP upstreams (a model server beside the gateway, a sidecar, another tokctl-server),
//! reached over pooled HTTP/1.1 connections that the request's own task drives: no connection
//! task and no channel sit between the request and its socket, so an answer costs no extra task
//! wake-ups. A body dropped before its end closes its connection.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::Stream;
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper::client::conn::http1;
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue, RETRY_AFTER};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::{READ_TIMEOUT, Reply};
use crate::chat::answer::Failure;
use crate::outbound;

/// Idle connections kept per upstream.
const MAX_IDLE: usize = 256;

type Connection = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// An `http://` upstream and its idle connections.
pub struct Plain {
    /// `host:port` to connect to.
    addr: String,
    host: HeaderValue,
    path: Uri,
    idle: Mutex<Vec<Conn>>,
}

impl Plain {
    /// The upstream whose chat completions are at `uri`.
    pub fn new(uri: &Uri) -> anyhow::Result<Self> {
        let authority = uri
            .authority()
            .ok_or_else(|| anyhow::anyhow!("{uri} has no host"))?;
        Ok(Plain {
            addr: format!(
                "{}:{}",
                authority.host(),
                authority.port_u16().unwrap_or(80)
            ),
            host: HeaderValue::from_str(authority.as_str())?,
            path: uri.path().parse()?,
            idle: Mutex::default(),
        })
    }

    /// POSTs a JSON `body` to the upstream's path (or `path` instead); resolves once the
    /// answer's head has arrived.
    pub async fn post(
        self: &Arc<Self>,
        path: Option<&str>,
        headers: super::Headers<'_>,
        body: Vec<u8>,
    ) -> Result<Reply, Failure> {
        let body = Bytes::from(body);
        let path = match path {
            None => self.path.clone(),
            Some(path) => path
                .parse()
                .map_err(|_| Failure::other("could not build the upstream request"))?,
        };
        // A pooled connection the upstream has just closed fails at once; one fresh try then.
        let mut fresh_only = false;
        loop {
            let (mut conn, reused) = self.checkout(fresh_only).await?;
            let mut request = Request::post(path.clone())
                .header(HOST, self.host.clone())
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(Full::new(body.clone()))
                .map_err(|_| Failure::other("could not build the upstream request"))?;
            for (name, value) in headers.iter() {
                request.headers_mut().insert(name.clone(), value.clone());
            }
            // Queueing the request must not wake this task: the connection sees a waker that
            // does nothing until `drive` polls it for real.
            poll_io(
                &mut conn.io,
                &mut Context::from_waker(std::task::Waker::noop()),
            );
            let mut sent = std::pin::pin!(conn.sender.send_request(request));
            match drive(&mut conn.io, |cx| sent.as_mut().poll(cx)).await {
                Some(Ok(response)) => {
                    let (head, incoming) = response.into_parts();
                    let body = PlainBody {
                        conn: Some(conn),
                        incoming,
                        upstream: self.clone(),
                        last: Instant::now(),
                        timer: None,
                    };
                    return Ok(Reply::new(
                        head.status,
                        head.headers.get(RETRY_AFTER),
                        Box::pin(body),
                    ));
                }
                _ if reused => fresh_only = true,
                Some(Err(err)) => return Err(Failure::other(outbound::http(&err))),
                None => {
                    return Err(Failure::other(
                        "the upstream closed the connection without answering",
                    ));
                }
            }
        }
    }

    /// An idle connection that still works, or a new one; and whether it was pooled.
    async fn checkout(&self, fresh_only: bool) -> Result<(Conn, bool), Failure> {
        let pop = || self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        if !fresh_only {
            while let Some(mut conn) = pop() {
                // Reads whatever the upstream sent meanwhile: a close makes the sender unusable.
                if let Some(Ok(())) = drive(&mut conn.io, |cx| conn.sender.poll_ready(cx)).await {
                    return Ok((conn, true));
                }
            }
        }
        let stream = TcpStream::connect(&self.addr)
            .await
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::TimedOut => Failure::timeout(),
                _ => Failure::other(format!("{} ({})", outbound::io_words(&err), self.addr)),
            })?;
        let _ = stream.set_nodelay(true);
        let (sender, io) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|err| Failure::other(outbound::http(&err)))?;
        Ok((
            Conn {
                sender,
                io: Some(io),
            },
            false,
        ))
    }

    /// Keeps a connection whose answer was read to its end, for the next request.
    fn give_back(&self, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }
}

/// One HTTP/1.1 connection: the handle requests go through, and the connection itself, which
/// whoever uses it polls (`None` once it has ended).
struct Conn {
    sender: http1::SendRequest<Full<Bytes>>,
    io: Option<Connection>,
}

/// Polls the connection, then `step`, until `step` is ready (`Some`) or the connection has
/// ended without it (`None`).
async fn drive<T>(
    io: &mut Option<Connection>,
    mut step: impl FnMut(&mut Context<'_>) -> Poll<T>,
) -> Option<T> {
    std::future::poll_fn(|cx| poll_driven(io, cx, &mut step)).await
}

/// One turn of the connection and of `step`, which only the connection's work can make ready,
/// so it needs no waker of its own. Whatever `step` does to the connection (a request queued, a
/// frame taken) would otherwise wake this very task while it runs, and the runtime would
/// reschedule it and rouse an idle worker for nothing: so `step` and the connection see a
/// waker that does nothing, except for the one turn that arms the socket with the real one.
fn poll_driven<T>(
    io: &mut Option<Connection>,
    cx: &mut Context<'_>,
    step: &mut impl FnMut(&mut Context<'_>) -> Poll<T>,
) -> Poll<Option<T>> {
    let mut quiet = Context::from_waker(std::task::Waker::noop());
    poll_io(io, &mut quiet);
    if let Poll::Ready(done) = step(&mut quiet) {
        return Poll::Ready(Some(done));
    }
    poll_io(io, cx);
    match step(&mut quiet) {
        Poll::Ready(done) => Poll::Ready(Some(done)),
        Poll::Pending if io.is_none() => Poll::Ready(None),
        Poll::Pending => Poll::Pending,
    }
}

/// Lets the connection read and write; forgets it once it has ended.
fn poll_io(io: &mut Option<Connection>, cx: &mut Context<'_>) {
    if let Some(conn) = io
        && Pin::new(conn).poll(cx).is_ready()
    {
        *io = None;
    }
}

/// A plain-HTTP answer's body, read by driving its connection; the connection goes back to the
/// pool once the body is complete, and is closed if the body is dropped before.
struct PlainBody {
    conn: Option<Conn>,
    incoming: Incoming,
    upstream: Arc<Plain>,
    /// When the last bytes arrived.
    last: Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl PlainBody {
    /// `true` once `READ_TIMEOUT` has passed since the last bytes (the timer is set lazily and
    /// moved on only when it fires, not at every chunk).
    fn timed_out(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            let deadline = tokio::time::Instant::from_std(self.last + READ_TIMEOUT);
            let timer = self
                .timer
                .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
            if timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            if tokio::time::Instant::now() >= deadline {
                return true;
            }
            timer.as_mut().reset(deadline);
        }
    }
}

impl Stream for PlainBody {
    type Item = Result<Bytes, Failure>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            let Some(conn) = this.conn.as_mut() else {
                return Poll::Ready(None);
            };
            let incoming = &mut this.incoming;
            let next = poll_driven(&mut conn.io, cx, &mut |quiet| {
                Pin::new(&mut *incoming).poll_frame(quiet)
            });
            match next {
                Poll::Ready(Some(Some(Ok(frame)))) => {
                    if let Ok(data) = frame.into_data() {
                        this.last = Instant::now();
                        return Poll::Ready(Some(Ok(data)));
                    }
                }
                // The body failed, or the connection ended before it did.
                Poll::Ready(Some(Some(Err(_))) | None) => {
                    this.conn = None;
                    return Poll::Ready(Some(Err(Failure::other(
                        "the upstream answer was cut off",
                    ))));
                }
                Poll::Ready(Some(None)) => {
                    if let Some(conn) = this.conn.take()
                        && conn.io.is_some()
                    {
                        this.upstream.give_back(conn);
                    }
                    return Poll::Ready(None);
                }
                Poll::Pending => {
                    if this.timed_out(cx) {
                        this.conn = None;
                        return Poll::Ready(Some(Err(Failure::timeout())));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}
