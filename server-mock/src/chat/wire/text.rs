//! JSON text written piece by piece, for the events the agents' dialects send several of a
//! token: the parts that never change (keys, punctuation, fixed words) copied in as they are, a
//! string copied between quotes when nothing in it needs escaping and escaped by serde_json when
//! something does, numbers by itoa; no tree and no serialiser per key. A Responses stream writes
//! five times a chat completion's bytes for the same token (BENCHMARKS.md, issue 38).

use serde::Serialize;

/// JSON text being written.
#[derive(Default)]
pub struct Text(String);

impl Text {
    /// Room for `bytes` of text.
    pub fn with_capacity(bytes: usize) -> Self {
        Text(String::with_capacity(bytes))
    }

    /// `json`, JSON text that is valid where it goes (keys, punctuation, fixed values), as is.
    pub fn raw(&mut self, json: &str) -> &mut Self {
        self.0.push_str(json);
        self
    }

    /// `text` as a JSON string.
    pub fn string(&mut self, text: &str) -> &mut Self {
        // A fold rather than `any`: no early exit, so the compiler checks many bytes at once.
        let plain = !text.bytes().fold(false, |escape, b| {
            escape | (b < 0x20) | (b == b'"') | (b == b'\\')
        });
        if plain {
            self.0.push('"');
            self.0.push_str(text);
            self.0.push('"');
            return self;
        }
        self.value(text)
    }

    /// `id`, one the gateway made (letters, digits and `_`: `secrets::new_id` and the output
    /// items named after it), as a JSON string with nothing to check.
    pub fn id(&mut self, id: &str) -> &mut Self {
        debug_assert!(
            id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
            "{id}"
        );
        self.0.push('"');
        self.0.push_str(id);
        self.0.push('"');
        self
    }

    /// `n` as a JSON number.
    pub fn number(&mut self, n: impl itoa::Integer) -> &mut Self {
        self.0.push_str(itoa::Buffer::new().format(n));
        self
    }

    /// `value` as JSON text (a part of the client's request echoed back).
    pub fn value(&mut self, value: &(impl Serialize + ?Sized)) -> &mut Self {
        // Strings, numbers and JSON values always serialise.
        if let Ok(json) = serde_json::to_string(value) {
            self.0.push_str(&json);
        }
        self
    }

    /// The text.
    pub fn finish(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_only_when_they_must_be_and_read_back_the_same() {
        for text in [
            "plain [sim] words",
            "a \"quote\"",
            "back\\slash",
            "new\nline",
            "\u{1}",
            "é ✓",
            "",
        ] {
            let mut t = Text::default();
            t.raw("{\"k\":")
                .string(text)
                .raw(",\"n\":")
                .number(42u64)
                .raw("}");
            let read: serde_json::Value = serde_json::from_str(&t.finish()).unwrap();
            assert_eq!(read, serde_json::json!({"k": text, "n": 42}));
        }
    }
}
