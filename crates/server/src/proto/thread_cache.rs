//! The thread cache (MySQL's `thread_cache_size`): a connection thread that
//! finishes its connection waits for the next one instead of exiting, so a
//! new connection costs the accept thread a hand-off, not a thread creation
//! (a `clone`, a stack mapping, and the allocator's per-thread set-up on
//! first use). The accept thread hands a connection to an idle cached
//! thread when there is one and starts a thread otherwise.
//!
//! Invariants (under the one mutex):
//! 1. `idle` counts threads inside [`ThreadCache::wait_for_job`]; a job is
//!    queued only while `jobs.len() < idle`, so every queued job has a
//!    thread that will take it (or drop it, closing its connection, at
//!    shutdown).
//! 2. A thread enters the cache only while `idle < size`; one that finds
//!    `idle > size` (the size was lowered) and no job leaves.
//!
//! `Threads_created` counts threads started for connections,
//! `Threads_cached` the idle ones now.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::{Condvar, Mutex};

/// A connection to serve, with everything it owns.
pub type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct State {
    idle: usize,
    jobs: VecDeque<Job>,
    stopping: bool,
}

pub struct ThreadCache {
    /// `thread_cache_size`.
    size: AtomicUsize,
    /// Threads started for connections (`Threads_created`).
    created: AtomicU64,
    state: Mutex<State>,
    wake: Condvar,
}

impl ThreadCache {
    pub fn new(size: usize) -> Self {
        Self { size: AtomicUsize::new(size), created: AtomicU64::new(0), state: Mutex::default(), wake: Condvar::new() }
    }

    /// `SET GLOBAL thread_cache_size`: threads above the new size leave.
    pub fn set_size(&self, n: usize) {
        self.size.store(n, Ordering::Release);
        let _s = self.state.lock();
        self.wake.notify_all();
    }

    pub fn created(&self) -> u64 {
        self.created.load(Ordering::Acquire)
    }

    /// Idle threads now (`Threads_cached`).
    pub fn cached(&self) -> usize {
        let s = self.state.lock();
        s.idle.saturating_sub(s.jobs.len())
    }

    /// Gives `job` to an idle thread, or returns it when none is idle (the
    /// caller then starts a thread, counted by [`ThreadCache::started`]).
    pub fn hand_off(&self, job: Job) -> Result<(), Job> {
        let mut s = self.state.lock();
        if s.stopping || s.jobs.len() >= s.idle {
            return Err(job);
        }
        s.jobs.push_back(job);
        drop(s);
        self.wake.notify_one();
        Ok(())
    }

    /// A thread was started for a connection.
    pub fn started(&self) {
        self.created.fetch_add(1, Ordering::AcqRel);
    }

    /// Called by a connection thread whose connection ended: the next job,
    /// or `None` when the thread should exit (the cache is full, was
    /// shrunk, or the listener stops).
    pub fn wait_for_job(&self) -> Option<Job> {
        let mut s = self.state.lock();
        if s.stopping || s.idle >= self.size.load(Ordering::Acquire) {
            return None;
        }
        s.idle += 1;
        loop {
            if let Some(job) = s.jobs.pop_front() {
                s.idle -= 1;
                return Some(job);
            }
            if s.stopping || s.idle > self.size.load(Ordering::Acquire) {
                s.idle -= 1;
                return None;
            }
            self.wake.wait(&mut s);
        }
    }

    /// The listener stops: idle threads exit; connections handed off but
    /// not yet taken are closed.
    pub fn stop(&self) {
        let jobs: Vec<Job> = {
            let mut s = self.state.lock();
            s.stopping = true;
            s.jobs.drain(..).collect()
        };
        self.wake.notify_all();
        drop(jobs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::time::Duration;

    /// A connection thread as the listener runs one: its job, then cached.
    fn spawn(cache: &Arc<ThreadCache>, job: Job) -> std::thread::JoinHandle<()> {
        cache.started();
        let cache = Arc::clone(cache);
        std::thread::spawn(move || {
            job();
            while let Some(j) = cache.wait_for_job() {
                j();
            }
        })
    }

    fn wait_until(what: &str, f: impl Fn() -> bool) {
        for _ in 0..500 {
            if f() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("timed out waiting for {what}");
    }

    #[test]
    fn a_finished_thread_serves_the_next_connection_instead_of_a_new_thread() {
        let cache = Arc::new(ThreadCache::new(2));
        let (tx, rx) = mpsc::channel();
        let t1 = tx.clone();
        let h = spawn(&cache, Box::new(move || t1.send(std::thread::current().id()).unwrap()));
        let first = rx.recv().unwrap();
        wait_until("the thread to be cached", || cache.cached() == 1);
        let t2 = tx.clone();
        assert!(cache.hand_off(Box::new(move || t2.send(std::thread::current().id()).unwrap())).is_ok());
        assert_eq!(rx.recv().unwrap(), first, "the same thread served the second connection");
        assert_eq!(cache.created(), 1);
        // No idle thread while one job is queued for the only one.
        wait_until("the thread to be cached again", || cache.cached() == 1);
        cache.stop();
        h.join().unwrap();
        assert_eq!(cache.cached(), 0);
        assert!(cache.hand_off(Box::new(|| {})).is_err(), "nothing is handed off after stop");
    }

    #[test]
    fn the_cache_keeps_at_most_its_size_and_shrinks_when_lowered() {
        let cache = Arc::new(ThreadCache::new(2));
        let handles: Vec<_> = (0..4).map(|_| spawn(&cache, Box::new(|| {}))).collect();
        wait_until("two cached threads", || cache.cached() == 2);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(cache.cached(), 2, "the others exited");
        cache.set_size(0);
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(cache.cached(), 0);
        assert!(cache.hand_off(Box::new(|| {})).is_err(), "no idle thread: the caller starts one");
    }
}
