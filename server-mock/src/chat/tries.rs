//! The tries a request makes, in order: each candidate model as routing ranked them (the
//! requested model and its named fallbacks, or `auto`'s ranking), and within a model its
//! deployments: the next by weight among those that may take the request now, and, when that
//! one fails before its first byte, once more on another. Whole answers and streams take
//! their tries from here alike.

use std::sync::Arc;

use super::catalogue::Model;
use super::failures::Failures;
use super::funds::{Funds, Reserved};
use super::health::{Attempt, Health};
use super::provider::{self, Outgoing};
use super::request::Checked;
use super::spans;
use crate::telemetry::Traced;

/// Most deployments of one model a request tries: the first, and one more after a failure
/// before its first byte.
const PER_MODEL: usize = 2;

/// Where a request is in its candidates.
pub(crate) struct Tries<'r> {
    candidates: Vec<(&'r Arc<Model>, u32)>,
    /// The candidate being tried.
    index: usize,
    /// Its deployments tried or passed over so far, one bit each (a model has at most 64).
    tried: u64,
    /// How many of them were sent the request.
    sent: usize,
    /// Its reservation, once made.
    reservation: Option<Reserved>,
    /// The request's prompt estimate, for the deployments' token limits.
    prompt: u64,
    /// Where each try's client span goes, while traces are on.
    traced: Option<Traced>,
}

/// One try: a deployment of a candidate model, what it is sent, and what pays for it.
pub(crate) struct Try<'r> {
    /// The deployment (a model of its own: its upstream, its prices).
    pub model: &'r Arc<Model>,
    pub cap: u32,
    pub outgoing: Outgoing,
    pub reservation: Reserved,
    pub attempt: Attempt,
}

impl<'r> Tries<'r> {
    /// The tries over `candidates` for a request of `prompt` estimated tokens.
    /// (each try traced under `traced`, when given).
    pub fn new(
        candidates: Vec<(&'r Arc<Model>, u32)>,
        prompt: u64,
        traced: Option<Traced>,
    ) -> Self {
        Tries {
            candidates,
            index: 0,
            tried: 0,
            sent: 0,
            reservation: None,
            prompt,
            traced,
        }
    }

    fn advance(&mut self) {
        self.index += 1;
        self.tried = 0;
        self.sent = 0;
        self.reservation = None;
    }

    /// The next try, after the one before failed (each not tried, and why, is noted in
    /// `failures`); `None` when none is left.
    pub async fn next(
        &mut self,
        health: &Health,
        checked: &Checked,
        stream: bool,
        funds: &mut Funds,
        failures: &mut Failures,
    ) -> Option<Try<'r>> {
        loop {
            let (model, cap) = *self.candidates.get(self.index)?;
            let again = self.tried != 0;
            let left = model.deployments.len() > self.tried.count_ones() as usize;
            if again && (self.sent >= PER_MODEL || !left) {
                self.advance();
                continue;
            }
            let tokens = self.prompt.saturating_add(u64::from(cap));
            let next = match health.pick(model, self.tried, tokens) {
                Ok((next, passed)) => {
                    failures.pass_over(passed);
                    next
                }
                Err(skipped) => {
                    if !again {
                        failures.skip(model, skipped);
                    }
                    self.advance();
                    continue;
                }
            };
            self.tried |= 1 << next;
            let Some(deployment) = model.deployments.get(next) else {
                self.advance();
                continue;
            };
            let mut outgoing = match provider::prepare(deployment, cap, checked, stream) {
                Ok(outgoing) => outgoing,
                Err(refusal) => {
                    failures.refuse(deployment, refusal);
                    continue;
                }
            };
            let reservation = match &self.reservation {
                Some(reservation) => reservation.clone(),
                None => match funds.reserve(self.index, model, failures).await {
                    Some(reservation) => self.reservation.insert(reservation).clone(),
                    None => {
                        self.advance();
                        continue;
                    }
                },
            };
            match health.admit(deployment, tokens) {
                Ok(mut attempt) => {
                    if let Some(traced) = &self.traced {
                        let content = traced.content();
                        let name = spans::name(deployment);
                        let span = traced
                            .client(name, || spans::started(deployment, cap, checked, content));
                        if let Some(header) = span.traceparent() {
                            outgoing.with_header(header);
                        }
                        attempt.traced(span);
                    }
                    self.sent += 1;
                    return Some(Try {
                        model: deployment,
                        cap,
                        outgoing,
                        reservation,
                        attempt,
                    });
                }
                Err(skipped) => failures.skip(deployment, skipped),
            }
        }
    }
}
