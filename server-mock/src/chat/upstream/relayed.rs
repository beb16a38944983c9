//! A client's own body for an upstream of its dialect (Anthropic's Messages, OpenAI's
//! Responses): the model's upstream name, the cap and the stream flag put in; every other field
//! as the client wrote it, in its order; and the upstream's whole answer read for the bill and
//! kept as it came.

use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::chat::answer::Failure;

/// `body` for the upstream's `model`, at most `cap` tokens (under the dialect's name for the
/// cap, `cap_field`), streamed or not.
pub fn body(
    model: &str,
    (cap_field, cap): (&str, u32),
    body: &Map<String, Value>,
    stream: bool,
) -> Vec<u8> {
    let relayed = Relayed {
        model,
        cap_field,
        cap,
        stream,
        body,
    };
    // Strings, numbers and JSON values always serialise.
    serde_json::to_vec(&relayed).unwrap_or_default()
}

struct Relayed<'a> {
    model: &'a str,
    cap_field: &'a str,
    cap: u32,
    stream: bool,
    body: &'a Map<String, Value>,
}

impl Serialize for Relayed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry(self.cap_field, &self.cap)?;
        for (key, value) in self.body {
            if key != "model" && key != self.cap_field && key != "stream" {
                map.serialize_entry(key, value)?;
            }
        }
        if self.stream {
            map.serialize_entry("stream", &true)?;
        }
        map.end()
    }
}

/// A whole answer `bytes`: what the bill reads of it (`T`), and the answer as it came.
pub fn read<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, Box<RawValue>), Failure> {
    let invalid = |err: serde_json::Error| {
        Failure::invalid(format!("the upstream answer could not be read: {err}"))
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Failure::invalid("the upstream answer is not UTF-8"))?;
    let read = serde_json::from_str(text).map_err(invalid)?;
    let raw = RawValue::from_string(text.to_string()).map_err(invalid)?;
    Ok((read, raw))
}
