//! How spans leave. A span that ends is encoded ([`super::otlp`]) by the thread that ends it,
//! straight onto the end of that thread's own batch ([`slots`]): its record never moves, and is
//! freed on the thread that made it. A batch that is full joins the batches ready to be sent (a
//! bounded list; the exporting thread is woken then). A thread of its own posts each ready
//! batch, and every scheduled delay (`OTEL_BSP_SCHEDULE_DELAY`) takes what the threads' batches
//! hold, on the server's runtime. Every span dropped is counted
//! ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)): those of a batch
//! that found the list full, those ended as the batcher stopped, and those of a batch the
//! collector did not take.
//!
//! The SDK's batch processor moved each span through a channel and again into its batch (about
//! 2,000 instructions a request of copying alone), and dropped spans silently when its queue was
//! full.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::context::Ids;
use super::otlp;
use super::span::Record;

mod slots;

use slots::{Batch, Slots};

/// Spans in one export unless `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` says otherwise.
const BATCH: usize = 512;
/// The longest a span waits to be exported unless `OTEL_BSP_SCHEDULE_DELAY` (milliseconds)
/// says otherwise.
const DELAY: Duration = Duration::from_secs(5);

/// How long after a failed export the next batch is tried (spans dropped meanwhile).
const RETRY: Duration = Duration::from_secs(1);

/// A batcher posting to the OTLP/HTTP `endpoint` (each post given at most `timeout`), holding at
/// most `queue` spans ready to be sent (besides each thread's batch being filled); every span
/// dropped is counted in `dropped`.
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
    let shared = Arc::new(Shared::new(queue, batch, delay, dropped, resource));
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

/// Where each span goes when it ends.
pub(super) struct Batcher {
    shared: Arc<Shared>,
}

/// What the request path and the exporting thread share.
struct Shared {
    /// Each thread's batch being filled.
    slots: Slots,
    ready: Mutex<Ready>,
    /// Wakes the exporting thread: a batch is ready, or it should stop.
    wake: Condvar,
    /// Signalled once the exporting thread has sent what was left and stopped.
    exported: Condvar,
    /// Set as the batcher stops: spans that end afterwards are dropped. Only read on the
    /// request path (a line each core keeps a copy of).
    stopping: AtomicBool,
    /// Most batches ready at once; past it, a batch filled is dropped.
    most_ready: usize,
    /// Spans in one export.
    batch: usize,
    /// The longest a span waits in a thread's batch.
    delay: Duration,
    dropped: metrics::Counter,
    /// The resource's fields, encoded once (every export repeats them).
    resource: Vec<u8>,
    /// Bytes kept before a batch's spans ([`otlp::room`]).
    room: usize,
}

/// Bytes a span is guessed to take before any is known (a thread's first batch's space).
const FIRST_SPAN_BYTES: usize = 512;

/// The batches full and not yet taken for export.
struct Ready {
    batches: VecDeque<Batch>,
    /// Asked to stop, and stopped (the exporting thread sent what was left and ended).
    stop: bool,
    stopped: bool,
}

impl Shared {
    /// Batches of `batch` spans, at most `queue` spans of them ready at once.
    fn new(
        queue: usize,
        batch: usize,
        delay: Duration,
        dropped: metrics::Counter,
        resource: Vec<u8>,
    ) -> Self {
        let room = otlp::room(resource.len());
        Shared {
            slots: Slots::new(room, FIRST_SPAN_BYTES * batch),
            ready: Mutex::new(Ready {
                batches: VecDeque::new(),
                stop: false,
                stopped: false,
            }),
            wake: Condvar::new(),
            exported: Condvar::new(),
            stopping: AtomicBool::new(false),
            most_ready: (queue / batch.max(1)).max(1),
            batch,
            delay,
            dropped,
            resource,
            room,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Ready> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a full batch to those ready, waking the exporting thread; drops it (counted) when
    /// as many as may wait are ready or the batcher stopped. Returns whether it was kept.
    fn ready(&self, batch: Batch) -> bool {
        let mut ready = self.lock();
        if ready.batches.len() >= self.most_ready || ready.stop {
            drop(ready);
            self.dropped.increment(batch.count as u64);
            return false;
        }
        ready.batches.push_back(batch);
        drop(ready);
        self.wake.notify_one();
        true
    }
}

impl Batcher {
    /// Encodes an ended span, `ids`'s as `record` holds it, onto this thread's batch, or drops
    /// it (counted) once the batcher stopped.
    pub(super) fn push(&self, ids: &Ids, record: &Record) {
        let shared = &self.shared;
        let pushed = shared.slots.with_mine(|batch| {
            // Read under the batch's lock: a span ending as the batcher stops is in the batch
            // the stop takes, or dropped here, never left behind.
            if shared.stopping.load(Ordering::Relaxed) {
                return None;
            }
            otlp::span(ids, record, &mut batch.spans);
            batch.count += 1;
            Some((batch.count >= shared.batch).then(|| batch.take(shared.room)))
        });
        match pushed {
            None => shared.dropped.increment(1),
            Some(Some(full)) => {
                shared.ready(full);
            }
            Some(None) => {}
        }
    }

    /// Sends what is queued and stops the exporting thread, waiting for it at most `timeout`;
    /// spans that end afterwards are dropped.
    pub(super) fn shutdown(&self, timeout: Duration) -> Result<(), String> {
        let shared = &self.shared;
        shared.stopping.store(true, Ordering::Relaxed);
        let mut ready = shared.lock();
        ready.stop = true;
        shared.wake.notify_one();
        let (_ready, waited) = shared
            .exported
            .wait_timeout_while(ready, timeout, |r| !r.stopped)
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
    /// Exports each batch as it is ready, and what the threads' batches hold every delay,
    /// until asked to stop; then exports what is left, in the order it ended, and says it
    /// stopped.
    fn run(mut self) {
        let shared = self.shared.clone();
        let mut collect_at = Instant::now() + shared.delay;
        loop {
            let (next, stop) = {
                let wait = collect_at.saturating_duration_since(Instant::now());
                let idle = |r: &mut Ready| r.batches.is_empty() && !r.stop;
                let (mut ready, _) = shared
                    .wake
                    .wait_timeout_while(shared.lock(), wait, idle)
                    .unwrap_or_else(PoisonError::into_inner);
                (ready.batches.pop_front(), ready.stop)
            };
            if let Some(batch) = next {
                self.export(batch);
            }
            if stop {
                loop {
                    let Some(batch) = shared.lock().batches.pop_front() else {
                        break;
                    };
                    self.export(batch);
                }
                self.export_waiting();
                shared.lock().stopped = true;
                shared.exported.notify_all();
                return;
            }
            if Instant::now() >= collect_at {
                self.export_waiting();
                collect_at = Instant::now() + shared.delay;
            }
        }
    }

    /// Exports what the threads' batches hold.
    fn export_waiting(&mut self) {
        for batch in self.shared.slots.collect(self.shared.batch) {
            self.export(batch);
        }
    }

    /// Wraps and posts one batch; its spans are counted as dropped unless the collector took
    /// it.
    fn export(&mut self, batch: Batch) {
        let Batch {
            spans: mut body,
            count,
        } = batch;
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
