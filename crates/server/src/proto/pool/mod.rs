//! The thread pool (`thread_handling=pool-of-threads`), with MariaDB's
//! design and variables: connections are spread over `thread_pool_size`
//! groups; each group has one epoll set holding its idle connections, a
//! queue of connections with a command to serve, and a few workers. An
//! idle connection costs a socket and its session, not a thread.
//!
//! How a group runs (`group.rs`):
//! - A worker with nothing to do becomes the group's *listener* if it has
//!   none: it waits in `epoll_wait`, queues the connections that became
//!   readable, and then serves the queue itself like any worker. The
//!   others sleep on the group's condition variable.
//! - A worker takes a connection from the queue only while fewer than
//!   `1 + thread_pool_oversubscribe` workers of its group are *active*
//!   (running a command and not blocked), so a group keeps about one
//!   thread per CPU busy and the rest of the work waits in the queue
//!   rather than on latches.
//! - A worker that blocks (a row lock, a page read, the redo log or the
//!   binary log group commit, a full buffer pool, purge lag, a seat of
//!   `innodb_thread_concurrency`, a user or table lock, `SLEEP()`, a slow
//!   client: every wait that goes through the engine's
//!   `admission::blocking`) tells its group (`WaitObserver`); when that
//!   leaves the group with no active worker and work waiting, an idle
//!   worker is woken or a new one started, so the CPUs stay busy.
//! - The timer thread looks at every group each `thread_pool_stall_limit`
//!   ms: a group whose queue did not move since the last look is
//!   *stalled* (a long statement that does not block); it may then run
//!   one more worker beyond the oversubscription limit. The timer also
//!   closes connections idle beyond their `wait_timeout`. A new stall
//!   limit restarts its wait.
//! - Connections inside a transaction are served first
//!   (`thread_pool_priority=auto`, the default; `high`: always first;
//!   `low`: never; each session's own value, as in MariaDB, the global's
//!   before login); a connection that waited in the low queue
//!   longer than `thread_pool_prio_kickup_timer` ms is taken before the
//!   high queue.
//! - A worker idle for `thread_pool_idle_timeout` seconds exits (a group
//!   keeps one). At most `thread_pool_max_threads` workers exist in all.
//! - `SET GLOBAL thread_pool_size` (as MariaDB's): a larger size starts
//!   the missing groups; new connections go to group `id % size`, and a
//!   connection whose group is no longer `id % size` moves there the
//!   next time it is parked. Groups beyond the size keep one worker.
//!
//! Invariants (per group, under its mutex):
//! 1. A connection is in exactly one place: parked (its socket armed in
//!    the epoll set, one-shot), queued, or owned by the worker serving
//!    it. Being one-shot, an armed socket is reported once and is not
//!    armed again until its worker parks it.
//! 2. `active + waiting` is the number of workers holding a connection;
//!    `active` of them are not inside a wait.
//! 3. A parked connection's token names its slot and the slot's
//!    generation, so a report that arrives after the timer took the
//!    connection (or after the slot was reused) is recognised and
//!    dropped.

mod epoll;
mod group;

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use group::Group;
use quire_engine::wait::Instrument;

/// A connection as the pool sees it.
pub trait Client: Send + 'static {
    /// Serves what the client sent: its login on the first call, then
    /// every command that has arrived. `Wait`: park it until it sends
    /// more; `Close`: it ended (and was answered and logged).
    fn serve(&mut self) -> Served;
    /// Its socket.
    fn fd(&self) -> RawFd;
    /// It is inside a transaction (served first under
    /// `thread_pool_priority=auto`).
    fn in_transaction(&self) -> bool;
    /// Its session's `thread_pool_priority` (a session variable, as in
    /// MariaDB); `None` before login, when the global's applies.
    fn priority(&self) -> Option<Priority>;
    /// How long it may stay idle (`wait_timeout`).
    fn idle_timeout(&self) -> Option<Duration>;
    /// It stayed idle beyond [`Client::idle_timeout`]: the next
    /// [`Client::serve`] ends it as a read timeout.
    fn time_out(&mut self);
}

