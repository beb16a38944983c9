//! Each thread's batch being filled. A span is encoded straight onto the end of the batch of
//! the thread that ends it ([`PerThread`]): nothing the request threads write is shared between
//! them, and the span is written once, where it is sent from. The exporting thread takes a
//! thread's batch only when it waited too long or the batcher stops ([`Slots::collect`]).

use std::sync::Arc;

use crate::per_thread::PerThread;

/// Spans encoded one after another after room for the messages around them
/// ([`otlp::room`](super::otlp::room)), and how many.
pub(super) struct Batch {
    pub spans: Vec<u8>,
    pub count: usize,
}

impl Batch {
    /// Nothing yet: the room, then space for `bytes` of spans.
    pub fn new(room: usize, bytes: usize) -> Self {
        let mut spans = Vec::with_capacity(room + bytes);
        spans.resize(room, 0);
        Batch { spans, count: 0 }
    }

    /// Takes what it holds, leaving a new batch with as much space (a batch that was filled
    /// once will be again: one made smaller would be grown, its spans copied, on a request's
    /// path).
    pub fn take(&mut self, room: usize) -> Batch {
        let bytes = self.spans.capacity().saturating_sub(room);
        std::mem::replace(self, Batch::new(room, bytes))
    }
}

/// Every thread's batch of one batcher.
pub(super) struct Slots {
    threads: Arc<PerThread<Batch>>,
    room: usize,
}

impl Slots {
    /// Batches after `room` bytes, a thread's first with space for `first_bytes` of spans.
    pub fn new(room: usize, first_bytes: usize) -> Self {
        Slots {
            threads: Arc::new(PerThread::new(move || Batch::new(room, first_bytes))),
            room,
        }
    }

    /// Runs `fill` on the calling thread's batch.
    pub fn with_mine<R>(&self, fill: impl FnOnce(&mut Batch) -> R) -> R {
        self.threads.with_mine(fill)
    }

    /// Takes what every thread's batch holds, joined into as few batches of at most `most`
    /// spans as they fit in, each thread's spans in the order they ended.
    pub fn collect(&self, most: usize) -> Vec<Batch> {
        let room = self.room;
        let mut joined: Vec<Batch> = Vec::new();
        self.threads.each(|batch| {
            if batch.count == 0 {
                return;
            }
            match joined.last_mut() {
                Some(last) if last.count + batch.count <= most => {
                    last.spans.extend_from_slice(&batch.spans[room..]);
                    last.count += batch.count;
                    batch.spans.truncate(room);
                    batch.count = 0;
                }
                _ => joined.push(batch.take(room)),
            }
        });
        joined
    }
}
