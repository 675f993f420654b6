//! The hybrid latch: one versioned word for optimistic readers plus a
//! reader-writer lock for shared and exclusive holders (LeanStore's
//! `HybridLatch`, vmcache's page state word).
//!
//! ```text
//! version word: even = not exclusively held, odd = exclusively held.
//!
//!   optimistic read:  v = version (must be even) ... read ... validate(v)
//!   shared:           rw.lock_shared            (version unchanged)
//!   exclusive:        rw.lock_exclusive; version += 1 (odd)
//!                     ... modify ...
//!                     version += 1 (even, new); rw.unlock_exclusive
//! ```
//!
//! Invariants:
//! 1. The version changes only while `rw` is held exclusively, and every
//!    exclusive section leaves it larger than before: an optimistic reader
//!    whose `validate` succeeds saw no exclusive section overlap its reads.
//! 2. Optimistic readers and shared holders write nothing to the latch's
//!    cache line except through `rw` (shared holders do): hot inner nodes
//!    read optimistically write no shared cache line.
//! 3. `validate` never waits: a writer that holds a child exclusively and
//!    validates a parent another thread holds exclusively fails at once and
//!    backs off, so top-down latch order cannot deadlock.

use std::sync::atomic::{fence, AtomicU64, Ordering};

use parking_lot::lock_api::{RawRwLock as _, RawRwLockDowngrade as _};
use parking_lot::RawRwLock;

use crate::wait::{self, Instrument};

pub struct HybridLatch {
    version: AtomicU64,
    rw: RawRwLock,
}

impl Default for HybridLatch {
    fn default() -> Self {
        Self::new()
    }
}

/// How many times an optimistic reader re-reads a locked version word
/// before blocking behind the writer.
const SPIN_BEFORE_BLOCK: u32 = 64;

impl HybridLatch {
    pub const fn new() -> Self {
        Self { version: AtomicU64::new(0), rw: RawRwLock::INIT }
    }

    /// Starts an optimistic read: the current even version, or `None` while
    /// the latch is held exclusively.
    #[inline]
    pub fn try_optimistic(&self) -> Option<u64> {
        let v = self.version.load(Ordering::Acquire);
        (v & 1 == 0).then_some(v)
    }

    /// Starts an optimistic read, waiting (spinning briefly, then blocking
    /// behind the writer) while the latch is held exclusively.
    #[inline]
    pub fn optimistic(&self) -> u64 {
        if let Some(v) = self.try_optimistic() {
            return v;
        }
        self.optimistic_slow()
    }

    #[cold]
    fn optimistic_slow(&self) -> u64 {
        for _ in 0..SPIN_BEFORE_BLOCK {
            std::hint::spin_loop();
            if let Some(v) = self.try_optimistic() {
                return v;
            }
        }
        wait::time(Instrument::PageLatchOptimistic, || loop {
            self.rw.lock_shared();
            let v = self.version.load(Ordering::Acquire);
            // SAFETY: we hold the shared lock taken just above.
            unsafe { self.rw.unlock_shared() };
            if v & 1 == 0 {
                return v;
            }
        })
    }

    /// Whether nothing was written since `version` was read.
    #[inline]
    pub fn validate(&self, version: u64) -> bool {
        fence(Ordering::Acquire);
        self.version.load(Ordering::Relaxed) == version
    }

    #[inline]
    pub fn lock_shared(&self) {
        if self.rw.try_lock_shared() {
            wait::count(Instrument::PageLatchShared);
        } else {
            wait::time(Instrument::PageLatchShared, || self.rw.lock_shared());
        }
    }

    #[inline]
    pub fn try_lock_shared(&self) -> bool {
        self.rw.try_lock_shared()
    }

    /// # Safety
    /// The caller holds the latch in shared mode.
    #[inline]
    pub unsafe fn unlock_shared(&self) {
        // SAFETY: forwarded precondition.
        unsafe { self.rw.unlock_shared() }
    }

    #[inline]
    pub fn lock_exclusive(&self) {
        self.lock_exclusive_raw();
        self.begin_write();
    }

    /// Takes `rw` exclusively, recording the wait if there is one.
    #[inline]
    fn lock_exclusive_raw(&self) {
        if self.rw.try_lock_exclusive() {
            wait::count(Instrument::PageLatchExclusive);
        } else {
            wait::time(Instrument::PageLatchExclusive, || self.rw.lock_exclusive());
        }
    }

    #[inline]
    pub fn try_lock_exclusive(&self) -> bool {
        if self.rw.try_lock_exclusive() {
            self.begin_write();
            true
        } else {
            false
        }
    }

