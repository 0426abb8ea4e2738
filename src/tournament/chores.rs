//! Work that whoever runs a tournament hands to its game threads, done between games: a
//! run's `-j` threads then do all of its work, so a run at `-j 1` is one core's work and
//! `-j 2` twice the work at once, with no thread beside the games taking a core of its own.

use std::collections::VecDeque;
use std::sync::Mutex;

/// One piece of work.
pub(crate) type Chore = Box<dyn FnOnce() + Send>;

/// Chores waiting for a game thread, first come first done.
#[derive(Default)]
pub struct Chores {
    waiting: Mutex<VecDeque<Chore>>,
}

impl Chores {
    /// Hands `chore` to the next game thread between games (or to whoever calls
    /// [`Chores::do_waiting`]).
    pub fn add(&self, chore: Chore) {
        self.queue().push_back(chore);
    }

    /// Does every chore waiting, one at a time, on the calling thread.
    pub fn do_waiting(&self) {
        loop {
            // The lock is let go before the chore is done (a guard in the `while let`
            // itself would be held through it): another thread may take the next, and a
            // chore may add one.
            let next = self.queue().pop_front();
            match next {
                Some(chore) => chore(),
                None => break,
            }
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Chore>> {
        // A chore panicking does so outside the lock: the queue itself stays whole.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for Chores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chores({} waiting)", self.queue().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Chores are done in the order they came, each once, and a chore may add another.
    #[test]
    fn chores_are_done_in_order_once_each() {
        let chores = Arc::new(Chores::default());
        let done = Arc::new(Mutex::new(Vec::new()));
        for i in 0..3 {
            let (done, again) = (done.clone(), chores.clone());
            chores.add(Box::new(move || {
                done.lock().unwrap().push(i);
                if i == 0 {
                    let done = done.clone();
                    again.add(Box::new(move || done.lock().unwrap().push(10)));
                }
            }));
        }
        chores.do_waiting();
        assert_eq!(*done.lock().unwrap(), [0, 1, 2, 10]);
        chores.do_waiting();
        assert_eq!(done.lock().unwrap().len(), 4);
    }

    /// Two threads doing the same chores do each exactly once.
    #[test]
    fn two_threads_share_the_chores() {
        let chores = Arc::new(Chores::default());
        let count = Arc::new(AtomicUsize::new(0));
        for _ in 0..1000 {
            let count = count.clone();
            chores.add(Box::new(move || {
                count.fetch_add(1, Ordering::SeqCst);
            }));
        }
        std::thread::scope(|s| {
            s.spawn(|| chores.do_waiting());
            s.spawn(|| chores.do_waiting());
        });
        assert_eq!(count.load(Ordering::SeqCst), 1000);
    }
}
