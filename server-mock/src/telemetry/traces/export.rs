//! How spans leave: the SDK's batch processor behind a bound of our own, so that every span
//! dropped is counted ([`TRACE_SPANS_DROPPED`](crate::telemetry::registry::TRACE_SPANS_DROPPED)):
//! those refused because the queue is full (the SDK's processor drops those silently) and those
//! of a batch the collector did not take. Each batch is encoded by [`super::otlp`] (straight
//! from the span data) and posted on the server's own runtime.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, Span, SpanData, SpanExporter, SpanProcessor,
};

use super::otlp;

/// A batch processor over an OTLP/HTTP exporter to `endpoint` (each export given at most
/// `timeout`), holding at most `queue` spans not yet handed to it; every span dropped is
/// counted in `dropped`. Exports run on the current Tokio runtime.
pub(super) fn bounded(
    endpoint: &str,
    timeout: Duration,
    queue: usize,
    dropped: metrics::Counter,
) -> anyhow::Result<Bounded> {
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
    let queued = Arc::new(AtomicUsize::new(0));
    let exporter = Otlp {
        client,
        url,
        runtime,
        resource: Vec::new(),
        last: AtomicUsize::new(0),
        queued: queued.clone(),
        dropped: dropped.clone(),
    };
    let batches = BatchConfigBuilder::default()
        .with_max_queue_size(queue)
        .build();
    let inner = BatchSpanProcessor::builder(exporter)
        .with_batch_config(batches)
        .build();
    Ok(Bounded {
        inner,
        queue,
        queued,
        dropped,
    })
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

/// The OTLP/HTTP (protobuf) exporter, counting the spans of each batch it could not send.
struct Otlp {
    client: reqwest::Client,
    url: reqwest::Url,
    /// Where each batch is posted from (the processor's thread only waits for it).
    runtime: tokio::runtime::Handle,
    /// The resource's fields, encoded once.
    resource: Vec<u8>,
    /// The size of the last batch's body: the next one's first guess.
    last: AtomicUsize,
    /// Spans waiting in the processor: each batch leaves it here.
    queued: Arc<AtomicUsize>,
    dropped: metrics::Counter,
}

impl std::fmt::Debug for Otlp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otlp")
            .field("url", &self.url.as_str())
            .finish()
    }
}

impl Otlp {
    /// Posts one encoded batch; an error unless the collector took it (2xx).
    async fn send(&self, body: Vec<u8>) -> Result<(), String> {
        let request = self.client.post(self.url.clone()).body(body);
        let sent = self.runtime.spawn(async move {
            let response = request.send().await.map_err(|err| err.to_string())?;
            let status = response.status();
            // Read to its end, so that the connection is kept for the next batch.
            let _ = response.bytes().await;
            match status.is_success() {
                true => Ok(()),
                false => Err(format!("the collector answered {status}")),
            }
        });
        sent.await.map_err(|err| err.to_string())?
    }
}

impl SpanExporter for Otlp {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.queued.fetch_sub(batch.len(), Ordering::Relaxed);
        let spans = batch.len() as u64;
        let mut body = Vec::with_capacity(self.last.load(Ordering::Relaxed));
        otlp::request(&self.resource, &batch, &mut body);
        drop(batch);
        self.last.store(body.len(), Ordering::Relaxed);
        let sent = self.send(body).await;
        sent.map_err(|err| {
            self.dropped.increment(spans);
            OTelSdkError::InternalFailure(format!("traces not sent: {err}"))
        })
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.resource = otlp::resource(resource);
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
