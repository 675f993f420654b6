//! The row lock system: InnoDB's record, gap, next-key and
//! insert-intention locks on index keys.
//!
//! A lock names a key of an index (`LockKey`: index id + the key's
//! memcomparable bytes, or the index's *supremum*, above every key) and has
//! a mode (S or X) and a kind:
//! - `Record`: the key itself (InnoDB's LOCK_REC_NOT_GAP);
//! - `Gap`: the open interval before the key (LOCK_GAP);
//! - `NextKey`: both (LOCK_ORDINARY), what locking reads take under
//!   REPEATABLE READ so that no phantom can appear in a scanned range;
//! - `InsertIntention`: taken on the next key by an insert into its gap.
//!
//! Compatibility, between different transactions (a transaction never
//! conflicts with itself):
//! ```text
//!                    held:  Record  Gap  NextKey  InsertIntention
//! asked Record                 m     -     m        -
//!       Gap                    -     -     -        -
//!       NextKey                m     -     m        -
//!       InsertIntention        -     c     c        -
//! ```
//! `m`: conflict if either mode is X; `c`: conflict; `-`: compatible.
//! Gap locks only ever stop inserts.
//!
//! Concurrency:
//! 1. The lock table is split into shards by key hash, each with its own
//!    mutex: no global mutex is taken on the path of a lock that is
//!    granted at once.
//! 2. Only a transaction that must wait takes the wait-for graph's mutex,
//!    adds its edges, and searches for a cycle through itself; if it finds
//!    one it is the deadlock victim (it gets [`LockError::Deadlock`] and
//!    its caller rolls the whole transaction back). Waits are bounded by
//!    the caller's timeout (`innodb_lock_wait_timeout`:
//!    [`LockError::Timeout`]). A wait given an [`Interrupt`] also ends
//!    when it is raised or its deadline passes ([`LockError::Interrupted`],
//!    KILL QUERY and `max_execution_time`); the request leaves the queue as
//!    after a timeout.
//! 3. Waiters queue in arrival order; a new request also waits behind an
//!    earlier waiter it conflicts with, so writers are not starved by a
//!    stream of readers.
//! 4. Releasing (commit / rollback) grants, in queue order, every waiter
//!    whose request no longer conflicts with anything ahead of it.
//! 5. An insert intention granted at once is not recorded (InnoDB's
//!    `lock_rec_insert_check_and_lock` creates no lock either): it blocks
//!    nothing, so keeping it would only grow the queue of the key above the
//!    inserts. A bulk insert at the end of an index asks for one on the
//!    supremum for every row; recorded, each request scanned all the earlier
//!    ones and a 100 000-row INSERT became quadratic. Only an insert
//!    intention that had to wait stays in the queue (granted when the gap
//!    lock before it goes), until its transaction ends.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::interrupt::Interrupt;
use super::TrxId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockMode {
    S,
    X,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    Record,
    Gap,
    NextKey,
    InsertIntention,
}

impl LockKind {
    fn has_record(self) -> bool {
        matches!(self, LockKind::Record | LockKind::NextKey)
    }
    fn has_gap(self) -> bool {
        matches!(self, LockKind::Gap | LockKind::NextKey)
    }
}

/// What a lock is on: a key of an index, or its supremum.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockKey {
    pub index: u32,
    /// The memcomparable key; `None` is the supremum.
    pub key: Option<Vec<u8>>,
}

