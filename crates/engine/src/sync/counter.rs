//! Statistics counters striped across cache lines, so that counting a
//! buffer pool hit on every page access writes no line another core reads.
//!
//! Like InnoDB's `ib_counter_t`, an increment is a relaxed load and store,
//! not an atomic read-modify-write: two threads sharing a stripe may lose an
//! increment. The counts are statistics, approximate by design, and cheap.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

const STRIPES: usize = 64;

pub struct Counter {
    cells: [CachePadded<AtomicU64>; STRIPES],
}

impl Default for Counter {
    fn default() -> Self {
        Self { cells: std::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))) }
    }
}

/// A small per-thread number choosing the stripe.
pub fn thread_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    SLOT.with(|s| *s)
}

impl Counter {
    #[inline]
    pub fn add(&self, n: u64) {
        let c = &self.cells[thread_slot() % STRIPES];
        c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
    }

    #[inline]
    pub fn inc(&self) {
        self.add(1)
    }

    pub fn get(&self) -> u64 {
        self.cells.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}
