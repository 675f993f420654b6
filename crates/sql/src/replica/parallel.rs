//! The parallel applier (MySQL's multi-threaded replica with
//! `replica_parallel_type=LOGICAL_CLOCK` and
//! `replica_preserve_commit_order=ON`): `replica_parallel_workers`
//! threads apply the source's transactions at once, each in a session of
//! its own, and commit them in the source's order.
//!
//! ```text
//!  relay log ──▶ coordinator ──job (a whole transaction's events)──▶ worker 1..N ──▶ engine
//!                   │ waits for the clock and a free worker       │ apply rows, then wait for
//!                   │ applies DDL and other events itself,        │ the turn; commit in memory,
//!                   │ after every job before them committed       ▼ pass the turn, then sync
//!                   └──────────────────────── [Order] ◀────────────┘
//! ```
//!
//! Scheduling, by the source's logical clock (the GTID event's
//! `last_committed` / `sequence_number`, counted from 1 in each source
//! file): a transaction may start once every transaction numbered up to
//! its `last_committed` has committed here. Those after it committed on
//! the source while it still held its locks, so none of them changed a
//! row it changed. A transaction without a clock waits for all before it.
//!
//! Invariants:
//! 1. Commits happen in relay-log order (the turn: job `n` commits after
//!    job `n - 1` is committed in memory). The applied position each
//!    commit stores (in the same transaction as its rows, as the serial
//!    applier's invariant 1) therefore only moves forward, and what a
//!    crash keeps of the redo log is a prefix of the order: the position
//!    stored is the end of the last transaction kept, with everything
//!    before it.
//! 2. The turn passes after the in-memory commit and before the wait for
//!    durability, so one sync (group commit) covers the transactions
//!    that committed while it ran.
//! 3. A worker waiting for its turn holds its row locks. When an earlier
//!    job waits for a row lock (the replica's row lookups may lock rows
//!    the source's statements did not, e.g. in a table without a primary
//!    key), every later job waiting for its turn rolls back and applies
//!    its transaction again once its turn has come: an earlier job never
//!    waits for a later one for ever.
//! 4. Events that are not part of a transaction (DDL, a source file's
//!    ROTATE and FORMAT_DESCRIPTION, ...), and transactions too large to
//!    hold in memory ([`MAX_JOB_BYTES`]), are applied by the coordinator
//!    after every job before them has committed (a barrier); a new file
//!    starts the clock again.
//! 5. The first error stops everything: later jobs roll back at their
//!    turn, the coordinator returns the error (Last_SQL_Error) and the
//!    stored position stays before the failed transaction.

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use quire_binlog::decode::{self, FLAG_ARTIFICIAL};
use quire_binlog::event::{kind, LogicalClock};
use quire_binlog::Checksum;
use quire_engine::txn::admission::{self, WaitObserver};
use quire_engine::wait::Instrument;

use super::applier::Applier;
use super::info::AppliedPos;
use super::Channel;
use crate::error::{Result, SqlError};

/// How often waits look at STOP REPLICA.
const POLL: Duration = Duration::from_millis(100);

/// A transaction larger than this (its events' bytes) is not held in
/// memory whole: the coordinator applies it itself as it reads it, after
/// a barrier (MySQL bounds its workers' queues with
/// `replica_pending_jobs_size_max`).
const MAX_JOB_BYTES: usize = 16 << 20;

/// One source transaction, whole.
pub(super) struct Job {
    /// Its place in the commit order.
    pub(super) n: u64,
    /// `(event, relay offset just past it)`, from its GTID (or BEGIN) to
    /// its XID (or COMMIT).
    pub(super) events: Vec<(Vec<u8>, u64)>,
    pub(super) clock: Option<LogicalClock>,
    /// The source's commit time (Seconds_Behind_Source).
    pub(super) timestamp: u32,
    pub(super) relay_file: u32,
    pub(super) source_file: String,
    pub(super) checksum: Checksum,
    /// DDL the coordinator applied before it (workers prepare their
    /// statements again when it moves).
    pub(super) generation: u64,
    bytes: usize,
}

impl Job {
    pub(super) fn sequence(&self) -> i64 {
        self.clock.map_or(0, |c| c.sequence_number)
    }
}