impl LockKey {
    pub fn record(index: u32, key: &[u8]) -> Self {
        Self { index, key: Some(key.to_vec()) }
    }
    pub fn supremum(index: u32) -> Self {
        Self { index, key: None }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockError {
    /// `innodb_lock_wait_timeout` passed (MySQL error 1205).
    Timeout,
    /// This transaction was chosen as a deadlock victim (error 1213).
    Deadlock,
    /// The waiter's [`Interrupt`] was raised or its deadline passed.
    Interrupted,
}

/// Whether a request conflicts with a lock held (or queued earlier) by
/// another transaction.
fn conflicts(ask_mode: LockMode, ask: LockKind, held_mode: LockMode, held: LockKind) -> bool {
    if ask == LockKind::InsertIntention {
        return held.has_gap();
    }
    if held == LockKind::InsertIntention {
        return false;
    }
    ask.has_record() && held.has_record() && (ask_mode == LockMode::X || held_mode == LockMode::X)
}

/// Whether holding (`mode`, `kind`) already gives what is asked.
fn covers(mode: LockMode, kind: LockKind, ask_mode: LockMode, ask: LockKind) -> bool {
    let mode_ok = mode == LockMode::X || ask_mode == LockMode::S;
    let kind_ok = kind == ask
        || (kind == LockKind::NextKey && matches!(ask, LockKind::Record | LockKind::Gap))
        || (kind.has_gap() && ask == LockKind::Gap);
    mode_ok && kind_ok && ask != LockKind::InsertIntention
}

/// How a waiting transaction learns the outcome.
#[derive(Default)]
struct WaitSlot {
    granted: Mutex<bool>,
    cond: Condvar,
}

struct Request {
    trx: TrxId,
    mode: LockMode,
    kind: LockKind,
    /// Present while waiting.
    wait: Option<Arc<WaitSlot>>,
}

#[derive(Default)]
struct Queue {
    /// Granted requests, then waiting ones, in arrival order.
    reqs: Vec<Request>,
}

impl Queue {
    fn granted(&self) -> impl Iterator<Item = &Request> {
        self.reqs.iter().filter(|r| r.wait.is_none())
    }
}

#[derive(Default)]
struct Shard {
    queues: HashMap<LockKey, Queue>,
}

/// Counters reported as `Innodb_row_lock_*`.
#[derive(Default, Debug)]
pub struct LockStats {
    pub waits: crate::sync::Counter,
    pub timeouts: crate::sync::Counter,
    pub deadlocks: crate::sync::Counter,
    /// Total time spent waiting, in microseconds.
    pub wait_us: crate::sync::Counter,
    /// The longest wait, in microseconds.
    pub max_wait_us: std::sync::atomic::AtomicU64,
    /// Waits in progress.
    pub current: std::sync::atomic::AtomicU64,
}

/// A lock request waiting, as SHOW ENGINE INNODB STATUS lists it.
#[derive(Clone, Debug)]
pub struct LockWaitInfo {
    pub trx: TrxId,
    pub key: LockKey,
    pub mode: LockMode,
    pub kind: LockKind,
    /// The transactions whose locks it waits for, when it started.
    pub blockers: Vec<TrxId>,
    pub since: Instant,
}

/// One lock request, as performance_schema.data_locks lists it.
#[derive(Clone, Debug)]
pub struct LockInfo {
    pub trx: TrxId,
    pub key: LockKey,
    pub mode: LockMode,
    pub kind: LockKind,
    /// Waiting (not granted yet).
    pub waiting: bool,
}

pub struct LockSys {
    shards: Box<[crate::wait::Mutex<Shard>]>,
    /// The waits in progress (only a waiting request takes this mutex).
    waiting: crate::wait::Mutex<HashMap<TrxId, LockWaitInfo>>,
    /// Wait-for edges of waiting transactions: who each waits for.
    waits_for: crate::wait::Mutex<HashMap<TrxId, Vec<TrxId>>>,
    /// Whether deadlocks are searched for (`innodb_deadlock_detect`); if
    /// not, only the timeout ends a deadlock.
    pub detect_deadlocks: std::sync::atomic::AtomicBool,
    pub stats: LockStats,
    /// Gap and next-key requests in the table (granted or waiting), by
    /// index id modulo the length: an index with none takes buffered
    /// inserts (`crate::ibuf`), which skip the insert-intention check.
    gap_locks: Box<[std::sync::atomic::AtomicU32]>,
}

/// The locks a transaction holds, so that commit can release them.
#[derive(Default)]
pub struct TrxLocks {
    held: Vec<(LockKey, LockMode, LockKind)>,
    /// Held locks that cover a record (not only a gap): INNODB_TRX's
    /// `trx_rows_locked`.
    records: usize,
    /// Bytes of the held keys.
    key_bytes: usize,
}

impl TrxLocks {
    pub fn len(&self) -> usize {
        self.held.len()
    }
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Held locks on a record.
    pub fn records(&self) -> usize {
        self.records
    }

    /// The memory the list takes: its entries and their keys.
    pub fn memory_bytes(&self) -> usize {
        self.held.capacity() * std::mem::size_of::<(LockKey, LockMode, LockKind)>() + self.key_bytes
    }

    fn push(&mut self, key: LockKey, mode: LockMode, kind: LockKind) {
        self.records += usize::from(kind.has_record());
        self.key_bytes += key.key.as_ref().map_or(0, Vec::len);
        self.held.push((key, mode, kind));
    }
}

const SHARDS: usize = 64;
const GAP_SLOTS: usize = 64;

fn shard_of(key: &LockKey) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    (h.finish() as usize) % SHARDS
}

impl Default for LockSys {
    fn default() -> Self {
        Self::new()
    }
}

impl LockSys {
    pub fn new() -> Self {
        Self {
            shards: (0..SHARDS)
                .map(|_| crate::wait::Mutex::new(crate::wait::Instrument::LockSys, Shard::default()))
                .collect(),
            waits_for: crate::wait::Mutex::new(crate::wait::Instrument::LockWaitGraph, HashMap::new()),
            waiting: crate::wait::Mutex::new(crate::wait::Instrument::LockWaitGraph, HashMap::new()),
            detect_deadlocks: std::sync::atomic::AtomicBool::new(true),
            stats: LockStats::default(),
            gap_locks: (0..GAP_SLOTS).map(|_| Default::default()).collect(),
        }
    }

