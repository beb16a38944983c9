//! How spans leave: the SDK's batch processor behind a bound of our own, so that every span
//! dropped is counted ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)):
//! those refused because the queue is full (the SDK's processor drops those silently) and those
//! of a batch the collector did not take.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, Span, SpanData, SpanExporter, SpanProcessor,
};

/// A batch processor over `exporter` holding at most `queue` spans not yet handed to it; every
/// span dropped is counted in `dropped`.
pub(super) fn bounded<E>(exporter: E, queue: usize, dropped: metrics::Counter) -> Bounded
where
    E: SpanExporter + 'static,
{
    let queued = Arc::new(AtomicUsize::new(0));
    let exporter = Counted {
        inner: exporter,
        queued: queued.clone(),
        dropped: dropped.clone(),
    };
    let batches = BatchConfigBuilder::default()
        .with_max_queue_size(queue)
        .build();
    let inner = BatchSpanProcessor::builder(exporter)
        .with_batch_config(batches)
        .build();
    Bounded {
        inner,
        queue,
        queued,
        dropped,
    }
}

/// The batch processor, refusing (and counting) a span when `queue` spans already wait: its own
/// queue, as large, then never fills, so it never drops one uncounted.
#[derive(Debug)]
pub(super) struct Bounded {
    inner: BatchSpanProcessor,
    queue: usize,
    /// Spans handed to `inner` and not yet to the exporter.
    queued: Arc<AtomicUsize>,
    dropped: metrics::Counter,
}

impl SpanProcessor for Bounded {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        if self.queued.fetch_add(1, Ordering::Relaxed) >= self.queue {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            self.dropped.increment(1);
            return;
        }
        self.inner.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The OTLP exporter, counting the spans of each batch it could not send.
struct Counted<E> {
    inner: E,
    /// Spans waiting in the processor: each batch leaves it here.
    queued: Arc<AtomicUsize>,
    dropped: metrics::Counter,
}

impl<E: std::fmt::Debug> std::fmt::Debug for Counted<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.queued.fetch_sub(batch.len(), Ordering::Relaxed);
        let spans = batch.len() as u64;
        let sent = self.inner.export(batch).await;
        if sent.is_err() {
            self.dropped.increment(spans);
        }
        sent
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}
