//! Transactions as tables use them: [`TxnSys`] (the engine-wide parts:
//! ids and views, the lock system, the rollback segment, the history list,
//! the tables by space id for rollback and purge) and [`Trx`] (one
//! transaction: its id, locks, undo log and read view).
//!
//! Life of a transaction (states of [`Trx`]):
//! ```text
//!  idle ──first read──▶ reading (view only; id 0; a listed
//!                              transaction is registered read-only with
//!                              its view: `set_listed`)
//!  idle/reading ──first write (start_rw)──▶ writing (id, undo log)
//!  any ──commit()──▶ idle      undo marked committed → history; locks
//!                              released; then the log is flushed as
//!                              innodb_flush_log_at_trx_commit asks
//!                              (the two halves apart: commit_in_memory,
//!                              recording a binary log position, then
//!                              wait_durable, for the binary log's
//!                              ordered commit)
//!  any ──rollback()──▶ idle    undo applied newest first; log marked
//!                              rolled back → history; locks released
//!  writing ──deadlock victim──▶ idle (rolled back; the caller gets 1213)
//! ```
//! A `Trx` is reusable: after commit or rollback it is a new transaction.
//!
//! Invariants:
//! 1. A transaction's id is handed out only after the persisted id mark
//!    (system header) lies above it, so ids are never reused across
//!    restarts (a reused id would make old records look uncommitted).
//! 2. A record changed by a transaction stays X-locked by it until it
//!    ends, so only its owner (and purge, which takes the same lock)
//!    changes a row's latest version.
//! 3. Undo logs are freed only by purge, once every view sees their
//!    transaction: a roll pointer a reader may follow always names a live
//!    record.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};

use super::Table;
use crate::buffer::BufferPool;
use crate::log::RedoLog;
use crate::space;
use crate::txn::interrupt::Interrupt;
use crate::txn::lock::{LockError, LockKey, LockKind, LockMode, LockSys, TrxLocks};
use crate::txn::purge::History;
use crate::txn::record::UndoRec;
use crate::txn::rsegs::RollbackSegments;
use crate::txn::trx_info::{wall_ms, TrxCounters, TrxInfo};
use crate::txn::undo::{self, BinlogPos, RollPtr, UndoLog, STATE_ROLLED_BACK};
use crate::txn::view::{ReadView, TrxSys, ViewHandle};
use crate::txn::{Isolation, TrxId};
use crate::{Error, Lsn, Result, SYSTEM_SPACE};

/// System header field: ids below this may have been handed out.
pub(crate) const SYS_TRX_ID_MARK: usize = 72;
/// How far the persisted mark moves at a time.
const ID_MARK_STEP: u64 = 4096;

/// The engine-wide transaction system.
pub struct TxnSys {
    pub(crate) pool: Arc<BufferPool>,
    pub(crate) log: Arc<RedoLog>,
    pub trx_sys: Arc<TrxSys>,
    pub locks: LockSys,
    pub(crate) rseg: RollbackSegments,
    pub history: Arc<History>,
    /// Tables by space id (rollback and purge find tables through it).
    tables: RwLock<HashMap<u32, Arc<Table>>>,
    /// `innodb_lock_wait_timeout` in milliseconds.
    pub lock_wait_timeout_ms: AtomicU64,
    /// `innodb_max_purge_lag` (history length; 0 = no delay).
    pub max_purge_lag: AtomicU64,
    /// `innodb_max_purge_lag_delay` in microseconds (0 = no cap).
    pub max_purge_lag_delay_us: AtomicU64,
    /// Writes delayed because purge was behind, and the time spent so.
    pub purge_lag_delays: crate::sync::Counter,
    pub purge_lag_delay_us: crate::sync::Counter,
    /// The persisted id mark (invariant 1).
    id_mark: Mutex<u64>,
    id_mark_fast: AtomicU64,
    /// The hidden row ids of tables without a usable key.
    pub(crate) row_ids: super::row_id::RowIdCounter,
    /// Held shared by whoever follows roll pointers outside a read view
    /// (rollback and purge deciding whether a secondary entry is still
    /// needed); taken and dropped exclusively by purge before it frees undo
    /// logs, as a barrier (`table/purge.rs`).
    pub(crate) free_latch: RwLock<()>,
    pub(crate) shutting_down: AtomicBool,
    /// `innodb_thread_concurrency`'s seats (`txn/admission.rs`).
    pub admission: Arc<crate::txn::admission::Gate>,
    /// Rows read and written, transactions ended (`txn/trx_info.rs`).
    pub counters: TrxCounters,
    /// Where changes to leaves not in the pool may go (`ibuf/mod.rs`).
    pub(crate) ibuf: Arc<crate::ibuf::ChangeBuffer>,
}

