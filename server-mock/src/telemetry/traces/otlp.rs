//! OTLP's protobuf encoding of a batch of spans (an `ExportTraceServiceRequest`), written
//! straight from the SDK's span data into one buffer: no intermediate messages, no allocation
//! per span or attribute (the OTLP crate's encoder built a message of owned strings for each
//! span, then encoded and dropped it: most of what a trace cost the gateway).
//!
//! Field numbers are those of `opentelemetry/proto/trace/v1/trace.proto` and
//! `common/v1/common.proto`; the tests decode what is written with the generated types.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanData;

/// Protobuf's wire types.
const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;
const FIXED32: u32 = 5;

/// Span flags: the parent's remoteness is known, and it is remote.
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// A `Resource` message's fields (its attributes), encoded once: every batch repeats them.
pub(super) fn resource(resource: &Resource) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    for (key, value) in resource.iter() {
        w.message(1, |w| {
            w.string(1, key.as_str());
            w.message(2, |w| w.any(value));
        });
    }
    w.0
}

/// The request exporting `spans` of the resource whose fields `resource` holds, written into
/// `out` (cleared first).
pub(super) fn request(resource: &[u8], spans: &[SpanData], out: &mut Vec<u8>) {
    out.clear();
    let mut w = Writer(std::mem::take(out));
    w.message(1, |w| {
        w.message(1, |w| w.0.extend_from_slice(resource));
        // The spans of each scope together (one tracer: one run).
        let mut rest = spans;
        while let Some(first) = rest.first() {
            let scope = &first.instrumentation_scope;
            let run = rest
                .iter()
                .position(|s| s.instrumentation_scope != *scope)
                .unwrap_or(rest.len());
            let (these, after) = rest.split_at(run);
            w.message(2, |w| w.scope_spans(scope, these));
            rest = after;
        }
    });
    *out = w.0;
}

/// A buffer protobuf is written into.
struct Writer(Vec<u8>);

impl Writer {
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    fn key(&mut self, field: u32, wire: u32) {
        self.varint(u64::from(field << 3 | wire));
    }

    /// A length-delimited field, written whatever its length.
    fn bytes_always(&mut self, field: u32, bytes: &[u8]) {
        self.key(field, LEN);
        self.varint(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }

    /// A string or bytes field (left out when empty, proto3's default).
    fn bytes(&mut self, field: u32, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.bytes_always(field, bytes);
        }
    }

    fn string(&mut self, field: u32, text: &str) {
        self.bytes(field, text.as_bytes());
    }

    fn uint(&mut self, field: u32, value: u64) {
        if value != 0 {
            self.key(field, VARINT);
            self.varint(value);
        }
    }

    fn fixed64(&mut self, field: u32, value: u64) {
        if value != 0 {
            self.key(field, FIXED64);
            self.0.extend_from_slice(&value.to_le_bytes());
        }
    }

    fn fixed32(&mut self, field: u32, value: u32) {
        if value != 0 {
            self.key(field, FIXED32);
            self.0.extend_from_slice(&value.to_le_bytes());
        }
    }

    /// A message field whose content `write` writes: its length is known after, so one byte is
    /// kept for it and widened when the message is 128 bytes or more.
    fn message(&mut self, field: u32, write: impl FnOnce(&mut Self)) {
        self.key(field, LEN);
        let at = self.0.len();
        self.0.push(0);
        write(self);
        let end = self.0.len();
        let len = end - at - 1;
        if len < 0x80 {
            self.0[at] = len as u8;
            return;
        }
        // Widened in place: the message moves right by the length's extra bytes.
        let mut prefix = [0u8; 10];
        let width = varint_into(len as u64, &mut prefix);
        self.0.resize(end + width - 1, 0);
        self.0.copy_within(at + 1..end, at + width);
        self.0[at..at + width].copy_from_slice(&prefix[..width]);
    }

    fn scope_spans(&mut self, scope: &InstrumentationScope, spans: &[SpanData]) {
        self.message(1, |w| {
            w.string(1, scope.name());
            w.string(2, scope.version().unwrap_or_default());
            w.attributes(3, scope.attributes());
        });
        for span in spans {
            self.message(2, |w| w.span(span));
        }
        self.string(3, scope.schema_url().unwrap_or_default());
    }

