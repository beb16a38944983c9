//! A whole answer: each candidate in turn until one answers, then the payment, the ledger and
//! the answer written in the dialect the request came in.

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::response::{IntoResponse, Response};

use super::answer::{self, Tokens};
use super::catalogue::Model;
use super::failures::Failures;
use super::funds::{Funds, Reserved};
use super::request::{Checked, Inbound};
use super::{Accounting, Gateway, Platform, Timing, provider, routing, spans, tries, wire};
use crate::telemetry::Traced;
use crate::x402::payment::Settlement;

#[allow(clippy::too_many_arguments)]
pub(super) async fn complete(
    gateway: &Gateway,
    route: routing::Route<'_>,
    checked: &Checked,
    id: String,
    estimated_prompt: u64,
    accounting: impl Fn(&Arc<Model>, String, Reserved) -> Accounting,
    mut funds: Funds,
    timing: &mut Timing,
) -> Response {
    let mut failures = Failures::default();
    let mut tries = tries::Tries::new(route.candidates, estimated_prompt, timing.traced.clone());
    while let Some(next) = tries
        .next(&gateway.health, checked, false, &mut funds, &mut failures)
        .await
    {
        let tries::Try {
            model,
            cap,
            outgoing,
            reservation,
            mut attempt,
        } = next;
        let started = Instant::now();
        let answer = provider::complete(model, cap, &checked.request, outgoing).await;
        timing.waited_since(started);
        match answer {
            Ok(answer) => {
                let content = timing.traced.as_ref().is_some_and(Traced::content);
                attempt.describe(|attributes| {
                    let prompt = answer.prompt_tokens.unwrap_or(estimated_prompt);
                    let tokens = Tokens::with(prompt, answer.completion_tokens, answer.detail);
                    let finish = &answer.finish.reason;
                    spans::answered(model, &id, finish, &tokens, attributes);
                    if content {
                        spans::output(&answer.message, finish, attributes);
                    }
                });
                attempt.succeeded();
                // `exact` is settled now, before the answer is sent: not at all when no
                // upstream answers, and no answer is sent unpaid.
                if let Some(payment) = funds.payment.as_mut()
                    && let Err(refused) = payment.charge().await
                {
                    return refused;
                }
                let reason = failures.reason(&route.reason, model);
                let prompt = answer.prompt_tokens.unwrap_or(estimated_prompt);
                let tokens = Tokens::with(prompt, answer.completion_tokens, answer.detail);
                let (mut platform, recorded) =
                    accounting(model, reason, reservation).settle(&tokens);
                recorded.written().await;
                let settlement = match funds.payment {
                    Some(payment) => Some(payment.finish(platform.charged()).await),
                    None => None,
                };
                if let Some(logged) = timing.logged.as_ref().filter(|l| l.keeps_bodies()) {
                    let finish = &answer.finish.reason;
                    logged.response_body(&spans::output_messages(&answer.message, finish));
                }
                let paid = settlement.as_ref().map(Settlement::header);
                if let (Some(logged), Some(settled)) = (&timing.logged, &settlement) {
                    settled.log(logged);
                }
                platform.settlement = settlement;
                platform.upstream_finish_reason = answer.finish.provider_reason.clone();
                let mut response = match &checked.inbound {
                    Inbound::Chat => chat_answer(&id, model, &answer, &tokens, &platform),
                    Inbound::Messages(_) => wire::messages::answer(&id, model, &answer, &tokens),
                    Inbound::Responses(original) => {
                        wire::responses::answer(&id, model, &answer, &tokens, original)
                    }
                };
                if !matches!(checked.inbound, Inbound::Chat) {
                    let inbound = &checked.inbound;
                    wire::headers::write(&mut response, model, Some(&platform), inbound);
                }
                if let Some(paid) = paid {
                    response
                        .headers_mut()
                        .insert(crate::x402::wire::PAYMENT_RESPONSE, paid);
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

/// A whole answer as `chat.completion`.
fn chat_answer(
    id: &str,
    model: &Model,
    answer: &answer::Completion,
    tokens: &Tokens,
    platform: &Platform,
) -> Response {
    Json(wire::Answer {
        id,
        object: "chat.completion",
        created: chrono::Utc::now().timestamp(),
        model: &model.id,
        choices: [wire::AnswerChoice {
            index: 0,
            message: &answer.message,
            finish_reason: &answer.finish.reason,
        }],
        usage: wire::Usage::new(tokens),
        platform,
    })
    .into_response()
}
