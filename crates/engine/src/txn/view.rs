//! Transaction ids and MVCC read views (InnoDB's `trx_sys` and
//! `ReadView`).
//!
//! A read view is a snapshot of which transactions had committed when it
//! was taken: a change made by transaction `t` is visible to the view iff
//! - `t` is the view's own transaction, or
//! - `t < up_limit` (every transaction below the smallest id active at the
//!   snapshot had finished), or
//! - `t < low_limit` (it had started before the snapshot) and `t` was not
//!   active at the snapshot.
//!
//! Ids at or above `low_limit` started after the snapshot: invisible.
//!
//! REPEATABLE READ takes one view at the first consistent read of a
//! transaction; READ COMMITTED takes a fresh one per statement.
//!
//! Concurrency: ids come from one atomic counter; the set of active
//! transactions is under one mutex, taken when a transaction that writes
//! starts or ends and when a view is taken (InnoDB's `trx_sys` mutex; the
//! per-row work of MVCC takes no lock).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::TrxId;

/// A snapshot for consistent reads.
#[derive(Clone, Debug)]
pub struct ReadView {
    /// The transaction owning the view (its own changes are visible).
    pub creator: TrxId,
    /// Ids at or above this had not started.
    pub low_limit: TrxId,
    /// Ids below this had all finished.
    pub up_limit: TrxId,
    /// Transactions active at the snapshot, sorted.
    active: Vec<TrxId>,
}

impl ReadView {
    /// Whether a change made by `trx` is visible through this view.
    #[inline]
    pub fn sees(&self, trx: TrxId) -> bool {
        if trx == self.creator || trx < self.up_limit {
            return true;
        }
        if trx >= self.low_limit {
            return false;
        }
        self.active.binary_search(&trx).is_err()
    }

    /// The oldest transaction whose changes this view may still need to
    /// see undone (purge must keep history at or above it).
    pub fn purge_limit(&self) -> TrxId {
        self.up_limit
    }
}

/// Transaction ids and the set of active read-write transactions.
pub struct TrxSys {
    next_id: AtomicU64,
    inner: Mutex<Inner>,
    next_view: AtomicU64,
}

#[derive(Default)]
struct Inner {
    active: BTreeSet<TrxId>,
    /// Views currently open, by their `up_limit`, for purge.
    views: BTreeSet<(TrxId, u64)>,
}

impl TrxSys {
    /// Starts handing out ids at `first` (above every id that may be found
    /// in the data at startup).
    pub fn new(first: TrxId) -> Self {
        Self {
            next_id: AtomicU64::new(first.max(1)),
            inner: Mutex::new(Inner::default()),
            next_view: AtomicU64::new(0),
        }
    }

    /// Registers a new read-write transaction and returns its id.
    pub fn begin(&self) -> TrxId {
        let mut inner = self.inner.lock();
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        inner.active.insert(id);
        id
    }

    /// Registers a transaction found active by recovery.
    pub fn adopt(&self, id: TrxId) {
        self.inner.lock().active.insert(id);
        self.next_id.fetch_max(id + 1, Ordering::AcqRel);
    }

    /// Ends a transaction (commit or rollback).
    pub fn end(&self, id: TrxId) {
        self.inner.lock().active.remove(&id);
    }

    /// The next id that would be handed out.
    pub fn next_id(&self) -> TrxId {
        self.next_id.load(Ordering::Acquire)
    }

    /// Active read-write transactions.
    pub fn active_count(&self) -> usize {
        self.inner.lock().active.len()
    }

    /// Open read views.
    pub fn view_count(&self) -> usize {
        self.inner.lock().views.len()
    }

    /// Takes a snapshot for `creator` (0 for a read-only transaction). The
    /// view is registered for purge in the same critical section, so purge
    /// can never miss it.
    pub fn open_view(self: &Arc<Self>, creator: TrxId) -> (ReadView, ViewHandle) {
        let token = self.next_view.fetch_add(1, Ordering::Relaxed);
        let mut inner = self.inner.lock();
        let low_limit = self.next_id.load(Ordering::Acquire);
        let ids: Vec<TrxId> = inner.active.iter().copied().filter(|&t| t != creator).collect();
        let up_limit = ids.first().copied().unwrap_or(low_limit);
        inner.views.insert((up_limit, token));
        drop(inner);
        let view = ReadView { creator, low_limit, up_limit, active: ids };
        (view, ViewHandle { sys: self.clone(), key: (up_limit, token) })
    }

    /// Purge may remove the history of every committed transaction below
    /// this id: every open view sees such transactions, and so will every
    /// view opened later.
    pub fn oldest_view_limit(&self) -> TrxId {
        let inner = self.inner.lock();
        let mut limit = inner.active.first().copied().unwrap_or_else(|| self.next_id.load(Ordering::Acquire));
        if let Some(&(l, _)) = inner.views.first() {
            limit = limit.min(l);
        }
        limit
    }
}

/// Keeps a view registered (for purge) until dropped.
pub struct ViewHandle {
    sys: Arc<TrxSys>,
    key: (TrxId, u64),
}

impl Drop for ViewHandle {
    fn drop(&mut self) {
        self.sys.inner.lock().views.remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_sees_what_committed_before_it_and_its_own_changes() {
        let sys = Arc::new(TrxSys::new(100));
        let t1 = sys.begin();
        let t2 = sys.begin();
        sys.end(t1); // t1 commits before the snapshot
        let me = sys.begin();
        let (v, _h) = sys.open_view(me);
        let t4 = sys.begin(); // starts after the snapshot
        assert!(v.sees(t1), "committed before the view");
        assert!(!v.sees(t2), "active at the snapshot");
        assert!(v.sees(me), "own changes");
        assert!(!v.sees(t4), "started after the snapshot");
        assert!(v.sees(50), "long finished");
        sys.end(t2); // committing later does not change the snapshot
        assert!(!v.sees(t2));
    }

    #[test]
    fn the_oldest_open_view_bounds_purge() {
        let sys = Arc::new(TrxSys::new(1));
        let a = sys.begin();
        let (_v1, h1) = sys.open_view(0);
        sys.end(a);
        let b = sys.begin();
        sys.end(b);
        assert_eq!(sys.oldest_view_limit(), a, "the view still needs history back to a");
        drop(h1);
        assert_eq!(sys.oldest_view_limit(), sys.next_id(), "no view, no active transaction: all history purgeable");
    }

    #[test]
    fn views_taken_concurrently_with_commits_are_consistent() {
        // A transaction's changes become visible atomically: a view either
        // sees all of a transaction or none of it.
        let sys = Arc::new(TrxSys::new(1));
        let writer = {
            let sys = sys.clone();
            std::thread::spawn(move || {
                for _ in 0..20_000 {
                    let t = sys.begin();
                    sys.end(t);
                }
            })
        };
        while !writer.is_finished() {
            let (v, _h) = sys.open_view(0);
            assert!(v.up_limit <= v.low_limit);
            for t in v.up_limit.saturating_sub(3)..v.low_limit {
                if t < v.up_limit {
                    assert!(v.sees(t));
                }
            }
            assert!(!v.sees(v.low_limit));
        }
        writer.join().unwrap();
    }
}