    /// Whether any transaction holds or waits for a gap or next-key lock
    /// on `index` (or on an index sharing its slot). Sequentially
    /// consistent with the request entering the table, which happens
    /// before the requester reads the index.
    pub(crate) fn gap_locked(&self, index: u32) -> bool {
        self.gap_locks[index as usize % GAP_SLOTS].load(std::sync::atomic::Ordering::SeqCst) > 0
    }

    /// A request of `kind` on `key` entered (`+1`) or left (`-1`) the table.
    fn count_gap(&self, key: &LockKey, kind: LockKind, delta: i32) {
        if kind.has_gap() {
            let c = &self.gap_locks[key.index as usize % GAP_SLOTS];
            if delta > 0 {
                c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            } else {
                c.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }

    /// Acquires a lock for `trx`, waiting at most `timeout`. On success the
    /// lock is recorded in `locks` (released by [`LockSys::release_all`]).
    pub fn lock(
        &self,
        trx: TrxId,
        locks: &mut TrxLocks,
        key: LockKey,
        mode: LockMode,
        kind: LockKind,
        timeout: Duration,
    ) -> Result<(), LockError> {
        self.lock_interruptible(trx, locks, key, mode, kind, timeout, None)
    }

    /// [`LockSys::lock`], whose wait also ends when `interrupt` is raised
    /// or its deadline passes ([`LockError::Interrupted`]).
    #[allow(clippy::too_many_arguments)]
    pub fn lock_interruptible(
        &self,
        trx: TrxId,
        locks: &mut TrxLocks,
        key: LockKey,
        mode: LockMode,
        kind: LockKind,
        timeout: Duration,
        interrupt: Option<&Interrupt>,
    ) -> Result<(), LockError> {
        let slot = {
            let mut shard = self.shards[shard_of(&key)].lock();
            let q = shard.queues.entry(key.clone()).or_default();
            if q.granted().any(|r| r.trx == trx && covers(r.mode, r.kind, mode, kind)) {
                return Ok(());
            }
            let blockers: Vec<TrxId> = q
                .reqs
                .iter()
                .filter(|r| r.trx != trx && conflicts(mode, kind, r.mode, r.kind))
                .map(|r| r.trx)
                .collect();
            if blockers.is_empty() {
                if kind == LockKind::InsertIntention {
                    // Invariant 5: nothing to record.
                    if q.reqs.is_empty() {
                        shard.queues.remove(&key);
                    }
                    return Ok(());
                }
                q.reqs.push(Request { trx, mode, kind, wait: None });
                self.count_gap(&key, kind, 1);
                locks.push(key, mode, kind);
                return Ok(());
            }
            // Must wait: check for a deadlock before sleeping.
            if self.detect_deadlocks.load(std::sync::atomic::Ordering::Relaxed) && self.would_deadlock(trx, &blockers) {
                self.stats.deadlocks.inc();
                if q.reqs.is_empty() {
                    shard.queues.remove(&key);
                }
                return Err(LockError::Deadlock);
            }
            let slot = Arc::new(WaitSlot::default());
            q.reqs.push(Request { trx, mode, kind, wait: Some(slot.clone()) });
            self.count_gap(&key, kind, 1);
            let info = LockWaitInfo { trx, key: key.clone(), mode, kind, blockers, since: Instant::now() };
            self.waiting.lock().insert(trx, info);
            slot
        };
        self.stats.waits.inc();
        self.stats.current.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let started = Instant::now();
        let deadline = started + timeout;
        if let Some(i) = interrupt {
            // The waker takes the slot's mutex, under which the loop below
            // checks the interrupt (interrupt.rs, invariant 2).
            let s = slot.clone();
            i.set_waker(Some(Arc::new(move || {
                let _g = s.granted.lock();
                s.cond.notify_all();
            })));
        }
        let wake_at = interrupt.and_then(Interrupt::deadline).map_or(deadline, |d| d.min(deadline));
        let mut interrupted = false;
        let granted = crate::txn::admission::blocking(crate::wait::Instrument::RowLock, || {
            let mut g = slot.granted.lock();
            while !*g {
                if interrupt.is_some_and(|i| i.check().is_some()) {
                    interrupted = true;
                    break;
                }
                if Instant::now() >= deadline {
                    break;
                }
                slot.cond.wait_until(&mut g, wake_at);
            }
            *g
        });
        if let Some(i) = interrupt {
            i.set_waker(None);
        }
        self.waiting.lock().remove(&trx);
        let waited = started.elapsed().as_micros() as u64;
        self.stats.wait_us.add(waited);
        self.stats.max_wait_us.fetch_max(waited, std::sync::atomic::Ordering::Relaxed);
        self.stats.current.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        if granted {
            self.waits_for.lock().remove(&trx);
            locks.push(key, mode, kind);
            return Ok(());
        }
        // Timed out or interrupted: leave the queue, unless granted in the
        // meantime.
        let mut shard = self.shards[shard_of(&key)].lock();
        self.waits_for.lock().remove(&trx);
        if *slot.granted.lock() {
            locks.push(key, mode, kind);
            return Ok(());
        }
        if let Some(q) = shard.queues.get_mut(&key) {
            q.reqs.retain(|r| !r.wait.as_ref().is_some_and(|w| Arc::ptr_eq(w, &slot)));
            self.count_gap(&key, kind, -1);
            Self::grant_waiters(q);
            if q.reqs.is_empty() {
                shard.queues.remove(&key);
            }
        }
        if interrupted {
            return Err(LockError::Interrupted);
        }
        self.stats.timeouts.inc();
        Err(LockError::Timeout)
    }

    /// Takes a lock only if it can be granted at once (for a caller that
    /// holds page latches and must not wait); `false` leaves nothing
    /// behind, and the caller releases its latches and calls
    /// [`LockSys::lock`].
    pub fn try_lock(&self, trx: TrxId, locks: &mut TrxLocks, key: &LockKey, mode: LockMode, kind: LockKind) -> bool {
        let mut shard = self.shards[shard_of(key)].lock();
        if let Some(q) = shard.queues.get(key) {
            if q.granted().any(|r| r.trx == trx && covers(r.mode, r.kind, mode, kind)) {
                return true;
            }
            if q.reqs.iter().any(|r| r.trx != trx && conflicts(mode, kind, r.mode, r.kind)) {
                return false;
            }
        }
        if kind == LockKind::InsertIntention {
            return true; // invariant 5: granted at once, nothing to record
        }
        shard.queues.entry(key.clone()).or_default().reqs.push(Request { trx, mode, kind, wait: None });
        self.count_gap(key, kind, 1);
        locks.push(key.clone(), mode, kind);
        true
    }

    /// Records that `trx` waits for `blockers`, unless that closes a cycle
    /// in the wait-for graph: then it returns true and records nothing.
    fn would_deadlock(&self, trx: TrxId, blockers: &[TrxId]) -> bool {
        let mut g = self.waits_for.lock();
        // Depth-first search from the blockers: does any path lead to trx?
        let mut stack: Vec<TrxId> = blockers.to_vec();
        let mut seen: HashSet<TrxId> = HashSet::new();
        while let Some(t) = stack.pop() {
            if t == trx {
                return true;
            }
            if !seen.insert(t) {
                continue;
            }
            if let Some(next) = g.get(&t) {
                stack.extend(next.iter().copied());
            }
        }
        g.insert(trx, blockers.to_vec());
        false
    }

    /// Grants, in order, the waiters that conflict with nothing ahead.
    fn grant_waiters(q: &mut Queue) {
        for i in 0..q.reqs.len() {
            if q.reqs[i].wait.is_none() {
                continue;
            }
            let (ahead, rest) = q.reqs.split_at(i);
            let me = &rest[0];
            let blocked = ahead.iter().any(|r| r.trx != me.trx && conflicts(me.mode, me.kind, r.mode, r.kind));
            if !blocked {
                let slot = q.reqs[i].wait.take().expect("waiting");
                *slot.granted.lock() = true;
                slot.cond.notify_one();
            }
        }
    }

    /// Releases every lock of a transaction (commit or rollback) and wakes
    /// the waiters that can now go.
    pub fn release_all(&self, trx: TrxId, locks: &mut TrxLocks) {
        let mut by_shard: HashMap<usize, Vec<LockKey>> = HashMap::new();
        locks.records = 0;
        locks.key_bytes = 0;
        for (key, _, _) in locks.held.drain(..) {
            by_shard.entry(shard_of(&key)).or_default().push(key);
        }
        for (s, keys) in by_shard {
            let mut shard = self.shards[s].lock();
            for key in keys {
                if let Some(q) = shard.queues.get_mut(&key) {
                    for r in q.reqs.iter().filter(|r| r.trx == trx && r.wait.is_none()) {
                        self.count_gap(&key, r.kind, -1);
                    }
                    q.reqs.retain(|r| r.trx != trx || r.wait.is_some());
                    Self::grant_waiters(q);
                    if q.reqs.is_empty() {
                        shard.queues.remove(&key);
                    }
                }
            }
        }
        // Waiters whose edges pointed at trx keep stale edges until they
        // wake; a stale edge can only make the search find a cycle that no
        // longer exists when trx's id is reused, and ids are never reused.
    }

    /// The lock waits in progress, oldest first.
    pub fn waits(&self) -> Vec<LockWaitInfo> {
        let mut v: Vec<LockWaitInfo> = self.waiting.lock().values().cloned().collect();
        v.sort_by_key(|w| w.since);
        v
    }

    /// Every lock request in the table, granted ones first within each
    /// key (performance_schema.data_locks). Takes each shard's mutex in
    /// turn: a consistent picture of each key, not of the whole table.
    pub fn snapshot(&self) -> Vec<LockInfo> {
        let mut out = Vec::new();
        for shard in self.shards.iter() {
            for (key, q) in &shard.lock().queues {
                for r in &q.reqs {
                    out.push(LockInfo {
                        trx: r.trx,
                        key: key.clone(),
                        mode: r.mode,
                        kind: r.kind,
                        waiting: r.wait.is_some(),
                    });
                }
            }
        }
        out
    }

    /// Locks currently in the table (all shards), for tests and
    /// `SHOW ENGINE INNODB STATUS`-like output.
    pub fn lock_count(&self) -> usize {
        self.shards.iter().map(|s| s.lock().queues.values().map(|q| q.reqs.len()).sum::<usize>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    const T: Duration = Duration::from_secs(5);

    fn k(n: u8) -> LockKey {
        LockKey::record(1, &[n])
    }

    #[test]
    fn the_compatibility_matrix_is_innodbs() {
        use LockKind::*;
        use LockMode::*;
        assert!(!conflicts(S, Record, S, Record));
        assert!(conflicts(X, Record, S, Record));
        assert!(conflicts(S, NextKey, X, Record));
        assert!(!conflicts(X, Gap, X, Gap), "gap locks never conflict with each other");
        assert!(!conflicts(X, Record, X, Gap), "a gap lock does not cover the record");
        assert!(conflicts(X, InsertIntention, S, Gap));
        assert!(conflicts(X, InsertIntention, S, NextKey));
        assert!(!conflicts(X, InsertIntention, X, Record));
        assert!(!conflicts(X, InsertIntention, X, InsertIntention));
        assert!(!conflicts(X, NextKey, X, InsertIntention), "insert intentions block nothing");
    }

    #[test]
    fn shared_locks_share_and_exclusive_waits_until_release() {
        let ls = Arc::new(LockSys::new());
        let (mut a, mut b) = (TrxLocks::default(), TrxLocks::default());
        ls.lock(1, &mut a, k(1), LockMode::S, LockKind::Record, T).unwrap();
        ls.lock(2, &mut b, k(1), LockMode::S, LockKind::Record, T).unwrap();
        let ls2 = ls.clone();
        let w = std::thread::spawn(move || {
            let mut c = TrxLocks::default();
            let r = ls2.lock(3, &mut c, k(1), LockMode::X, LockKind::Record, T);
            (r, c.len())
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!w.is_finished(), "X must wait for the S holders");
        ls.release_all(1, &mut a);
        std::thread::sleep(Duration::from_millis(20));
        assert!(!w.is_finished());
        ls.release_all(2, &mut b);
        assert_eq!(w.join().unwrap(), (Ok(()), 1));
    }

    #[test]
    fn a_wait_ends_with_a_timeout_and_leaves_no_trace() {
        let ls = LockSys::new();
        let (mut a, mut b) = (TrxLocks::default(), TrxLocks::default());
        ls.lock(1, &mut a, k(1), LockMode::X, LockKind::Record, T).unwrap();
        let started = Instant::now();
        let r = ls.lock(2, &mut b, k(1), LockMode::S, LockKind::NextKey, Duration::from_millis(100));
        assert_eq!(r, Err(LockError::Timeout));
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert!(b.is_empty());
        ls.release_all(1, &mut a);
        assert_eq!(ls.lock_count(), 0);
    }

    #[test]
    fn an_interrupt_ends_a_lock_wait_at_once_and_leaves_no_trace() {
        use crate::txn::interrupt::InterruptReason;
        let ls = Arc::new(LockSys::new());
        let mut a = TrxLocks::default();
        ls.lock(1, &mut a, k(1), LockMode::X, LockKind::Record, T).unwrap();
        let int = Arc::new(Interrupt::new());
        let (ls2, int2) = (ls.clone(), int.clone());
        let w = std::thread::spawn(move || {
            let mut b = TrxLocks::default();
            let long = Duration::from_secs(60);
            let r = ls2.lock_interruptible(2, &mut b, k(1), LockMode::X, LockKind::Record, long, Some(&int2));
            (r, b.len())
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!w.is_finished());
        int.raise(InterruptReason::KillQuery);
        assert_eq!(w.join().unwrap(), (Err(LockError::Interrupted), 0));
        assert_eq!(ls.lock_count(), 1, "only the holder's lock is left");
        assert_eq!(ls.stats.timeouts.get(), 0, "an interrupt is not a timeout");
        // A deadline ends the wait too.
        int.reset();
        int.set_deadline(Some(Instant::now() + Duration::from_millis(30)));
        let mut c = TrxLocks::default();
        let r = ls.lock_interruptible(3, &mut c, k(1), LockMode::S, LockKind::Record, T, Some(&int));
        assert_eq!(r, Err(LockError::Interrupted));
        assert_eq!(int.check(), Some(InterruptReason::Timeout));
    }

    #[test]
    fn two_transactions_locking_in_opposite_order_deadlock_and_exactly_one_is_the_victim() {
        for _ in 0..20 {
            let ls = Arc::new(LockSys::new());
            let barrier = Arc::new(Barrier::new(2));
            let run = |me: TrxId, first: u8, second: u8| {
                let (ls, barrier) = (ls.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let mut locks = TrxLocks::default();
                    ls.lock(me, &mut locks, k(first), LockMode::X, LockKind::Record, T).unwrap();
                    barrier.wait();
                    let r = ls.lock(me, &mut locks, k(second), LockMode::X, LockKind::Record, T);
                    // Commit or roll back: either way the locks go.
                    ls.release_all(me, &mut locks);
                    r
                })
            };
            let t1 = run(1, 1, 2);
            let t2 = run(2, 2, 1);
            let results = [t1.join().unwrap(), t2.join().unwrap()];
            let deadlocks = results.iter().filter(|r| **r == Err(LockError::Deadlock)).count();
            let ok = results.iter().filter(|r| r.is_ok()).count();
            assert_eq!((deadlocks, ok), (1, 1), "{results:?}");
            assert_eq!(ls.lock_count(), 0);
        }
    }

    #[test]
    fn a_gap_lock_stops_inserts_into_the_gap_but_not_reads_of_the_record() {
        let ls = LockSys::new();
        let (mut a, mut b) = (TrxLocks::default(), TrxLocks::default());
        // A locking read took a next-key lock on key 5 (the record and the gap below it).
        ls.lock(1, &mut a, k(5), LockMode::S, LockKind::NextKey, T).unwrap();
        let short = Duration::from_millis(50);
        assert_eq!(
            ls.lock(2, &mut b, k(5), LockMode::X, LockKind::InsertIntention, short),
            Err(LockError::Timeout),
            "an insert into the gap below 5 waits"
        );
        ls.lock(2, &mut b, k(5), LockMode::S, LockKind::Record, T).unwrap();
        ls.lock(2, &mut b, LockKey::supremum(1), LockMode::X, LockKind::InsertIntention, T).unwrap();
        ls.release_all(1, &mut a);
        ls.lock(2, &mut b, k(5), LockMode::X, LockKind::InsertIntention, T).unwrap();
    }

    #[test]
    fn insert_intentions_granted_at_once_leave_nothing_in_the_table_yet_later_gap_locks_still_stop_inserts() {
        let ls = LockSys::new();
        let (mut a, mut b) = (TrxLocks::default(), TrxLocks::default());
        let top = LockKey::supremum(1);
        for _ in 0..1000 {
            ls.lock(1, &mut a, top.clone(), LockMode::X, LockKind::InsertIntention, T).unwrap();
            assert!(ls.try_lock(1, &mut a, &top, LockMode::X, LockKind::InsertIntention));
        }
        assert_eq!((ls.lock_count(), a.len()), (0, 0), "a bulk insert at the end of an index records no lock");
        // Another transaction now locks the gap: the next insert into it waits.
        ls.lock(2, &mut b, top.clone(), LockMode::S, LockKind::Gap, T).unwrap();
        assert!(!ls.try_lock(1, &mut a, &top, LockMode::X, LockKind::InsertIntention));
        let short = Duration::from_millis(30);
        assert_eq!(
            ls.lock(1, &mut a, top.clone(), LockMode::X, LockKind::InsertIntention, short),
            Err(LockError::Timeout)
        );
        ls.release_all(2, &mut b);
        assert!(ls.try_lock(1, &mut a, &top, LockMode::X, LockKind::InsertIntention));
        assert_eq!(ls.lock_count(), 0);
    }

    #[test]
    fn a_stronger_lock_held_covers_a_weaker_request() {
        let ls = LockSys::new();
        let mut a = TrxLocks::default();
        ls.lock(1, &mut a, k(1), LockMode::X, LockKind::NextKey, T).unwrap();
        ls.lock(1, &mut a, k(1), LockMode::S, LockKind::Record, T).unwrap();
        ls.lock(1, &mut a, k(1), LockMode::X, LockKind::Gap, T).unwrap();
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn writers_are_not_starved_by_a_stream_of_readers() {
        let ls = Arc::new(LockSys::new());
        let mut r1 = TrxLocks::default();
        ls.lock(1, &mut r1, k(1), LockMode::S, LockKind::Record, T).unwrap();
        let ls2 = ls.clone();
        let writer = std::thread::spawn(move || {
            let mut w = TrxLocks::default();
            ls2.lock(2, &mut w, k(1), LockMode::X, LockKind::Record, T)
        });
        std::thread::sleep(Duration::from_millis(50));
        // A new reader queues behind the waiting writer.
        let mut r3 = TrxLocks::default();
        assert_eq!(
            ls.lock(3, &mut r3, k(1), LockMode::S, LockKind::Record, Duration::from_millis(50)),
            Err(LockError::Timeout)
        );
        ls.release_all(1, &mut r1);
        assert_eq!(writer.join().unwrap(), Ok(()));
    }
}