/// The smallest cap `TxnSys::wait_for_purge` puts on the purge lag.
const MIN_LAG_CAP: usize = 64;

impl TxnSys {
    pub(crate) fn new(
        pool: Arc<BufferPool>,
        log: Arc<RedoLog>,
        rseg: RollbackSegments,
        id_mark: u64,
        row_id_mark: u64,
        ibuf: Arc<crate::ibuf::ChangeBuffer>,
        cfg: &crate::EngineConfig,
    ) -> Self {
        let trx_sys = Arc::new(TrxSys::new(id_mark));
        let locks = LockSys::new();
        locks.detect_deadlocks.store(cfg.deadlock_detect, Ordering::Relaxed);
        Self {
            pool,
            log,
            history: trx_sys.history().clone(),
            trx_sys,
            locks,
            rseg,
            tables: RwLock::new(HashMap::new()),
            lock_wait_timeout_ms: AtomicU64::new(cfg.lock_wait_timeout.as_millis() as u64),
            max_purge_lag: AtomicU64::new(cfg.max_purge_lag),
            max_purge_lag_delay_us: AtomicU64::new(cfg.max_purge_lag_delay_us),
            purge_lag_delays: Default::default(),
            purge_lag_delay_us: Default::default(),
            id_mark: Mutex::new(id_mark),
            id_mark_fast: AtomicU64::new(id_mark),
            row_ids: super::row_id::RowIdCounter::new(row_id_mark),
            free_latch: RwLock::new(()),
            shutting_down: AtomicBool::new(false),
            admission: Default::default(),
            counters: TrxCounters::default(),
            ibuf,
        }
    }

    pub(crate) fn register(&self, t: &Arc<Table>) {
        self.tables.write().insert(t.space_id(), t.clone());
    }

    pub(crate) fn unregister(&self, space_id: u32) {
        self.tables.write().remove(&space_id);
    }

    /// Drops the table references (shutdown: tables refer back here).
    pub(crate) fn clear_tables(&self) {
        self.tables.write().clear();
    }

    pub(crate) fn table(&self, space_id: u32) -> Option<Arc<Table>> {
        self.tables.read().get(&space_id).cloned()
    }

    fn lock_wait_timeout(&self) -> Duration {
        Duration::from_millis(self.lock_wait_timeout_ms.load(Ordering::Relaxed))
    }

    /// Holds a transaction about to write while purge is behind: while
    /// more than `innodb_max_purge_lag` undo logs are purgeable, wait for
    /// purge to bring them down, at most a time set by the measured purge
    /// rate, the number of writers held and the excess over the lag (see
    /// the body), and never more than `innodb_max_purge_lag_delay`. The
    /// admission rate then follows purge's (InnoDB's delay grows with the
    /// ratio, blind to the rate); a backlog just over the lag — such as
    /// the one the read views of a burst of read-write transactions leave
    /// when they close — slows a lone writer by a fraction of a
    /// millisecond instead of stopping it for the whole cap. History an
    /// open read view pins is not counted: purge could not shorten it.
    ///
    /// The lag is capped at 1/8 of the buffer pool's pages (at least
    /// `MIN_LAG_CAP`, for toy pools): every undo log
    /// in the history holds at least a page, and a history larger than the
    /// pool can keep is evicted before purge reads it back — purge then
    /// waits on the disk and falls further behind.
    fn wait_for_purge(&self) {
        let lag =
            (self.max_purge_lag.load(Ordering::Relaxed) as usize).min((self.pool.frames_total() / 8).max(MIN_LAG_CAP));
        if lag == 0 || self.history.purgeable() <= lag {
            return;
        }
        self.purge_lag_delays.inc();
        let start = std::time::Instant::now();
        let cap = match self.max_purge_lag_delay_us.load(Ordering::Relaxed) {
            0 => self.lock_wait_timeout(),
            us => Duration::from_micros(us),
        };
        // Writers get through at purge's pace, a little slower the further
        // the backlog is over the lag: each of the W writers held waits
        // W / rate (then W of them add W logs while purge frees as many),
        // times (1 + excess). One writer behind a burst's backlog waits
        // well under a millisecond per transaction; a thousand wait as
        // long as purge needs for their logs.
        let excess = self.history.purgeable().saturating_sub(lag) as f64 / lag as f64;
        let writers = (self.history.lag_waiters() + 1) as f64;
        let rate = self.history.purge_rate().max(1.0);
        let delay = Duration::from_secs_f64(writers / rate * (1.0 + excess)).clamp(Duration::from_micros(100), cap);
        crate::txn::admission::blocking(crate::wait::Instrument::PurgeLag, || {
            self.history.wait_for_lag(lag, start + delay, &self.shutting_down)
        });
        self.purge_lag_delay_us.add(start.elapsed().as_micros() as u64);
    }

