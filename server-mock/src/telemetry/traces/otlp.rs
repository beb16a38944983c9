//! OTLP's protobuf encoding of a batch of spans (an `ExportTraceServiceRequest`), written
//! straight from the spans' records into one buffer: no intermediate messages, no allocation
//! per span or attribute (the OTLP crate's encoder built a message of owned strings for each
//! span, then encoded and dropped it: most of what a trace cost the gateway).
//!
//! Each span is written as it ends ([`span`]), after the batch's spans before it and room kept
//! at the buffer's start ([`room`]); the messages around the spans are written into that room
//! when the batch leaves ([`wrap`]), once their lengths are known. Nothing written moves.
//!
//! Field numbers are those of `opentelemetry/proto/trace/v1/trace.proto` and
//! `common/v1/common.proto`; the tests decode what is written with the generated types.

use super::attributes::{push_varint, varint_len};
use super::context::Ids;
use super::span::Record;

/// Protobuf's wire types.
const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;

/// Span flags: sampled; the parent's remoteness is known, and it is remote.
const SAMPLED: u32 = 0x1;
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// The instrumentation scope every span is of.
const SCOPE: &str = "tokctl-server";

/// Room kept before the spans for the messages around them: three keys and lengths, the scope.
const AROUND: usize = 3 * (1 + 10) + (1 + 1 + 1 + 1 + SCOPE.len());

/// Bytes kept at the start of a batch's buffer for the messages around its spans, when the
/// resource's fields take `resource` bytes.
pub(super) fn room(resource: usize) -> usize {
    AROUND + 1 + 10 + resource
}

/// Makes `out` the request exporting the spans written after its first `room(resource.len())`
/// bytes, of the resource whose fields `resource` holds: the messages around them
/// (`ExportTraceServiceRequest`, `ResourceSpans`, `ScopeSpans`) are written into the room,
/// ending where the spans begin. The request starts at the offset returned.
pub(super) fn wrap(resource: &[u8], out: &mut [u8]) -> usize {
    let room = room(resource.len());
    let mut around = Writer(Vec::with_capacity(room));
    let scope_len = 2 + SCOPE.len();
    let scope_spans = 1 + varint_len(scope_len) + scope_len + (out.len() - room);
    let resource_spans =
        1 + varint_len(resource.len()) + resource.len() + 1 + varint_len(scope_spans) + scope_spans;
    around.key(1, LEN);
    around.varint(resource_spans as u64);
    around.bytes_always(1, resource);
    around.key(2, LEN);
    around.varint(scope_spans as u64);
    around.key(1, LEN);
    around.varint(scope_len as u64);
    around.string(1, SCOPE);
    let start = room - around.0.len();
    out[start..room].copy_from_slice(&around.0);
    start
}

/// Appends the span `ids` names, as `record` holds it, to `out`: a `ScopeSpans.spans` field.
pub(super) fn span(ids: &Ids, record: &Record, out: &mut Vec<u8>) {
    let len = span_len(ids, record);
    let mut w = Writer(std::mem::take(out));
    w.key(2, LEN);
    w.varint(len as u64);
    w.span(ids, record);
    *out = w.0;
}

/// A length-delimited field's bytes (of a field numbered below 16: a key of one byte) holding
/// `len` bytes.
fn field_len(len: usize) -> usize {
    1 + varint_len(len) + len
}

/// A string field's bytes (none when empty: proto3's default is left out).
fn string_len(text: &str) -> usize {
    match text.len() {
        0 => 0,
        len => field_len(len),
    }
}

/// The bytes of an event's message, `Span.Event`, inside its field.
fn event_len(at: u64, name: &str) -> usize {
    usize::from(at != 0) * 9 + string_len(name)
}

/// The bytes of the status message, `Status` (message and code ERROR), inside its field.
fn status_len(description: &str) -> usize {
    string_len(description) + 2
}

/// The bytes of the span's message, as [`Writer::span`] writes it.
fn span_len(ids: &Ids, record: &Record) -> usize {
    let head = 2 + 16 + 2 + 8;
    let state = string_len(ids.state.as_deref().unwrap_or_default());
    let parent = usize::from(record.parent.is_some()) * (2 + 8);
    let times = 2 + 9 + 9;
    let events: usize = record
        .events
        .iter()
        .map(|(at, name)| field_len(event_len(*at, name)))
        .sum();
    let status = field_len(record.error.as_deref().map_or(0, status_len));
    let flags = 6;
    head + state
        + parent
        + string_len(&record.name)
        + times
        + record.attributes.bytes().len()
        + events
        + status
        + flags
}

/// A buffer protobuf is written into.
struct Writer(Vec<u8>);

