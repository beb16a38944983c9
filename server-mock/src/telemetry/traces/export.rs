//! How spans leave. A span that ends is encoded ([`super::otlp`]) by the thread that ends it,
//! into a buffer of that thread's own, and copied onto the end of a bounded batch (one lock,
//! held for the copy; the exporting thread is woken only when a batch is full): its record never
//! moves, and is freed on the thread that made it. A thread of its own takes a
//! batch when one is full, or what there is every scheduled delay (`OTEL_BSP_SCHEDULE_DELAY`),
//! wraps it and posts it on the server's runtime. Every span dropped is counted
//! ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)): those refused
//! because the list is full, and those of a batch the collector did not take.
//!
//! The SDK's batch processor moved each span through a channel and again into its batch (about
//! 2,000 instructions a request of copying alone), and dropped spans silently when its queue was
//! full.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::context::Ids;
use super::otlp;
use super::span::Record;

/// Spans in one export unless `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` says otherwise.
const BATCH: usize = 512;
/// The longest a span waits to be exported unless `OTEL_BSP_SCHEDULE_DELAY` (milliseconds)
/// says otherwise.
const DELAY: Duration = Duration::from_secs(5);

/// How long after a failed export the next batch is tried (spans dropped meanwhile).
const RETRY: Duration = Duration::from_secs(1);

/// A batcher posting to the OTLP/HTTP `endpoint` (each post given at most `timeout`), holding at
/// most `queue` spans not yet taken for export; every span dropped is counted in `dropped`.
/// `resource` is the resource's fields, encoded ([`otlp::resource`]). Posts run on the current
/// Tokio runtime.
pub(super) fn bounded(
    endpoint: &str,
    timeout: Duration,
    queue: usize,
    dropped: metrics::Counter,
    resource: Vec<u8>,
) -> anyhow::Result<Batcher> {
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| anyhow::anyhow!("traces are exported from within the server's runtime"))?;
    let mut headers = env_headers();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-protobuf"),
    );
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .default_headers(headers)
        .build()?;
    let url = reqwest::Url::parse(endpoint)?;
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let batch = env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0)
        .unwrap_or(BATCH)
        .min(queue);
    // At least a millisecond: a delay of 0 would have the thread spin.
    let delay = env("OTEL_BSP_SCHEDULE_DELAY")
        .map_or(DELAY, Duration::from_millis)
        .max(Duration::from_millis(1));
    let room = otlp::room(resource.len());
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending::new(room, FIRST_SPAN_BYTES * batch, batch)),
        wake: Condvar::new(),
        exported: Condvar::new(),
        queue,
        batch,
        delay,
        dropped,
        resource,
        room,
    });
    let sender = Sender {
        client,
        url,
        runtime,
        shared: shared.clone(),
        retry_at: None,
    };
    std::thread::Builder::new()
        .name("tokctl-traces".into())
        .spawn(move || sender.run())?;
    Ok(Batcher { shared })
}

/// The headers `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (else `OTEL_EXPORTER_OTLP_HEADERS`) name,
/// `key=value` pairs separated by commas, each value percent-decoded; pairs that are not
/// headers are left out.
fn env_headers() -> HeaderMap {
    let var = std::env::var("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
        .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_HEADERS"))
        .unwrap_or_default();
    parse_headers(&var)
}

fn parse_headers(text: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (key, value) in text.split(',').filter_map(|pair| pair.split_once('=')) {
        let value = value.trim();
        let decoded = percent_encoding::percent_decode_str(value).decode_utf8();
        let value = decoded.map_or_else(|_| value.to_string(), |v| v.into_owned());
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(key.trim()),
            HeaderValue::try_from(value),
        ) {
            headers.insert(name, value);
        }
    }
    headers
}

thread_local! {
    /// Where a thread encodes a span before it joins the batch: the batch's lock is then held
    /// for a copy, not for the encoding. Held while encoding, the two request threads waited on
    /// each other (futex calls per request +42 %, context switches +24 %, with traces on).
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(FIRST_SPAN_BYTES));
}

/// Where each span goes when it ends.
pub(super) struct Batcher {
    shared: Arc<Shared>,
}

/// What the request path and the exporting thread share.
struct Shared {
    pending: Mutex<Pending>,
    /// Wakes the exporting thread: a batch is full, or it should stop.
    wake: Condvar,
    /// Signalled once the exporting thread has sent what was left and stopped.
    exported: Condvar,
    /// Most spans waiting; past it, new ones are dropped.
    queue: usize,
    /// Spans in one export.
    batch: usize,
    /// The longest a span waits.
    delay: Duration,
    dropped: metrics::Counter,
    /// The resource's fields, encoded once (every export repeats them).
    resource: Vec<u8>,
    /// Bytes kept before a batch's spans ([`otlp::room`]).
    room: usize,
}

/// Bytes a span is guessed to take before any is known (the first batch's buffer).
const FIRST_SPAN_BYTES: usize = 512;

/// The spans ended and not yet taken for export.
struct Pending {
    /// The spans, encoded, after room for the messages around them ([`otlp::room`]).
    spans: Vec<u8>,
    /// Where each span ends in `spans`.
    ends: Vec<usize>,
    /// Asked to stop, and stopped (the exporting thread sent what was left and ended).
    stop: bool,
    stopped: bool,
}

