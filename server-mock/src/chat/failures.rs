//! What became of the candidates that did not answer, and the route reason and error they
//! make: refused (the model's provider cannot take the request), skipped (an open circuit, a
//! worst case the token's limit or the payment does not cover), or failed before answering.

use axum::response::{IntoResponse, Response};

use axum::body::Body;
use axum::http::{StatusCode, header};

use super::answer;
use super::catalogue::{Model, ProviderKind};
use super::form::Refusal;
use super::health::Skipped;
use super::request::Inbound;
use super::{Gateway, Timing};
use crate::http::openai::GatewayError;

/// Candidates that did not answer, in order: skipped (why, and for an open circuit when it may
/// be tried again), or failed before answering.
#[derive(Default)]
pub(crate) struct Failures {
    failed: Vec<(String, answer::Failure)>,
    skipped: Vec<(String, String, Option<u64>)>,
    /// Deployments passed over for the one tried, and why (an open circuit, a limit reached).
    passed_over: Vec<String>,
    /// The first refusal, for the 400 when no candidate could take the request, and how many.
    refused: Option<Refusal>,
    refusals: usize,
    /// The first error an Anthropic upstream answered with, and the first an upstream serving
    /// Responses did: relayed unchanged to a Messages (a Responses) client when no candidate
    /// answers.
    relayable: [Option<answer::Failure>; 2],
}

impl Failures {
    /// Notes that `model` failed; the next candidate is tried.
    pub fn push(&mut self, model: &Model, failure: answer::Failure) {
        let label = model.label();
        crate::telemetry::upstream_failed(&label, &failure);
        let dialect = match model.provider {
            ProviderKind::Anthropic => Some(0),
            ProviderKind::Openai if model.responses => Some(1),
            _ => None,
        };
        if let Some(slot) = dialect.map(|i| &mut self.relayable[i])
            && slot.is_none()
            && failure.status.is_some()
            && failure.body.is_some()
        {
            *slot = Some(failure.clone());
        }
        self.failed.push((label, failure));
    }

    /// Notes that `model` was not tried: its circuit is open.
    pub fn skip(&mut self, model: &Model, skipped: Skipped) {
        let retry_after = Some(skipped.retry_after());
        self.skipped
            .push((model.label(), skipped.describe(), retry_after));
    }

    /// Notes that `model` was not tried: its provider cannot take the request.
    pub fn refuse(&mut self, model: &Model, refusal: Refusal) {
        self.skipped
            .push((model.label(), refusal.message.clone(), None));
        self.refused.get_or_insert(refusal);
        self.refusals += 1;
    }

    /// Notes that `model` was not tried, for `why` (its worst case is not covered).
    pub fn pass(&mut self, model: &Model, why: String) {
        self.skipped.push((model.label(), why, None));
    }

    /// Notes deployments passed over for the one tried: `east open for 2 s after ...`.
    pub fn pass_over(&mut self, passed: Vec<String>) {
        self.passed_over.extend(passed);
    }

    fn failed(&self) -> String {
        let each: Vec<String> = self
            .failed
            .iter()
            .map(|(model, failure)| format!("{model} ({failure})"))
            .collect();
        each.join(", ")
    }

    fn skipped(&self) -> String {
        let each: Vec<String> = self
            .skipped
            .iter()
            .map(|(model, why, _)| format!("{model} skipped: {why}"))
            .collect();
        each.join("; ")
    }

    /// The route reason, plus which models were skipped or failed before `chosen` answered,
    /// and which of its model's deployments `chosen` is and why.
    pub fn reason(&self, reason: &str, chosen: &Model) -> String {
        let mut reason = reason.to_string();
        if !self.skipped.is_empty() {
            reason = format!("{reason}; {}", self.skipped());
        }
        let mut reason = match self.failed.is_empty() {
            true if self.skipped.is_empty() => reason,
            true => format!("{reason}; fell back to {}", chosen.label()),
            false => format!(
                "{reason}; fell back to {} after {} failed before answering",
                chosen.label(),
                self.failed()
            ),
        };
        if let Some(name) = &chosen.deployment {
            let (weight, total) = chosen.share;
            reason = format!("{reason}; deployment {name} by weight ({weight} of {total}");
            if !self.passed_over.is_empty() {
                reason = format!("{reason}; passed over: {}", self.passed_over.join(", "));
            }
            reason.push(')');
        }
        reason
    }

    /// No candidate answered: the error (see [`Failures::into_error`]), counted; for a Messages
    /// (Responses) client, an Anthropic (Responses) upstream's own error as it came, when one
    /// gave one (agents recover by its wording: a prompt too long, an overload).
    pub fn give_up(mut self, gateway: &Gateway, timing: &Timing, inbound: &Inbound) -> Response {
        let relayed = match inbound {
            Inbound::Messages(_) => self.relayable[0].take(),
            Inbound::Responses(_) => self.relayable[1].take(),
            Inbound::Chat => None,
        };
        let error = self.into_error();
        if let Some(arrived) = timing.arrived {
            let error_type = error.code.unwrap_or(error.kind);
            gateway.metrics.chat_failed(error_type, arrived.elapsed());
        }
        match relayed {
            Some(failure) => relay(failure),
            None => error.into_response(),
        }
    }

    /// No candidate answered: 400 when every one was refused (the first refusal), 503 when
    /// none could be tried (each circuit open, `Retry-After` until the first may be tried
    /// again), 504 when each tried one timed out, else 502.
    pub fn into_error(self) -> GatewayError {
        if let Some(refusal) = &self.refused
            && self.failed.is_empty()
            && self.skipped.len() == self.refusals
        {
            return GatewayError::unsupported(refusal.param, refusal.message.clone());
        }
        if self.failed.is_empty() {
            let retry_after = self.skipped.iter().filter_map(|(_, _, at)| *at).min();
            let message = format!("no upstream can take the request now: {}", self.skipped());
            return GatewayError::unavailable(message, retry_after.unwrap_or(1));
        }
        let mut message = format!("every candidate model failed: {}", self.failed());
        if !self.skipped.is_empty() {
            message = format!("{message}; {}", self.skipped());
        }
        if self.failed.iter().all(|(_, f)| f.timed_out) {
            GatewayError::timeout(message)
        } else {
            GatewayError::upstream(message)
        }
    }
}

/// An upstream's error status and body as it answered them, with its `Retry-After`.
pub fn relay(failure: answer::Failure) -> Response {
    let status = failure
        .status
        .and_then(|status| StatusCode::from_u16(status).ok())
        .unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response = Response::new(Body::from(failure.body.unwrap_or_default()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    if let Some(wait) = failure.retry_after {
        headers.insert(header::RETRY_AFTER, wait.as_secs().into());
    }
    response
}
