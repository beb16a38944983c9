//! Reads a chat request body field by field: the fields the gateway knows into their types,
//! anything else into `extra` (passed upstream unchanged). Nothing is buffered into an
//! intermediate tree first (as serde's `flatten` would do with the whole body), so
//! `budget_limit` reaches [`Credits`] as the JSON text the client wrote.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::DeserializeOwned};

use super::request::{ChatRequest, Message};
#[cfg(doc)]
use crate::credits::Credits;

impl<'de> Deserialize<'de> for ChatRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RequestVisitor)
    }
}

struct RequestVisitor;

/// Reads the value of `field`, refusing a second one.
fn once<'de, A: MapAccess<'de>, T: DeserializeOwned>(
    map: &mut A,
    slot: &mut Option<T>,
    seen: &mut bool,
    field: &'static str,
) -> Result<(), A::Error> {
    if std::mem::replace(seen, true) {
        return Err(de::Error::duplicate_field(field));
    }
    *slot = map.next_value()?;
    Ok(())
}

/// Reads `field` as a JSON object (or null) of `T`'s fields; serde would also read a struct from
/// an array of its fields in order, which is not a shape the API takes.
fn object<'de, A: MapAccess<'de>, T: DeserializeOwned>(
    map: &mut A,
    seen: &mut bool,
    field: &'static str,
) -> Result<Option<T>, A::Error> {
    let mut slot: Option<serde_json::Map<String, serde_json::Value>> = None;
    once(map, &mut slot, seen, field)?;
    slot.map(|fields| serde_json::from_value(serde_json::Value::Object(fields)))
        .transpose()
        .map_err(|err| de::Error::custom(format!("{field}: {err}")))
}

/// Reads `field` as a whole number, written as an integer or as a number with nothing after
/// the point (`12.0`: JSON Schema's `integer` allows it, and so do OpenAI's clients).
fn whole<'de, A: MapAccess<'de>>(
    map: &mut A,
    seen: &mut bool,
    field: &'static str,
) -> Result<Option<i64>, A::Error> {
    let mut slot: Option<Whole> = None;
    once(map, &mut slot, seen, field)?;
    Ok(slot.map(|whole| whole.0))
}

struct Whole(i64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WholeVisitor)
    }
}

struct WholeVisitor;