/// What became of a connection a worker served.
#[derive(Debug, PartialEq, Eq)]
pub enum Served {
    Wait,
    Close,
}

/// `thread_pool_priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Priority {
    High = 0,
    Low = 1,
    Auto = 2,
}

impl Priority {
    /// Any case; allocates nothing (a pooled connection's priority is
    /// read each time it is queued).
    pub fn parse(s: &str) -> Option<Priority> {
        [("high", Priority::High), ("low", Priority::Low), ("auto", Priority::Auto)]
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|(_, p)| p)
    }
}

/// A group's counters since it started (information_schema's
/// THREAD_POOL_STATS, MariaDB's names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Workers started.
    pub thread_creations: u64,
    /// Of those, started by the timer (a stall, or nobody listening).
    pub thread_creations_due_to_stall: u64,
    /// Sleeping workers woken.
    pub wakes: u64,
    /// Of those, woken by the timer.
    pub wakes_due_to_stall: u64,
    /// Worker starts put off because the group started one too recently.
    pub throttles: u64,
    /// Times the timer found the group stalled.
    pub stalls: u64,
    /// Rounds of the listener's `epoll_wait`.
    pub polls_by_listener: u64,
    /// Polls by a worker that is not the listener: quire's workers never
    /// poll (MariaDB's look without waiting before they sleep), so 0.
    pub polls_by_worker: u64,
    /// Connections taken from the queue by a worker that had just
    /// listened.
    pub dequeues_by_listener: u64,
    /// Connections taken from the queue by any other worker.
    pub dequeues_by_worker: u64,
}

/// A group's state now (information_schema's THREAD_POOL_GROUPS) and its
/// counters.
#[derive(Clone, Debug, Default)]
pub struct GroupInfo {
    pub id: usize,
    pub connections: usize,
    pub threads: usize,
    /// Workers serving a connection and not blocked.
    pub active: usize,
    /// Workers asleep waiting for work.
    pub standby: usize,
    pub queue_length: usize,
    pub has_listener: bool,
    pub is_stalled: bool,
    pub stats: GroupStats,
}

/// A connection waiting in a group's queue (THREAD_POOL_QUEUES).
#[derive(Clone, Debug)]
pub struct QueuedInfo {
    pub group: usize,
    /// Its place in the group's queues, the high queue's first (from 0).
    pub position: usize,
    /// 0: the high-priority queue, 1: the low one.
    pub priority: u8,
    pub connection_id: u32,
    pub waited: Duration,
}

/// Why a worker blocked: MariaDB's `thd_wait_type` names, in its order
/// (THREAD_POOL_WAITS).
pub const WAIT_REASONS: [&str; 12] = [
    "UNKNOWN",
    "SLEEP",
    "DISKIO",
    "ROW_LOCK",
    "GLOBAL_LOCK",
    "META_DATA_LOCK",
    "TABLE_LOCK",
    "USER_LOCK",
    "BINLOG",
    "GROUP_COMMIT",
    "SYNC",
    "NET",
];

/// The index in [`WAIT_REASONS`] of a wait on `i`.
fn wait_reason(i: Instrument) -> usize {
    use Instrument as I;
    let name = match i {
        I::Sleep | I::PurgeLag => "SLEEP",
        I::DataFile | I::LogFile | I::DblwrFile | I::DblwrSlot | I::FreeFrame | I::LogFlush | I::LogWrite => "DISKIO",
        I::RowLock => "ROW_LOCK",
        I::MetadataLock => "META_DATA_LOCK",
        I::UserLock => "USER_LOCK",
        I::BinlogFile => "BINLOG",
        I::GroupCommit => "GROUP_COMMIT",
        I::ThreadConcurrency | I::ThreadConcurrencyQueue => "SYNC",
        I::ClientSocket => "NET",
        _ => "UNKNOWN",
    };
    WAIT_REASONS.iter().position(|r| *r == name).unwrap_or(0)
}

