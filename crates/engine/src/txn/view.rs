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
//! finished logs from it up to the next boundary (its *bucket*); a
//! boundary that goes (its transaction ends and no view holds it) hands
//! its bucket to the one below.
//!
//! [`History::purgeable`], what `innodb_max_purge_lag` throttles on,
//! counts the logs below the oldest view's `up_limit`: history a view pins
//! is not counted (holding writers could not shorten it), history behind
//! an active transaction is (purge has it as soon as that transaction
//! ends). When the oldest view moves, the buckets between its old and new
//! `up_limit` say how much history it pins or releases: a sum over the
//! boundaries in between — at most the active transactions — never a walk
//! of the history. Only opening a view below the oldest one and closing
//! the oldest one pay that; other views, commits and begins are
//! O(log boundaries).
//!
//! Invariants (checked by `tests::purgeable_is_the_history_below_the_oldest_view`):
//! 1. A new boundary is a new id (no finished log lies above it) or an id
//!    that is a boundary already (a view's `up_limit` is an active id or
//!    the next id): no log ever moves up into a new bucket, and the
//!    smallest boundary, the purge limit, never goes down (recovery's
//!    `adopt` aside, before purge starts).
//! 2. Every finished log not yet taken by purge at or above the smallest
//!    boundary is counted once, in the bucket of the largest boundary at
//!    or below its id.
//! 3. `History::purgeable` is the number of finished logs not yet taken
//!    with ids below `Inner::oldest_view` (all of them with no view open).
//!    By 1, a log purge takes (below the limit) is one of them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::purge::History;
use super::trx_info::TrxInfo;
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
    inner: crate::wait::Mutex<Inner>,
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
    /// The smallest `up_limit` of the open views (invariant 3).
    oldest_view: Option<TrxId>,
    /// Multi-statement transactions that have opened a read view and hold
    /// no id (they have only read), by the id INNODB_TRX prints for them
    /// ([`print_id`]). Each is listed from its first view until it ends
    /// or takes an id (`table/trx.rs`); autocommit statements never are.
    read_only: BTreeMap<TrxId, Arc<TrxInfo>>,
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
    /// Who runs the transaction (a connection id; 0: nobody said).
    owner: u32,
    /// Its live figures (INNODB_TRX), when its owner keeps them.
    info: Option<Arc<TrxInfo>>,
}

impl Inner {
    /// Drops boundary `id` if nothing holds it any more, handing its
    /// bucket to the boundary below (invariant 2).
    fn release(&mut self, id: TrxId) {
        let Some(b) = self.bounds.get(&id) else { return };
        if b.active || b.views > 0 {
            return;
        }
        let logs = self.bounds.remove(&id).map_or(0, |b| b.logs);
        self.add_logs_below(id, logs);
    }

    /// Counts `n` logs in the bucket of the largest boundary at or below
    /// `id` (none: they are below the purge limit, in no bucket).
    fn add_logs_below(&mut self, id: TrxId, n: usize) {
        if let Some((_, b)) = self.bounds.range_mut(..=id).next_back() {
            b.logs += n;
        }
    }

    /// Whether a log of transaction `trx` is below the oldest view.
    fn unpinned(&self, trx: TrxId) -> bool {
        self.oldest_view.is_none_or(|v| trx < v)
    }
}

/// The id INNODB_TRX prints for a listed transaction that has none
/// (InnoDB's `trx_get_id_for_print`): the address of its record with bit
/// 48 set, above every id a transaction can be given (InnoDB's ids have 48
/// bits), and unique while the transaction runs.
pub fn print_id(info: &Arc<TrxInfo>) -> TrxId {
    Arc::as_ptr(info) as TrxId | (1 << 48)
}

impl TrxSys {
    /// Starts handing out ids at `first` (above every id that may be found
    /// in the data at startup).
    pub fn new(first: TrxId) -> Self {
        Self {
            next_id: AtomicU64::new(first.max(1)),
            inner: crate::wait::Mutex::new(crate::wait::Instrument::TrxSys, Inner::default()),
            history: Arc::new(History::default()),
        }
    }

    /// The history list finished transactions' logs go to.
    pub fn history(&self) -> &Arc<History> {
        &self.history
    }

    /// Registers a new read-write transaction and returns its id.
    pub fn begin(&self) -> TrxId {
        self.begin_owned(0, None)
    }

    /// [`TrxSys::begin`] for a transaction run by connection `owner`,
    /// listed with `info` by [`TrxSys::active_infos`].
    pub fn begin_owned(&self, owner: u32, info: Option<Arc<TrxInfo>>) -> TrxId {
        self.begin_unlisting(owner, info, None)
    }