impl Visitor<'_> for WholeVisitor {
    type Value = Whole;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a whole number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Whole, E> {
        Ok(Whole(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Whole, E> {
        i64::try_from(v)
            .map(Whole)
            .map_err(|_| E::custom("a whole number up to 9223372036854775807"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Whole, E> {
        // i64::MAX as f64 rounds up to 2^63, which is out of range: hence the strict `<`.
        if v.fract() == 0.0 && v >= i64::MIN as f64 && v < i64::MAX as f64 {
            Ok(Whole(v as i64))
        } else {
            Err(E::invalid_type(de::Unexpected::Float(v), &self))
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

/// A field name, borrowed from the body unless it holds escapes (no allocation for the names
/// the gateway knows).
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message object with a role")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let (mut role, mut content) = (None, None);
        let mut seen = [false; 2];
        let mut extra = serde_json::Map::new();
        while let Some(Key(key)) = map.next_key()? {
            match key.as_ref() {
                "role" => once(&mut map, &mut role, &mut seen[0], "role")?,
                "content" => once(&mut map, &mut content, &mut seen[1], "content")?,
                _ => {
                    let value = map.next_value()?;
                    if extra.insert(key.into_owned(), value).is_some() {
                        return Err(de::Error::custom("a message field is given twice"));
                    }
                }
            }
        }
        Ok(Message {
            role: role.ok_or_else(|| de::Error::missing_field("role"))?,
            content: content.unwrap_or_default(),
            extra,
        })
    }
}

impl<'de> Visitor<'de> for RequestVisitor {
    type Value = ChatRequest;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chat completion request object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChatRequest, A::Error> {
        let mut r = ChatRequest::default();
        let (mut model, mut messages) = (None, None);
        let mut seen = [false; 12];
        while let Some(Key(key)) = map.next_key()? {
            let (m, s) = (&mut map, &mut seen);
            match key.as_ref() {
                "model" => once(m, &mut model, &mut s[0], "model")?,
                "messages" => once(m, &mut messages, &mut s[1], "messages")?,
                "stream" => once(m, &mut r.stream, &mut s[2], "stream")?,
                "stream_options" => r.stream_options = object(m, &mut s[3], "stream_options")?,
                "max_tokens" => r.max_tokens = whole(m, &mut s[4], "max_tokens")?,
                "max_completion_tokens" => {
                    r.max_completion_tokens = whole(m, &mut s[5], "max_completion_tokens")?;
                }
                "temperature" => once(m, &mut r.temperature, &mut s[6], "temperature")?,
                "tools" => once(m, &mut r.tools, &mut s[7], "tools")?,
                "tool_choice" => once(m, &mut r.tool_choice, &mut s[8], "tool_choice")?,
                "route_strategy" => r.route_strategy = object(m, &mut s[9], "route_strategy")?,
                "budget_limit" => once(m, &mut r.budget_limit, &mut s[10], "budget_limit")?,
                "agent_wallet" => once(m, &mut r.agent_wallet, &mut s[11], "agent_wallet")?,
                _ => {
                    let value = map.next_value()?;
                    if r.extra.insert(key.into_owned(), value).is_some() {
                        return Err(de::Error::custom("a field is given twice"));
                    }
                }
            }
        }
        r.model = model.ok_or_else(|| de::Error::missing_field("model"))?;
        r.messages = messages.ok_or_else(|| de::Error::missing_field("messages"))?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_fields_are_typed_and_the_rest_kept() {
        let request: ChatRequest = serde_json::from_str(
            r#"{"model": "auto", "messages": [{"role": "user", "content": "hi"}],
                "budget_limit": 0.30000000000000004, "top_p": 0.9, "stream": null, "n": 1}"#,
        )
        .unwrap();
        assert_eq!(request.model, "auto");
        assert_eq!(request.messages.len(), 1);
        assert_eq!(request.budget_limit.unwrap().to_string(), "0.3");
        assert_eq!(request.stream, None);
        assert_eq!(request.extra["top_p"], json!(0.9));
        assert_eq!(request.extra.len(), 2);
    }

    #[test]
    fn missing_twice_given_and_mistyped_fields_are_refused() {
        let read = |text: &str| {
            serde_json::from_str::<ChatRequest>(text)
                .unwrap_err()
                .to_string()
        };
        assert!(read(r#"{"messages": []}"#).contains("missing field `model`"));
        assert!(read(r#"{"model": "a"}"#).contains("missing field `messages`"));
        assert!(
            read(r#"{"model": "a", "model": "b", "messages": []}"#)
                .contains("duplicate field `model`")
        );
        assert!(read(r#"{"model": "a", "messages": [], "x": 1, "x": 2}"#).contains("twice"));
        assert!(read(r#"{"model": 1, "messages": []}"#).contains("invalid type"));
        assert!(
            read(r#"{"model": "a", "messages": [], "budget_limit": "1"}"#)
                .contains("number of credits")
        );
        assert!(read(r#"[1]"#).contains("invalid type"));
        let array = r#"{"model": "a", "messages": [], "route_strategy": [0.5, 0.5]}"#;
        assert!(
            read(array).contains("invalid type: sequence, expected a map"),
            "{}",
            read(array)
        );
        assert!(
            read(r#"{"model": "a", "messages": [], "max_tokens": 1.5}"#).contains("whole number")
        );
        assert!(
            read(r#"{"model": "a", "messages": [], "max_tokens": 1e19}"#).contains("whole number")
        );
        let whole =
            r#"{"model": "a", "messages": [], "max_tokens": 12.0, "max_completion_tokens": 3}"#;
        let request: ChatRequest = serde_json::from_str(whole).unwrap();
        assert_eq!(
            (request.max_tokens, request.max_completion_tokens),
            (Some(12), Some(3))
        );
    }
}
