//! SSE answers: chunks in order, then one chunk with an empty `delta`, `finish_reason` and
//! `platform`, a `usage` chunk when asked for, then `data: [DONE]`. An upstream failure after
//! the first chunk ends the stream with an error event and `[DONE]`, never a silent cut. When
//! the client goes away, the upstream is dropped at once and only what was produced is billed.

use std::convert::Infallible;

use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::GatewayError;
use super::provider::{self, Item, ItemStream};
use super::request::Checked;
use super::routing::Route;
use super::{Accounting, Gateway, usage, with_fallbacks};
use crate::models::Model;

/// Opens the first candidate that answers, then streams it to the client.
pub async fn respond(
    gateway: &Gateway,
    route: Route<'_>,
    checked: &Checked,
    id: String,
    estimated_prompt: u64,
    accounting: impl Fn(Model, String) -> Accounting,
) -> Response {
    let mut failures = Vec::new();
    for (model, cap) in route.candidates {
        match provider::stream(gateway, model, cap, &checked.request).await {
            Ok(upstream) => {
                let reason = with_fallbacks(&route.reason, &failures, model);
                let run = Run {
                    id,
                    created: chrono::Utc::now().timestamp(),
                    include_usage: checked.include_usage,
                    estimated_prompt,
                    accounting: accounting(model.clone(), reason),
                };
                let (tx, rx) = mpsc::channel::<Event>(32);
                tokio::spawn(run.forward(upstream, tx));
                let events = futures::stream::unfold(rx, |mut rx| async move {
                    rx.recv()
                        .await
                        .map(|event| (Ok::<_, Infallible>(event), rx))
                });
                return Sse::new(events).into_response();
            }
            Err(err) => {
                tracing::warn!(model = %model.id, error = %err, "upstream failed before answering; trying the next candidate");
                failures.push(format!("{} ({err})", model.id));
            }
        }
    }
    GatewayError::upstream(format!(
        "every candidate model failed: {}",
        failures.join("; ")
    ))
    .into_response()
}

struct Run {
    id: String,
    created: i64,
    include_usage: bool,
    estimated_prompt: u64,
    accounting: Accounting,
}

impl Run {
    fn chunk(&self, choices: Value) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.accounting.model.id,
            "choices": choices,
        })
    }

    fn delta(&self, delta: Value) -> Event {
        data(&self.chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])))
    }

    /// Copies the upstream to the client; settles the bill however it ends.
    async fn forward(self, mut upstream: ItemStream, tx: mpsc::Sender<Event>) {
        let mut pieces = 0u64;
        let mut finish = None;
        let mut reported = None;
        let mut failure = None;
        let mut gone = tx
            .send(self.delta(json!({"role": "assistant", "content": ""})))
            .await
            .is_err();
        while !gone {
            let item = tokio::select! {
                item = upstream.next() => item,
                _ = tx.closed() => { gone = true; break; }
            };
            match item {
                None if finish.is_none() => {
                    failure = Some("the upstream closed the stream before finishing".to_string());
                    break;
                }
                None => break,
                Some(Ok(Item::Delta(delta))) => {
                    pieces += 1;
                    gone = tx.send(self.delta(delta)).await.is_err();
                }
                Some(Ok(Item::Finish(reason))) => finish = Some(reason),
                Some(Ok(Item::Usage { prompt, completion })) => {
                    reported = Some((prompt, completion))
                }
                Some(Err(err)) => {
                    failure = Some(err);
                    break;
                }
            }
        }
        // Stop the upstream's work now: a simulated answer stops, an HTTP upstream is hung up on.
        drop(upstream);

        let complete = !gone && failure.is_none();
        let prompt = reported
            .and_then(|(p, _)| p)
            .unwrap_or(self.estimated_prompt);
        let completion = match reported {
            Some((_, completion)) if complete => completion,
            _ => pieces,
        };
        let platform = self.accounting.settle(prompt, completion);
        if gone {
            return;
        }
        if let Some(err) = failure {
            let error = GatewayError::upstream(format!("the upstream failed mid-stream: {err}"));
            let _ = tx.send(data(&error.body())).await;
            let _ = tx.send(Event::default().data("[DONE]")).await;
            return;
        }
        let mut last = self.chunk(json!([{
            "index": 0,
            "delta": {},
            "finish_reason": finish.unwrap_or_else(|| "stop".into()),
        }]));
        last["platform"] = json!(platform);
        let _ = tx.send(data(&last)).await;
        if self.include_usage {
            let mut usage_chunk = self.chunk(json!([]));
            usage_chunk["usage"] = usage(prompt, completion);
            let _ = tx.send(data(&usage_chunk)).await;
        }
        let _ = tx.send(Event::default().data("[DONE]")).await;
    }
}

fn data(value: &Value) -> Event {
    Event::default().data(value.to_string())
}
