//! SSE answers: chunks in order, then one chunk with an empty `delta`, `finish_reason` and
//! `platform`, a `usage` chunk when asked for, then `data: [DONE]`. An upstream failure after
//! the first chunk ends the stream with an error event and `[DONE]`, never a silent cut. When
//! the client goes away the response body is dropped, which drops the upstream at once and bills
//! only what was sent.
//!
//! The relay is the response body itself, polled by the connection that serves the client: no
//! task or channel sits between the upstream and the client.
//!
//! The text delivered is kept for the request log's body and the attempt span's output messages
//! only when either wants it (`stream/kept.rs`); how a stream ends is `stream/end.rs`.

mod end;
mod kept;
mod writer;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures::StreamExt;

use super::answer::{Detail, Event, Failure, Item, ItemStream, Tokens};
use super::form::Finish;
use super::funds::{Funds, Reserved};
use super::health::Attempt;
use super::provider;
use super::request::{Checked, Inbound};
use super::routing::Route;
use super::tries::{Tries, Try};
use super::wire::{self, Chunk, ChunkChoice, Delta, Usage};
use super::wire::{headers, messages as events, responses};
use super::{Accounting, Failures, Gateway, Platform, Timing};
use crate::chat::catalogue::Model;
use crate::usage::Recorded;
use crate::x402::payment::{Charged, Payment};
use crate::x402::wire::PAYMENT_RESPONSE;
use kept::Kept;
use writer::{Writer, is_final};

const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// Opens the first candidate that produces anything, then streams it to the client. A
/// candidate that fails or ends before its first item is replaced by the next one. An `exact`
/// payment is settled once that item is there, before anything is sent (`PAYMENT-RESPONSE`
/// says so); an `upto` payment when the answer ends, for what it cost (the final chunk's
/// `platform.settlement` says so).
#[allow(clippy::too_many_arguments)]
pub async fn respond(
    gateway: &Gateway,
    route: Route<'_>,
    checked: &Checked,
    id: String,
    estimated_prompt: u64,
    accounting: impl Fn(&Arc<Model>, String, Reserved) -> Accounting,
    mut funds: Funds,
    timing: &mut Timing,
) -> Response {
    let mut failures = Failures::default();
    let mut tries = Tries::new(route.candidates, estimated_prompt, timing.traced.clone());
    while let Some(next) = tries
        .next(&gateway.health, checked, true, &mut funds, &mut failures)
        .await
    {
        let Try {
            model,
            cap,
            outgoing,
            reservation,
            mut attempt,
        } = next;
        let started = std::time::Instant::now();
        let request = &checked.request;
        let delay = gateway.sim_token_delay;
        let opened = provider::stream(delay, model, cap, request, outgoing).await;
        let first = match opened {
            Ok(mut upstream) => match upstream.next().await {
                Some(Ok(item)) => Ok((item, upstream)),
                Some(Err(err)) => Err(err),
                None => Err(Failure::invalid(
                    "the upstream ended its stream before answering",
                )),
            },
            Err(err) => Err(err),
        };
        timing.waited_since(started);
        match first {
            Ok((item, upstream)) => {
                let mut paid = None;
                if let Some(payment) = funds.payment.as_mut() {
                    if let Err(refused) = payment.charge().await {
                        return refused;
                    }
                    paid = (!payment.is_upto()).then(|| payment.settlement().header());
                }
                attempt.answering();
                if let Some(logged) = &timing.logged {
                    logged.first_token();
                }
                let writer =
                    match (&checked.inbound, &item) {
                        (Inbound::Chat, _) => Writer::Chat,
                        (inbound, Item::Event(_)) => Writer::relayed(inbound),
                        (Inbound::Messages(_), _) => {
                            Writer::Messages(events::Writer::new(id.clone(), model.id.clone()))
                        }
                        (Inbound::Responses(original), _) => Writer::Responses(
                            responses::Writer::new(id.clone(), model.id.clone(), original.clone()),
                        ),
                    };
                let writer_is_messages = matches!(writer, Writer::Messages(_));
                let upstream: ItemStream =
                    Box::pin(futures::stream::once(async { Ok(item) }).chain(upstream));
                let relay = Relay {
                    // Whether the text is kept is decided here, once: when nothing wants it,
                    // `None`, and no delta is copied.
                    kept: Kept::new(timing.logged.as_ref(), timing.traced.as_ref()),
                    id,
                    writer,
                    created: chrono::Utc::now().timestamp(),
                    include_usage: checked.include_usage,
                    estimated_prompt,
                    accounting: accounting(
                        model,
                        failures.reason(&route.reason, model),
                        reservation,
                    ),
                    upstream: Some(upstream),
                    ping_every: writer_is_messages.then_some(gateway.ping_every),
                    attempt,
                    started: false,
                    pieces: 0,
                    finish: None,
                    reported: None,
                    out: VecDeque::new(),
                    tail: VecDeque::new(),
                    settled: false,
                    recorded: None,
                    payment: funds.payment,
                    closing: None,
                    charged: None,
                };
                let events = futures::stream::unfold(relay, |mut relay| async move {
                    let event = relay.next_event().await?;
                    Some((event, relay))
                });
                // Events that are ready together go out as one body frame (one chunk of the
                // HTTP answer) rather than one frame each; none waits for a later one.
                let frames = events
                    .ready_chunks(64)
                    .map(|events| Ok::<_, Infallible>(wire::sse_frame(&events)));
                let mut response = Response::new(Body::from_stream(frames));
                let head = response.headers_mut();
                // Room for every header at once (the gateway's own, the rate limit's, the
                // request id's): past six, a map grown on demand is built a second time.
                head.reserve(12);
                head.insert(header::CONTENT_TYPE, EVENT_STREAM);
                head.insert(header::CACHE_CONTROL, NO_CACHE);
                if let Some(paid) = paid {
                    response.headers_mut().insert(PAYMENT_RESPONSE, paid);
                }
                if !matches!(checked.inbound, Inbound::Chat) {
                    headers::write(&mut response, model, None, &checked.inbound);
                }
                return response;
            }
            Err(err) => {
                attempt.failed(&err);
                failures.push(model, err);
            }
        }
    }
    failures.give_up(gateway, timing, &checked.inbound)
}