/// The pool's variables that may change while it runs.
pub struct Settings {
    /// `thread_pool_max_threads`: workers in all groups.
    pub max_threads: AtomicUsize,
    /// `thread_pool_oversubscribe`.
    pub oversubscribe: AtomicUsize,
    /// `thread_pool_stall_limit`, ms.
    pub stall_limit_ms: AtomicU64,
    /// `thread_pool_idle_timeout`, s.
    pub idle_timeout_s: AtomicU64,
    /// `thread_pool_priority`.
    pub priority: AtomicU8,
    /// `thread_pool_prio_kickup_timer`, ms.
    pub kickup_ms: AtomicU64,
}

impl Default for Settings {
    /// MariaDB 10.11's defaults.
    fn default() -> Self {
        Settings {
            max_threads: AtomicUsize::new(65_536),
            oversubscribe: AtomicUsize::new(3),
            stall_limit_ms: AtomicU64::new(500),
            idle_timeout_s: AtomicU64::new(60),
            priority: AtomicU8::new(Priority::Auto as u8),
            kickup_ms: AtomicU64::new(1000),
        }
    }
}

impl Settings {
    pub fn set_priority(&self, p: Priority) {
        self.priority.store(p as u8, Ordering::Relaxed);
    }

    fn priority(&self) -> Priority {
        match self.priority.load(Ordering::Relaxed) {
            0 => Priority::High,
            1 => Priority::Low,
            _ => Priority::Auto,
        }
    }

    fn stall_limit(&self) -> Duration {
        Duration::from_millis(self.stall_limit_ms.load(Ordering::Relaxed).max(1))
    }
}

/// What every group shares.
struct Common {
    settings: Arc<Settings>,
    /// Workers alive in all groups.
    threads: AtomicUsize,
    stopping: AtomicBool,
    /// Every group started, by index (emptied when the pool stops, which
    /// ends the groups' references back to here).
    groups: parking_lot::RwLock<Vec<Arc<Group>>>,
    /// `thread_pool_size`: the groups connections go to (at most
    /// `groups.len()`).
    size: AtomicUsize,
    /// Workers' blocking waits by reason ([`WAIT_REASONS`]).
    waits: [AtomicU64; WAIT_REASONS.len()],
}

impl Common {
    /// Whether connection `id` still belongs to group `index`: one atomic
    /// load, the common case of every command (`size` never exceeds
    /// `groups.len()`: groups are added before it grows).
    fn keeps(&self, id: u32, index: usize) -> bool {
        id as usize % self.size.load(Ordering::Acquire).max(1) == index
    }

    /// The group connection `id` belongs to now.
    fn group_of(&self, id: u32) -> Option<Arc<Group>> {
        let groups = self.groups.read();
        let size = self.size.load(Ordering::Acquire).clamp(1, groups.len().max(1));
        groups.get(id as usize % size).cloned()
    }
}

/// A running pool.
pub struct ThreadPool {
    common: Arc<Common>,
    /// Serialises resizes.
    resize: parking_lot::Mutex<()>,
    timer: parking_lot::Mutex<Option<JoinHandle<()>>>,
    /// Wakes the timer early when the pool stops.
    timer_wake: Arc<(parking_lot::Mutex<bool>, parking_lot::Condvar)>,
}

/// Counts for `SHOW STATUS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `Threadpool_threads`: workers alive.
    pub threads: usize,
    /// `Threadpool_idle_threads`: workers not running a command (asleep,
    /// listening) or blocked inside one.
    pub idle: usize,
}