    /// Upgrades an optimistic read to exclusive, succeeding only if nothing
    /// was written since `version`. Blocks behind shared holders.
    pub fn upgrade_exclusive(&self, version: u64) -> bool {
        if self.version.load(Ordering::Relaxed) != version {
            return false;
        }
        self.lock_exclusive_raw();
        if self.version.load(Ordering::Relaxed) != version {
            // SAFETY: locked just above.
            unsafe { self.rw.unlock_exclusive() };
            return false;
        }
        self.begin_write();
        true
    }

    /// Upgrades an optimistic read to shared, succeeding only if nothing was
    /// written since `version`.
    pub fn upgrade_shared(&self, version: u64) -> bool {
        if self.version.load(Ordering::Relaxed) != version {
            return false;
        }
        self.lock_shared();
        if self.version.load(Ordering::Relaxed) != version {
            // SAFETY: locked just above.
            unsafe { self.rw.unlock_shared() };
            return false;
        }
        true
    }

    #[inline]
    fn begin_write(&self) {
        let v = self.version.load(Ordering::Relaxed);
        debug_assert!(v & 1 == 0, "invariant 1: version odd outside an exclusive section");
        self.version.store(v + 1, Ordering::Relaxed);
        fence(Ordering::Release);
    }

    /// # Safety
    /// The caller holds the latch exclusively.
    #[inline]
    pub unsafe fn unlock_exclusive(&self) {
        let v = self.version.load(Ordering::Relaxed);
        debug_assert!(v & 1 == 1);
        self.version.store(v + 1, Ordering::Release);
        // SAFETY: forwarded precondition.
        unsafe { self.rw.unlock_exclusive() }
    }

    /// Turns an exclusive hold into a shared one without letting another
    /// writer in between.
    ///
    /// # Safety
    /// The caller holds the latch exclusively.
    pub unsafe fn downgrade(&self) {
        let v = self.version.load(Ordering::Relaxed);
        debug_assert!(v & 1 == 1);
        self.version.store(v + 1, Ordering::Release);
        // SAFETY: forwarded precondition.
        unsafe { self.rw.downgrade() }
    }

    /// The current version (for tests and diagnostics).
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn is_locked_exclusive(&self) -> bool {
        self.version.load(Ordering::Relaxed) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn exclusive_section_invalidates_optimistic_readers() {
        let l = HybridLatch::new();
        let v = l.optimistic();
        assert!(l.validate(v));
        l.lock_shared();
        assert!(l.validate(v), "shared holders do not invalidate");
        unsafe { l.unlock_shared() };
        l.lock_exclusive();
        assert!(l.try_optimistic().is_none());
        assert!(!l.validate(v));
        unsafe { l.unlock_exclusive() };
        assert!(!l.validate(v));
        let v2 = l.optimistic();
        assert!(v2 > v);
    }

    #[test]
    fn upgrade_fails_after_a_write() {
        let l = HybridLatch::new();
        let v = l.optimistic();
        l.lock_exclusive();
        unsafe { l.unlock_exclusive() };
        assert!(!l.upgrade_exclusive(v));
        assert!(!l.upgrade_shared(v));
        let v = l.optimistic();
        assert!(l.upgrade_exclusive(v));
        unsafe { l.unlock_exclusive() };
    }

    /// A seqlock-protected pair of counters: readers that validate must never
    /// see the two halves disagree.
    #[test]
    fn validated_optimistic_reads_are_consistent_under_writers() {
        use std::sync::atomic::AtomicU64;
        struct Shared {
            latch: HybridLatch,
            a: AtomicU64,
            b: AtomicU64,
        }
        let s = Arc::new(Shared { latch: HybridLatch::new(), a: AtomicU64::new(0), b: AtomicU64::new(0) });
        let writer = {
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 1..=20_000u64 {
                    s.latch.lock_exclusive();
                    s.a.store(i, Ordering::Relaxed);
                    s.b.store(i, Ordering::Relaxed);
                    unsafe { s.latch.unlock_exclusive() };
                    if i % 1000 == 0 {
                        // Let the reader run even on a loaded machine.
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            })
        };
        let mut validated = 0;
        while !writer.is_finished() {
            let v = s.latch.optimistic();
            let a = s.a.load(Ordering::Relaxed);
            let b = s.b.load(Ordering::Relaxed);
            if s.latch.validate(v) {
                assert_eq!(a, b);
                validated += 1;
            }
        }
        writer.join().unwrap();
        assert!(validated > 0);
    }
}