impl Writer {
    fn varint(&mut self, value: u64) {
        push_varint(&mut self.0, value);
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

    /// A message field of `len` bytes, which `write` writes.
    fn message(&mut self, field: u32, len: usize, write: impl FnOnce(&mut Self)) {
        self.key(field, LEN);
        self.varint(len as u64);
        write(self);
    }

    /// A span's fields ([`span_len`] bytes); those of fixed size written as runs of fixed
    /// length (a run of known length is copied without a call).
    fn span(&mut self, ids: &Ids, span: &Record) {
        let mut head = [0; 2 + 16 + 2 + 8];
        head[..2].copy_from_slice(&[1 << 3 | LEN as u8, 16]);
        head[2..18].copy_from_slice(&ids.trace);
        head[18..20].copy_from_slice(&[2 << 3 | LEN as u8, 8]);
        head[20..].copy_from_slice(&ids.span);
        self.0.extend_from_slice(&head);
        self.string(3, ids.state.as_deref().unwrap_or_default());
        if let Some((parent, _)) = &span.parent {
            let mut field = [0; 2 + 8];
            field[..2].copy_from_slice(&[4 << 3 | LEN as u8, 8]);
            field[2..].copy_from_slice(parent);
            self.0.extend_from_slice(&field);
        }
        self.string(5, &span.name);
        let mut times = [0; 2 + 9 + 9];
        times[..2].copy_from_slice(&[6 << 3 | VARINT as u8, span.kind as u8]);
        times[2] = 7 << 3 | FIXED64 as u8;
        times[3..11].copy_from_slice(&span.start.to_le_bytes());
        times[11] = 8 << 3 | FIXED64 as u8;
        times[12..].copy_from_slice(&span.end.to_le_bytes());
        self.0.extend_from_slice(&times);
        // Encoded as they were set: field 9, each.
        self.0.extend_from_slice(span.attributes.bytes());
        for (at, name) in &span.events {
            self.message(11, event_len(*at, name), |w| {
                w.fixed64(1, *at);
                w.string(2, name);
            });
        }
        match &span.error {
            Some(description) => self.message(15, status_len(description), |w| {
                w.string(2, description);
                w.uint(3, 2);
            }),
            None => self.0.extend_from_slice(&[15 << 3 | LEN as u8, 0]),
        }
        let remote = match span.parent {
            Some((_, true)) => IS_REMOTE,
            _ => 0,
        };
        let flags = (SAMPLED | HAS_IS_REMOTE | remote).to_le_bytes();
        // Field 16, fixed32 (wire type 5): its key (133) is a varint of two bytes.
        let field = [0x85, 0x01, flags[0], flags[1], flags[2], flags[3]];
        self.0.extend_from_slice(&field);
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use prost::Message;

    use super::super::attributes::Attributes;
    use super::super::context::Ids;
    use super::super::span::Kind;
    use super::*;

    /// The request exporting `spans`, each named by `ids`, as the batcher makes it.
    fn request(resource: &[u8], ids: &Ids, spans: &[Record], out: &mut Vec<u8>) -> usize {
        out.clear();
        out.resize(room(resource.len()), 0);
        for record in spans {
            span(ids, record, out);
        }
        wrap(resource, out)
    }

    #[test]
    fn what_is_written_decodes_as_the_protocols_own_types() {
        let mut fields = Attributes::resource();
        fields.str("service.name", "svc");
        let mut attributes = Attributes::with_capacity(0);
        attributes.str("text", &"x".repeat(200));
        attributes.int("n", -3);
        let at = 1_700_000_000_123_456_789;
        let ids = Ids {
            trace: 0x0af7_6519_16cd_43dd_8448_eb21_1c80_319c_u128.to_be_bytes(),
            span: 0x00f0_67aa_0ba9_02b7_u64.to_be_bytes(),
            sampled: true,
            state: Some("vendor=1".into()),
        };
        let span = |name: &'static str, error: Option<&str>| Record {
            parent: Some((7_u64.to_be_bytes(), true)),
            name: name.into(),
            kind: Kind::Client,
            start: at,
            end: at + 5_000_000,
            attributes: attributes.clone(),
            events: vec![(at + 1, "gen_ai.first_token")],
            error: error.map(String::from),
        };
        let long = "a refusal explained at length, ".repeat(10);
        let spans = [span("one", Some(&long)), span("two", None)];
        let mut out = Vec::new();
        let start = request(fields.bytes(), &ids, &spans, &mut out);
        let decoded = ExportTraceServiceRequest::decode(&out[start..]).unwrap();
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
        assert_eq!(one.trace_state, "vendor=1");
        let event = &one.events[0];
        assert_eq!(
            (event.name.as_str(), event.time_unix_nano),
            ("gen_ai.first_token", at + 1)
        );
        let status = one.status.as_ref().unwrap();
        assert_eq!((status.code, status.message.as_str()), (2, long.as_str()));
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
        assert_eq!(values[1], ("n", Any::IntValue(-3)));
        assert_eq!(values.len(), 2);

        // A batch long enough that the messages around it take three bytes of length.
        let many: Vec<_> = (0..200).map(|_| span("many", None)).collect();
        let start = request(fields.bytes(), &ids, &many, &mut out);
        assert!(out.len() - start > 0x4000);
        let decoded = ExportTraceServiceRequest::decode(&out[start..]).unwrap();
        assert_eq!(decoded.resource_spans[0].scope_spans[0].spans.len(), 200);

        // A root span without trace state, events or a status message, failed.
        let bare_ids = Ids {
            state: None,
            ..ids.clone()
        };
        let bare = Record {
            parent: None,
            events: Vec::new(),
            error: Some(String::new()),
            ..span("bare", None)
        };
        let start = request(fields.bytes(), &bare_ids, &[bare], &mut out);
        let decoded = ExportTraceServiceRequest::decode(&out[start..]).unwrap();
        let bare = &decoded.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!((bare.name.as_str(), bare.flags), ("bare", 0x101));
        assert!(bare.parent_span_id.is_empty() && bare.trace_state.is_empty());
        assert!(bare.events.is_empty());
        assert_eq!(bare.status.as_ref().unwrap().code, 2);
        assert_eq!(bare.attributes.len(), 2);
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
