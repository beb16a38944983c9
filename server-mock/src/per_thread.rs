//! A value of each thread's own, for what every request adds to and a background task takes
//! now and then (the spans' batches, the request log's): each thread writes only its own,
//! under a lock no other request thread takes.
//!
//! One value shared by the request threads has both cores take its lock and write its lines in
//! turn, each write fetching them from the other core: on this project's two-core machine, 400
//! bytes appended to a shared buffer under a shared lock cost 25 to 180 ns (by the hour)
//! against 6 to 22 ns for a thread's own (`examples/shared_lines.rs`; BENCHMARKS.md, twelfth
//! measurement), a cost instruction counts do not show.

use std::any::Any;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

/// A value per thread that has used it, each made by `make` on the thread's first use.
pub struct PerThread<T> {
    all: Mutex<Vec<Arc<Mutex<T>>>>,
    /// Used by a thread whose thread-locals are gone (it is exiting).
    spare: Arc<Mutex<T>>,
    make: Box<dyn Fn() -> T + Send + Sync>,
}

type Erased = dyn Any + Send + Sync;

thread_local! {
    /// This thread's value of each [`PerThread`] it used, by the `PerThread` (a server has a
    /// few; a test process may start many: those gone are left out as a new one comes).
    static MINE: RefCell<Vec<(Weak<Erased>, Arc<Erased>)>> = const { RefCell::new(Vec::new()) };
}

impl<T: Send + 'static> PerThread<T> {
    /// No thread's value yet; each made by `make`.
    pub fn new(make: impl Fn() -> T + Send + Sync + 'static) -> Self {
        PerThread {
            all: Mutex::new(Vec::new()),
            spare: Arc::new(Mutex::new(make())),
            make: Box::new(make),
        }
    }

    /// Runs `change` on the calling thread's value, made now if it has none.
    pub fn with_mine<R>(self: &Arc<Self>, change: impl FnOnce(&mut T) -> R) -> R {
        let mine = MINE.try_with(|mine| self.find(&mut mine.borrow_mut())).ok();
        let mine = mine.as_ref().unwrap_or(&self.spare);
        change(&mut lock(mine))
    }

    /// This `PerThread`'s value among a thread's `mine`, made when there is none.
    fn find(self: &Arc<Self>, mine: &mut Vec<(Weak<Erased>, Arc<Erased>)>) -> Arc<Mutex<T>> {
        let me = Arc::as_ptr(self).cast::<()>();
        // A weak pointer keeps its allocation, so no other `PerThread` shares the address.
        let found = mine.iter().find(|(of, _)| of.as_ptr().cast::<()>() == me);
        if let Some(value) = found.and_then(|(_, value)| value.clone().downcast().ok()) {
            return value;
        }
        mine.retain(|(of, _)| of.strong_count() > 0);
        let value = Arc::new(Mutex::new((self.make)()));
        lock(&self.all).push(value.clone());
        let of: Weak<Erased> = Arc::downgrade(self) as Weak<Erased>;
        mine.push((of, value.clone() as Arc<Erased>));
        value
    }

    /// Runs `take` on every thread's value in turn (the order threads first used it), each
    /// locked only while `take` runs. The value of a thread that has exited is dropped after,
    /// so `take` should leave nothing in it that is wanted.
    pub fn each(&self, mut take: impl FnMut(&mut T)) {
        let mut all = lock(&self.all);
        for value in all.iter().chain(std::iter::once(&self.spare)) {
            take(&mut lock(value));
        }
        // Only this list holds the value of a thread that has exited (its thread-local went).
        all.retain(|value| Arc::strong_count(value) > 1);
    }
}

/// Locks `value` (one whose holder panicked holds what it held).
fn lock<T>(value: &Mutex<T>) -> MutexGuard<'_, T> {
    value.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_adds_to_its_own_and_each_takes_them_all_in_turn() {
        let counts = Arc::new(PerThread::new(Vec::<&str>::new));
        counts.with_mine(|mine| mine.push("a"));
        // Joined: the thread has exited, its thread-locals gone (a scoped thread's may not be
        // yet when its scope ends).
        let other = counts.clone();
        std::thread::spawn(move || other.with_mine(|mine| mine.push("x")))
            .join()
            .unwrap();
        counts.with_mine(|mine| mine.push("b"));
        let mut seen = Vec::new();
        counts.each(|value| seen.push(std::mem::take(value)));
        // This thread's, the exited thread's, the spare (unused).
        assert_eq!(seen, [vec!["a", "b"], vec!["x"], vec![]]);
        // The exited thread's value is forgotten; this thread's stays its own.
        counts.with_mine(|mine| mine.push("c"));
        let mut seen = Vec::new();
        counts.each(|value| seen.push(std::mem::take(value)));
        assert_eq!(seen, [vec!["c"], vec![]]);
    }

    #[test]
    fn two_of_one_type_on_one_thread_are_apart() {
        let one = Arc::new(PerThread::new(|| 0));
        let other = Arc::new(PerThread::new(|| 0));
        one.with_mine(|n| *n += 1);
        other.with_mine(|n| *n += 10);
        one.with_mine(|n| *n += 1);
        let (mut a, mut b) = (0, 0);
        one.each(|n| a += *n);
        other.each(|n| b += *n);
        assert_eq!((a, b), (2, 10));
    }
}