    fn span(&mut self, span: &SpanData) {
        let context = &span.span_context;
        self.bytes(1, &context.trace_id().to_bytes());
        self.bytes(2, &context.span_id().to_bytes());
        let state = context.trace_state().header();
        self.string(3, &state);
        if span.parent_span_id != opentelemetry::trace::SpanId::INVALID {
            self.bytes(4, &span.parent_span_id.to_bytes());
        }
        self.string(5, &span.name);
        self.uint(6, kind(&span.span_kind));
        self.fixed64(7, nanos(span.start_time));
        self.fixed64(8, nanos(span.end_time));
        self.attributes(9, span.attributes.iter());
        self.uint(10, u64::from(span.dropped_attributes_count));
        for event in &span.events.events {
            self.message(11, |w| {
                w.fixed64(1, nanos(event.timestamp));
                w.string(2, &event.name);
                w.attributes(3, event.attributes.iter());
                w.uint(4, u64::from(event.dropped_attributes_count));
            });
        }
        self.uint(12, u64::from(span.events.dropped_count));
        for link in &span.links.links {
            let context = &link.span_context;
            self.message(13, |w| {
                w.bytes(1, &context.trace_id().to_bytes());
                w.bytes(2, &context.span_id().to_bytes());
                w.string(3, &context.trace_state().header());
                w.attributes(4, link.attributes.iter());
                w.uint(5, u64::from(link.dropped_attributes_count));
                let flags = flags(context.is_remote(), context.trace_flags().to_u8());
                w.fixed32(6, flags);
            });
        }
        self.uint(14, u64::from(span.links.dropped_count));
        self.message(15, |w| match &span.status {
            Status::Unset => {}
            Status::Ok => w.uint(3, 1),
            Status::Error { description } => {
                w.string(2, description);
                w.uint(3, 2);
            }
        });
        let flags = flags(span.parent_span_is_remote, context.trace_flags().to_u8());
        self.fixed32(16, flags);
    }

    fn attributes<'a>(&mut self, field: u32, attributes: impl Iterator<Item = &'a KeyValue>) {
        for attribute in attributes {
            self.message(field, |w| {
                w.string(1, attribute.key.as_str());
                w.message(2, |w| w.any(&attribute.value));
            });
        }
    }

    /// An `AnyValue`'s fields: its one value, written even when it is the default.
    fn any(&mut self, value: &Value) {
        match value {
            Value::String(text) => self.bytes_always(1, text.as_str().as_bytes()),
            Value::Bool(b) => {
                self.key(2, VARINT);
                self.varint(u64::from(*b));
            }
            Value::I64(n) => {
                self.key(3, VARINT);
                self.varint(*n as u64);
            }
            Value::F64(x) => {
                self.key(4, FIXED64);
                self.0.extend_from_slice(&x.to_le_bytes());
            }
            Value::Array(array) => self.message(5, |w| w.array(array)),
            other => self.bytes_always(1, other.as_str().as_bytes()),
        }
    }

    /// An `ArrayValue`'s fields.
    fn array(&mut self, array: &Array) {
        match array {
            Array::Bool(items) => items.iter().for_each(|b| self.item(Value::Bool(*b))),
            Array::I64(items) => items.iter().for_each(|n| self.item(Value::I64(*n))),
            Array::F64(items) => items.iter().for_each(|x| self.item(Value::F64(*x))),
            Array::String(items) => {
                for text in items {
                    self.message(1, |w| w.bytes_always(1, text.as_str().as_bytes()));
                }
            }
            other => self.message(1, |w| w.bytes_always(1, other.to_string().as_bytes())),
        }
    }

    fn item(&mut self, value: Value) {
        self.message(1, |w| w.any(&value));
    }
}

/// `value` as a varint into `out`; returns how many bytes it took.
fn varint_into(mut value: u64, out: &mut [u8; 10]) -> usize {
    let mut len = 0;
    while value >= 0x80 {
        out[len] = value as u8 | 0x80;
        value >>= 7;
        len += 1;
    }
    out[len] = value as u8;
    len + 1
}

fn kind(kind: &SpanKind) -> u64 {
    match kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    }
}