    /// A new transaction id, after the persisted mark is above it.
    /// `listed`: the id it was listed under as read-only, which it leaves.
    fn assign_id(&self, owner: u32, info: Option<Arc<TrxInfo>>, listed: Option<TrxId>) -> Result<TrxId> {
        let id = self.trx_sys.begin_unlisting(owner, info, listed);
        if id < self.id_mark_fast.load(Ordering::Acquire) {
            return Ok(id);
        }
        let mut mark = self.id_mark.lock();
        if id >= *mark {
            let new = id + ID_MARK_STEP;
            if let Err(e) = space::set_owner_fields(&self.pool, SYSTEM_SPACE, &[(SYS_TRX_ID_MARK, &new.to_le_bytes())])
            {
                self.trx_sys.end(id);
                return Err(e);
            }
            *mark = new;
            self.id_mark_fast.store(new, Ordering::Release);
        }
        Ok(id)
    }

    /// `Innodb_history_list_length`.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }
}

/// A transaction. Dropping an active one rolls it back.
pub struct Trx {
    pub(crate) sys: Arc<TxnSys>,
    isolation: Isolation,
    /// 0 until the first write.
    id: TrxId,
    pub(crate) locks: TrxLocks,
    undo: Option<UndoLog>,
    /// Roll pointers of this transaction's undo records, oldest first.
    undo_ptrs: Vec<RollPtr>,
    view: Option<(ReadView, Arc<ViewHandle>)>,
    /// The caller marks statements (`start_statement`): a READ COMMITTED
    /// view lasts for the statement, not for one read call.
    statement_views: bool,
    /// The session's `innodb_lock_wait_timeout` (`None`: the global one).
    lock_wait_timeout: Option<Duration>,
    /// The connection's interrupt: ends row-lock waits early (KILL QUERY,
    /// `max_execution_time`).
    interrupt: Option<Arc<Interrupt>>,
    /// What a lock request that cannot be granted at once does (a locking
    /// read's NOWAIT / SKIP LOCKED, set for that statement only).
    lock_wait: LockWait,
    /// Row changes kept for the binary log (`None`: not kept; see
    /// `table/row_log.rs`).
    pub(super) row_log: Option<super::row_log::RowLog>,
    /// The connection running it (0: none said).
    owner: u32,
    /// When it started (ms since the epoch; 0: at its id).
    started_ms: u64,
    /// `START TRANSACTION READ ONLY` (shown by INNODB_TRX).
    read_only: bool,
    /// The session's `foreign_key_checks` (shown by INNODB_TRX).
    fk_checks: bool,
    /// Statements begun ([`Trx::start_statement`]).
    statement: u64,
    /// The (index, statement) last given to [`TrxInfo::note_index`]:
    /// the lock path takes its mutex only for a new pair.
    last_noted: (u32, u64),
    /// What INNODB_TRX reads, from the id on (`txn/trx_info.rs`), or from
    /// the first read view of a `listed` transaction.
    info: Option<Arc<TrxInfo>>,
    /// A multi-statement transaction ([`Trx::set_listed`]): listed by
    /// INNODB_TRX from its first read view, before it has an id.
    listed: bool,
    /// The id it is listed under while it has none (`view::print_id`;
    /// 0: not listed).
    listed_id: TrxId,
}

/// How a lock request meets a conflicting lock: waits (the default),
/// fails at once (`NOWAIT`: [`Error::LockNowait`]), or gives up the row
/// (`SKIP LOCKED`: [`Error::LockSkipped`], which locking reads turn into
/// skipping it). Insert intention locks always wait.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockWait {
    #[default]
    Wait,
    NoWait,
    SkipLocked,
}

