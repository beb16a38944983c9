//! How spans leave: a batcher of our own in place of the SDK's batch processor. A span that
//! ends is pushed onto a bounded list (one uncontended lock; the exporting thread is woken only
//! when a batch is full); a thread of its own takes the whole list when a batch is full, or every
//! scheduled delay (`OTEL_BSP_SCHEDULE_DELAY`), encodes it with [`super::otlp`] (straight from
//! the span data) and posts it on the server's runtime. Every span dropped is counted
//! ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)): those refused
//! because the list is full, and those of a batch the collector did not take.
//!
//! The SDK's processor moved each span through a channel and again into its batch (about 2,000
//! instructions a request of copying alone), and dropped spans silently when its queue was full.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use axum::http::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};

use super::otlp;

/// Spans in one export unless `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` says otherwise.
const BATCH: usize = 512;
/// The longest a span waits to be exported unless `OTEL_BSP_SCHEDULE_DELAY` (milliseconds)
/// says otherwise.
const DELAY: Duration = Duration::from_secs(5);

/// A batcher posting to the OTLP/HTTP `endpoint` (each post given at most `timeout`), holding at
/// most `queue` spans not yet taken for export; every span dropped is counted in `dropped`.
/// Posts run on the current Tokio runtime.
pub(super) fn bounded(
    endpoint: &str,
    timeout: Duration,
    queue: usize,
    dropped: metrics::Counter,
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
        resource: RwLock::default(),
    });
    let sender = Sender {
        client,
        url,
        runtime,
        shared: shared.clone(),
        per_span: 0,
        failing: false,
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

/// The span processor the tracer hands each ended span to.
#[derive(Debug)]
pub(super) struct Batcher {
    shared: Arc<Shared>,
}

/// What the request path and the exporting thread share.
struct Shared {
    pending: Mutex<Pending>,
    /// Wakes the exporting thread: a batch is full, a flush is asked for, or it should stop.
    wake: Condvar,
    /// Signalled after each round of exports (a flush and a shutdown wait on it).
    exported: Condvar,
    /// Most spans waiting; past it, new ones are dropped.
    queue: usize,
    /// Spans in one export.
    batch: usize,
    /// The longest a span waits.
    delay: Duration,
    dropped: metrics::Counter,
    /// The resource's fields, encoded once (every export repeats them).
    resource: RwLock<Vec<u8>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("queue", &self.queue)
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Pending {
    spans: Vec<SpanData>,
    /// Asked to stop, and stopped (the exporting thread sent what was left and ended).
    stop: bool,
    stopped: bool,
    /// Flushes asked for, and the last one done (each round of exports does all asked before it).
    asked: u64,
    done: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits, at most `timeout`, for a round of exports after which `waiting` no longer holds.
    fn wait_exported(
        &self,
        pending: MutexGuard<'_, Pending>,
        timeout: Duration,
        waiting: impl FnMut(&mut Pending) -> bool,
    ) -> OTelSdkResult {
        let (_pending, waited) = self
            .exported
            .wait_timeout_while(pending, timeout, waiting)
            .unwrap_or_else(PoisonError::into_inner);
        match waited.timed_out() {
            true => Err(OTelSdkError::Timeout(timeout)),
            false => Ok(()),
        }
    }
}

impl SpanProcessor for Batcher {
    fn on_start(&self, _span: &mut Span, _cx: &Context) {}

    fn on_end(&self, span: SpanData) {
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

    fn force_flush(&self) -> OTelSdkResult {
        let shared = &self.shared;
        let mut pending = shared.lock();
        pending.asked += 1;
        let asked = pending.asked;
        shared.wake.notify_one();
        let timeout = super::EXPORT_TIMEOUT;
        shared.wait_exported(pending, timeout, |p| p.done < asked && !p.stop)
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        let shared = &self.shared;
        let mut pending = shared.lock();
        if pending.stop {
            return Err(OTelSdkError::AlreadyShutdown);
        }
        pending.stop = true;
        shared.wake.notify_one();
        shared.wait_exported(pending, timeout, |p| !p.stopped)
    }

    fn set_resource(&mut self, resource: &Resource) {
        let fields = otlp::resource(resource);
        *self
            .shared
            .resource
            .write()
            .unwrap_or_else(PoisonError::into_inner) = fields;
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
    /// Whether the last export failed (a failure is logged once, until one succeeds).
    failing: bool,
}

impl Sender {
    /// Exports until asked to stop, then exports what is left and says it stopped.
    fn run(mut self) {
        let shared = self.shared.clone();
        loop {
            let (spans, asked, stop) = {
                let idle =
                    |p: &mut Pending| p.spans.len() < shared.batch && !p.stop && p.asked == p.done;
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
                (spans, pending.asked, pending.stop)
            };
            for batch in spans.chunks(shared.batch) {
                self.export(batch);
            }
            drop(spans);
            {
                let mut pending = shared.lock();
                pending.done = asked;
                pending.stopped = stop;
            }
            shared.exported.notify_all();
            if stop {
                return;
            }
        }
    }

    /// Encodes and posts one batch; its spans are counted as dropped unless the collector took
    /// it.
    fn export(&mut self, spans: &[SpanData]) {
        // Room for the batch as the last one's spans took, and a quarter more: the body is
        // never grown (each growth copies all of it).
        let guess = self.per_span.saturating_mul(spans.len());
        let mut body = Vec::with_capacity(guess.saturating_add(guess / 4).max(4096));
        {
            let resource = self
                .shared
                .resource
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            otlp::request(&resource, spans, &mut body);
        }
        self.per_span = body.len() / spans.len().max(1);
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
            Ok(()) if self.failing => {
                self.failing = false;
                tracing::info!("traces are being sent again");
            }
            Ok(()) => {}
            Err(err) => {
                self.shared.dropped.increment(spans.len() as u64);
                if !self.failing {
                    self.failing = true;
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