impl ThreadPool {
    /// Starts `groups` groups (at least one), each with one worker, and
    /// the timer.
    pub fn start(groups: usize, settings: Arc<Settings>) -> std::io::Result<Arc<ThreadPool>> {
        let common = Arc::new(Common {
            settings,
            threads: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            groups: parking_lot::RwLock::new(Vec::new()),
            size: AtomicUsize::new(0),
            waits: Default::default(),
        });
        let pool = Arc::new(ThreadPool {
            common,
            resize: parking_lot::Mutex::new(()),
            timer: parking_lot::Mutex::new(None),
            timer_wake: Arc::new((parking_lot::Mutex::new(false), parking_lot::Condvar::new())),
        });
        pool.set_size(groups)?;
        let common = Arc::clone(&pool.common);
        let wake = Arc::clone(&pool.timer_wake);
        let timer = std::thread::Builder::new().name("tp-timer".into()).spawn(move || {
            let (lock, cv) = &*wake;
            let mut stopped = lock.lock();
            while !*stopped {
                // Woken before its time, the timer only takes the new
                // limit ([`ThreadPool::retime`]).
                let timed_out = cv.wait_for(&mut stopped, common.settings.stall_limit()).timed_out();
                if *stopped {
                    break;
                }
                if !timed_out {
                    continue;
                }
                let groups = common.groups.read().clone();
                for g in &groups {
                    g.check();
                }
            }
        })?;
        *pool.timer.lock() = Some(timer);
        Ok(pool)
    }

    /// Hands a new connection to its group (`id` modulo the groups, as
    /// MariaDB does), which serves its login first.
    pub fn add(&self, id: u32, client: Box<dyn Client>) {
        match self.common.group_of(id) {
            Some(g) => g.add(id, client),
            None => drop(client), // stopped
        }
    }

    /// `thread_pool_stall_limit` changed: the timer starts its wait again
    /// with the new limit (as MariaDB signals its timer), so a shorter one
    /// acts at once and a longer one is not cut short by an old look.
    pub fn retime(&self) {
        let (lock, cv) = &*self.timer_wake;
        let _held = lock.lock();
        cv.notify_all();
    }

    /// `thread_pool_size` = `size` (at least 1): the groups missing are
    /// started, each with one worker; connections move to their new
    /// group as they are parked. `Err`: a group could not start (the
    /// size is then the groups that did).
    pub fn set_size(&self, size: usize) -> std::io::Result<()> {
        let _one = self.resize.lock();
        if self.common.stopping.load(Ordering::Acquire) {
            return Ok(());
        }
        let size = size.max(1);
        let have = self.common.groups.read().len();
        for i in have..size {
            let g = group::into_arc(Group::new(i, Arc::clone(&self.common))?);
            g.start_first_worker()?;
            self.common.groups.write().push(g);
            // Each group as it starts: an error leaves the size at the
            // groups that run.
            self.common.size.store(i + 1, Ordering::Release);
        }
        self.common.size.store(size, Ordering::Release);
        Ok(())
    }

    /// The groups connections go to now.
    pub fn size(&self) -> usize {
        self.common.size.load(Ordering::Acquire)
    }

    /// Every group's state and counters, by group.
    pub fn groups_info(&self) -> Vec<GroupInfo> {
        self.common.groups.read().iter().map(|g| g.info()).collect()
    }

    /// The connections waiting in the groups' queues, by group and place.
    pub fn queues_info(&self) -> Vec<QueuedInfo> {
        let mut out = Vec::new();
        for g in self.common.groups.read().iter() {
            g.queued_info(&mut out);
        }
        out
    }

    /// Workers' blocking waits since start, by reason, in
    /// [`WAIT_REASONS`] order.
    pub fn waits(&self) -> Vec<(&'static str, u64)> {
        WAIT_REASONS.iter().zip(&self.common.waits).map(|(r, n)| (*r, n.load(Ordering::Relaxed))).collect()
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for g in self.common.groups.read().iter() {
            let (threads, idle) = g.counts();
            c.threads += threads;
            c.idle += idle;
        }
        c
    }

    /// Stops the pool: workers finish the command they run and exit;
    /// every connection, parked, queued or being served, is closed (its
    /// session ends, rolling back an open transaction).
    pub fn stop(&self) {
        if self.common.stopping.swap(true, Ordering::AcqRel) {
            return;
        }
        {
            let (lock, cv) = &*self.timer_wake;
            *lock.lock() = true;
            cv.notify_all();
        }
        if let Some(t) = self.timer.lock().take() {
            let _ = t.join();
        }
        let _one = self.resize.lock();
        let groups = std::mem::take(&mut *self.common.groups.write());
        for g in &groups {
            g.stop();
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.stop();
    }
}
