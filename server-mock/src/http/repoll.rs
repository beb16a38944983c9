//! [`Repoll`]: polls a future again at once when it wakes itself while being polled.
//!
//! A connection task wakes itself in the middle of its own poll in ordinary work: hyper's
//! request body wakes the connection that sent it whenever the handler takes a chunk, even once
//! the body is complete and its sender gone. Tokio answers such a wake as a yield: the task goes
//! to the back of the run queue and an idle worker is roused to steal it. On our two cores that
//! cost a futex wake-up and often a move to the other core for nearly every request, about
//! 0.04 ms of p50 at 2,000 req/s through the gateway (`bench/gateway.sh`).
//!
//! Wrapped in `Repoll`, the future sees a waker of its own. A wake that arrives while the future
//! is being polled only marks it, and the future is polled again before `poll` returns, a few
//! times at most, after which the wake goes to the runtime so other tasks get their turn. A wake
//! at any other time goes straight to the task's waker. No wake is lost either way.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::task::AtomicWaker;

/// Polls in a row at most, before a self-wake is handed to the runtime.
const REPOLLS: usize = 4;
/// `Signal::state` bits: the future is being polled; it was woken.
const POLLING: u8 = 1;
const WOKEN: u8 = 2;

/// A future that is polled again at once when it wakes itself during a poll.
pub struct Repoll<F> {
    inner: Pin<Box<F>>,
    signal: Arc<Signal>,
    waker: Waker,
}

/// What the inner future's waker reaches.
struct Signal {
    state: AtomicU8,
    /// The waker of the task `Repoll` runs in, as of its latest poll.
    task: AtomicWaker,
}

impl<F: Future> Repoll<F> {
    /// Wraps `inner`.
    pub fn new(inner: F) -> Self {
        let signal = Arc::new(Signal {
            state: AtomicU8::new(0),
            task: AtomicWaker::new(),
        });
        Repoll {
            inner: Box::pin(inner),
            waker: Waker::from(signal.clone()),
            signal,
        }
    }
}

impl<F: Future> Future for Repoll<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        this.signal.task.register(cx.waker());
        let mut own = Context::from_waker(&this.waker);
        for _ in 0..REPOLLS {
            // Any earlier wake is answered by this poll.
            this.signal.state.store(POLLING, Ordering::SeqCst);
            if let Poll::Ready(output) = this.inner.as_mut().poll(&mut own) {
                this.signal.state.store(0, Ordering::SeqCst);
                return Poll::Ready(output);
            }
            // Not woken meanwhile: done until a wake comes from outside.
            let idle =
                this.signal
                    .state
                    .compare_exchange(POLLING, 0, Ordering::SeqCst, Ordering::SeqCst);
            if idle.is_ok() {
                return Poll::Pending;
            }
        }
        this.signal.state.store(0, Ordering::SeqCst);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // While the future is being polled, the mark is enough: the poll loop sees it.
        if self.state.fetch_or(WOKEN, Ordering::SeqCst) & POLLING == 0 {
            self.task.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Wakes itself during each of its first `self_wakes` polls, then is ready.
    struct SelfWaking {
        polls: Arc<AtomicUsize>,
        self_wakes: usize,
    }

    impl Future for SelfWaking {
        type Output = usize;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            let polls = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
            if polls > self.self_wakes {
                return Poll::Ready(polls);
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// Counts the wakes the task receives.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn task() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn a_self_wake_is_answered_within_the_same_poll() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut future = Repoll::new(SelfWaking {
            polls: polls.clone(),
            self_wakes: 2,
        });
        let (count, waker) = task();
        let ready = Pin::new(&mut future).poll(&mut Context::from_waker(&waker));
        assert_eq!(ready, Poll::Ready(3));
        assert_eq!(count.0.load(Ordering::SeqCst), 0, "the task was not woken");
    }

    #[test]
    fn a_future_that_keeps_waking_itself_yields_to_the_runtime() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut future = Repoll::new(SelfWaking {
            polls: polls.clone(),
            self_wakes: usize::MAX,
        });
        let (count, waker) = task();
        let first = Pin::new(&mut future).poll(&mut Context::from_waker(&waker));
        assert_eq!(first, Poll::Pending);
        assert_eq!(polls.load(Ordering::SeqCst), REPOLLS);
        assert_eq!(
            count.0.load(Ordering::SeqCst),
            1,
            "the wake went to the task"
        );
    }

    #[test]
    fn a_wake_from_outside_reaches_the_task() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut future = Repoll::new(rx);
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
        tx.send(7).ok();
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "the send woke the task");
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(Ok(7)));
    }
}
