//! The batcher's own tests: batches taken past their size, the exporter's headers.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use super::super::attributes::Attributes;
use super::super::span::Kind;
use super::*;

/// Queues onto `pending` a span of one trace for each of `names`, as the request threads do.
fn end_spans<const N: usize>(pending: &mut Pending, names: [&str; N]) {
    let ids = Ids {
        trace: [1; 16],
        span: [2; 8],
        sampled: true,
        state: None,
    };
    for name in names {
        let record = Record {
            parent: None,
            name: name.into(),
            kind: Kind::Internal,
            start: 1,
            end: 2,
            attributes: Attributes::with_capacity(0),
            events: Vec::new(),
            error: None,
        };
        otlp::span(&ids, &record, &mut pending.spans);
        pending.ends.push(pending.spans.len());
    }
}

#[test]
fn spans_taken_past_a_batch_leave_a_batch_at_a_time_in_order_none_lost() {
    let resource = Attributes::resource().bytes().to_vec();
    let room = otlp::room(resource.len());
    // Five spans ended before the exporting thread took them (it was late): batches of 2.
    let mut pending = Pending::new(room, 0, 0);
    end_spans(&mut pending, ["a", "b", "c", "d", "e"]);
    let mut batches = Vec::new();
    while let Some((mut body, count)) = pending.take(2, room) {
        // What the collector would be sent, decoded by the generated types.
        let start = otlp::wrap(&resource, &mut body);
        let request = ExportTraceServiceRequest::decode(&body[start..]).unwrap();
        let spans = &request.resource_spans[0].scope_spans[0].spans;
        assert_eq!(spans.len(), count);
        batches.push(
            spans
                .iter()
                .map(|span| span.name.as_str())
                .collect::<String>(),
        );
    }
    assert_eq!(batches, ["ab", "cd", "e"]);
    assert!(pending.ends.is_empty());
    assert_eq!(pending.spans.len(), room, "only the room is left");
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

    let resource = Attributes::resource().bytes().to_vec();
    let room = otlp::room(resource.len());
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending::new(room, 0, 0)),
        wake: Condvar::new(),
        exported: Condvar::new(),
        queue: 100,
        batch: 2,
        delay: DELAY,
        dropped: metrics::Counter::noop(),
        resource,
        room,
    });
    let sender = Sender {
        client: reqwest::Client::new(),
        url: reqwest::Url::parse(&url).unwrap(),
        runtime: tokio::runtime::Handle::current(),
        shared: shared.clone(),
        retry_at: None,
    };
    // Five spans waiting as the batcher is asked to stop: batches of 2, 2 and 1.
    {
        let mut pending = shared.lock();
        end_spans(&mut pending, ["a", "b", "c", "d", "e"]);
        pending.stop = true;
    }
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
