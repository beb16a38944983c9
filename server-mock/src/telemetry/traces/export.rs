//! How spans leave. A span that ends is pushed onto a bounded list (one uncontended lock; the
//! exporting thread is woken only when a batch is full); a thread of its own takes the whole
//! list when a batch is full, or every scheduled delay (`OTEL_BSP_SCHEDULE_DELAY`), encodes it
//! with [`super::otlp`] and posts it on the server's runtime. Every span dropped is counted
//! ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)): those refused
//! because the list is full, and those of a batch the collector did not take.
//!
//! The SDK's batch processor moved each span through a channel and again into its batch (about
//! 2,000 instructions a request of copying alone), and dropped spans silently when its queue was
//! full.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

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
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending {
            spans: Vec::with_capacity(batch),
            ..Pending::default()
        }),
        wake: Condvar::new(),
        exported: Condvar::new(),
        queue,
        batch,
        delay,
        dropped,
        resource,
    });
    let sender = Sender {
        client,
        url,
        runtime,
        shared: shared.clone(),
        per_span: 0,
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
}

#[derive(Default)]
struct Pending {
    spans: Vec<Record>,
    /// Asked to stop, and stopped (the exporting thread sent what was left and ended).
    stop: bool,
    stopped: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Batcher {
    /// Queues an ended span, or drops it (counted) when the list is full or the batcher stopped.
    pub(super) fn push(&self, span: Record) {
        let shared = &self.shared;
        let mut pending = shared.lock();
        if pending.spans.len() >= shared.queue || pending.stop {
            drop(pending);
            shared.dropped.increment(1);
            return;
        }
        pending.spans.push(span);
        if pending.spans.len() == shared.batch {
            shared.wake.notify_one();
        }
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
    /// Bytes a span took in the last export: the next body's room is guessed from it.
    per_span: usize,
    /// While the collector fails: when the next batch is tried. The batches before it are
    /// dropped (counted) without being encoded, so a collector that is down costs requests the
    /// least; the failure is logged once, and again when a batch is taken.
    retry_at: Option<Instant>,
}

impl Sender {
    /// Exports until asked to stop, then exports what is left and says it stopped.
    fn run(mut self) {
        let shared = self.shared.clone();
        loop {
            let (spans, stop) = {
                let idle = |p: &mut Pending| p.spans.len() < shared.batch && !p.stop;
                let (mut pending, _) = shared
                    .wake
                    .wait_timeout_while(shared.lock(), shared.delay, idle)
                    .unwrap_or_else(PoisonError::into_inner);
                // The next spans go into a list with as much room as this one had (spans keep
                // coming while this thread wakes: a list made for one batch would be grown, all
                // its spans copied, on a request's path); an empty one is left where it is.
                let spans = match pending.spans.is_empty() {
                    true => Vec::new(),
                    false => {
                        let room = pending.spans.capacity();
                        std::mem::replace(&mut pending.spans, Vec::with_capacity(room))
                    }
                };
                (spans, pending.stop)
            };
            for batch in spans.chunks(shared.batch) {
                self.export(batch);
            }
            drop(spans);
            if stop {
                shared.lock().stopped = true;
                shared.exported.notify_all();
                return;
            }
        }
    }

    /// Encodes and posts one batch; its spans are counted as dropped unless the collector took
    /// it.
    fn export(&mut self, spans: &[Record]) {
        if self.retry_at.is_some_and(|at| Instant::now() < at) {
            self.shared.dropped.increment(spans.len() as u64);
            return;
        }
        // Room for the batch as the last one's spans took, and a quarter more: the body is
        // never grown (each growth copies all of it).
        let guess = self.per_span.saturating_mul(spans.len());
        let mut body = Vec::with_capacity(guess.saturating_add(guess / 4).max(4096));
        let start = otlp::request(&self.shared.resource, spans, &mut body);
        self.per_span = body.len() / spans.len().max(1);
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
                self.shared.dropped.increment(spans.len() as u64);
                let retry_at = Instant::now() + RETRY;
                if self.retry_at.replace(retry_at).is_none() {
                    tracing::warn!(error = %err, "traces not sent; their spans are dropped and counted until the collector takes them");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_pairs_with_percent_decoded_values() {
        let headers = parse_headers("api-key=a%20b , x-team=core,broken,=nokey");
        assert_eq!(headers.len(), 2);
        assert_eq!(headers["api-key"], "a b");
        assert_eq!(headers["x-team"], "core");
    }
}
