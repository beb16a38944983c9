//! One database round trip for many callers. Callers queue; one loop takes everyone queued,
//! makes one round trip for them all, answers each, and starts again with whoever queued
//! meanwhile. Under load a round trip serves many requests; idle, a caller waits for one round
//! trip that started after it queued, never for an older one.
//!
//! A caller waits for its item to be taken at most its patience (the acquire timeout, as for a
//! pool connection): one that is still queued then takes its item back, so it is never sent and
//! never counted, and is answered busy. Once taken, its round trip's answer decides.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, oneshot};

use crate::store::{StoreError, StoreResult};

/// A caller's item and where its answer goes.
pub type Waiter<I, O> = (I, oneshot::Sender<StoreResult<O>>);

/// The queue between callers and their loop.
pub struct Batcher<I, O> {
    /// Each waiter with the number that lets its caller find it again.
    queue: Mutex<Vec<(u64, Waiter<I, O>)>>,
    wake: Notify,
    next: AtomicU64,
}

impl<I, O> Default for Batcher<I, O> {
    fn default() -> Self {
        Batcher {
            queue: Mutex::new(Vec::new()),
            wake: Notify::new(),
            next: AtomicU64::new(0),
        }
    }
}

impl<I, O> Batcher<I, O> {
    /// Queues `item`; resolves with the answer of the round trip that took it, or busy when no
    /// round trip took it within `patience` (the item is then never sent).
    pub async fn call(&self, item: I, patience: Duration) -> StoreResult<O> {
        let (tx, mut rx) = oneshot::channel();
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().push((number, (item, tx)));
        self.wake.notify_one();
        let closing = |_| Err(StoreError::Unavailable("the store is closing".into()));
        match tokio::time::timeout(patience, &mut rx).await {
            Ok(answer) => answer.unwrap_or_else(closing),
            Err(_) => {
                // Under the lock the loop takes its batch with: either still queued (taken back
                // here) or already taken (and then its round trip answers).
                let taken_back = {
                    let mut queue = self.lock();
                    let at = queue.iter().position(|(queued, _)| *queued == number);
                    at.map(|at| queue.remove(at)).is_some()
                };
                if taken_back {
                    return Err(StoreError::Busy(format!(
                        "this request's count waited {} s for PostgreSQL, still busy with the \
                         round trip before it (--database-acquire-timeout)",
                        patience.as_secs_f32()
                    )));
                }
                rx.await.unwrap_or_else(closing)
            }
        }
    }

    /// Everything queued, once something is.
    pub async fn next(&self) -> Vec<Waiter<I, O>> {
        loop {
            let batch = std::mem::take(&mut *self.lock());
            if !batch.is_empty() {
                return batch.into_iter().map(|(_, waiter)| waiter).collect();
            }
            // A caller that queues after the take above leaves a permit: no wake-up is lost.
            self.wake.notified().await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Waiter<I, O>)>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}
