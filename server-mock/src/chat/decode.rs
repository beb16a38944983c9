//! Reads a chat request body field by field: the fields the gateway knows into their types,
//! anything else into `extra` (passed upstream unchanged). Nothing is buffered into an
//! intermediate tree first (as serde's `flatten` would do with the whole body), so
//! `budget_limit` reaches [`Credits`] as the JSON text the client wrote.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::DeserializeOwned};

use super::request::ChatRequest;
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

impl<'de> Visitor<'de> for RequestVisitor {
    type Value = ChatRequest;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chat completion request object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChatRequest, A::Error> {
        let mut r = ChatRequest::default();
        let (mut model, mut messages) = (None, None);
        let mut seen = [false; 12];
        while let Some(key) = map.next_key::<String>()? {
            let (m, s) = (&mut map, &mut seen);
            match key.as_str() {
                "model" => once(m, &mut model, &mut s[0], "model")?,
                "messages" => once(m, &mut messages, &mut s[1], "messages")?,
                "stream" => once(m, &mut r.stream, &mut s[2], "stream")?,
                "stream_options" => once(m, &mut r.stream_options, &mut s[3], "stream_options")?,
                "max_tokens" => once(m, &mut r.max_tokens, &mut s[4], "max_tokens")?,
                "max_completion_tokens" => once(
                    m,
                    &mut r.max_completion_tokens,
                    &mut s[5],
                    "max_completion_tokens",
                )?,
                "temperature" => once(m, &mut r.temperature, &mut s[6], "temperature")?,
                "tools" => once(m, &mut r.tools, &mut s[7], "tools")?,
                "tool_choice" => once(m, &mut r.tool_choice, &mut s[8], "tool_choice")?,
                "route_strategy" => once(m, &mut r.route_strategy, &mut s[9], "route_strategy")?,
                "budget_limit" => once(m, &mut r.budget_limit, &mut s[10], "budget_limit")?,
                "agent_wallet" => once(m, &mut r.agent_wallet, &mut s[11], "agent_wallet")?,
                _ => {
                    let value = map.next_value()?;
                    if r.extra.insert(key, value).is_some() {
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
    }
}
