//! How a stream ends: the upstream finished (the answer is billed, its end written once it is
//! recorded and paid for) or failed after answering (billed for what was sent, an error event
//! written); either way the text kept of it goes to the request log and the attempt's span.

use super::Relay;
use super::writer::Writer;
use crate::chat::Platform;
use crate::chat::answer::{Event, Failure, Tokens};
use crate::chat::form::Finish;
use crate::chat::spans;
use crate::chat::wire::{ChunkChoice, Delta, Usage};
use crate::chat::wire::{messages as events, responses};
use crate::http::openai::GatewayError;

impl Relay {
    /// The answer's end, once it is recorded and paid for.
    pub(super) fn close(&mut self, platform: &Platform, finish: &Finish, tokens: &Tokens) {
        match &mut self.writer {
            Writer::Chat => {
                let last = ChunkChoice {
                    index: 0,
                    delta: Delta::Empty,
                    finish_reason: Some(&finish.reason),
                };
                let chunk = self.chunk(&[last], None, Some(platform));
                self.tail.push_back(Event::data(chunk));
                if self.include_usage {
                    let usage = Usage::new(tokens);
                    let chunk = self.chunk(&[], Some(usage), None);
                    self.tail.push_back(Event::data(chunk));
                }
                self.tail.push_back(Event::data("[DONE]".into()));
            }
            Writer::Messages(writer) => writer.closing(finish, tokens, &mut self.tail),
            Writer::Responses(writer) => writer.closing(finish, tokens, &mut self.tail),
            Writer::Relayed { held, .. } => self.tail.extend(held.take()),
        }
    }

    /// Token counts to bill: the upstream's own when it finished, else what was sent (and the
    /// prompt's as the upstream reported them, when it did).
    pub(super) fn counts(&self, complete: bool) -> Tokens {
        let prompt = self
            .reported
            .and_then(|(p, _, _)| p)
            .unwrap_or(self.estimated_prompt);
        let detail = self.reported.map(|(_, _, d)| d).unwrap_or_default();
        let completion = match self.reported {
            Some((_, completion, _)) if complete => completion,
            _ => self.pieces,
        };
        Tokens::with(prompt, completion, detail)
    }

    /// The upstream finished: the end is written once the answer is recorded (`close`).
    pub(super) fn finish(&mut self) {
        self.upstream = None;
        let tokens = self.counts(true);
        let model = &self.accounting.model;
        let reason = self
            .finish
            .as_ref()
            .map_or("stop", |finish| finish.reason.as_str());
        let logged = self.accounting.logged.as_ref();
        let output = self
            .kept
            .as_ref()
            .and_then(|kept| kept.ended(reason, logged));
        self.attempt.describe(|attributes| {
            spans::answered(model, &self.id, reason, &tokens, attributes);
            if let Some(output) = &output {
                spans::streamed_output(output, attributes);
            }
        });
        self.attempt.finished(tokens.completion);
        let platform = self.settle(&tokens);
        let finish = self.finish.take().unwrap_or_else(|| Finish::plain("stop"));
        self.closing = Some((platform, finish, tokens));
    }

    /// The upstream failed after answering: an error event (then `[DONE]` for chat
    /// completions).
    pub(super) fn fail(&mut self, err: Failure) {
        self.upstream = None;
        let logged = self.accounting.logged.as_ref();
        if let Some(output) = self
            .kept
            .as_ref()
            .and_then(|kept| kept.ended("error", logged))
        {
            self.attempt
                .describe(|attributes| spans::streamed_output(&output, attributes));
        }
        self.attempt.failed(&err);
        let tokens = self.counts(false);
        self.settle(&tokens);
        let error = GatewayError::upstream(format!("the upstream failed mid-stream: {err}"));
        let code = error.code.unwrap_or(error.kind);
        if let Some(logged) = &self.accounting.logged {
            logged.failed(code);
        }
        if let Some(traced) = &self.accounting.traced {
            traced.failed(code);
        }
        match &mut self.writer {
            Writer::Chat => {
                self.tail.push_back(Event::data(error.body().to_string()));
                self.tail.push_back(Event::data("[DONE]".into()));
            }
            Writer::Responses(writer) => writer.failed(&error.message, &mut self.tail),
            Writer::Relayed {
                responses: true, ..
            } => self.tail.push_back(responses::relayed_error(
                &error.message,
                err.body.as_deref(),
            )),
            Writer::Messages(_) | Writer::Relayed { .. } => {
                let body = err.body.as_deref();
                let event = events::error(error.status, &error.message, body);
                self.tail.push_back(event);
            }
        }
    }

    pub(super) fn settle(&mut self, tokens: &Tokens) -> Platform {
        self.settled = true;
        let (platform, recorded) = self.accounting.settle(tokens);
        self.recorded = Some(recorded);
        self.charged = Some(platform.charged());
        platform
    }
}
