//! One buffer pool instance's counters, as
//! `information_schema.INNODB_BUFFER_POOL_STATS` shows them per instance
//! (InnoDB keeps them in each `buf_pool_t`).
//!
//! Page requests and LRU moves are counted here only; the pool-wide
//! figures (`Innodb_buffer_pool_read_requests`, `..._pages_made_young`)
//! are the sums ([`super::BufferPool::page_requests`]), so a page access
//! still pays a single striped add. Reads, writes and creations are I/O
//! events (or rare): they are counted here as well as pool-wide.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::sync::Counter;

#[derive(Default)]
pub(crate) struct InstanceStats {
    pub requests: Counter,
    pub reads: Counter,
    pub created: Counter,
    pub written: Counter,
    pub made_young: Counter,
    pub not_made_young: Counter,
    pub read_ahead: Counter,
    pub read_ahead_evicted: Counter,
    /// Page reads under way.
    pub pending_reads: AtomicU64,
    /// Page writes under way, of LRU flushes and of flush-list flushes.
    pub pending_flush_lru: AtomicU64,
    pub pending_flush_list: AtomicU64,
}

/// A snapshot of [`InstanceStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstanceCounters {
    /// Pages asked for (hits and misses).
    pub requests: u64,
    /// Pages read from disk (read-ahead included).
    pub reads: u64,
    /// Pages created without a read.
    pub created: u64,
    pub written: u64,
    pub made_young: u64,
    pub not_made_young: u64,
    pub read_ahead: u64,
    /// Pages read ahead and evicted before any access.
    pub read_ahead_evicted: u64,
    pub pending_reads: u64,
    pub pending_flush_lru: u64,
    pub pending_flush_list: u64,
}

impl InstanceStats {
    pub(crate) fn snapshot(&self) -> InstanceCounters {
        InstanceCounters {
            requests: self.requests.get(),
            reads: self.reads.get(),
            created: self.created.get(),
            written: self.written.get(),
            made_young: self.made_young.get(),
            not_made_young: self.not_made_young.get(),
            read_ahead: self.read_ahead.get(),
            read_ahead_evicted: self.read_ahead_evicted.get(),
            pending_reads: self.pending_reads.load(Relaxed),
            pending_flush_lru: self.pending_flush_lru.load(Relaxed),
            pending_flush_list: self.pending_flush_list.load(Relaxed),
        }
    }
}

/// Counts `n` as under way in `gauge` while `f` runs.
pub(crate) fn pending<T>(gauge: &AtomicU64, n: u64, f: impl FnOnce() -> T) -> T {
    gauge.fetch_add(n, Relaxed);
    let r = f();
    gauge.fetch_sub(n, Relaxed);
    r
}