/// What a worker waiting for its turn is told.
pub(super) enum Turn {
    Mine,
    /// An earlier job waits for a row lock: roll back (invariant 3).
    Yield,
    /// STOP REPLICA or another job's error.
    Stop,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    dispatched: u64,
    committed: u64,
    /// The sequence number of the last transaction committed, in the
    /// current source file.
    committed_seq: i64,
    /// Source commit times of the jobs dispatched and not committed.
    times: VecDeque<u32>,
    /// Jobs whose worker waits for a row lock.
    lock_waits: BTreeSet<u64>,
    /// The earliest job that failed, and its error.
    failed: Option<(u64, SqlError)>,
    stop: bool,
    /// Jobs that rolled back to let an earlier one go (invariant 3).
    yields: u64,
}

/// The commit order and the queue, shared by the coordinator and the
/// workers.
pub(super) struct Order {
    ch: Arc<Channel>,
    st: Mutex<State>,
    cv: Condvar,
}

impl Order {
    pub(super) fn new(ch: Arc<Channel>) -> Order {
        Order { ch, st: Mutex::new(State::default()), cv: Condvar::new() }
    }

    fn stopped(&self, st: &State) -> bool {
        st.stop || st.failed.is_some() || self.ch.stopping()
    }

    /// Job `n` gives up: STOP, or an earlier job failed (the jobs before
    /// the failed one still commit, invariant 5).
    fn gives_up(&self, st: &State, n: u64) -> bool {
        st.stop || self.ch.stopping() || st.failed.as_ref().is_some_and(|(f, _)| *f < n)
    }

    /// Queues `job` once a worker is free for it and the clock allows it
    /// (the module's scheduling). `Err`: a worker failed.
    fn submit(&self, mut job: Job, workers: usize) -> Result<()> {
        let mut st = self.st.lock();
        loop {
            if let Some((_, e)) = &st.failed {
                return Err(e.clone());
            }
            if self.stopped(&st) {
                return Ok(());
            }
            let in_flight = st.dispatched - st.committed;
            // With nothing in flight everything before has committed
            // (the clock may also have started again at a new relay file
            // whose transactions go on numbering the source file's).
            let clock_allows = in_flight == 0
                || job.clock.is_some_and(|c| c.sequence_number > 0 && st.committed_seq >= c.last_committed);
            if in_flight < workers as u64 && clock_allows {
                break;
            }
            self.cv.wait_for(&mut st, POLL);
        }
        job.n = st.dispatched;
        st.dispatched += 1;
        st.times.push_back(job.timestamp);
        let first = st.times.front().copied();
        st.queue.push_back(job);
        drop(st);
        self.ch.progress.lock().applying_ts = first;
        self.cv.notify_all();
        Ok(())
    }

    /// Waits until every job dispatched has committed (invariant 4).
    /// `Ok(false)`: stopping.
    fn barrier(&self) -> Result<bool> {
        let mut st = self.st.lock();
        loop {
            if let Some((_, e)) = &st.failed {
                return Err(e.clone());
            }
            if self.stopped(&st) {
                return Ok(false);
            }
            if st.dispatched == st.committed {
                return Ok(true);
            }
            self.cv.wait_for(&mut st, POLL);
        }
    }

    /// The coordinator applied a transaction or event itself: the clock
    /// goes on from `seq` (0: a new source file starts it again).
    fn applied_by_coordinator(&self, seq: i64) {
        self.st.lock().committed_seq = seq;
    }

    fn idle(&self) -> bool {
        let st = self.st.lock();
        st.dispatched == st.committed
    }

    /// The next job for a worker; `None` when the applier stops.
    fn take(&self) -> Option<Job> {
        let mut st = self.st.lock();
        loop {
            if self.stopped(&st) {
                return None;
            }
            if let Some(job) = st.queue.pop_front() {
                return Some(job);
            }
            self.cv.wait_for(&mut st, POLL);
        }
    }

    /// Waits for job `n`'s turn to commit; with `may_yield`, answers
    /// [`Turn::Yield`] when an earlier job waits for a row lock.
    pub(super) fn turn(&self, n: u64, may_yield: bool) -> Turn {
        let mut st = self.st.lock();
        loop {
            if self.gives_up(&st, n) {
                return Turn::Stop;
            }
            if st.committed == n {
                return Turn::Mine;
            }
            if may_yield && st.lock_waits.range(..n).next().is_some() {
                st.yields += 1;
                return Turn::Yield;
            }
            self.cv.wait_for(&mut st, POLL);
        }
    }

