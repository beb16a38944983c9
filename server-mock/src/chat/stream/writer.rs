//! How a stream is written for its client: chat completions' chunks, Anthropic's events or the
//! Responses events from typed pieces, or an upstream's own events relayed with the one that
//! ends the answer held until it is recorded.

use std::collections::VecDeque;

use crate::chat::answer::{Event, Item};
use crate::chat::request::Inbound;
use crate::chat::wire::{messages as events, responses};

/// How a stream is written for the client.
pub(super) enum Writer {
    /// As chat completions' chunks.
    Chat,
    /// As Anthropic's events, from a model that is not Anthropic's.
    Messages(events::Writer),
    /// As OpenAI Responses' events.
    Responses(responses::Writer),
    /// An upstream's own events in the client's dialect, relayed; the event ending the answer
    /// is held until it is recorded.
    Relayed {
        held: Option<Event>,
        responses: bool,
    },
}

impl Writer {
    /// A relay of an upstream's own events for a client of `inbound`'s dialect: Anthropic's end
    /// with `message_stop` (written here once the answer is recorded, when the upstream's is not
    /// there to hold), Responses' with the upstream's `response.completed`.
    pub(super) fn relayed(inbound: &Inbound) -> Self {
        let responses = matches!(inbound, Inbound::Responses(_));
        let stop = Event::named("message_stop", events::stop_event());
        Writer::Relayed {
            held: (!responses).then_some(stop),
            responses,
        }
    }

    /// The events of a typed piece for a client of another dialect; whether it was a piece of
    /// the answer.
    pub(super) fn piece(&mut self, item: &Item, out: &mut VecDeque<Event>) -> bool {
        match self {
            Writer::Messages(writer) => writer.piece(item, out),
            Writer::Responses(writer) => writer.piece(item, out),
            Writer::Chat | Writer::Relayed { .. } => false,
        }
    }
}

/// Whether an upstream's relayed `event` ends the answer (held until it is recorded).
pub(super) fn is_final(event: &Event) -> bool {
    let name = event.name.as_deref().unwrap_or_default();
    name == "message_stop" || crate::chat::openai::relay::FINAL.contains(&name)
}
