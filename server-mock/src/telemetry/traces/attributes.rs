//! A span's attributes, written as OTLP's protobuf encodes them the moment they are set: each
//! one a `KeyValue` message (field 9 of a `Span`) appended to one buffer per span. A string is
//! copied once, into the buffer; no value is allocated, kept or dropped per attribute, and
//! exporting a span copies its attributes as one run of bytes. Attributes every attempt on a
//! deployment shares are written once and appended whole ([`Attributes::extend`]).
//!
//! Field numbers are those of `opentelemetry/proto/common/v1/common.proto`; the tests decode
//! what is written with the generated types.

/// The key of a `Span`'s attributes (field 9, length-delimited).
const SPAN_ATTRIBUTE: u8 = 9 << 3 | 2;
/// The key of a `Resource`'s attributes (field 1, length-delimited).
const RESOURCE_ATTRIBUTE: u8 = 1 << 3 | 2;

/// A span's attributes, encoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributes {
    bytes: Vec<u8>,
    /// The key each attribute is written under (a span's, or a resource's).
    field: u8,
}

/// An `AnyValue`'s one field: its key and scalar bytes, then any text.
struct Any<'a> {
    head: [u8; 11],
    len: usize,
    text: &'a [u8],
}

impl<'a> Any<'a> {
    fn scalar(key: u8, write: impl FnOnce(&mut [u8]) -> usize) -> Any<'a> {
        let mut head = [0; 11];
        head[0] = key;
        let len = 1 + write(&mut head[1..]);
        Any {
            head,
            len,
            text: &[],
        }
    }

    fn text(text: &'a str) -> Any<'a> {
        let mut head = [0; 11];
        head[0] = 1 << 3 | 2;
        let len = 1 + varint(text.len() as u64, &mut head[1..]);
        Any {
            head,
            len,
            text: text.as_bytes(),
        }
    }

    fn size(&self) -> usize {
        self.len + self.text.len()
    }
}

impl Attributes {
    /// Room for `bytes` of a span's attributes.
    pub fn with_capacity(bytes: usize) -> Self {
        Attributes {
            bytes: Vec::with_capacity(bytes),
            field: SPAN_ATTRIBUTE,
        }
    }

    /// A resource's attributes.
    pub(super) fn resource() -> Self {
        Attributes {
            bytes: Vec::new(),
            field: RESOURCE_ATTRIBUTE,
        }
    }

    /// How many bytes the attributes take, encoded.
    pub fn encoded_len(&self) -> usize {
        self.bytes.len()
    }

    /// The attributes as encoded.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Sets `key` to the text `value`.
    pub fn str(&mut self, key: &str, value: &str) {
        let (k, v) = (key.len(), value.len());
        let message = 2 + k + 4 + v;
        if message >= 0x80 {
            return self.write(key, Any::text(value));
        }
        // Short (nearly every attribute): every length one byte, the pieces between the key
        // and the text copied as fixed-size runs.
        self.bytes.reserve(2 + message);
        let text = 2 + v as u8;
        self.bytes
            .extend_from_slice(&[self.field, message as u8, 1 << 3 | 2, k as u8]);
        self.bytes.extend_from_slice(key.as_bytes());
        self.bytes
            .extend_from_slice(&[2 << 3 | 2, text, 1 << 3 | 2, v as u8]);
        self.bytes.extend_from_slice(value.as_bytes());
    }

    /// Sets `key` to the integer `value`.
    pub fn int(&mut self, key: &str, value: i64) {
        self.small(key, 3 << 3, value);
    }