/// A point a transaction can roll back to (a statement's start, or an
/// SQL `SAVEPOINT`): how many undo records the transaction had written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint(usize);

impl Savepoint {
    /// The transaction's start: rolling back to it undoes every change
    /// but ends nothing (a `SAVEPOINT` set before the first write).
    pub const START: Savepoint = Savepoint(0);
}

impl Trx {
    pub(crate) fn new(sys: Arc<TxnSys>, isolation: Isolation) -> Self {
        Self {
            sys,
            isolation,
            id: 0,
            locks: TrxLocks::default(),
            undo: None,
            undo_ptrs: Vec::new(),
            view: None,
            statement_views: false,
            lock_wait_timeout: None,
            interrupt: None,
            lock_wait: LockWait::Wait,
            row_log: None,
            owner: 0,
            started_ms: wall_ms(),
            read_only: false,
            fk_checks: true,
            statement: 0,
            last_noted: (u32::MAX, 0),
            info: None,
            listed: false,
            listed_id: 0,
        }
    }

    /// The transaction's id (0 while it has not written).
    pub fn id(&self) -> TrxId {
        self.id
    }

    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// Changes the isolation level; takes effect for the next transaction
    /// if this one has already read or written.
    pub fn set_isolation(&mut self, level: Isolation) {
        self.isolation = level;
    }

    /// Sets this transaction's lock wait timeout (a session's
    /// `innodb_lock_wait_timeout`).
    pub fn set_lock_wait_timeout(&mut self, t: Duration) {
        self.lock_wait_timeout = Some(t);
    }

    /// Sets what the following lock requests do when they would wait
    /// (the caller puts back [`LockWait::Wait`] after the statement).
    pub fn set_lock_wait(&mut self, w: LockWait) {
        self.lock_wait = w;
    }

    /// Lets `i` end this transaction's row-lock waits
    /// ([`Error::Interrupted`]).
    pub fn set_interrupt(&mut self, i: Arc<Interrupt>) {
        self.interrupt = Some(i);
    }

    /// The connection that runs the transaction (listed with it in SHOW
    /// ENGINE INNODB STATUS).
    pub fn set_owner(&mut self, connection_id: u32) {
        self.owner = connection_id;
    }

    /// Marks the transaction `START TRANSACTION READ ONLY` (for
    /// INNODB_TRX; the SQL layer refuses its writes).
    pub fn set_read_only(&mut self, read_only: bool) {
        self.read_only = read_only;
    }

    /// Marks a multi-statement transaction (START TRANSACTION, or
    /// autocommit off): once it opens a read view INNODB_TRX lists it,
    /// read-only, until it ends or takes an id, as InnoDB lists a started
    /// transaction that has only read. A statement's own transaction
    /// (autocommit) is not listed: listing it would cost every autocommit
    /// SELECT an allocation and a map insert under the trx_sys mutex.
    pub fn set_listed(&mut self, listed: bool) {
        self.listed = listed;
    }

    /// The session's `foreign_key_checks` for the statements from now on
    /// (for INNODB_TRX; the SQL layer enforces foreign keys).
    pub fn set_foreign_key_checks(&mut self, on: bool) {
        self.fk_checks = on;
        if let Some(i) = &self.info {
            i.foreign_key_checks.store(on, Ordering::Relaxed);
        }
    }

    /// Whether gap (next-key) locks protect locking reads.
    pub(crate) fn gap_locks(&self) -> bool {
        matches!(self.isolation, Isolation::RepeatableRead | Isolation::Serializable)
    }

    /// Row locks held.
    pub fn lock_count(&self) -> usize {
        self.locks.len()
    }

    /// Whether the transaction has written (has an undo log).
    pub fn is_rw(&self) -> bool {
        self.undo.is_some()
    }

    /// Whether consistent reads return the newest version of each row,
    /// committed or not, instead of consulting a read view (READ
    /// UNCOMMITTED).
    pub(crate) fn reads_uncommitted(&self) -> bool {
        self.isolation == Isolation::ReadUncommitted
    }

    /// A statement begins (the SQL layer calls this): under READ
    /// COMMITTED its consistent reads share one view taken at its first
    /// read, as InnoDB's, so a statement reading several ranges sees one
    /// snapshot. Without it, each read call takes a fresh view.
    pub fn start_statement(&mut self) {
        self.statement_views = true;
        self.statement += 1;
        if let Some(i) = &self.info {
            i.statement.store(self.statement, Ordering::Relaxed);
        }
        if self.isolation == Isolation::ReadCommitted {
            self.view = None;
        }
    }

