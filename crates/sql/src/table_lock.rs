//! LOCK TABLES / UNLOCK TABLES: server-wide table locks held by sessions.
//!
//! One table (`Shared::table_locks`) maps `db/table` to the connections
//! holding it READ and the one holding it WRITE. A session's LOCK TABLES
//! takes every lock it names at once (all or none, so two LOCK TABLES
//! cannot deadlock on each other) and keeps the list in
//! [`Session::table_locks`]; the previous list goes first, after an
//! implicit commit, as MySQL's `LOCK TABLES` does.
//!
//! Invariants:
//! 1. `holders` is the number of sessions with a non-empty list; while it
//!    is 0 the table is empty and no statement looks at it. That is the
//!    whole cost for a server where nobody locks tables: one relaxed
//!    atomic load and a branch per statement (`Session::execute_inner`).
//! 2. A table has a writer or readers, never both from two sessions:
//!    READ is compatible with READ, WRITE with nothing held by another.
//!
//! What a statement may do (`admit`):
//! - in the holding session: use only the tables it locked, under the
//!   names it locked them (an alias must be used as it was locked: 1100
//!   "Table 'x' was not locked with LOCK TABLES"), and write only those it
//!   locked WRITE (1099);
//! - in any other session: read a table nobody holds WRITE, write one
//!   nobody holds at all; otherwise it waits (before it runs, holding
//!   nothing of the statement's) until the lock goes, at most
//!   `lock_wait_timeout` seconds (1205), and KILL ends the wait (1317).
//!
//! Released by UNLOCK TABLES, START TRANSACTION / BEGIN (MySQL's implicit
//! unlock), the next LOCK TABLES, COM_RESET_CONNECTION and disconnect.
//! Not done (said in docs/ARCHITECTURE.md): LOCK TABLES does not wait for
//! statements or transactions of other sessions already running on the
//! table (MySQL's metadata locks would make it wait; here their row locks
//! still order conflicting writes, and reads under the lock see committed
//! data only); `db.table` in LOCK TABLES does not parse (sqlparser takes
//! one identifier).
//!
//! A view in LOCK TABLES (MySQL's pre-locking, as MariaDB 10.11 does it):
//! the view, and every table and view its definition reads, are locked
//! under their own names, so each is usable directly too; for a WRITE
//! lock the tables are locked WRITE only when the view reads one table
//! (the updatable kind), READ otherwise. Inside a view, a table is
//! admitted by any lock of the session on it (`TableUse::via_view`).
//!
//! The global read lock (FLUSH TABLES WITH READ LOCK, `lock_tables.rs`)
//! lives in the same state: `global` lists the sessions holding it (it is
//! shared: several sessions may hold it), and each holder counts in
//! `holders` (invariant 1 holds: the same single load guards it). While
//! another session holds it, a statement that writes (DML on a base
//! table, DDL, account changes) waits as for a table lock; its holder's
//! own writes fail with 1223, and a COMMIT of a transaction with changes
//! made before it waits too (`Session::wait_for_commit_lock`). Taking it waits until no other session
//! holds a WRITE table lock; the caller then waits for the statements
//! already running (`Session::flush_tables_with_read_lock`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Result, SqlError};

/// The process-list state of a statement waiting for the global read
/// lock (MySQL's name).
pub const WAITING_FOR_GRL: &str = "Waiting for global read lock";

/// The process-list state of a COMMIT held back by another session's
/// global read lock (MySQL's name).
pub const WAITING_FOR_COMMIT_LOCK: &str = "Waiting for commit lock";

/// The server's table locks.
#[derive(Default)]
pub struct TableLocks {
    /// Sessions holding a LOCK TABLES list, plus sessions holding the
    /// global read lock (invariant 1).
    holders: AtomicUsize,
    held: Mutex<Held>,
    freed: Condvar,
}

#[derive(Default)]
struct Held {
    /// `db/table` -> who holds it.
    tables: HashMap<String, Holders>,
    /// Sessions holding the global read lock.
    global: Vec<u32>,
}

impl Held {
    /// Whether another session than `me` holds the global read lock.
    fn global_by_other(&self, me: u32) -> bool {
        self.global.iter().any(|&g| g != me)
    }
}