/// One answer being relayed; dropping it (the client hung up) drops the upstream and settles
/// the bill for what was sent.
struct Relay {
    id: String,
    writer: Writer,
    created: i64,
    include_usage: bool,
    estimated_prompt: u64,
    accounting: Accounting,
    /// `None` once the upstream has ended, failed or been dropped.
    upstream: Option<ItemStream>,
    /// For Anthropic's events written here: a `ping` when the upstream is silent this long.
    ping_every: Option<std::time::Duration>,
    /// The model's verdict: success at the end, failure on a cut; none if the client leaves.
    attempt: Attempt,
    /// Whether the opening `role` chunk went out.
    started: bool,
    /// Deltas sent so far.
    pieces: u64,
    finish: Option<Finish>,
    /// Prompt and completion tokens the upstream reported, and what it said of them.
    reported: Option<(Option<u64>, u64, Detail)>,
    /// Events written and not sent yet (one piece may make several).
    out: VecDeque<Event>,
    /// What is left to send after the upstream ended: final chunk, usage, `[DONE]`.
    tail: VecDeque<Event>,
    settled: bool,
    /// Resolves once the ledger has the answer's record; the tail waits for it.
    recorded: Option<Recorded>,
    /// An x402 payment still to finish (settle `upto` for what the answer cost).
    payment: Option<Payment>,
    /// The final chunk's `platform`, finish reason and counts, sent once the payment is
    /// finished.
    closing: Option<(Platform, Finish, Tokens)>,
    /// What the answer was billed, once it was.
    charged: Option<Charged>,
    /// The text delivered, while the request log keeps bodies or traces take content (boxed:
    /// the relay moves on every event, and `None` adds a word to it, not a `String`).
    kept: Option<Box<Kept>>,
}