impl Pending {
    /// Takes the first batch (at most `batch` spans, after `room` bytes), and how many spans it
    /// holds; none when nothing is pending. The spans past it (they came while the exporting
    /// thread woke) are copied into the buffer that follows, a few hundred bytes; taken whole,
    /// a batch and a few would be copied and posted as two.
    fn take(&mut self, batch: usize, room: usize) -> Option<(Vec<u8>, usize)> {
        let count = self.ends.len().min(batch);
        let end = *self.ends.get(count.checked_sub(1)?)?;
        // The next spans go into a buffer with as much room as this one had (spans keep coming
        // while this thread wakes: a buffer made for one batch would be grown, all its spans
        // copied, on a request's path).
        let (bytes, spans) = (self.spans.capacity(), self.ends.capacity());
        let mut next = Pending::new(room, bytes.saturating_sub(room), spans);
        next.spans.extend_from_slice(&self.spans[end..]);
        let moved = end - room;
        next.ends
            .extend(self.ends[count..].iter().map(|at| at - moved));
        self.spans.truncate(end);
        self.ends = next.ends;
        Some((std::mem::replace(&mut self.spans, next.spans), count))
    }

    /// Nothing pending: room for the messages around, and for `bytes` of `spans` spans.
    fn new(room: usize, bytes: usize, spans: usize) -> Self {
        let mut buffer = Vec::with_capacity(room + bytes);
        buffer.resize(room, 0);
        Pending {
            spans: buffer,
            ends: Vec::with_capacity(spans),
            stop: false,
            stopped: false,
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Batcher {
    /// Queues an ended span, `ids`'s as `record` holds it, or drops it (counted) when the
    /// queue is full or the batcher stopped.
    pub(super) fn push(&self, ids: &Ids, record: &Record) {
        SCRATCH.with_borrow_mut(|span| {
            span.clear();
            otlp::span(ids, record, span);
            let shared = &self.shared;
            let mut pending = shared.lock();
            if pending.ends.len() >= shared.queue || pending.stop {
                drop(pending);
                shared.dropped.increment(1);
                return;
            }
            pending.spans.extend_from_slice(span);
            let end = pending.spans.len();
            pending.ends.push(end);
            if pending.ends.len() == shared.batch {
                shared.wake.notify_one();
            }
        });
    }

    /// Sends what is queued and stops the exporting thread, waiting for it at most `timeout`;
    /// spans that end afterwards are dropped.
    pub(super) fn shutdown(&self, timeout: Duration) -> Result<(), String> {
        let shared = &self.shared;
        let mut pending = shared.lock();
        pending.stop = true;
        shared.wake.notify_one();
        let (_pending, waited) = shared
            .exported
            .wait_timeout_while(pending, timeout, |p| !p.stopped)
            .unwrap_or_else(PoisonError::into_inner);
        match waited.timed_out() {
            true => Err(format!(
                "the collector did not take them within {timeout:?}"
            )),
            false => Ok(()),
        }
    }
}

/// The exporting thread's side.
struct Sender {
    client: reqwest::Client,
    url: reqwest::Url,
    /// Where each post runs (this thread only waits for it).
    runtime: tokio::runtime::Handle,
    shared: Arc<Shared>,
    /// While the collector fails: when the next batch is tried. The batches before it are
    /// dropped (counted) without being posted; the failure is logged once, and again when a
    /// batch is taken.
    retry_at: Option<Instant>,
}

impl Sender {
    /// Exports until asked to stop, then exports what is left and says it stopped.
    fn run(mut self) {
        let shared = self.shared.clone();
        loop {
            let (taken, stop, drained) = {
                let idle = |p: &mut Pending| p.ends.len() < shared.batch && !p.stop;
                let (mut pending, _) = shared
                    .wake
                    .wait_timeout_while(shared.lock(), shared.delay, idle)
                    .unwrap_or_else(PoisonError::into_inner);
                let taken = pending.take(shared.batch, shared.room);
                (taken, pending.stop, pending.ends.is_empty())
            };
            if let Some((spans, count)) = taken {
                self.export(spans, count);
            }
            if stop && drained {
                shared.lock().stopped = true;
                shared.exported.notify_all();
                return;
            }
        }
    }

    /// Wraps and posts one batch of `count` spans, written after the room at `body`'s start;
    /// its spans are counted as dropped unless the collector took it.
    fn export(&mut self, mut body: Vec<u8>, count: usize) {
        if self.retry_at.is_some_and(|at| Instant::now() < at) {
            self.shared.dropped.increment(count as u64);
            return;
        }
        let start = otlp::wrap(&self.shared.resource, &mut body);
        let body = bytes::Bytes::from(body).slice(start..);
        let request = self.client.post(self.url.clone()).body(body);
        let runtime = self.runtime.clone();
        let sent = self.runtime.block_on(async move {
            let posted = runtime.spawn(async move {
                let response = request.send().await.map_err(|err| err.to_string())?;
                let status = response.status();
                // Read to its end, so that the connection is kept for the next batch.
                let _ = response.bytes().await;
                match status.is_success() {
                    true => Ok(()),
                    false => Err(format!("the collector answered {status}")),
                }
            });
            posted.await.map_err(|err| err.to_string())?
        });
        match sent {
            Ok(()) => {
                if self.retry_at.take().is_some() {
                    tracing::info!("traces are being sent again");
                }
            }
            Err(err) => {
                self.shared.dropped.increment(count as u64);
                let retry_at = Instant::now() + RETRY;
                if self.retry_at.replace(retry_at).is_none() {
                    tracing::warn!(error = %err, "traces not sent; their spans are dropped and counted until the collector takes them");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
