//! How the `openai` provider reaches its upstreams.
//!
//! A plain-HTTP upstream (a model server beside the gateway, a sidecar, another tokctl-server)
//! is reached over pooled HTTP/1.1 connections that the request's own task drives: no connection
//! task and no channel sit between the request and its socket, so an answer costs no extra task
//! wake-ups. HTTPS upstreams go through reqwest (rustls). Either way the answer arrives as bytes,
//! whole or as a stream, and a hung-up stream closes its connection.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper::client::conn::http1;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::provider::Failure;

/// Longest quiet gap in an upstream's answer before it counts as failed.
const READ_TIMEOUT: Duration = Duration::from_secs(120);
/// Idle connections kept per upstream.
const MAX_IDLE: usize = 256;

type Connection = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// Where a model's requests go, worked out once when the catalogue is loaded.
pub struct Target {
    /// The full `.../chat/completions` URL (for reqwest).
    url: String,
    /// For an `http://` upstream: how to reach it without reqwest.
    plain: Option<Plain>,
    /// The `Authorization` value, or why there is none (its variable is unset).
    auth: Option<Result<HeaderValue, String>>,
}

struct Plain {
    /// `host:port` to connect to.
    addr: String,
    host: HeaderValue,
    path: Uri,
    idle: Mutex<Vec<Conn>>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("url", &self.url).finish()
    }
}

impl Target {
    /// The target for an upstream at `base_url` (e.g. `http://127.0.0.1:8000/v1`), keyed with
    /// the variable `api_key_env` names, if any.
    pub fn new(base_url: &str, api_key_env: Option<&str>) -> anyhow::Result<Self> {
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        let uri: Uri = url
            .parse()
            .map_err(|_| anyhow::anyhow!("base_url {base_url:?} is not a URL"))?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            anyhow::bail!("base_url {base_url:?} must be an absolute http or https URL");
        };
        let plain = match scheme {
            "https" => None,
            "http" => Some(Plain {
                addr: format!(
                    "{}:{}",
                    authority.host(),
                    authority.port_u16().unwrap_or(80)
                ),
                host: HeaderValue::from_str(authority.as_str())?,
                path: uri.path().parse()?,
                idle: Mutex::default(),
            }),
            _ => anyhow::bail!("base_url {base_url:?} must be an http or https URL"),
        };
        let auth = api_key_env.map(|var| match std::env::var(var) {
            Ok(key) => HeaderValue::from_str(&format!("Bearer {key}"))
                .map(|mut value| {
                    value.set_sensitive(true);
                    value
                })
                .map_err(|_| format!("{var} holds characters a header cannot carry")),
            Err(_) => Err(format!("{var} is not set")),
        });
        Ok(Target { url, plain, auth })
    }

    fn auth(&self) -> Result<Option<&HeaderValue>, Failure> {
        match &self.auth {
            None => Ok(None),
            Some(Ok(value)) => Ok(Some(value)),
            Some(Err(why)) => Err(Failure::other(why.clone())),
        }
    }
}

/// An upstream's answer: its status and its body, still arriving.
pub struct Reply {
    pub status: StatusCode,
    body: BodyStream,
}

/// The body of a [`Reply`] as it arrives.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, Failure>> + Send>>;

impl Reply {
    /// The whole body.
    pub async fn bytes(self) -> Result<Bytes, Failure> {
        let mut body = self.body;
        let Some(first) = body.next().await.transpose()? else {
            return Ok(Bytes::new());
        };
        let Some(second) = body.next().await.transpose()? else {
            return Ok(first);
        };
        let mut all = BytesMut::from(first);
        all.extend_from_slice(&second);
        while let Some(more) = body.next().await.transpose()? {
            all.extend_from_slice(&more);
        }
        Ok(all.freeze())
    }

    /// The body as it arrives; dropping it hangs up on the upstream.
    pub fn stream(self) -> BodyStream {
        self.body
    }
}

