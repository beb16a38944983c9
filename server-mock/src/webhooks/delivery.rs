//! The delivery worker: claims due deliveries from the durable outbox, signs the exact body
//! bytes, posts them, and records each attempt. Any 2xx is delivered; 410 disables the
//! endpoint; anything else (other statuses, timeouts, connection errors) is retried on the
//! schedule with jitter. Each attempt runs on its own task, and one endpoint never has more
//! than [`PER_ENDPOINT`] attempts in flight, so a slow endpoint holds up no other.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use super::Hub;
use crate::store::{self, Attempt, Delivery, DeliveryOutcome, Store, StoreError};
use crate::telemetry::Backoff;

/// How long a claimed delivery stays leased: if the server dies mid-attempt, it is retried after.
const LEASE: Duration = Duration::from_secs(120);
/// Attempts in flight at once.
const IN_FLIGHT: usize = 64;
/// Attempts in flight at once to one endpoint (the outbox never leases it more).
pub const PER_ENDPOINT: usize = 4;
/// How often the outbox is read when nothing wakes the worker sooner.
const IDLE: Duration = Duration::from_millis(500);
/// Time limit of one attempt.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs until aborted.
pub async fn run(hub: Arc<Hub>, store: Arc<dyn Store>) {
    if let Err(err) = store.release_leases().await {
        err.log("could not resume interrupted webhook deliveries");
    }
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut backoff = Backoff::new(IDLE);
    loop {
        let now = store::now();
        let lease_until = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
        let free = slots.available_permits().max(1);
        let claimed = store.claim_due(now, lease_until, free, PER_ENDPOINT).await;
        let pause = backoff.after(claimed.as_ref().is_err_and(StoreError::is_unavailable));
        let due = claimed.unwrap_or_else(|err| {
            err.log("could not read the webhook outbox");
            Vec::new()
        });
        if due.is_empty() {
            tokio::select! {
                _ = hub.wake.notified() => {}
                _ = tokio::time::sleep(pause) => {}
            }
            continue;
        }
        for delivery in due {
            let Ok(permit) = slots.clone().acquire_owned().await else {
                return;
            };
            let (hub, store) = (hub.clone(), store.clone());
            tokio::spawn(async move {
                attempt(&hub, store.as_ref(), delivery).await;
                drop(permit);
                // The endpoint has room for another attempt now: a backlog drains as fast as its
                // receiver answers, not at the worker's idle tick.
                hub.wake.notify_one();
            });
        }
    }
}

async fn attempt(hub: &Hub, store: &dyn Store, delivery: Delivery) {
    let number = delivery.attempts + 1;
    let started = Instant::now();
    let sent_at = store::now();
    let result = match hub.sealer.open(&delivery.secret_sealed) {
        None => {
            Err("the endpoint's secret cannot be opened with this data directory's key".to_string())
        }
        Some(secret) => {
            let signature = tokctl_signature(&secret, delivery.body.as_bytes());
            hub.http
                .post(&delivery.url)
                .timeout(ATTEMPT_TIMEOUT)
                .header("content-type", "application/json")
                .header(
                    "user-agent",
                    concat!("tokctl-webhooks/", env!("CARGO_PKG_VERSION")),
                )
                .header("x-service-signature", signature)
                .header("x-service-event-id", &delivery.event_id)
                .header("x-service-timestamp", sent_at.timestamp().to_string())
                .body(delivery.body.clone())
                .send()
                .await
                .map(|response| response.status().as_u16())
                .map_err(|err| crate::outbound::request(&err))
        }
    };
    let outcome = match result {
        Ok(status) if (200..300).contains(&status) => DeliveryOutcome::Delivered,
        Ok(410) => DeliveryOutcome::EndpointGone,
        _ => match hub.schedule.get(delivery.attempts as usize) {
            Some(wait) => DeliveryOutcome::Retry(
                sent_at + chrono::Duration::from_std(jitter(*wait)).unwrap_or_default(),
            ),
            None => DeliveryOutcome::Failed,
        },
    };
    let counted = match outcome {
        DeliveryOutcome::Delivered => "delivered",
        DeliveryOutcome::EndpointGone => "endpoint_gone",
        DeliveryOutcome::Retry(_) => "retry",
        DeliveryOutcome::Failed => "failed",
    };
    let labels = [("outcome", counted)];
    hub.metrics
        .counter(crate::telemetry::registry::DELIVERIES, &labels)
        .increment(1);
    let record = Attempt {
        endpoint_id: delivery.endpoint_id.clone(),
        event_id: delivery.event_id.clone(),
        event_type: delivery.event_type.clone(),
        attempt: number,
        status_code: result.as_ref().ok().copied(),
        error: result.err(),
        duration_ms: started.elapsed().as_millis() as u64,
        next_retry_at: match outcome {
            DeliveryOutcome::Retry(at) => Some(at),
            _ => None,
        },
        created_at: sent_at,
    };
    if let Err(err) = store.finish_attempt(delivery.id, record, outcome).await {
        // Its lease runs out and it is attempted again.
        err.log("could not record a webhook attempt");
    }
}

/// `sha256=<lowercase hex HMAC-SHA256 of the body>`, keyed with the endpoint secret.
pub fn tokctl_signature(secret: &[u8], body: &[u8]) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = match <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => return String::new(),
    };
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Between 80 % and 120 % of `wait`, at random.
fn jitter(wait: Duration) -> Duration {
    let mut byte = [0u8; 1];
    if getrandom::fill(&mut byte).is_err() {
        byte[0] = 128;
    }
    spread(wait, byte[0])
}

/// `wait` scaled by 0.8 + 0.4 × `byte` / 255.
fn spread(wait: Duration, byte: u8) -> Duration {
    wait.mul_f64(0.8 + 0.4 * f64::from(byte) / 255.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_80_and_120_percent() {
        let wait = Duration::from_secs(10);
        assert_eq!(spread(wait, 0), Duration::from_secs(8));
        assert_eq!(spread(wait, 255), Duration::from_secs(12));
        let (low, high) = (Duration::from_secs(8), Duration::from_secs(12));
        let drawn: Vec<Duration> = (0..1000).map(|_| jitter(wait)).collect();
        for d in &drawn {
            assert!((low..=high).contains(d), "{d:?}");
        }
        assert!(
            drawn.iter().any(|d| *d != drawn[0]),
            "the waits vary, so retries of many deliveries spread out"
        );
    }
}