fn flags(remote: bool, trace_flags: u8) -> u32 {
    let remote = if remote { IS_REMOTE } else { 0 };
    u32::from(trace_flags) | HAS_IS_REMOTE | remote
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::time::Duration;

    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use prost::Message;

    use super::*;

    #[test]
    fn a_long_message_has_its_length_widened() {
        let mut w = Writer(Vec::new());
        let long = "x".repeat(300);
        w.message(1, |w| w.string(2, &long));
        // Key, length (303: two bytes), inner key, inner length (300: two bytes), the text.
        assert_eq!(&w.0[..3], &[0x0a, 0xaf, 0x02]);
        assert_eq!(w.0.len(), 3 + 3 + 300);
    }

    #[test]
    fn what_is_written_decodes_as_the_protocols_own_types() {
        let fields = resource(&Resource::builder_empty().with_service_name("svc").build());
        let at = UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789);
        let context = SpanContext::new(
            TraceId::from(0x0af7_6519_16cd_43dd_8448_eb21_1c80_319c),
            SpanId::from(0x00f0_67aa_0ba9_02b7),
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        );
        let span = |name: &'static str, status: Status| SpanData {
            span_context: context.clone(),
            parent_span_id: SpanId::from(7),
            parent_span_is_remote: true,
            span_kind: SpanKind::Client,
            name: Cow::Borrowed(name),
            start_time: at,
            end_time: at + Duration::from_millis(5),
            attributes: vec![
                KeyValue::new("text", "x".repeat(200)),
                KeyValue::new("empty", ""),
                KeyValue::new("n", -3_i64),
                KeyValue::new("yes", true),
                KeyValue::new("half", 0.5),
                KeyValue::new(
                    "list",
                    Value::Array(Array::String(vec!["a".into(), "b".into()])),
                ),
            ],
            dropped_attributes_count: 0,
            events: Default::default(),
            links: Default::default(),
            status,
            instrumentation_scope: InstrumentationScope::builder("tokctl-server").build(),
        };
        let spans = [
            span("one", Status::error("refused")),
            span("two", Status::Unset),
        ];
        let mut out = Vec::new();
        request(&fields, &spans, &mut out);
        let decoded = ExportTraceServiceRequest::decode(out.as_slice()).unwrap();
        let resource_spans = &decoded.resource_spans[0];
        let service = &resource_spans.resource.as_ref().unwrap().attributes[0];
        assert_eq!(service.key, "service.name");
        let scope = &resource_spans.scope_spans[0];
        assert_eq!(scope.scope.as_ref().unwrap().name, "tokctl-server");
        let [one, two] = &scope.spans[..] else {
            panic!("two spans: {scope:?}")
        };
        assert_eq!(one.name, "one");
        assert_eq!(two.name, "two");
        assert_eq!(hex(&one.trace_id), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(hex(&one.span_id), "00f067aa0ba902b7");
        assert_eq!(hex(&one.parent_span_id), "0000000000000007");
        assert_eq!(one.kind, 3);
        assert_eq!(one.flags, 0x301);
        assert_eq!(one.start_time_unix_nano, 1_700_000_000_123_456_789);
        assert_eq!(one.end_time_unix_nano, 1_700_000_000_128_456_789);
        let status = one.status.as_ref().unwrap();
        assert_eq!((status.code, status.message.as_str()), (2, "refused"));
        assert_eq!(two.status.as_ref().unwrap().code, 0);
        let values: Vec<_> = one
            .attributes
            .iter()
            .map(|a| {
                (
                    a.key.as_str(),
                    a.value.as_ref().unwrap().value.clone().unwrap(),
                )
            })
            .collect();
        assert_eq!(values[0], ("text", Any::StringValue("x".repeat(200))));
        assert_eq!(values[1], ("empty", Any::StringValue(String::new())));
        assert_eq!(values[2], ("n", Any::IntValue(-3)));
        assert_eq!(values[3], ("yes", Any::BoolValue(true)));
        assert_eq!(values[4], ("half", Any::DoubleValue(0.5)));
        let Any::ArrayValue(list) = &values[5].1 else {
            panic!("an array: {:?}", values[5])
        };
        let items: Vec<_> = list
            .values
            .iter()
            .map(|v| v.value.clone().unwrap())
            .collect();
        assert_eq!(
            items,
            [Any::StringValue("a".into()), Any::StringValue("b".into())]
        );
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
