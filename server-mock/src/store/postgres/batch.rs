//! One database round trip for many callers. Callers queue; one loop takes everyone queued,
//! makes one round trip for them all, answers each, and starts again with whoever queued
//! meanwhile. Under load a round trip serves many requests; idle, a caller waits for one round
//! trip that started after it queued, never for an older one.

use std::sync::Mutex;

use tokio::sync::{Notify, oneshot};

use crate::store::{StoreError, StoreResult};

/// A caller's item and where its answer goes.
pub type Waiter<I, O> = (I, oneshot::Sender<StoreResult<O>>);

/// The queue between callers and their loop.
pub struct Batcher<I, O> {
    queue: Mutex<Vec<Waiter<I, O>>>,
    wake: Notify,
}

impl<I, O> Default for Batcher<I, O> {
    fn default() -> Self {
        Batcher {
            queue: Mutex::new(Vec::new()),
            wake: Notify::new(),
        }
    }
}

impl<I, O> Batcher<I, O> {
    /// Queues `item`; resolves with the answer of the round trip that took it.
    pub async fn call(&self, item: I) -> StoreResult<O> {
        let (tx, rx) = oneshot::channel();
        self.lock().push((item, tx));
        self.wake.notify_one();
        rx.await
            .unwrap_or_else(|_| Err(StoreError::Unavailable("the store is closing".into())))
    }

    /// Everything queued, once something is.
    pub async fn next(&self) -> Vec<Waiter<I, O>> {
        loop {
            let batch = std::mem::take(&mut *self.lock());
            if !batch.is_empty() {
                return batch;
            }
            // A caller that queues after the take above leaves a permit: no wake-up is lost.
            self.wake.notified().await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiter<I, O>>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}