    /// Sets `key` to a varint `value` in the `AnyValue` field `tag`.
    fn small(&mut self, key: &str, tag: u8, value: i64) {
        let k = key.len();
        // Short (nearly every one): a key under 120 bytes, a value under 16,384.
        if k >= 120 || !(0..0x4000).contains(&value) {
            return self.write(key, Any::scalar(tag, |out| varint(value as u64, out)));
        }
        let head = |message: usize| [self.field, message as u8, 1 << 3 | 2, k as u8];
        match value {
            0..0x80 => {
                self.bytes.reserve(2 + 2 + k + 4);
                self.bytes.extend_from_slice(&head(2 + k + 4));
                self.bytes.extend_from_slice(key.as_bytes());
                self.bytes
                    .extend_from_slice(&[2 << 3 | 2, 2, tag, value as u8]);
            }
            _ => {
                self.bytes.reserve(2 + 2 + k + 5);
                self.bytes.extend_from_slice(&head(2 + k + 5));
                self.bytes.extend_from_slice(key.as_bytes());
                let (low, high) = (value as u8 | 0x80, (value >> 7) as u8);
                self.bytes
                    .extend_from_slice(&[2 << 3 | 2, 3, tag, low, high]);
            }
        }
    }

    /// Sets `key` to the number `value`.
    pub fn float(&mut self, key: &str, value: f64) {
        let write = |out: &mut [u8]| {
            out[..8].copy_from_slice(&value.to_le_bytes());
            8
        };
        self.write(key, Any::scalar(4 << 3 | 1, write));
    }

    /// Sets `key` to `value`.
    pub fn bool(&mut self, key: &str, value: bool) {
        self.small(key, 2 << 3, i64::from(value));
    }

    /// Sets `key` to a list of texts.
    pub fn strs(&mut self, key: &str, values: &[&str]) {
        // AnyValue { array_value (5): ArrayValue { values (1): AnyValue { string_value } } }
        let item = |text: &str| {
            let size = Any::text(text).size();
            1 + varint_len(size) + size
        };
        let items: usize = values.iter().map(|text| item(text)).sum();
        let mut head = [0; 11];
        head[0] = 5 << 3 | 2;
        let len = 1 + varint(items as u64, &mut head[1..]);
        let any = len + items;
        self.head(key, any);
        self.bytes.extend_from_slice(&head[..len]);
        for text in values {
            let value = Any::text(text);
            self.bytes.push(1 << 3 | 2);
            self.varint(value.size());
            self.bytes.extend_from_slice(&value.head[..value.len]);
            self.bytes.extend_from_slice(value.text);
        }
    }

    /// Appends every attribute of `other` (written once, shared by many spans).
    pub fn extend(&mut self, other: &Attributes) {
        self.bytes.extend_from_slice(&other.bytes);
    }

    fn write(&mut self, key: &str, value: Any<'_>) {
        self.head(key, value.size());
        // One byte of key, then a length or a scalar: byte by byte (a copy's call costs more).
        for &byte in &value.head[..value.len] {
            self.bytes.push(byte);
        }
        if !value.text.is_empty() {
            self.bytes.extend_from_slice(value.text);
        }
    }

    /// A `KeyValue` message's key, length, its key field and its value field's key and length
    /// (a value of `any` bytes follows); room is made for the whole message at once.
    fn head(&mut self, key: &str, any: usize) {
        let key = key.as_bytes();
        let message = 1 + varint_len(key.len()) + key.len() + 1 + varint_len(any) + any;
        self.bytes.reserve(1 + varint_len(message) + message);
        self.bytes.push(self.field);
        self.varint(message);
        self.bytes.push(1 << 3 | 2);
        self.varint(key.len());
        self.bytes.extend_from_slice(key);
        self.bytes.push(2 << 3 | 2);
        self.varint(any);
    }

    /// A length: one byte, nearly always (the room was made by [`Self::head`]).
    fn varint(&mut self, value: usize) {
        push_varint(&mut self.bytes, value as u64);
    }
}

/// `value` as a varint, pushed onto `out` byte by byte (a short one costs no copy's call).
#[inline(always)]
pub(super) fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// `value` as a varint into `out` (room for 10 bytes); returns how many bytes it took.
pub(super) fn varint(mut value: u64, out: &mut [u8]) -> usize {
    let mut len = 0;
    while value >= 0x80 {
        out[len] = value as u8 | 0x80;
        value >>= 7;
        len += 1;
    }
    out[len] = value as u8;
    len + 1
}