impl Relay {
    /// A `chat.completion.chunk` event's data, with this answer's header.
    fn chunk(
        &self,
        choices: &[ChunkChoice<'_>],
        usage: Option<Usage>,
        platform: Option<&Platform>,
    ) -> String {
        let chunk = Chunk {
            id: &self.id,
            object: "chat.completion.chunk",
            created: self.created,
            model: &self.accounting.model.id,
            choices,
            usage,
            platform,
        };
        // Strings, numbers and raw JSON always serialise.
        serde_json::to_string(&chunk).unwrap_or_default()
    }

    /// A chunk carrying `delta`: one is written for every token.
    fn delta(&self, delta: Delta<'_>) -> String {
        let choice = ChunkChoice {
            index: 0,
            delta,
            finish_reason: None,
        };
        self.chunk(&[choice], None, None)
    }

    /// The next event for the client, or `None` when the stream is over.
    async fn next_event(&mut self) -> Option<Event> {
        if !self.started {
            self.started = true;
            match &mut self.writer {
                Writer::Chat => return Some(Event::data(self.delta(Delta::Opening))),
                Writer::Messages(writer) => writer.opening(self.estimated_prompt, &mut self.out),
                Writer::Responses(writer) => writer.opening(&mut self.out),
                Writer::Relayed { .. } => {}
            }
        }
        loop {
            if let Some(event) = self.out.pop_front() {
                return Some(event);
            }
            let Some(upstream) = self.upstream.as_mut() else {
                break;
            };
            let next = match self.ping_every {
                Some(every) => match tokio::time::timeout(every, upstream.next()).await {
                    Ok(next) => next,
                    Err(_) => return Some(Event::named("ping", events::ping())),
                },
                None => upstream.next().await,
            };
            if let (Some(kept), Some(Ok(piece))) = (self.kept.as_mut(), &next) {
                kept.piece(piece);
            }
            match next {
                Some(Ok(Item::Finish(reason))) => self.finish = Some(reason),
                Some(Ok(Item::Usage {
                    prompt,
                    completion,
                    detail,
                })) => {
                    self.reported = Some((prompt, completion, detail));
                }
                Some(Ok(piece)) => match &mut self.writer {
                    Writer::Chat => {
                        if let Some(delta) = Delta::of(&piece) {
                            self.pieces += 1;
                            // An upstream's delta is copied in as it came, line breaks and all.
                            return Some(Event::relayed(None, self.delta(delta)));
                        }
                    }
                    Writer::Messages(_) | Writer::Responses(_) => {
                        let typed;
                        let pieces = match &piece {
                            Item::Delta(raw) => {
                                typed = Item::typed(raw);
                                typed.as_slice()
                            }
                            piece => std::slice::from_ref(piece),
                        };
                        let mut said = false;
                        for piece in pieces {
                            said |= self.writer.piece(piece, &mut self.out);
                        }
                        self.pieces += u64::from(said);
                    }
                    Writer::Relayed { held, .. } => match piece {
                        Item::Event(event) if is_final(&event) => *held = Some(event),
                        Item::Event(event) => return Some(event),
                        piece => self.pieces += u64::from(Delta::of(&piece).is_some()),
                    },
                },
                Some(Err(err)) => self.fail(err),
                None if self.finish.is_none() => {
                    self.fail(Failure::other(
                        "the upstream closed the stream before finishing",
                    ));
                }
                None => self.finish(),
            }
        }
        if let Some(recorded) = self.recorded.take() {
            recorded.written().await;
        }
        let settlement = match (self.payment.take(), self.charged.clone()) {
            (Some(payment), Some(charged)) => Some(payment.finish(charged).await),
            _ => None,
        };
        if let (Some(logged), Some(settled)) = (&self.accounting.logged, &settlement) {
            settled.log(logged);
        }
        if let Some((mut platform, finish, tokens)) = self.closing.take() {
            platform.settlement = settlement;
            platform.upstream_finish_reason = finish.provider_reason.clone();
            self.close(&platform, &finish, &tokens);
        }
        self.tail.pop_front()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if !self.settled {
            // The client went away: the upstream (dropped with `self`) stops, and only what
            // was sent is billed.
            let tokens = self.counts(false);
            self.settle(&tokens);
        }
        // A payment not finished yet is settled for what was sent, off this task.
        if let (Some(payment), Some(charged)) = (self.payment.take(), self.charged.take()) {
            tokio::spawn(payment.finish(charged));
        }
    }
}
