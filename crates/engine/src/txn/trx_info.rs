//! What `information_schema.INNODB_TRX` shows of a transaction that
//! another thread may read while it runs ([`TrxInfo`]), and the engine's
//! transaction and row counters ([`TrxCounters`], `Innodb_rows_*` and
//! INNODB_METRICS' `dml_*` / `trx_*`).
//!
//! Cost, on purpose near nothing: a [`TrxInfo`] exists only for a
//! transaction that has an id (it locked or wrote: InnoDB's read-write
//! and locking transactions), created with the id and registered with it
//! in `TrxSys` (one `Arc` clone under the mutex `begin` takes anyway), or
//! for a multi-statement transaction that has read (`Trx::set_listed`),
//! created at its first read view and registered in the critical section
//! that opens the view. Autocommit statements that only read never have
//! one. Its owner updates it with relaxed stores
//! after a lock is granted, an undo record is written or a statement
//! starts; the only mutex, [`TrxInfo::note_index`]'s, is taken the first
//! time a statement locks a key of an index, not per lock. Readers take
//! a snapshot of the atomics: numbers a row shows may be a moment apart
//! from each other, as InnoDB's (its INNODB_TRX cache is refreshed at
//! most every 0.1 s).
//!
//! Invariant: only the transaction's own thread writes a `TrxInfo`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use parking_lot::Mutex;

use super::lock::TrxLocks;
use super::Isolation;
use crate::sync::Counter;

/// A transaction's live figures.
#[derive(Debug)]
pub struct TrxInfo {
    /// The connection running it (0: none said).
    pub owner: u32,
    /// When it started, in milliseconds since the Unix epoch (the engine's
    /// `begin`: the first statement of the transaction).
    pub started_ms: u64,
    pub isolation: Isolation,
    /// `START TRANSACTION READ ONLY`.
    pub read_only: bool,
    /// The session's `foreign_key_checks`, as of the running statement.
    pub foreign_key_checks: AtomicBool,
    /// Undo records written (rows inserted, updated or deleted, less
    /// those a statement or savepoint rollback undid).
    pub rows_modified: AtomicU64,
    /// Row locks held (one per key and kind; InnoDB's lock structs).
    pub lock_structs: AtomicU64,
    /// Of those, locks on a record (not only on the gap before it).
    pub rows_locked: AtomicU64,
    /// Memory the list of held locks takes.
    pub lock_memory_bytes: AtomicU64,
    /// The number of the statement running (or last run).
    pub statement: AtomicU64,
    /// The indexes it has locked keys of (or waits for a key of), each
    /// with the last statement that did.
    indexes: Mutex<Vec<(u32, u64)>>,
}

impl TrxInfo {
    pub(crate) fn new(owner: u32, started_ms: u64, isolation: Isolation, read_only: bool, fk_checks: bool) -> Self {
        Self {
            owner,
            started_ms,
            isolation,
            read_only,
            foreign_key_checks: AtomicBool::new(fk_checks),
            rows_modified: AtomicU64::new(0),
            lock_structs: AtomicU64::new(0),
            rows_locked: AtomicU64::new(0),
            lock_memory_bytes: AtomicU64::new(0),
            statement: AtomicU64::new(0),
            indexes: Mutex::new(Vec::new()),
        }
    }

    /// Statement `statement` asks for a lock on a key of `index`.
    pub(crate) fn note_index(&self, index: u32, statement: u64) {
        let mut v = self.indexes.lock();
        match v.iter_mut().find(|(i, _)| *i == index) {
            Some(e) => e.1 = statement,
            None => v.push((index, statement)),
        }
    }

    /// Mirrors the lock list's counts.
    pub(crate) fn note_locks(&self, locks: &TrxLocks) {
        self.lock_structs.store(locks.len() as u64, Relaxed);
        self.rows_locked.store(locks.records() as u64, Relaxed);
        self.lock_memory_bytes.store(locks.memory_bytes() as u64, Relaxed);
    }

    /// The indexes it has asked locks on, each with whether the statement
    /// running now did.
    pub fn locked_indexes(&self) -> Vec<(u32, bool)> {
        let now = self.statement.load(Relaxed);
        self.indexes.lock().iter().map(|&(i, s)| (i, s == now)).collect()
    }
}

/// Rows read and written, of user tables or of the `mysql` schema's
/// (`Innodb_rows_*` / `Innodb_system_rows_*`, as MySQL 8.0 splits them).
#[derive(Default)]
pub struct RowCounters {
    /// Rows returned by reads.
    pub read: Counter,
    pub inserted: Counter,
    /// Rows changed (an UPDATE that leaves a row as it was is not one).
    pub updated: Counter,
    pub deleted: Counter,
}

/// Engine-wide counters of rows and transaction ends (striped: writers on
/// many cores share no cache line).
#[derive(Default)]
pub struct TrxCounters {
    pub rows: RowCounters,
    pub system_rows: RowCounters,
    /// Transactions that wrote, committed (`trx_rw_commits`).
    pub rw_commits: Counter,
    /// Transactions that wrote nothing, committed (`trx_ro_commits`).
    pub ro_commits: Counter,
    /// Transactions that had locked or written, rolled back
    /// (`trx_rollbacks`).
    pub rollbacks: Counter,
    /// Rollbacks to a savepoint or of a failed statement
    /// (`trx_rollbacks_savepoint`).
    pub rollbacks_savepoint: Counter,
}

/// The wall clock in milliseconds since the Unix epoch, from the kernel's
/// coarse clock (a few nanoseconds: it is read once per transaction, and
/// INNODB_TRX shows whole seconds).
pub(crate) fn wall_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_remember_the_last_statement_that_locked_them() {
        let i = TrxInfo::new(1, 0, Isolation::RepeatableRead, false, true);
        i.statement.store(1, Relaxed);
        i.note_index(7, 1);
        i.note_index(9, 1);
        i.statement.store(2, Relaxed);
        i.note_index(9, 2);
        let mut v = i.locked_indexes();
        v.sort();
        assert_eq!(v, vec![(7, false), (9, true)]);
    }

    #[test]
    fn the_wall_clock_is_after_2020() {
        assert!(wall_ms() > 1_577_836_800_000);
    }
}