    /// Job `n` committed in memory with its position `applied`: the turn
    /// passes (invariants 1 and 2).
    pub(super) fn committed(&self, n: u64, seq: i64, applied: AppliedPos) {
        let mut st = self.st.lock();
        debug_assert_eq!(st.committed, n, "commits keep the relay log's order");
        st.committed = n + 1;
        if seq > 0 {
            st.committed_seq = seq;
        }
        st.times.pop_front();
        let next = st.times.front().copied();
        drop(st);
        {
            let mut p = self.ch.progress.lock();
            p.applied = applied;
            p.applying_ts = next;
        }
        self.cv.notify_all();
    }

    /// Job `n` failed (a worker that could not start: 0): nothing more
    /// is dispatched, the jobs before it commit, those after it give up
    /// (invariant 5).
    pub(super) fn fail(&self, n: u64, e: SqlError) {
        let mut st = self.st.lock();
        if st.failed.as_ref().is_none_or(|(f, _)| n < *f) {
            st.failed = Some((n, e));
        }
        drop(st);
        self.cv.notify_all();
        let _p = self.ch.progress.lock();
        self.ch.changed.notify_all();
    }

    fn failure(&self) -> Option<SqlError> {
        self.st.lock().failed.as_ref().map(|(_, e)| e.clone())
    }

    /// The applier ends: after a failure, once the jobs before the failed
    /// one have committed (or given up at STOP); the workers then leave.
    fn stop(&self) {
        let mut st = self.st.lock();
        while let Some((f, _)) = &st.failed {
            if st.committed >= *f || self.ch.stopping() {
                break;
            }
            self.cv.wait_for(&mut st, POLL);
        }
        st.stop = true;
        tracing::info!(
            "replica: the parallel applier stops after {} transactions ({} rolled back once to let an earlier one go)",
            st.committed,
            st.yields
        );
        drop(st);
        self.cv.notify_all();
    }

    fn lock_wait(&self, n: u64, waiting: bool) {
        let mut st = self.st.lock();
        if waiting {
            st.lock_waits.insert(n);
        } else {
            st.lock_waits.remove(&n);
        }
        drop(st);
        self.cv.notify_all();
    }
}

/// Tells the order when a worker's job waits for a row lock.
struct LockWatch {
    order: Arc<Order>,
    job: AtomicU64,
    in_row_wait: AtomicBool,
}

impl WaitObserver for LockWatch {
    fn wait_begin(&self, on: Instrument) {
        if on == Instrument::RowLock {
            self.in_row_wait.store(true, Ordering::Relaxed);
            self.order.lock_wait(self.job.load(Ordering::Relaxed), true);
        }
    }

    fn wait_end(&self) {
        if self.in_row_wait.swap(false, Ordering::Relaxed) {
            self.order.lock_wait(self.job.load(Ordering::Relaxed), false);
        }
    }
}

/// A worker's life: jobs until the applier stops.
pub(super) fn work(mut a: Applier<'_>, order: &Arc<Order>) {
    let watch = Arc::new(LockWatch { order: Arc::clone(order), job: AtomicU64::new(0), in_row_wait: false.into() });
    admission::observe_waits(Some(watch.clone() as Arc<dyn WaitObserver>));
    a.s.process.set_state("Waiting for an event from Coordinator");
    while let Some(job) = order.take() {
        watch.job.store(job.n, Ordering::Relaxed);
        a.s.process.set_state("Applying batch of row changes");
        if let Err(e) = a.run_job(&job, order) {
            let _ = a.abandon();
            order.fail(job.n, e);
        }
        a.s.process.set_state("Waiting for an event from Coordinator");
    }
    let _ = a.abandon();
    admission::observe_waits(None);
}

/// The coordinator's side: routes each event read from the relay log.
pub(super) struct Dispatcher {
    order: Arc<Order>,
    workers: usize,
    job: Option<Job>,
    /// DDL applied so far.
    generation: u64,
    /// The sequence number of the transaction the coordinator applies
    /// itself, if any.
    own_seq: i64,
}

impl Dispatcher {
    pub(super) fn new(order: Arc<Order>, workers: usize) -> Dispatcher {
        Dispatcher { order, workers, job: None, generation: 0, own_seq: 0 }
    }

    /// `Err` when a worker failed.
    pub(super) fn check(&self) -> Result<()> {
        self.order.failure().map_or(Ok(()), Err)
    }

    /// No job in flight (Seconds_Behind_Source may read 0).
    pub(super) fn idle(&self) -> bool {
        self.job.is_none() && self.order.idle()
    }

    pub(super) fn stop(&self) {
        self.order.stop();
    }