#[derive(Default)]
struct Holders {
    readers: Vec<u32>,
    writer: Option<u32>,
}

impl Holders {
    fn admits(&self, me: u32, write: bool) -> bool {
        let writer_ok = self.writer.is_none_or(|w| w == me);
        writer_ok && (!write || self.readers.iter().all(|&r| r == me))
    }
}

/// One table of a session's LOCK TABLES list.
#[derive(Clone, Debug)]
pub struct Locked {
    pub db: String,
    pub table: String,
    /// The name statements must use: the alias, else the table's name.
    pub name: String,
    pub write: bool,
}

/// A table a statement uses, as compiled: where, under which name, and
/// whether it writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableUse {
    pub db: String,
    /// The table's name, or a view's: a view is used under its name and
    /// must be locked itself.
    pub table: String,
    pub name: String,
    pub write: bool,
    /// Read inside a view's definition (under the view's own aliases):
    /// admitted by any lock of the session on the table.
    pub via_view: bool,
}

fn key(db: &str, table: &str) -> String {
    format!("{db}/{table}")
}

fn timeout() -> SqlError {
    SqlError::new(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction")
}

impl TableLocks {
    /// Whether any session holds table locks (invariant 1).
    #[inline]
    pub fn active(&self) -> bool {
        self.holders.load(Ordering::Relaxed) != 0
    }

    /// Takes every lock of `list` for `me` at once, waiting until all are
    /// free of conflicting holders or `wait` has passed (1205);
    /// `interrupted` is asked every 100 ms (KILL).
    pub fn acquire(
        &self,
        me: u32,
        list: &[Locked],
        wait: Duration,
        interrupted: &dyn Fn() -> Result<()>,
    ) -> Result<()> {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock();
        let writes = list.iter().any(|l| l.write);
        loop {
            let free =
                list.iter().all(|l| held.tables.get(&key(&l.db, &l.table)).is_none_or(|h| h.admits(me, l.write)));
            if free && !(writes && held.global_by_other(me)) {
                for l in list {
                    let h = held.tables.entry(key(&l.db, &l.table)).or_default();
                    if l.write {
                        h.writer = Some(me);
                    } else {
                        h.readers.push(me);
                    }
                }
                self.holders.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            self.wait(&mut held, deadline, interrupted)?;
        }
    }

    /// Gives back every lock of `list` (taken by [`Self::acquire`]).
    pub fn release(&self, me: u32, list: &[Locked]) {
        let mut held = self.held.lock();
        for l in list {
            let k = key(&l.db, &l.table);
            let Some(h) = held.tables.get_mut(&k) else { continue };
            if l.write && h.writer == Some(me) {
                h.writer = None;
            } else if let Some(i) = h.readers.iter().position(|&r| r == me) {
                h.readers.swap_remove(i);
            }
            if h.writer.is_none() && h.readers.is_empty() {
                held.tables.remove(&k);
            }
        }
        self.holders.fetch_sub(1, Ordering::Relaxed);
        self.freed.notify_all();
    }

    /// How many table locks each table (`db/table`) has: one per entry of
    /// a holder's LOCK TABLES list (a table locked under two aliases
    /// counts twice), as MySQL counts a session's TABLE instances in use
    /// (SHOW OPEN TABLES' In_use). Empty, without taking the mutex, while
    /// nobody holds table locks (invariant 1).
    pub fn held_counts(&self) -> HashMap<String, u64> {
        if !self.active() {
            return HashMap::new();
        }
        let held = self.held.lock();
        held.tables.iter().map(|(k, h)| (k.clone(), h.readers.len() as u64 + u64::from(h.writer.is_some()))).collect()
    }

    /// A statement of a session holding no table locks: waits until
    /// every table it uses admits it and, if it `writes`, until no other
    /// session holds the global read lock (module note).
    pub fn wait_for(
        &self,
        me: u32,
        uses: &[TableUse],
        writes: bool,
        wait: Duration,
        interrupted: &dyn Fn() -> Result<()>,
    ) -> Result<()> {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock();
        loop {
            let tables_free =
                uses.iter().all(|u| held.tables.get(&key(&u.db, &u.table)).is_none_or(|h| h.admits(me, u.write)));
            if tables_free && !(writes && held.global_by_other(me)) {
                return Ok(());
            }
            self.wait(&mut held, deadline, interrupted)?;
        }
    }

    /// Whether another session than `me` holds the global read lock (the
    /// caller tested [`Self::active`]).
    pub fn global_by_other(&self, me: u32) -> bool {
        self.held.lock().global_by_other(me)
    }

    /// Takes the global read lock for `me`: waits until no other session
    /// holds a WRITE table lock (1205 after `wait`; KILL ends the wait).
    pub fn acquire_global(&self, me: u32, wait: Duration, interrupted: &dyn Fn() -> Result<()>) -> Result<()> {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock();
        loop {
            if !held.tables.values().any(|h| h.writer.is_some_and(|w| w != me)) {
                held.global.push(me);
                self.holders.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            self.wait(&mut held, deadline, interrupted)?;
        }
    }

    /// Gives back `me`'s global read lock.
    pub fn release_global(&self, me: u32) {
        let mut held = self.held.lock();
        if let Some(i) = held.global.iter().position(|&g| g == me) {
            held.global.swap_remove(i);
            self.holders.fetch_sub(1, Ordering::Relaxed);
        }
        self.freed.notify_all();
    }

    fn wait(
        &self,
        held: &mut parking_lot::MutexGuard<'_, Held>,
        deadline: Instant,
        interrupted: &dyn Fn() -> Result<()>,
    ) -> Result<()> {
        let now = Instant::now();
        if now >= deadline {
            return Err(timeout());
        }
        // Woken when a lock is freed; at least every 100 ms for KILL.
        quire_engine::txn::admission::blocking(quire_engine::wait::Instrument::MetadataLock, || {
            self.freed.wait_until(held, deadline.min(now + Duration::from_millis(100)))
        });
        parking_lot::MutexGuard::unlocked(held, interrupted)
    }
}

/// A statement of the session holding `list`: 1100 for a table it did not
/// lock under the name used, 1099 for a write to a READ-locked one.
/// A table a view reads is admitted by any lock on it, the strongest
/// counting (`TableUse::via_view`); a table named directly needs a lock
/// under that name (the strongest, when a view locked it too).
pub fn admit(list: &[Locked], uses: &[TableUse]) -> Result<()> {
    for u in uses {
        let mut on_table =
            list.iter().filter(|l| l.db == u.db && l.table == u.table && (u.via_view || l.name == u.name));
        let first = on_table.next();
        let l = first.map(|f| on_table.find(|l| l.write).unwrap_or(f));
        let Some(l) = l else {
            return Err(not_locked(&u.name));
        };
        if u.write && !l.write {
            return Err(SqlError::new(
                1099,
                "HY000",
                format!("Table '{}' was locked with a READ lock and can't be updated", u.name),
            ));
        }
    }
    Ok(())
}

pub fn not_locked(name: &str) -> SqlError {
    SqlError::new(1100, "HY000", format!("Table '{name}' was not locked with LOCK TABLES"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(t: &str, write: bool) -> Locked {
        Locked { db: "d".into(), table: t.into(), name: t.into(), write }
    }

    fn use_(t: &str, write: bool) -> TableUse {
        TableUse { db: "d".into(), table: t.into(), name: t.into(), write, via_view: false }
    }

    const NOW: Duration = Duration::ZERO;

    #[test]
    fn read_locks_share_write_locks_exclude() {
        let l = TableLocks::default();
        let ok = || Ok(());
        assert!(!l.active());
        l.acquire(1, &[lock("t", false)], NOW, &ok).unwrap();
        l.acquire(2, &[lock("t", false)], NOW, &ok).unwrap();
        assert_eq!(l.acquire(3, &[lock("t", true)], NOW, &ok).unwrap_err().code, 1205);
        assert!(l.wait_for(3, &[use_("t", false)], false, NOW, &ok).is_ok());
        assert_eq!(l.wait_for(3, &[use_("t", true)], true, NOW, &ok).unwrap_err().code, 1205);
        l.release(1, &[lock("t", false)]);
        l.release(2, &[lock("t", false)]);
        assert!(!l.active());
        l.acquire(3, &[lock("t", true)], NOW, &ok).unwrap();
        assert_eq!(l.wait_for(4, &[use_("t", false)], false, NOW, &ok).unwrap_err().code, 1205);
        assert!(l.wait_for(3, &[use_("t", true)], true, NOW, &ok).is_ok(), "the holder itself is admitted");
        assert!(l.wait_for(4, &[use_("u", true)], true, NOW, &ok).is_ok(), "other tables are free");
        l.release(3, &[lock("t", true)]);
        assert!(l.held.lock().tables.is_empty());
    }

    #[test]
    fn all_or_nothing_acquisition_takes_nothing_when_one_table_is_busy() {
        let l = TableLocks::default();
        let ok = || Ok(());
        l.acquire(1, &[lock("b", true)], NOW, &ok).unwrap();
        assert!(l.acquire(2, &[lock("a", true), lock("b", false)], NOW, &ok).is_err());
        assert!(l.wait_for(3, &[use_("a", true)], true, NOW, &ok).is_ok(), "a was not taken");
    }

    #[test]
    fn the_global_read_lock_stops_other_sessions_writes_only() {
        let l = TableLocks::default();
        let ok = || Ok(());
        l.acquire(1, &[lock("t", true)], NOW, &ok).unwrap();
        assert_eq!(l.acquire_global(2, NOW, &ok).unwrap_err().code, 1205, "waits for a WRITE table lock");
        l.release(1, &[lock("t", true)]);
        assert!(!l.active());
        l.acquire_global(2, NOW, &ok).unwrap();
        l.acquire_global(3, NOW, &ok).unwrap();
        assert!(l.active(), "one load still guards every statement");
        assert!(l.wait_for(4, &[use_("t", false)], false, NOW, &ok).is_ok(), "reads go on");
        assert_eq!(l.wait_for(4, &[], true, NOW, &ok).unwrap_err().code, 1205, "DDL waits");
        assert_eq!(l.wait_for(4, &[use_("t", true)], true, NOW, &ok).unwrap_err().code, 1205);
        assert_eq!(l.acquire(4, &[lock("t", true)], NOW, &ok).unwrap_err().code, 1205);
        assert!(l.acquire(4, &[lock("t", false)], NOW, &ok).is_ok(), "READ table locks are compatible");
        l.release(4, &[lock("t", false)]);
        l.release_global(2);
        assert!(l.global_by_other(2), "3 still holds it");
        l.release_global(3);
        assert!(!l.active());
        assert!(l.wait_for(4, &[use_("t", true)], true, NOW, &ok).is_ok());
    }

    #[test]
    fn the_holder_may_use_only_what_it_locked_under_the_name_it_used() {
        let list = [lock("t", false), Locked { name: "x".into(), ..lock("u", true) }];
        assert!(admit(&list, &[use_("t", false)]).is_ok());
        assert_eq!(admit(&list, &[use_("t", true)]).unwrap_err().code, 1099);
        assert_eq!(admit(&list, &[use_("u", false)]).unwrap_err().code, 1100);
        assert!(admit(&list, &[TableUse { name: "x".into(), ..use_("u", true) }]).is_ok());
        assert_eq!(admit(&list, &[use_("v", false)]).unwrap_err().code, 1100);
    }

    #[test]
    fn tables_a_view_reads_are_admitted_by_any_lock_the_strongest_counting() {
        let list = [lock("v", false), lock("p", false), lock("c", true)];
        let inside =
            |t: &str, name: &str, write: bool| TableUse { name: name.into(), via_view: true, ..use_(t, write) };
        assert!(admit(&list, &[use_("v", false), inside("p", "alias", false), inside("c", "c", true)]).is_ok());
        assert_eq!(admit(&list, &[inside("p", "p", true)]).unwrap_err().code, 1099);
        assert_eq!(admit(&list, &[inside("q", "q", false)]).unwrap_err().code, 1100);
        let both = [lock("p", false), lock("p", true)];
        assert!(admit(&both, &[inside("p", "p", true)]).is_ok(), "the strongest lock counts");
        assert!(admit(&both, &[use_("p", true)]).is_ok());
    }
}
