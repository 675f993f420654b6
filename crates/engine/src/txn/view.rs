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
//! starts or ends and when a view is taken or dropped (InnoDB's `trx_sys`
//! mutex; the per-row work of MVCC takes no lock).
//!
//! The purge limit ([`TrxSys::oldest_view_limit`]) is the smallest
//! *boundary*: the id of an active transaction or the `up_limit` of an
//! open view. Under the same mutex each boundary keeps the number of
//! finished logs from it up to the next boundary, and the logs below the
//! smallest are counted in [`History::purgeable`]. A boundary that goes
//! (its transaction ends and no view holds it) hands its logs to the one
//! below, or to the purgeable count: so a view that closes releases the
//! history it pinned in O(log boundaries), whatever its length.
//!
//! Invariants (checked by `tests::purgeable_is_the_history_below_the_limit`):
//! 1. A new boundary is a new id (no finished log lies above it) or an id
//!    that is a boundary already (a view's `up_limit` is an active id or
//!    the next id): no log ever moves up into a new bucket, and the
//!    smallest boundary, the purge limit, never goes down (recovery's
//!    `adopt` aside, before purge starts).
//! 2. Every finished log not yet taken by purge is counted exactly once:
//!    in the bucket of the largest boundary at or below its id, or, with
//!    none, in `History::purgeable`. By 1, a log purge takes (below the
//!    limit) is in the purgeable count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::purge::History;
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
    /// The history list; its purgeable count is kept under `inner`.
    history: Arc<History>,
}

#[derive(Default)]
struct Inner {
    /// The purge limit's boundaries (see the module note), by id.
    bounds: BTreeMap<TrxId, Boundary>,
    /// Boundaries with `active` set.
    active: usize,
    /// Open views (the sum of `Boundary::views`).
    views: usize,
}

/// An id purge must not pass while it is a boundary.
#[derive(Default)]
struct Boundary {
    /// The transaction with this id is active.
    active: bool,
    /// Open views whose `up_limit` is this id.
    views: usize,
    /// Finished logs with ids from this one up to the next boundary.
    logs: usize,
}

impl Inner {
    /// Drops boundary `id` if nothing holds it any more, handing its logs
    /// to the boundary below (invariant 2); returns how many logs became
    /// purgeable.
    fn release(&mut self, id: TrxId) -> usize {
        let Some(b) = self.bounds.get(&id) else { return 0 };
        if b.active || b.views > 0 {
            return 0;
        }
        let logs = self.bounds.remove(&id).map_or(0, |b| b.logs);
        self.add_log_below(id, logs)
    }

    /// Counts `n` logs in the bucket of the largest boundary at or below
    /// `id`; returns `n` if there is none (they are purgeable).
    fn add_log_below(&mut self, id: TrxId, n: usize) -> usize {
        match self.bounds.range_mut(..=id).next_back() {
            Some((_, b)) => {
                b.logs += n;
                0
            }
            None => n,
        }
    }
}

impl TrxSys {
    /// Starts handing out ids at `first` (above every id that may be found
    /// in the data at startup).
    pub fn new(first: TrxId) -> Self {
        Self {
            next_id: AtomicU64::new(first.max(1)),
            inner: Mutex::new(Inner::default()),
            history: Arc::new(History::default()),
        }
    }

    /// The history list finished transactions' logs go to.
    pub fn history(&self) -> &Arc<History> {
        &self.history
    }

    /// Registers a new read-write transaction and returns its id.
    pub fn begin(&self) -> TrxId {
        let mut inner = self.inner.lock();
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        // A view taken with no transaction active may hold this id already.
        inner.bounds.entry(id).or_default().active = true;
        inner.active += 1;
        id
    }

    /// Registers a transaction found active by recovery.
    pub fn adopt(&self, id: TrxId) {
        let mut inner = self.inner.lock();
        let b = inner.bounds.entry(id).or_default();
        if !b.active {
            b.active = true;
            inner.active += 1;
        }
        self.next_id.fetch_max(id + 1, Ordering::AcqRel);
    }

    /// Ends a transaction that leaves no undo log (it wrote nothing).
    pub fn end(&self, id: TrxId) {
        self.end_inner(id, 0);
    }

    /// Ends a transaction whose undo log goes to the history list (commit
    /// or rollback): the log is counted for purge here, before
    /// [`History::push`].
    pub fn end_into_history(&self, id: TrxId) {
        self.end_inner(id, 1);
    }

    fn end_inner(&self, id: TrxId, logs: usize) {
        let mut inner = self.inner.lock();
        if let Some(b) = inner.bounds.get_mut(&id) {
            if b.active {
                b.active = false;
                inner.active -= 1;
            }
        }
        let freed = inner.release(id) + inner.add_log_below(id, logs);
        if freed > 0 {
            self.history.add_purgeable(freed);
        }
    }

    /// The next id that would be handed out.
    pub fn next_id(&self) -> TrxId {
        self.next_id.load(Ordering::Acquire)
    }

    /// Active read-write transactions.
    pub fn active_count(&self) -> usize {
        self.inner.lock().active
    }

    /// Open read views.
    pub fn view_count(&self) -> usize {
        self.inner.lock().views
    }