    /// The view consistent reads use: for REPEATABLE READ and SERIALIZABLE
    /// the one taken at the first read; for READ COMMITTED the one taken at
    /// the statement's first read ([`Trx::start_statement`]), or a fresh
    /// one per call for callers that do not mark statements. READ
    /// UNCOMMITTED reads use no view (`reads_uncommitted`).
    pub(crate) fn read_view(&mut self) -> (ReadView, Arc<ViewHandle>) {
        debug_assert!(!self.reads_uncommitted(), "READ UNCOMMITTED reads take no view");
        let fresh = self.isolation == Isolation::ReadCommitted && !self.statement_views;
        if fresh || self.view.is_none() {
            // A listed transaction's first view lists it (in the view's
            // own critical section).
            let list = (self.listed && self.id == 0 && self.listed_id == 0).then(|| self.info());
            let (v, h) = self.sys.trx_sys.open_view_listed(self.id, list.as_ref());
            if let Some(i) = &list {
                self.listed_id = crate::txn::view::print_id(i);
            }
            self.view = Some((v, Arc::new(h)));
        }
        let (v, h) = self.view.as_ref().expect("just set");
        (v.clone(), h.clone())
    }

    /// START TRANSACTION WITH CONSISTENT SNAPSHOT: under REPEATABLE READ
    /// the read view is opened now rather than at the first read, so the
    /// transaction sees exactly what was committed when it started
    /// (InnoDB's `innobase_start_trx_and_assign_read_view`). Under the
    /// other levels nothing happens, as in InnoDB.
    pub fn open_read_view_now(&mut self) {
        if self.isolation == Isolation::RepeatableRead {
            let _ = self.read_view();
        }
    }

    /// The transaction's INNODB_TRX figures, made on first use.
    fn info(&mut self) -> Arc<TrxInfo> {
        if let Some(i) = &self.info {
            return i.clone();
        }
        let started = if self.started_ms == 0 { wall_ms() } else { self.started_ms };
        let i = TrxInfo::new(self.owner, started, self.isolation, self.read_only, self.fk_checks);
        i.statement.store(self.statement, Ordering::Relaxed);
        let i = Arc::new(i);
        self.info = Some(i.clone());
        i
    }

    /// Gives the transaction an id (for locking reads and writes).
    pub(crate) fn ensure_id(&mut self) -> Result<TrxId> {
        if self.id == 0 {
            let info = self.info();
            let listed = std::mem::take(&mut self.listed_id);
            self.id = self.sys.assign_id(self.owner, Some(info), (listed != 0).then_some(listed))?;
            if let Some((v, _)) = self.view.as_mut() {
                v.creator = self.id;
            }
        }
        Ok(self.id)
    }

