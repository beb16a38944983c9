//! The built-in provider: deterministic text derived from the prompt (the same prompt and model
//! always give the same answer), at most `max_tokens` tokens, streamed with a set delay a token.

use std::time::Duration;

use futures::StreamExt;

use super::answer::{Completion, Detail, Item, ItemStream, Message};
use super::form::{Finish, Said};
use super::request::{ChatRequest, content_text};
use crate::chat::catalogue::Model;

const WORDS: &[&str] = &[
    "tokens", "rotate", "safely", "and", "the", "gateway", "routes", "each", "request", "to", "a",
    "model", "that", "fits", "its", "budget", "while", "credits", "are", "counted", "exactly",
    "so", "nothing", "is", "lost", "when", "streams", "end", "early", "or", "late",
];

/// The answer, one token a piece, and its finish reason.
fn pieces(model: &Model, cap: u32, request: &ChatRequest) -> (Vec<String>, &'static str) {
    let prompt = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map(|m| content_text(&m.content))
        .unwrap_or_default();
    let mut seed = fnv1a(model.id.as_bytes()) ^ fnv1a(prompt.as_bytes());
    let echo: Vec<&str> = prompt.split_whitespace().take(6).collect();
    let mut words: Vec<String> = vec![format!("[{}]", model.id)];
    if !echo.is_empty() {
        words.push("You".into());
        words.push("said:".into());
        words.extend(echo.iter().map(|w| w.to_string()));
        words.push("—".into());
    }
    let length = 12 + (seed % 28) as usize;
    for _ in 0..length {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        words.push(WORDS[(seed >> 33) as usize % WORDS.len()].to_string());
    }
    let finish = if words.len() > cap as usize {
        "length"
    } else {
        "stop"
    };
    words.truncate(cap as usize);
    let pieces = words
        .iter()
        .enumerate()
        .map(|(i, w)| if i == 0 { w.clone() } else { format!(" {w}") })
        .collect();
    (pieces, finish)
}

/// The whole answer at once.
pub fn complete(model: &Model, cap: u32, request: &ChatRequest) -> Completion {
    let (pieces, finish) = pieces(model, cap, request);
    Completion {
        message: Message::Said(Said {
            text: pieces.concat(),
            ..Said::default()
        }),
        finish: Finish::plain(finish),
        prompt_tokens: None,
        completion_tokens: pieces.len() as u64,
        detail: Detail::default(),
    }
}

/// The answer a token at a time, `delay` apart.
pub fn stream(model: &Model, cap: u32, request: &ChatRequest, delay: Duration) -> ItemStream {
    let (pieces, finish) = pieces(model, cap, request);
    let completion = pieces.len() as u64;
    let deltas = futures::stream::iter(pieces).then(move |piece| async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Ok(Item::Text(piece))
    });
    let end = futures::stream::iter([
        Ok(Item::Finish(Finish::plain(finish))),
        Ok(Item::Usage {
            prompt: None,
            completion,
            detail: Detail::default(),
        }),
    ]);
    Box::pin(deltas.chain(end))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}
