//! The log's durable end, as replicas may read it: the end of the last
//! transaction that is both in the log (written, and synced when
//! `sync_binlog` syncs its group) and committed durably in the engine
//! (its redo flushed as `innodb_flush_log_at_trx_commit` asks). A dump
//! thread (`dump.rs`) never sends a transaction past it, so a replica
//! never holds a transaction that a crash of this server followed by the
//! log's cut back to the engine (`reconcile.rs`) would remove.
//!
//! The SQL layer reports each commit once its engine commit is durable
//! ([`crate::BinLog::mark_durable`]). Engine commits run in log order
//! (`order.rs`), so their redo records do too: when one transaction's
//! commit is durable, so is every transaction before it in the log, and
//! the durable end is simply the highest position reported.
//!
//! Cost on the commit path: one `fetch_max` and one load; the mutex and
//! condition variable are touched only when a dump thread waits.
//!
//! Invariants:
//! 1. `end` only grows; it packs (file number, offset) so that the order
//!    of the packed values is the log's order.
//! 2. A waiter registers (`waiting`) and re-reads `end` under `lock`
//!    before it sleeps, and a reporter that sees a waiter notifies under
//!    `lock`: a report is never missed (both sides use SeqCst).
//! 3. A wake-up without a new end (a rotation written, the log's close)
//!    counts in `wakes` before it notifies; a waiter passes the count it
//!    read before it looked at the log, and does not sleep when the count
//!    moved since: a wake-up between its look and its wait is not missed
//!    either (a FLUSH BINARY LOGS' ROTATE would otherwise wait out the
//!    dump's longest sleep).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// Bits of the offset in a packed position (1 TiB files).
const OFFSET_BITS: u32 = 40;

/// Packs (file number, offset): invariant 1.
pub fn pack(file: u32, offset: u64) -> u64 {
    (u64::from(file) << OFFSET_BITS) | (offset & ((1 << OFFSET_BITS) - 1))
}

/// The file number and offset of a packed position.
pub fn unpack(p: u64) -> (u32, u64) {
    ((p >> OFFSET_BITS) as u32, p & ((1 << OFFSET_BITS) - 1))
}

#[derive(Default)]
pub(crate) struct Follow {
    end: AtomicU64,
    /// Wake-ups so far (invariant 3).
    wakes: AtomicU64,
    waiting: AtomicUsize,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Follow {
    /// Raises the durable end to `p` (packed) and wakes waiting dump
    /// threads, if any.
    pub(crate) fn report(&self, p: u64) {
        let old = self.end.fetch_max(p, Ordering::SeqCst);
        if old < p && self.waiting.load(Ordering::SeqCst) > 0 {
            let _g = self.lock.lock();
            self.cv.notify_all();
        }
    }

    /// Wakes every waiting dump thread (a rotation, the log's close).
    pub(crate) fn wake(&self) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) > 0 {
            let _g = self.lock.lock();
            self.cv.notify_all();
        }
    }

    pub(crate) fn end(&self) -> u64 {
        self.end.load(Ordering::SeqCst)
    }

    /// The wake-ups so far, for [`Follow::wait_past`] (invariant 3).
    pub(crate) fn wakes(&self) -> u64 {
        self.wakes.load(Ordering::SeqCst)
    }

    /// Waits until the durable end passes `seen`, a [`Follow::wake`]
    /// after the `wakes` count, or `timeout`. Returns the durable end.
    pub(crate) fn wait_past(&self, seen: u64, wakes: u64, timeout: Duration) -> u64 {
        let mut g = self.lock.lock();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let now = self.end.load(Ordering::SeqCst);
        if now <= seen && self.wakes.load(Ordering::SeqCst) == wakes {
            let _ = self.cv.wait_for(&mut g, timeout);
        }
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        self.end.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn packed_positions_order_as_the_log() {
        assert!(pack(1, 1 << 30) < pack(2, 4));
        assert!(pack(2, 126) < pack(2, 127));
        assert_eq!(unpack(pack(7, 12345)), (7, 12345));
    }

    #[test]
    fn a_report_wakes_a_waiter_at_once() {
        let f = Arc::new(Follow::default());
        f.report(pack(1, 100));
        let g = f.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            g.report(pack(1, 200));
        });
        let start = Instant::now();
        let mut end = f.end();
        while end <= pack(1, 100) {
            end = f.wait_past(pack(1, 100), f.wakes(), Duration::from_secs(20));
        }
        assert_eq!(end, pack(1, 200));
        assert!(start.elapsed() < Duration::from_secs(10));
        t.join().unwrap();
        // The end never goes back.
        f.report(pack(1, 150));
        assert_eq!(f.end(), pack(1, 200));
    }

    #[test]
    fn a_wake_between_the_look_and_the_wait_is_not_missed() {
        let f = Follow::default();
        let (end, wakes) = (f.end(), f.wakes());
        // A rotation is written after the waiter looked at the log, before
        // it registered: no one waits yet, nothing is notified.
        f.wake();
        let start = Instant::now();
        f.wait_past(end, wakes, Duration::from_secs(20));
        assert!(start.elapsed() < Duration::from_secs(10), "slept through the wake-up");
    }
}