    /// Makes the transaction read-write: an id and an undo log.
    pub(crate) fn start_rw(&mut self) -> Result<()> {
        if self.undo.is_some() {
            return Ok(());
        }
        self.sys.wait_for_purge();
        // Every slot busy means as many writers as slots are active: wait
        // for one to finish, up to the lock wait timeout, without an id
        // where possible (an active id would hold purge back).
        let deadline = std::time::Instant::now() + self.sys.lock_wait_timeout();
        loop {
            if self.id == 0 && !self.sys.rseg.available() && std::time::Instant::now() < deadline {
                self.sys.history.wake_all();
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            let id = self.ensure_id()?;
            match self.sys.rseg.begin(&self.sys.pool, id) {
                Ok(log) => {
                    self.undo = Some(log);
                    return Ok(());
                }
                Err(Error::UndoSlotsFull) if std::time::Instant::now() < deadline => {
                    if self.locks.is_empty() {
                        // Give the id back while waiting.
                        self.sys.trx_sys.end(id);
                        self.id = 0;
                        if let Some((v, _)) = self.view.as_mut() {
                            v.creator = 0;
                        }
                    }
                    self.sys.history.wake_all();
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Appends an undo record; returns its roll pointer.
    pub(crate) fn append_undo(&mut self, rec: &[u8]) -> Result<RollPtr> {
        let log = self.undo.as_mut().ok_or_else(|| Error::TrxNotActive("no undo log".into()))?;
        let ptr = log.append(&self.sys.pool, rec)?;
        self.undo_ptrs.push(ptr);
        if let Some(i) = &self.info {
            i.rows_modified.store(self.undo_ptrs.len() as u64, Ordering::Relaxed);
        }
        Ok(ptr)
    }

    /// Acquires a row lock, waiting up to `innodb_lock_wait_timeout`. A
    /// deadlock victim gets `Error::Deadlock`; the table method that asked
    /// rolls the transaction back once it has let go of the table
    /// (`Table::end_statement`).
    pub(crate) fn lock(&mut self, key: LockKey, mode: LockMode, kind: LockKind) -> Result<()> {
        let trx = self.lock_owner();
        if self.last_noted != (key.index, self.statement) {
            self.last_noted = (key.index, self.statement);
            if let Some(i) = &self.info {
                i.note_index(key.index, self.statement);
            }
        }
        if self.lock_wait != LockWait::Wait && kind != LockKind::InsertIntention {
            if self.sys.locks.try_lock(trx, &mut self.locks, &key, mode, kind) {
                if let Some(i) = &self.info {
                    i.note_locks(&self.locks);
                }
                return Ok(());
            }
            return Err(if self.lock_wait == LockWait::NoWait { Error::LockNowait } else { Error::LockSkipped });
        }
        let timeout = self.lock_wait_timeout.unwrap_or_else(|| self.sys.lock_wait_timeout());
        let r = self.sys.locks.lock_interruptible(
            trx,
            &mut self.locks,
            key,
            mode,
            kind,
            timeout,
            self.interrupt.as_deref(),
        );
        if let Some(i) = &self.info {
            i.note_locks(&self.locks);
        }
        match r {
            Ok(()) => Ok(()),
            Err(LockError::Timeout) => Err(Error::LockWaitTimeout("try restarting transaction".into())),
            Err(LockError::Deadlock) => Err(Error::Deadlock),
            Err(LockError::Interrupted) => Err(Error::Interrupted),
        }
    }

    /// The id locks are taken under (callers give the transaction an id
    /// first: locks of different transactions must never share one).
    fn lock_owner(&self) -> TrxId {
        debug_assert!(self.id != 0, "a lock taken without a transaction id");
        self.id
    }

    /// How many undo records the transaction has written.
    pub(super) fn undo_count(&self) -> usize {
        self.undo_ptrs.len()
    }

    /// Where the current statement starts (for statement rollback).
    pub fn savepoint(&self) -> Savepoint {
        Savepoint(self.undo_ptrs.len())
    }

    /// Undoes every change made after `sp`; locks are kept (as InnoDB does
    /// when a statement fails, and on ROLLBACK TO SAVEPOINT). The undone
    /// records stay in the log: recovery and purge skip them (the row's
    /// roll pointer names another record), so nothing new is logged.
    pub fn rollback_to(&mut self, sp: Savepoint) -> Result<()> {
        if self.undo_ptrs.len() > sp.0 {
            self.sys.counters.rollbacks_savepoint.inc();
        }
        while self.undo_ptrs.len() > sp.0 {
            let ptr = *self.undo_ptrs.last().expect("non-empty");
            undo_one(&self.sys, self.id, ptr)?;
            self.undo_ptrs.pop();
        }
        if let Some(l) = &mut self.row_log {
            l.truncate_to_undo(sp.0);
        }
        if let Some(i) = &self.info {
            i.rows_modified.store(self.undo_ptrs.len() as u64, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Commits: the changes become visible to views taken from now on and
    /// durable as `innodb_flush_log_at_trx_commit` asks.
    pub fn commit(&mut self) -> Result<()> {
        let lsn = self.commit_in_memory(None)?;
        self.wait_durable(lsn)
    }

    /// The first half of a commit, for a caller that orders commits (the
    /// binary log's commit order): the undo log is marked committed (and,
    /// with `binlog`, that binary log position recorded in the same
    /// mini-transaction, `txn/undo.rs`), the changes become visible and
    /// the locks are released. Returns the LSN that [`Trx::wait_durable`]
    /// then waits for; 0 when the transaction wrote nothing.
    pub fn commit_in_memory(&mut self, binlog: Option<BinlogPos>) -> Result<Lsn> {
        let Some(log) = self.undo.take() else {
            self.sys.counters.ro_commits.inc();
            self.end_read_only();
            return Ok(0);
        };
        if let Err(e) = self.sys.rseg.finish(&self.sys.pool, &log, self.id, undo::STATE_COMMITTED, binlog) {
            self.undo = Some(log);
            return Err(e);
        }
        let lsn = crate::mtr::last_commit_lsn();
        self.sys.counters.rw_commits.inc();
        self.sys.trx_sys.end_into_history(self.id);
        self.sys.locks.release_all(self.id, &mut self.locks);
        self.sys.history.push(log.info(undo::STATE_COMMITTED));
        self.reset();
        Ok(lsn)
    }

    /// The second half of a commit: waits until `lsn` is as durable as
    /// `innodb_flush_log_at_trx_commit` asks (nothing for 0).
    pub fn wait_durable(&self, lsn: Lsn) -> Result<()> {
        if lsn == 0 {
            return Ok(());
        }
        self.sys.log.commit(lsn)
    }

    /// Rolls back every change and releases the locks.
    pub fn rollback(&mut self) -> Result<()> {
        if self.undo.is_some() || self.id != 0 {
            self.sys.counters.rollbacks.inc();
        }
        let Some(log) = self.undo.take() else {
            self.end_read_only();
            return Ok(());
        };
        let undone = (|| {
            while let Some(&ptr) = self.undo_ptrs.last() {
                undo_one(&self.sys, self.id, ptr)?;
                self.undo_ptrs.pop();
            }
            self.sys.rseg.finish(&self.sys.pool, &log, self.id, STATE_ROLLED_BACK, None)
        })();
        if let Err(e) = undone {
            // The log stays active: the next start rolls it back. The row
            // locks stay held so nobody builds on the half-undone rows.
            tracing::error!("rollback of transaction {} failed: {e}", self.id);
            self.undo = None;
            self.undo_ptrs.clear();
            self.view = None;
            self.id = 0;
            self.info = None;
            self.locks = TrxLocks::default();
            if let Some(l) = &mut self.row_log {
                l.clear();
            }
            return Err(e);
        }
        self.sys.trx_sys.end_into_history(self.id);
        self.sys.locks.release_all(self.id, &mut self.locks);
        self.sys.history.push(log.info(STATE_ROLLED_BACK));
        self.reset();
        Ok(())
    }

    /// Ends a transaction that wrote nothing (it may hold locks and an
    /// id, from locking reads).
    fn end_read_only(&mut self) {
        if self.id != 0 {
            self.sys.trx_sys.end(self.id);
            self.sys.locks.release_all(self.id, &mut self.locks);
        }
        self.reset();
    }

    fn reset(&mut self) {
        self.unlist();
        self.id = 0;
        self.info = None;
        self.started_ms = 0;
        self.undo_ptrs.clear();
        self.view = None;
        if let Some(l) = &mut self.row_log {
            l.clear();
        }
    }
}

impl Trx {
    /// Leaves INNODB_TRX's read-only list, if listed.
    fn unlist(&mut self) {
        if self.listed_id != 0 {
            self.sys.trx_sys.unlist_read_only(std::mem::take(&mut self.listed_id));
        }
    }
}

impl Drop for Trx {
    fn drop(&mut self) {
        if self.undo.is_some() || self.id != 0 {
            if let Err(e) = self.rollback() {
                tracing::error!("rollback of a dropped transaction failed: {e}");
            }
        }
        self.unlist();
    }
}

/// Undoes the record at `ptr` of transaction `trx` (rollback, also at
/// recovery). Tolerant: a record whose change never reached the row (the
/// row change failed after the undo was written) is skipped.
pub(crate) fn undo_one(sys: &TxnSys, trx: TrxId, ptr: RollPtr) -> Result<()> {
    let bytes = undo::read(&sys.pool, ptr)?;
    let rec = UndoRec::decode(&bytes).ok_or_else(|| {
        Error::corruption(crate::PageId::new(SYSTEM_SPACE, (ptr >> 16) as u32), "undecodable undo record")
    })?;
    match sys.table(rec.space) {
        // A damaged table opened read-only by innodb_force_recovery is not
        // written, not even to roll back (its file may not take it).
        Some(t) if t.check_writable().is_err() => {
            tracing::warn!("not rolling back a change of transaction {trx} in read-only table '{}'", t.name());
            Ok(())
        }
        Some(t) => t.undo_record(sys, trx, ptr, &rec),
        None => Ok(()), // the table was dropped
    }
}
