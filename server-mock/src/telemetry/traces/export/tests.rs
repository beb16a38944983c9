//! The batcher's own tests: each thread's batches, joined and sent in order; the bound on
//! batches ready; the exporter's headers.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use super::super::attributes::Attributes;
use super::super::span::Kind;
use super::*;

/// A batcher's shared part with batches of `batch` spans, at most `queue` spans ready.
fn shared(queue: usize, batch: usize) -> Arc<Shared> {
    let resource = Attributes::resource().bytes().to_vec();
    Arc::new(Shared::new(
        queue,
        batch,
        DELAY,
        metrics::Counter::noop(),
        resource,
    ))
}

/// Ends a span of one trace for each of `names` on the calling thread, as the request threads
/// do.
fn end_spans(batcher: &Batcher, names: &[&str]) {
    let ids = Ids {
        trace: [1; 16],
        span: [2; 8],
        sampled: true,
        state: None,
    };
    for name in names {
        let record = Record {
            parent: None,
            name: (*name).into(),
            kind: Kind::Internal,
            start: 1,
            end: 2,
            attributes: Attributes::with_capacity(0),
            events: Vec::new(),
            error: None,
        };
        batcher.push(&ids, &record);
    }
}

/// The names of a batch's spans, decoded from what the collector would be sent by the
/// generated types.
fn names(shared: &Shared, batch: Batch) -> String {
    let Batch { mut spans, count } = batch;
    let start = otlp::wrap(&shared.resource, &mut spans);
    let request = ExportTraceServiceRequest::decode(&spans[start..]).unwrap();
    let spans = &request.resource_spans[0].scope_spans[0].spans;
    assert_eq!(spans.len(), count);
    spans.iter().map(|span| span.name.as_str()).collect()
}

#[test]
fn each_threads_batch_is_ready_when_full_and_what_waits_is_joined_in_order() {
    let shared = shared(100, 3);
    let batcher = Batcher {
        shared: shared.clone(),
    };
    end_spans(&batcher, &["a", "b", "c", "d"]);
    std::thread::scope(|scope| {
        scope.spawn(|| end_spans(&batcher, &["x"]));
    });
    // The first thread's first three are ready; its fourth and the other thread's wait.
    let ready: Vec<Batch> = shared.lock().batches.drain(..).collect();
    let ready: Vec<String> = ready.into_iter().map(|b| names(&shared, b)).collect();
    assert_eq!(ready, ["abc"]);
    let waiting: Vec<String> = (shared.slots.collect(3).into_iter())
        .map(|b| names(&shared, b))
        .collect();
    assert_eq!(waiting, ["dx"]);
    // Taken: nothing waits, and the exited thread's batch is forgotten.
    assert!(shared.slots.collect(3).is_empty());
    end_spans(&batcher, &["e"]);
    let waiting: Vec<String> = (shared.slots.collect(1).into_iter())
        .map(|b| names(&shared, b))
        .collect();
    assert_eq!(waiting, ["e"]);
}

#[test]
fn batches_past_the_bound_are_dropped_not_queued() {
    // Room for two spans ready: one batch of two.
    let shared = shared(2, 2);
    let batcher = Batcher {
        shared: shared.clone(),
    };
    end_spans(&batcher, &["a", "b"]);
    assert_eq!(shared.lock().batches.len(), 1);
    end_spans(&batcher, &["c"]);
    let full = shared.slots.collect(2).pop().unwrap();
    assert!(!shared.ready(full), "a second batch is past the bound");
    assert_eq!(shared.lock().batches.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_waiting_when_the_batcher_stops_all_leave_a_batch_at_a_time() {
    // A collector saying, for each request, the names of its spans.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| {
            let request = ExportTraceServiceRequest::decode(body).unwrap();
            let names: Vec<String> = request.resource_spans[0].scope_spans[0]
                .spans
                .iter()
                .map(|span| span.name.clone())
                .collect();
            tx.send(names).unwrap();
            async {}
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let shared = shared(100, 2);
    let batcher = Batcher {
        shared: shared.clone(),
    };
    // Five spans ended before the batcher is asked to stop: batches of 2, 2 and 1, the last
    // still in its thread's batch.
    end_spans(&batcher, &["a", "b", "c", "d", "e"]);
    shared.lock().stop = true;
    let sender = Sender {
        client: reqwest::Client::new(),
        url: reqwest::Url::parse(&url).unwrap(),
        runtime: tokio::runtime::Handle::current(),
        shared: shared.clone(),
        retry_at: None,
    };
    tokio::task::spawn_blocking(move || sender.run())
        .await
        .unwrap();
    assert!(shared.lock().stopped);
    let mut batches = Vec::new();
    while let Ok(names) = rx.try_recv() {
        batches.push(names.join(""));
    }
    assert_eq!(batches, ["ab", "cd", "e"]);
}

#[test]
fn headers_are_pairs_with_percent_decoded_values() {
    let headers = parse_headers("api-key=a%20b , x-team=core,broken,=nokey");
    assert_eq!(headers.len(), 2);
    assert_eq!(headers["api-key"], "a b");
    assert_eq!(headers["x-team"], "core");
}
