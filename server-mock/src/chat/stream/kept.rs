//! The text a stream delivered, kept for its end when anyone wants it: the request log's body
//! (a workspace that keeps bodies) and the attempt span's `gen_ai.output.messages`
//! (`--trace-content`). Decided once as the stream opens: when neither wants it there is no
//! `Kept` at all, and a delta costs nothing more than before.

use std::borrow::Cow;

use serde::Deserialize;

use crate::chat::answer::Item;
use crate::chat::spans;
use crate::request_log::Logged;
use crate::telemetry::Traced;

/// The most bytes of text kept: far past the log's body cap (16 KiB unless configured), so a
/// huge stream cannot grow memory without bound.
pub(super) const AT_MOST: usize = 1 << 20;

/// The answer's text so far, up to [`AT_MOST`] bytes.
pub(super) struct Kept {
    text: String,
    /// Whether text was left out past [`AT_MOST`].
    cut: bool,
    /// Whether the request log keeps this answer's body.
    body: bool,
    /// Whether message content goes into its spans.
    content: bool,
}

/// What is read of an OpenAI-compatible upstream's delta: its text.
#[derive(Deserialize)]
struct Content<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
}

impl Kept {
    /// A keeper of the text when the log keeps bodies or traces take content; else `None`.
    pub(super) fn new(logged: Option<&Logged>, traced: Option<&Traced>) -> Option<Box<Self>> {
        let body = logged.is_some_and(Logged::keeps_bodies);
        let content = traced.is_some_and(Traced::content);
        (body || content).then(|| {
            Box::new(Kept {
                text: String::new(),
                cut: false,
                body,
                content,
            })
        })
    }

    /// Keeps the text of a piece of the answer (not its reasoning or tool calls: a whole
    /// answer's output messages have its text only).
    pub(super) fn piece(&mut self, item: &Item) {
        match item {
            Item::Text(text) => self.push(text),
            Item::Delta(raw) => {
                if let Ok(Content {
                    content: Some(text),
                }) = serde_json::from_str(raw.get())
                {
                    self.push(&text);
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, text: &str) {
        if self.cut {
            return;
        }
        let room = AT_MOST - self.text.len();
        if text.len() <= room {
            self.text.push_str(text);
            return;
        }
        let mut end = room;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&text[..end]);
        // A secret cut in two may have lost its shape: the run the cut ends in goes too.
        let secretish = |c: char| c.is_ascii_alphanumeric() || "_-+/=".contains(c);
        let kept = self.text.trim_end_matches(secretish).len();
        self.text.truncate(kept);
        self.cut = true;
    }

    /// The answer ended for `finish`: its output messages (redacted) become `logged`'s
    /// response body when the log keeps bodies, and are returned as the attempt span's
    /// `gen_ai.output.messages` when content goes into spans.
    pub(super) fn ended(&self, finish: &str, logged: Option<&Logged>) -> Option<String> {
        let text = match self.cut {
            true => Cow::Owned(format!("{}…[cut at {AT_MOST} bytes]", self.text)),
            false => Cow::Borrowed(self.text.as_str()),
        };
        let messages = spans::text_messages(&text, finish);
        if let Some(logged) = logged.filter(|_| self.body) {
            logged.response_body(&messages);
        }
        self.content.then_some(messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept() -> Kept {
        Kept {
            text: String::new(),
            cut: false,
            body: false,
            content: true,
        }
    }

    #[test]
    fn text_and_deltas_content_are_kept_and_the_rest_is_not() {
        let mut kept = kept();
        let raw = |json: &str| {
            Item::Delta(serde_json::value::RawValue::from_string(json.into()).unwrap())
        };
        kept.piece(&Item::Text("Hello, ".into()));
        kept.piece(&raw(r#"{"content":"wor\"ld"}"#));
        kept.piece(&raw(r#"{"content":null,"tool_calls":[]}"#));
        kept.piece(&Item::Reasoning("thinking".into()));
        kept.piece(&Item::ToolArguments {
            index: 0,
            piece: "{}".into(),
        });
        assert_eq!(kept.text, "Hello, wor\"ld");
    }

    #[test]
    fn past_the_bound_nothing_more_is_kept_and_a_run_cut_in_two_is_dropped() {
        let mut kept = kept();
        kept.push(&"a ".repeat(AT_MOST / 2 - 4));
        kept.push("and sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z");
        assert!(kept.cut);
        assert!(kept.text.len() <= AT_MOST);
        assert!(
            kept.text.ends_with("a and "),
            "{}",
            &kept.text[kept.text.len() - 10..]
        );
        kept.push("more");
        assert!(!kept.text.ends_with("more"));
        let output = kept.ended("stop", None).unwrap();
        let messages: serde_json::Value = serde_json::from_str(&output).unwrap();
        let said = messages[0]["parts"][0]["content"].as_str().unwrap();
        assert!(
            said.ends_with("and …[cut at 1048576 bytes]"),
            "{}",
            &said[said.len() - 40..]
        );
    }
}