/// How many bytes `value` takes as a varint.
pub(super) fn varint_len(value: usize) -> usize {
    let bits = usize::BITS - (value | 1).leading_zeros();
    bits.div_ceil(7) as usize
}

#[cfg(test)]
mod tests {
    use opentelemetry_proto::tonic::common::v1::KeyValue;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use prost::Message;

    use super::*;

    /// What `attributes` decode to, with the protocol's own types.
    fn decoded(attributes: &Attributes) -> Vec<(String, Any)> {
        let mut bytes = attributes.bytes();
        let mut out = Vec::new();
        while !bytes.is_empty() {
            assert_eq!(bytes[0], SPAN_ATTRIBUTE);
            let pair = KeyValue::decode_length_delimited(&bytes[1..]).unwrap();
            let len = pair.encoded_len();
            bytes = &bytes[1 + varint_len(len) + len..];
            out.push((pair.key, pair.value.unwrap().value.unwrap()));
        }
        out
    }

    #[test]
    fn each_kind_of_value_decodes_as_the_protocols_own_types() {
        let mut shared = Attributes::with_capacity(0);
        shared.str("server.address", "127.0.0.1");
        let mut attributes = Attributes::with_capacity(16);
        attributes.extend(&shared);
        attributes.str("text", &"x".repeat(300));
        attributes.str("empty", "");
        attributes.int("n", -3);
        attributes.int("big", i64::MAX);
        attributes.int("two bytes", 200);
        attributes.int("most of two bytes", 0x3fff);
        attributes.int("three bytes", 0x4000);
        attributes.str(&"k".repeat(119), "v");
        attributes.str("at the edge", &"v".repeat(0x80 - 2 - 11 - 4 - 1));
        attributes.str("past the edge", &"v".repeat(0x80 - 2 - 13 - 4));
        attributes.bool(&"k".repeat(200), true);
        attributes.bool("yes", true);
        attributes.bool("no", false);
        attributes.float("half", 0.5);
        attributes.strs("list", &["a", &"b".repeat(200)]);
        attributes.strs("none", &[]);
        let values = decoded(&attributes);
        let expected = [
            ("server.address", Any::StringValue("127.0.0.1".into())),
            ("text", Any::StringValue("x".repeat(300))),
            ("empty", Any::StringValue(String::new())),
            ("n", Any::IntValue(-3)),
            ("big", Any::IntValue(i64::MAX)),
            ("two bytes", Any::IntValue(200)),
            ("most of two bytes", Any::IntValue(0x3fff)),
            ("three bytes", Any::IntValue(0x4000)),
            (&"k".repeat(119), Any::StringValue("v".into())),
            (
                "at the edge",
                Any::StringValue("v".repeat(0x80 - 2 - 11 - 4 - 1)),
            ),
            (
                "past the edge",
                Any::StringValue("v".repeat(0x80 - 2 - 13 - 4)),
            ),
            (&"k".repeat(200), Any::BoolValue(true)),
            ("yes", Any::BoolValue(true)),
            ("no", Any::BoolValue(false)),
            ("half", Any::DoubleValue(0.5)),
        ];
        for (at, (key, value)) in expected.iter().enumerate() {
            assert_eq!((values[at].0.as_str(), &values[at].1), (*key, value));
        }
        let Any::ArrayValue(list) = &values[15].1 else {
            panic!("a list: {:?}", values[15])
        };
        let items: Vec<_> = list
            .values
            .iter()
            .map(|v| v.value.clone().unwrap())
            .collect();
        assert_eq!(
            items,
            [
                Any::StringValue("a".into()),
                Any::StringValue("b".repeat(200))
            ]
        );
        let Any::ArrayValue(none) = &values[16].1 else {
            panic!("a list: {:?}", values[16])
        };
        assert!(none.values.is_empty());
    }

    #[test]
    fn a_varints_length_is_counted_as_it_is_written() {
        for value in [0, 1, 127, 128, 16_383, 16_384, usize::MAX] {
            assert_eq!(
                varint_len(value),
                varint(value as u64, &mut [0; 10]),
                "{value}"
            );
        }
    }
}