/// Sends requests to upstreams: plain HTTP over its own pools, HTTPS through reqwest.
pub struct Upstreams {
    https: reqwest::Client,
}

impl Default for Upstreams {
    fn default() -> Self {
        let https = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(READ_TIMEOUT)
            .build()
            .unwrap_or_default();
        Upstreams { https }
    }
}

impl Upstreams {
    /// POSTs a JSON `body` to `target`; resolves once the answer's head has arrived.
    pub async fn post(&self, target: &Arc<Target>, body: Vec<u8>) -> Result<Reply, Failure> {
        let auth = target.auth()?;
        let Some(plain) = &target.plain else {
            return self.post_https(target, auth, body).await;
        };
        let body = Bytes::from(body);
        // A pooled connection the upstream has just closed fails at once; one fresh try then.
        let mut fresh_only = false;
        loop {
            let (mut conn, reused) = checkout(plain, fresh_only).await?;
            let mut request = Request::post(plain.path.clone())
                .header(HOST, plain.host.clone())
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(Full::new(body.clone()))
                .map_err(|_| Failure::other("could not build the upstream request"))?;
            if let Some(auth) = auth {
                request.headers_mut().insert(AUTHORIZATION, auth.clone());
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
                        target: target.clone(),
                        last: Instant::now(),
                        timer: None,
                    };
                    return Ok(Reply {
                        status: head.status,
                        body: Box::pin(body),
                    });
                }
                _ if reused => fresh_only = true,
                _ => return Err(Failure::other("connection failed")),
            }
        }
    }
}

impl Upstreams {
    /// An `https://` upstream, through reqwest.
    async fn post_https(
        &self,
        target: &Target,
        auth: Option<&HeaderValue>,
        body: Vec<u8>,
    ) -> Result<Reply, Failure> {
        let mut request = self
            .https
            .post(&target.url)
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(auth) = auth {
            request = request.header(AUTHORIZATION, auth.clone());
        }
        let response = request.send().await.map_err(reqwest_failure)?;
        let status = response.status();
        let body = response.bytes_stream().map(|r| r.map_err(reqwest_failure));
        Ok(Reply {
            status,
            body: Box::pin(body),
        })
    }
}

fn reqwest_failure(err: reqwest::Error) -> Failure {
    if err.is_timeout() {
        Failure::timeout()
    } else {
        Failure::other("connection failed")
    }
}

/// One HTTP/1.1 connection: the handle requests go through, and the connection itself, which
/// whoever uses it polls (`None` once it has ended).
struct Conn {
    sender: http1::SendRequest<Full<Bytes>>,
    io: Option<Connection>,
}

/// An idle connection that still works, or a new one; and whether it was pooled.
async fn checkout(plain: &Plain, fresh_only: bool) -> Result<(Conn, bool), Failure> {
    let pop = || plain.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
    if !fresh_only {
        while let Some(mut conn) = pop() {
            // Reads whatever the upstream sent meanwhile: a close makes the sender unusable.
            if let Some(Ok(())) = drive(&mut conn.io, |cx| conn.sender.poll_ready(cx)).await {
                return Ok((conn, true));
            }
        }
    }
    let stream = TcpStream::connect(&plain.addr)
        .await
        .map_err(|_| Failure::other("connection failed"))?;
    let _ = stream.set_nodelay(true);
    let (sender, io) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|_| Failure::other("connection failed"))?;
    Ok((
        Conn {
            sender,
            io: Some(io),
        },
        false,
    ))
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
    target: Arc<Target>,
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
                    if let (Some(conn), Some(plain)) = (this.conn.take(), &this.target.plain)
                        && conn.io.is_some()
                    {
                        let mut idle = plain.idle.lock().unwrap_or_else(|e| e.into_inner());
                        if idle.len() < MAX_IDLE {
                            idle.push(conn);
                        }
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