    /// Takes a snapshot for `creator` (0 for a read-only transaction). The
    /// view is registered for purge in the same critical section, so purge
    /// can never miss it.
    pub fn open_view(self: &Arc<Self>, creator: TrxId) -> (ReadView, ViewHandle) {
        let mut inner = self.inner.lock();
        let low_limit = self.next_id.load(Ordering::Acquire);
        let ids: Vec<TrxId> =
            inner.bounds.iter().filter(|&(&t, b)| b.active && t != creator).map(|(&t, _)| t).collect();
        let up_limit = ids.first().copied().unwrap_or(low_limit);
        // The boundary is an active id (it has its bucket already) or the
        // next id (no log lies above it): no logs move (invariant 2).
        inner.bounds.entry(up_limit).or_default().views += 1;
        inner.views += 1;
        drop(inner);
        let view = ReadView { creator, low_limit, up_limit, active: ids };
        (view, ViewHandle { sys: self.clone(), up_limit })
    }

    /// Purge may remove the history of every committed transaction below
    /// this id: every open view sees such transactions, and so will every
    /// view opened later.
    pub fn oldest_view_limit(&self) -> TrxId {
        let inner = self.inner.lock();
        inner.bounds.first_key_value().map_or_else(|| self.next_id.load(Ordering::Acquire), |(&t, _)| t)
    }
}

/// Keeps a view registered (for purge) until dropped.
pub struct ViewHandle {
    sys: Arc<TrxSys>,
    up_limit: TrxId,
}

impl Drop for ViewHandle {
    fn drop(&mut self) {
        let mut inner = self.sys.inner.lock();
        if let Some(b) = inner.bounds.get_mut(&self.up_limit) {
            b.views -= 1;
            inner.views -= 1;
        }
        let freed = inner.release(self.up_limit);
        if freed > 0 {
            self.sys.history.add_purgeable(freed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

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

    fn log(trx: TrxId) -> crate::txn::undo::UndoLogInfo {
        crate::txn::undo::UndoLogInfo { rseg: 0, slot: None, first_page: 0, trx, state: 0 }
    }

    #[test]
    fn history_a_view_pins_counts_only_once_the_view_closes() {
        let sys = Arc::new(TrxSys::new(1));
        let h = sys.history().clone();
        let (_v, view) = sys.open_view(0);
        for _ in 0..1000 {
            let t = sys.begin();
            sys.end_into_history(t);
            h.push(log(t));
        }
        assert_eq!(h.purgeable(), 0, "all of it is behind the view");
        drop(view);
        assert_eq!(h.purgeable(), 1000, "all of it is purgeable the moment the view closes");
    }

    #[test]
    fn history_behind_an_active_transaction_counts_once_it_ends() {
        let sys = Arc::new(TrxSys::new(1));
        let h = sys.history().clone();
        let old = sys.begin();
        for _ in 0..10 {
            let t = sys.begin();
            sys.end_into_history(t);
            h.push(log(t));
        }
        assert_eq!(h.purgeable(), 0);
        // A view taken now pins the same history; it keeps it pinned
        // after the old transaction ends.
        let (_v, view) = sys.open_view(0);
        sys.end_into_history(old);
        h.push(log(old));
        assert_eq!((h.purgeable(), sys.oldest_view_limit()), (0, old));
        drop(view);
        assert_eq!(h.purgeable(), 11);
        assert_eq!(h.take(sys.oldest_view_limit(), 100, std::time::Duration::ZERO).len(), 11);
        assert_eq!(h.purgeable(), 0);
    }

    /// Model check of invariant 2: under random begins, ends, views opened
    /// and closed, takes and give-backs, the purgeable count is always the
    /// number of listed logs below the purge limit.
    #[test]
    fn purgeable_is_the_history_below_the_limit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..20 {
            let sys = Arc::new(TrxSys::new(1));
            let h = sys.history().clone();
            let mut active: Vec<TrxId> = Vec::new();
            let mut views = Vec::new();
            let mut listed = BTreeSet::new();
            for _ in 0..2000 {
                match rand(7) {
                    0 | 1 => active.push(sys.begin()),
                    2 if !active.is_empty() => {
                        let t = active.swap_remove(rand(active.len()));
                        sys.end_into_history(t);
                        h.push(log(t));
                        listed.insert(t);
                    }
                    3 if !active.is_empty() => sys.end(active.swap_remove(rand(active.len()))),
                    4 => {
                        let creator = if active.is_empty() || rand(2) == 0 { 0 } else { active[rand(active.len())] };
                        views.push(sys.open_view(creator).1);
                    }
                    5 if !views.is_empty() => drop(views.swap_remove(rand(views.len()))),
                    _ => {
                        let limit = sys.oldest_view_limit();
                        for l in h.take(limit, rand(8), std::time::Duration::ZERO) {
                            assert!(l.trx < limit);
                            if rand(4) == 0 {
                                h.give_back(l);
                            } else {
                                listed.remove(&l.trx);
                                h.purged_one();
                            }
                        }
                    }
                }
                let limit = sys.oldest_view_limit();
                assert_eq!(h.purgeable(), listed.range(..limit).count(), "limit {limit}");
            }
        }
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
