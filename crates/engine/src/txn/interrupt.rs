//! Interrupting a statement from another thread: `KILL QUERY`, `KILL
//! CONNECTION` and `max_execution_time`.
//!
//! One [`Interrupt`] belongs to a connection and lives as long as it; the
//! SQL layer resets it at each statement's start, gives it the statement's
//! deadline (if any), and registers it on the statement's transaction, so
//! that row-lock waits ([`super::lock::LockSys::lock_interruptible`]) end
//! early. The statement itself polls [`Interrupt::check`] in its row loop
//! and sleeps through [`Interrupt::sleep`] (`SLEEP()`).
//!
//! Invariants:
//! 1. `raised` only grows between resets (`fetch_max`): a connection kill
//!    is never downgraded to a query kill, and [`Interrupt::reset`] keeps a
//!    connection kill (the connection is going away).
//! 2. A waiter that checked [`Interrupt::check`] under its own mutex and
//!    then sleeps on its condition variable is woken by a later
//!    [`Interrupt::raise`]: `raise` stores the reason first, then takes
//!    that mutex (the sleep mutex here, or the lock wait's slot through the
//!    registered waker) before notifying, so no wake-up is lost.
//! 3. A deadline is not "raised": [`Interrupt::check`] reports
//!    [`InterruptReason::Timeout`] once it has passed, and waits wake up at
//!    it by themselves (no timer thread).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// Why a statement stops, weakest first (invariant 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum InterruptReason {
    /// The statement's deadline (`max_execution_time`) passed: MySQL 3024.
    Timeout = 1,
    /// `KILL QUERY`: MySQL 1317.
    KillQuery = 2,
    /// `KILL [CONNECTION]`: the statement stops and the connection closes.
    KillConnection = 3,
}

impl InterruptReason {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(Self::Timeout),
            2 => Some(Self::KillQuery),
            3 => Some(Self::KillConnection),
            _ => None,
        }
    }
}

/// Wakes one waiter (a row-lock wait registers one while it sleeps).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A connection's interrupt flag, deadline and wake-ups.
pub struct Interrupt {
    /// 0, or the strongest [`InterruptReason`] raised since the last reset.
    raised: AtomicU8,
    /// Origin of `deadline_us`.
    base: Instant,
    /// The statement's deadline in µs after `base`, plus one; 0: none.
    deadline_us: AtomicU64,
    /// [`Interrupt::sleep`] waits on these (invariant 2).
    sleep_lock: Mutex<()>,
    sleep_cond: Condvar,
    /// The wait in progress, if any (a row-lock wait).
    waker: Mutex<Option<Waker>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interrupt").field("raised", &self.raised.load(Ordering::Relaxed)).finish_non_exhaustive()
    }
}

impl Interrupt {
    pub fn new() -> Self {
        Self {
            raised: AtomicU8::new(0),
            base: Instant::now(),
            deadline_us: AtomicU64::new(0),
            sleep_lock: Mutex::new(()),
            sleep_cond: Condvar::new(),
            waker: Mutex::new(None),
        }
    }

    /// Stops the running statement (from any thread) and wakes it if it
    /// waits.
    pub fn raise(&self, reason: InterruptReason) {
        self.raised.fetch_max(reason as u8, Ordering::SeqCst);
        {
            let _g = self.sleep_lock.lock();
            self.sleep_cond.notify_all();
        }
        let waker = self.waker.lock().clone();
        if let Some(w) = waker {
            w();
        }
    }

    /// A new statement starts: forget a query kill and the old deadline
    /// (a connection kill stays, invariant 1).
    pub fn reset(&self) {
        let _ = self.raised.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| {
            (v != InterruptReason::KillConnection as u8).then_some(0)
        });
        self.deadline_us.store(0, Ordering::Release);
    }

    /// Sets (or clears) the running statement's deadline.
    pub fn set_deadline(&self, at: Option<Instant>) {
        let us = at.map_or(0, |t| t.saturating_duration_since(self.base).as_micros() as u64 + 1);
        self.deadline_us.store(us, Ordering::Release);
    }

    /// The running statement's deadline.
    pub fn deadline(&self) -> Option<Instant> {
        match self.deadline_us.load(Ordering::Acquire) {
            0 => None,
            us => Some(self.base + Duration::from_micros(us - 1)),
        }
    }

    /// What was raised, without looking at the deadline.
    pub fn raised(&self) -> Option<InterruptReason> {
        InterruptReason::from_u8(self.raised.load(Ordering::SeqCst))
    }

    /// Why the statement must stop, if it must: what was raised, else
    /// [`InterruptReason::Timeout`] once the deadline has passed.
    pub fn check(&self) -> Option<InterruptReason> {
        if let Some(r) = self.raised() {
            return Some(r);
        }
        match self.deadline() {
            Some(d) if Instant::now() >= d => Some(InterruptReason::Timeout),
            _ => None,
        }
    }

    /// Whether the connection was killed (it should close).
    pub fn connection_killed(&self) -> bool {
        self.raised() == Some(InterruptReason::KillConnection)
    }

    /// Sleeps for `d` unless interrupted (or the deadline comes first);
    /// returns the reason it was cut short.
    pub fn sleep(&self, d: Duration) -> Option<InterruptReason> {
        let end = Instant::now() + d;
        let mut g = self.sleep_lock.lock();
        loop {
            if let Some(r) = self.check() {
                return Some(r);
            }
            if Instant::now() >= end {
                return None;
            }
            let wake_at = self.deadline().map_or(end, |dl| dl.min(end));
            self.sleep_cond.wait_until(&mut g, wake_at);
        }
    }

    /// Registers (or, with `None`, removes) the waker of a wait about to
    /// sleep. REQUIRES: the waker takes the mutex the waiter checks
    /// [`Interrupt::check`] under (invariant 2).
    pub fn set_waker(&self, w: Option<Waker>) {
        *self.waker.lock() = w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raise_wakes_a_sleeper_at_once() {
        let i = Arc::new(Interrupt::new());
        let j = i.clone();
        let t = std::thread::spawn(move || j.sleep(Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(50));
        i.raise(InterruptReason::KillQuery);
        assert_eq!(t.join().unwrap(), Some(InterruptReason::KillQuery));
    }

    #[test]
    fn a_deadline_cuts_a_sleep_short_as_a_timeout() {
        let i = Interrupt::new();
        i.set_deadline(Some(Instant::now() + Duration::from_millis(30)));
        let started = Instant::now();
        assert_eq!(i.sleep(Duration::from_secs(30)), Some(InterruptReason::Timeout));
        assert!(started.elapsed() < Duration::from_secs(10));
        i.reset();
        assert_eq!(i.check(), None, "a reset clears the deadline");
    }

    #[test]
    fn reset_forgets_a_query_kill_but_keeps_a_connection_kill() {
        let i = Interrupt::new();
        i.raise(InterruptReason::KillQuery);
        i.reset();
        assert_eq!(i.check(), None);
        i.raise(InterruptReason::KillConnection);
        i.raise(InterruptReason::KillQuery);
        i.reset();
        assert_eq!(i.check(), Some(InterruptReason::KillConnection));
        assert!(i.connection_killed());
    }

    #[test]
    fn an_uninterrupted_sleep_lasts_its_time() {
        let i = Interrupt::new();
        let started = Instant::now();
        assert_eq!(i.sleep(Duration::from_millis(20)), None);
        assert!(started.elapsed() >= Duration::from_millis(20));
    }
}