    /// One event of the relay log, `end` the offset past it.
    pub(super) fn route(&mut self, a: &mut Applier<'_>, ev: Vec<u8>, end: u64) -> Result<()> {
        if a.in_trx {
            // A transaction the coordinator applies itself (below).
            return self.apply_here(a, &ev, end);
        }
        let h = decode::header(&ev).map_err(|e| super::applier::relay_error(e.0))?;
        let artificial_rotate =
            h.type_code == kind::ROTATE && h.flags & FLAG_ARTIFICIAL != 0 && h.server_id != a.ch.server_id;
        if self.job.is_some() {
            if artificial_rotate {
                // A new connection sends the transaction again, whole.
                self.job = None;
                return self.apply_after_barrier(a, &ev, end);
            }
            let ends = match h.type_code {
                kind::XID => true,
                kind::QUERY => {
                    let sql = query_text(a, &ev)?;
                    if sql.eq_ignore_ascii_case("COMMIT") {
                        true
                    } else if sql.eq_ignore_ascii_case("BEGIN") {
                        false
                    } else {
                        // DDL (or what else a QUERY holds): the
                        // coordinator applies the whole transaction.
                        return self.apply_job_here(a, &ev, end);
                    }
                }
                _ => false,
            };
            let job = self.job.as_mut().expect("checked");
            if !ends && job.bytes + ev.len() > MAX_JOB_BYTES {
                return self.apply_job_here(a, &ev, end);
            }
            job.bytes += ev.len();
            job.events.push((ev, end));
            if ends {
                let mut job = self.job.take().expect("checked");
                job.relay_file = a.file;
                job.source_file = a.source_file.clone();
                job.generation = self.generation;
                self.order.submit(job, self.workers)?;
            }
            return Ok(());
        }
        let clock = match h.type_code {
            kind::GTID | kind::ANONYMOUS_GTID => Some(quire_binlog::event::clock_of(a.body(&ev))),
            kind::TABLE_MAP | kind::WRITE_ROWS | kind::UPDATE_ROWS | kind::DELETE_ROWS => None,
            kind::QUERY if query_text(a, &ev)?.eq_ignore_ascii_case("BEGIN") => None,
            _ => {
                let new_file = matches!(h.type_code, kind::ROTATE | kind::FORMAT_DESCRIPTION);
                self.own_seq = 0;
                self.apply_after_barrier(a, &ev, end)?;
                if new_file {
                    self.order.applied_by_coordinator(0);
                }
                return Ok(());
            }
        };
        self.job = Some(Job {
            n: 0,
            bytes: ev.len(),
            events: vec![(ev, end)],
            clock: clock.flatten(),
            timestamp: h.timestamp,
            relay_file: a.file,
            source_file: String::new(),
            checksum: a.checksum,
            generation: 0,
        });
        Ok(())
    }

    /// The coordinator applies the transaction gathered so far, then `ev`
    /// (the rest of the transaction follows through [`Dispatcher::route`]'s
    /// first branch).
    fn apply_job_here(&mut self, a: &mut Applier<'_>, ev: &[u8], end: u64) -> Result<()> {
        let job = self.job.take().expect("a job is open");
        if !self.order.barrier()? {
            return Ok(());
        }
        self.own_seq = job.sequence();
        for (e, at) in &job.events {
            a.apply(e, *at)?;
        }
        self.apply_here(a, ev, end)
    }

    fn apply_after_barrier(&mut self, a: &mut Applier<'_>, ev: &[u8], end: u64) -> Result<()> {
        if !self.order.barrier()? {
            return Ok(());
        }
        self.apply_here(a, ev, end)
    }

    /// Applies `ev` in the coordinator's session; when that ends what it
    /// applied, the clock goes on from it. Tables may have changed: the
    /// workers prepare their statements again.
    fn apply_here(&mut self, a: &mut Applier<'_>, ev: &[u8], end: u64) -> Result<()> {
        a.apply(ev, end)?;
        self.generation += 1;
        if !a.in_trx && self.own_seq > 0 {
            self.order.applied_by_coordinator(self.own_seq);
            self.own_seq = 0;
        }
        Ok(())
    }
}

fn query_text(a: &Applier<'_>, ev: &[u8]) -> Result<String> {
    decode::query(a.body(ev))
        .map(|q| q.sql.to_string())
        .map_err(|e| super::applier::relay_error(format!("a malformed event in the relay log: {e}")))
}