    /// [`TrxSys::begin_owned`] for a transaction listed read-only as
    /// `listed` until now ([`TrxSys::open_view_listed`]): it leaves that
    /// list in the same critical section, so INNODB_TRX never misses it.
    pub fn begin_unlisting(&self, owner: u32, info: Option<Arc<TrxInfo>>, listed: Option<TrxId>) -> TrxId {
        let mut inner = self.inner.lock();
        if let Some(l) = listed {
            inner.read_only.remove(&l);
        }
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        // A view taken with no transaction active may hold this id already.
        let b = inner.bounds.entry(id).or_default();
        b.active = true;
        b.owner = owner;
        b.info = info;
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
        // Two tree operations on the commit path: the boundary goes, its
        // bucket and the log go to the one below.
        let mut carried = logs;
        if let Some(b) = inner.bounds.remove(&id) {
            if b.active {
                inner.active -= 1;
            }
            if b.views > 0 {
                // A view still holds the boundary (rare): it stays, and
                // the log is in its bucket.
                inner
                    .bounds
                    .insert(id, Boundary { active: false, views: b.views, logs: b.logs + logs, owner: 0, info: None });
                carried = 0;
            } else {
                carried += b.logs;
            }
        }
        if carried > 0 {
            inner.add_logs_below(id, carried);
        }
        if logs > 0 && inner.unpinned(id) {
            self.history.add_purgeable(logs);
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

    /// The active read-write transactions and their owners, by id.
    pub fn active_list(&self) -> Vec<(TrxId, u32)> {
        self.inner.lock().bounds.iter().filter(|(_, b)| b.active).map(|(id, b)| (*id, b.owner)).collect()
    }

    /// The transactions INNODB_TRX lists, by id: the active read-write
    /// ones with their live figures (none for a transaction begun
    /// without), then the listed read-only ones ([`print_id`]).
    pub fn active_infos(&self) -> Vec<(TrxId, Option<Arc<TrxInfo>>)> {
        let inner = self.inner.lock();
        let rw = inner.bounds.iter().filter(|(_, b)| b.active).map(|(id, b)| (*id, b.info.clone()));
        rw.chain(inner.read_only.iter().map(|(id, i)| (*id, Some(i.clone())))).collect()
    }

    /// A listed read-only transaction ends ([`TrxSys::open_view_listed`]).
    pub fn unlist_read_only(&self, listed: TrxId) {
        self.inner.lock().read_only.remove(&listed);
    }

    /// Open read views.
    pub fn view_count(&self) -> usize {
        self.inner.lock().views
    }

    /// Takes a snapshot for `creator` (0 for a read-only transaction). The
    /// view is registered for purge in the same critical section, so purge
    /// can never miss it.
    pub fn open_view(self: &Arc<Self>, creator: TrxId) -> (ReadView, ViewHandle) {
        self.open_view_listed(creator, None)
    }

    /// [`TrxSys::open_view`] that also lists `listed`, a transaction
    /// without an id, as a read-only one (under [`print_id`]) in the same
    /// critical section: no mutex is taken for it that the view does not
    /// take anyway.
    pub fn open_view_listed(self: &Arc<Self>, creator: TrxId, listed: Option<&Arc<TrxInfo>>) -> (ReadView, ViewHandle) {
        let mut inner = self.inner.lock();
        if let Some(i) = listed {
            inner.read_only.insert(print_id(i), i.clone());
        }
        let low_limit = self.next_id.load(Ordering::Acquire);
        let ids: Vec<TrxId> =
            inner.bounds.iter().filter(|&(&t, b)| b.active && t != creator).map(|(&t, _)| t).collect();
        let up_limit = ids.first().copied().unwrap_or(low_limit);
        // The boundary is an active id (it has its bucket already) or the
        // next id (no log lies above it): no logs move (invariant 2).
        inner.bounds.entry(up_limit).or_default().views += 1;
        inner.views += 1;
        if inner.unpinned(up_limit) {
            // The history from here up to the view that was the oldest
            // is pinned now (invariant 3).
            let pinned = match inner.oldest_view {
                Some(v) => inner.bounds.range(up_limit..v),
                None => inner.bounds.range(up_limit..),
            }
            .map(|(_, b)| b.logs)
            .sum();
            inner.oldest_view = Some(up_limit);
            self.history.sub_purgeable(pinned);
        }
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
        let Some(b) = inner.bounds.get_mut(&self.up_limit) else { return };
        b.views -= 1;
        let last = b.views == 0;
        inner.views -= 1;
        if last && inner.oldest_view == Some(self.up_limit) {
            // The history up to the next view (all of it, with none) is
            // no longer pinned (invariant 3).
            let mut released = 0;
            let mut next = None;
            for (&t, b) in inner.bounds.range(self.up_limit..) {
                if b.views > 0 {
                    next = Some(t);
                    break;
                }
                released += b.logs;
            }
            inner.oldest_view = next;
            self.sys.history.add_purgeable(released);
        }
        inner.release(self.up_limit);
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
    fn history_behind_an_active_transaction_counts_until_a_view_pins_it() {
        let sys = Arc::new(TrxSys::new(1));
        let h = sys.history().clone();
        let old = sys.begin();
        for _ in 0..10 {
            let t = sys.begin();
            sys.end_into_history(t);
            h.push(log(t));
        }
        assert_eq!(h.purgeable(), 10, "purge has it once the old transaction ends");
        // A view taken now (its up_limit is the old transaction) pins the
        // same history, and keeps it pinned after that transaction ends.
        let (_v, view) = sys.open_view(0);
        assert_eq!(h.purgeable(), 0);
        sys.end_into_history(old);
        h.push(log(old));
        assert_eq!((h.purgeable(), sys.oldest_view_limit()), (0, old));
        drop(view);
        assert_eq!(h.purgeable(), 11);
        assert_eq!(h.take(sys.oldest_view_limit(), 100, std::time::Duration::ZERO).len(), 11);
        assert_eq!(h.purgeable(), 0);
    }

    /// Model check of invariants 2 and 3: under random begins, ends, views
    /// opened and closed, takes and give-backs, the purgeable count is
    /// always the number of listed logs below the oldest view, and purge
    /// takes only logs it counted.
    #[test]
    fn purgeable_is_the_history_below_the_oldest_view() {
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
                        views.push(sys.open_view(creator));
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
                let oldest = views.iter().map(|(v, _)| v.up_limit).min().unwrap_or(TrxId::MAX);
                assert_eq!(h.purgeable(), listed.range(..oldest).count(), "oldest view {oldest}");
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
