//! The redo log: every page change is described by a record appended here
//! before the change may reach disk (the WAL rule), so that after a crash
//! the changes since the last checkpoint can be replayed.
//!
//! How an append works (MySQL 8.0's lock-free design, `log0buf.cc`):
//! 1. A mini-transaction reserves LSN space with one atomic fetch-add.
//! 2. It waits (rarely) until the ring buffer has room, then copies its
//!    group into the buffer; many threads copy at once, into disjoint
//!    ranges.
//! 3. It marks its range complete in the *link buffer*: slot
//!    `(start / 8) mod N` gets the group's end LSN.
//! 4. The writer thread follows the links from `ready_lsn` to find the
//!    longest complete prefix and writes it to the file; the flusher thread
//!    syncs what was written. Committers wait for `flushed_lsn` (or
//!    `written_lsn`), spinning briefly and then sleeping; one sync
//!    acknowledges every commit that arrived while the previous one ran
//!    (group commit).
//! 5. A durable committer that finds nobody else waiting for a sync and
//!    no sync in flight writes and syncs the log itself (the *leader*,
//!    InnoDB's and MariaDB's `log_write_up_to`): a lone committer then
//!    pays one sync and no hand-offs to the writer and flusher threads and
//!    back, which cost about as much as the sync on this machine's disks.
//!    Otherwise it waits as above, and the flusher syncs for everyone who
//!    came meanwhile (a group is forming; a leader would hold it off).
//!
//! LSNs: the byte position in the log stream. Groups start at multiples of
//! 8, so the link buffer needs one slot per 8 bytes of its window.
//!
//! Invariants:
//! 1. `flushed_lsn <= written_lsn <= ready_lsn <= next_lsn`.
//! 2. Every group ending at or below `ready_lsn` is in the buffer, and the
//!    pages it changed carry its LSN and are on their flush lists (the mtr
//!    marks completion only after that): a checkpoint may use `ready_lsn`.
//! 3. The buffer never holds more than `buffer size` bytes past
//!    `written_lsn`; the file never holds more than its capacity past the
//!    checkpoint LSN (appenders wait for a checkpoint otherwise).
//! 4. Syncs are one at a time (`sync_lock`, the flusher's or a leader's),
//!    writes one at a time (`write_lock`, the writer's or a leader's).
//! 5. The flusher syncs for the requests it has seen once they are all
//!    written, not for log nobody waits for (but once a second): a sync
//!    started on a transaction's change records, just before its commit
//!    record arrives, would make the commit wait for two syncs (a lone
//!    durable committer ran at half the device's sync rate so). Requests
//!    made while it waits for the writer join the next sync, so a stream
//!    of new requests cannot hold one back.

pub mod file;
pub mod group;
pub mod record;
pub mod recovery;

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::sync::Counter;
use crate::{Error, Lsn, Result};
use file::LogFile;

/// `innodb_flush_log_at_trx_commit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FlushAtCommit {
    /// 0: nothing at commit; written and synced about once a second.
    Lazy = 0,
    /// 1: durable at commit.
    Sync = 1,
    /// 2: written to the OS at commit, synced about once a second.
    Write = 2,
}

impl FlushAtCommit {
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(FlushAtCommit::Lazy),
            1 => Some(FlushAtCommit::Sync),
            2 => Some(FlushAtCommit::Write),
            _ => None,
        }
    }
}

/// Counters reported as `Innodb_log_*` / `Innodb_os_log_*`.
#[derive(Default, Debug)]
pub struct LogStats {
    /// Groups appended (mini-transactions that changed pages).
    pub groups: Counter,
    /// Bytes appended.
    pub bytes: Counter,
    /// Writes to the log file (`Innodb_log_writes`).
    pub writes: AtomicU64,
    /// Syncs of the log file (`Innodb_os_log_fsyncs`).
    pub syncs: AtomicU64,
    /// Commits that waited for durability.
    pub commit_waits: Counter,
    /// Appenders that waited for room in the buffer (`Innodb_log_waits`).
    pub buffer_waits: Counter,
    /// Appenders that waited for a checkpoint to free log space.
    pub checkpoint_waits: Counter,
}

/// The ring buffer. Disjoint ranges are written by different threads;
/// the writer reads only ranges marked complete.
struct Ring {
    bytes: Box<[UnsafeCell<u8>]>,
}

// SAFETY: access is coordinated by LSN reservation (disjoint writers) and
// the link buffer (the reader only reads completed ranges); see `copy_in`.
unsafe impl Sync for Ring {}
// SAFETY: as above.
unsafe impl Send for Ring {}

impl Ring {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// # Safety
    /// `[lsn, lsn + data.len())` is reserved by the caller, and no other
    /// thread reads it until the caller marks it complete.
    unsafe fn copy_in(&self, lsn: Lsn, data: &[u8]) {
        let n = self.len();
        let mut pos = (lsn % n) as usize;
        let mut rest = data;
        while !rest.is_empty() {
            let k = rest.len().min(self.bytes.len() - pos);
            // SAFETY: in bounds; exclusive by the caller's reservation.
            unsafe { std::ptr::copy_nonoverlapping(rest.as_ptr(), self.bytes[pos].get(), k) };
            rest = &rest[k..];
            pos = 0;
        }
    }

    /// # Safety
    /// `[lsn, lsn + out.len())` is complete and not yet overwritten.
    unsafe fn copy_out(&self, lsn: Lsn, out: &mut Vec<u8>, len: usize) {
        let n = self.len();
        let mut pos = (lsn % n) as usize;
        let mut left = len;
        while left > 0 {
            let k = left.min(self.bytes.len() - pos);
            // SAFETY: in bounds; the range is complete (no writer).
            out.extend_from_slice(unsafe { std::slice::from_raw_parts(self.bytes[pos].get(), k) });
            left -= k;
            pos = 0;
        }
    }
}

/// Settings of the log.
#[derive(Clone, Debug)]
pub struct LogConfig {
    /// `innodb_log_file_size`.
    pub file_size: u64,
    /// `innodb_log_buffer_size`.
    pub buffer_size: usize,
    pub flush_at_commit: FlushAtCommit,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { file_size: 96 << 20, buffer_size: 16 << 20, flush_at_commit: FlushAtCommit::Sync }
    }
}

/// A condition with its mutex and a count of waiters, so that an event
/// nobody waits for costs no system call.
///
/// No lost wake-ups: a waiter counts itself, then checks its condition,
/// under the mutex; a notifier publishes its change, then reads the count
/// (both sequentially consistent), and takes the mutex to notify.
struct Event {
    lock: crate::wait::Mutex<()>,
    cond: Condvar,
    waiters: std::sync::atomic::AtomicUsize,
}

impl Default for Event {
    fn default() -> Self {
        Self {
            lock: crate::wait::Mutex::new(crate::wait::Instrument::LogWriter, ()),
            cond: Condvar::new(),
            waiters: Default::default(),
        }
    }
}

impl Event {
    fn notify_all(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _g = self.lock.lock();
            self.cond.notify_all();
        }
    }
}

pub struct RedoLog {
    file: LogFile,
    ring: Ring,
    /// Next LSN to hand out.
    next_lsn: AtomicU64,
    /// Everything below is complete in the buffer (invariant 2).
    ready_lsn: AtomicU64,
    written_lsn: AtomicU64,
    flushed_lsn: AtomicU64,
    checkpoint_lsn: AtomicU64,
    checkpoint_no: AtomicU64,
    /// The link buffer: end LSN of the group starting at slot*8 (mod window).
    links: Box<[AtomicU64]>,
    flush_at_commit: AtomicU8,
    /// The highest LSN a thread in `flush_up_to` waits for (a commit, the
    /// WAL rule, a checkpoint): the flusher syncs once the log is written
    /// that far, whatever `innodb_flush_log_at_trx_commit` says, and not
    /// before (invariant 5).
    flush_request: AtomicU64,
    /// Held while the log file is written (invariant 4); the copy buffer.
    write_lock: Mutex<Vec<u8>>,
    /// Held while the log file is synced (invariant 4).
    sync_lock: Mutex<()>,
    /// Set when a write or sync failed with EIO: the log cannot go on.
    failed: Mutex<Option<String>>,
    has_failed: AtomicBool,
    /// Set while writes fail with ENOSPC; the writer keeps retrying and
    /// clears it when a write succeeds. Commits wait meanwhile.
    disk_full: AtomicBool,
    shutdown: AtomicBool,
    /// The writer sleeps here; appenders that need it poke it.
    writer_event: Event,
    /// The flusher sleeps here; the writer pokes it after a write.
    flusher_event: Event,
    /// `written_lsn` / `ready_lsn` moved (buffer room, commits with 2).
    written_event: Event,
    /// `flushed_lsn` moved (commits with 1, the WAL rule): one event per
    /// LSN block, so a sync wakes only the committers it made durable.
    flushed_events: Box<[Event]>,
    /// The checkpoint moved (room in the log file).
    checkpoint_event: Event,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    pub stats: LogStats,
}

/// Spin rounds before sleeping, when waiting for the log: short, because
/// on few cores a spinning waiter takes the CPU the log threads need.
const SPIN_ROUNDS: u32 = 200;
/// LSN bytes per flush-event block, and the number of events.
const FLUSH_EVENT_BLOCK: u64 = 512;
const FLUSH_EVENT_SLOTS: usize = 64;
/// The longest a waiter sleeps without a notification.
const WAIT_SAFETY_NET: Duration = Duration::from_millis(100);
/// How long a checkpoint or a page write waits for a full disk to clear
/// before failing (both are retried; a commit never gives up, see
/// `wait_until`).
const CHECKPOINT_DISK_FULL_PATIENCE: Duration = Duration::from_millis(500);
/// How long shutdown waits for a full disk to clear before it gives up
/// the unwritten tail of the log (never acknowledged to anyone).
const SHUTDOWN_DISK_FULL_PATIENCE: Duration = Duration::from_secs(10);
/// How often a thread waiting on a full disk says so in the error log.
const DISK_FULL_REPORT_EVERY: Duration = Duration::from_secs(30);
/// How long the writer and flusher sleep when idle.
const IDLE_WAIT: Duration = Duration::from_millis(1);

/// Whether `e` is ENOSPC (the disk is full: waited out, not fatal).
fn is_no_space(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.raw_os_error() == Some(libc::ENOSPC))
}

impl RedoLog {
    /// Creates a log whose stream starts (and is checkpointed) at `lsn`.
    pub fn create(file: quire_io::FileRef, cfg: &LogConfig, lsn: Lsn) -> Result<Arc<Self>> {
        let lsn = lsn.next_multiple_of(8);
        let lf = LogFile::create(file, cfg.file_size, lsn)?;
        Ok(Self::new(lf, cfg, 1, lsn, lsn))
    }

    /// Opens a log for recovery: returns it positioned at its checkpoint,
    /// not yet appendable (call [`RedoLog::resume`] with the recovered end).
    pub fn open(file: quire_io::FileRef, cfg: &LogConfig) -> Result<(Arc<Self>, Lsn)> {
        let (lf, no, lsn) = LogFile::open(file)?;
        if lf.capacity + file::DATA_START != cfg.file_size {
            tracing::info!(
                "the redo log keeps its size of {} bytes (innodb_log_file_size={} applies to new logs)",
                lf.capacity + file::DATA_START,
                cfg.file_size
            );
        }
        Ok((Self::new(lf, cfg, no, lsn, lsn), lsn))
    }

    fn new(file: LogFile, cfg: &LogConfig, checkpoint_no: u64, checkpoint_lsn: Lsn, end: Lsn) -> Arc<Self> {
        let buffer_size = cfg.buffer_size.max(1 << 20).next_power_of_two();
        // The link window: half the buffer, one slot per 8 bytes.
        let window_slots = buffer_size / 16;
        Arc::new(Self {
            file,
            ring: Ring { bytes: (0..buffer_size).map(|_| UnsafeCell::new(0)).collect() },
            next_lsn: AtomicU64::new(end),
            ready_lsn: AtomicU64::new(end),
            written_lsn: AtomicU64::new(end),
            flushed_lsn: AtomicU64::new(end),
            checkpoint_lsn: AtomicU64::new(checkpoint_lsn),
            checkpoint_no: AtomicU64::new(checkpoint_no),
            links: (0..window_slots).map(|_| AtomicU64::new(0)).collect(),
            flush_at_commit: AtomicU8::new(cfg.flush_at_commit as u8),
            flush_request: AtomicU64::new(0),
            write_lock: Mutex::new(Vec::new()),
            sync_lock: Mutex::new(()),
            failed: Mutex::new(None),
            has_failed: AtomicBool::new(false),
            disk_full: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            writer_event: Event::default(),
            flusher_event: Event::default(),
            written_event: Event::default(),
            flushed_events: (0..FLUSH_EVENT_SLOTS).map(|_| Event::default()).collect(),
            checkpoint_event: Event::default(),
            threads: Mutex::new(Vec::new()),
            stats: LogStats::default(),
        })
    }

    /// The log file (recovery reads it).
    pub fn file(&self) -> &LogFile {
        &self.file
    }

    /// Sets where appending continues after recovery found the log's end.
    /// REQUIRES: the writer threads are not running yet.
    pub fn resume(&self, end: Lsn) {
        let end = end.next_multiple_of(8);
        for a in [&self.next_lsn, &self.ready_lsn, &self.written_lsn, &self.flushed_lsn] {
            a.store(end, Ordering::Release);
        }
    }

    /// Starts the writer and flusher threads.
    pub fn start(self: &Arc<Self>) {
        let mut threads = self.threads.lock();
        let w = self.clone();
        threads.push(
            std::thread::Builder::new()
                .name("log_writer".into())
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    w.writer_loop()
                })
                .expect("spawn"),
        );
        let f = self.clone();
        threads.push(
            std::thread::Builder::new()
                .name("log_flusher".into())
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    f.flusher_loop()
                })
                .expect("spawn"),
        );
    }

    pub fn flush_at_commit(&self) -> FlushAtCommit {
        FlushAtCommit::from_u8(self.flush_at_commit.load(Ordering::Relaxed)).unwrap_or(FlushAtCommit::Sync)
    }

    pub fn set_flush_at_commit(&self, v: FlushAtCommit) {
        self.flush_at_commit.store(v as u8, Ordering::Relaxed);
    }

    pub fn capacity(&self) -> u64 {
        self.file.capacity
    }

    /// The LSN the next group would get.
    pub fn current_lsn(&self) -> Lsn {
        self.next_lsn.load(Ordering::Acquire)
    }

    pub fn ready_lsn(&self) -> Lsn {
        self.ready_lsn.load(Ordering::Acquire)
    }

    pub fn written_lsn(&self) -> Lsn {
        self.written_lsn.load(Ordering::Acquire)
    }

    pub fn flushed_lsn(&self) -> Lsn {
        self.flushed_lsn.load(Ordering::Acquire)
    }

    pub fn checkpoint_lsn(&self) -> Lsn {
        self.checkpoint_lsn.load(Ordering::Acquire)
    }

    /// Bytes of log the next crash recovery would have to read.
    pub fn checkpoint_age(&self) -> u64 {
        self.current_lsn().saturating_sub(self.checkpoint_lsn())
    }

    fn check_failed(&self) -> Result<()> {
        if self.has_failed.load(Ordering::Acquire) {
            let why = self.failed.lock().clone().unwrap_or_default();
            return Err(Error::io("the redo log", std::io::Error::other(format!("redo log unusable: {why}"))));
        }
        Ok(())
    }

    /// Handles a failed write or sync: ENOSPC is waited out (retried after
    /// a pause, reported to committers meanwhile); anything else is fatal.
    /// Returns whether to retry.
    fn on_io_error(&self, e: &Error) -> bool {
        if is_no_space(e) {
            if !self.disk_full.swap(true, Ordering::AcqRel) {
                tracing::error!(
                    "redo log: {e}; commits wait (they do not fail) until space is freed; retrying every 50 ms"
                );
            }
            self.notify_everyone();
            std::thread::sleep(Duration::from_millis(50));
            return true;
        }
        self.fail(e);
        false
    }

    fn disk_full_error(&self) -> Error {
        Error::io("the redo log", std::io::Error::from_raw_os_error(libc::ENOSPC))
    }

    fn fail(&self, e: &Error) {
        tracing::error!("redo log failure: {e}");
        *self.failed.lock() = Some(e.to_string());
        self.has_failed.store(true, Ordering::Release);
        self.notify_everyone();
    }

    /// Largest group the log accepts (it must fit the link window).
    pub fn max_group(&self) -> usize {
        (self.links.len() * 8 / 2).min(self.file.capacity as usize / 4)
    }

    /// Appends a group (`group::seal` fills its header): reserves its LSN
    /// range, copies it in, and returns (start, end). The caller must call
    /// [`RedoLog::complete`] once the pages it changed are stamped.
    pub fn append(&self, build: impl FnOnce(Lsn) -> Vec<u8>, len: usize) -> Result<(Lsn, Lsn)> {
        self.check_failed()?;
        debug_assert!(len.is_multiple_of(8) && len <= self.max_group());
        let start = self.next_lsn.fetch_add(len as u64, Ordering::AcqRel);
        let end = start + len as u64;
        let bytes = build(start);
        debug_assert_eq!(bytes.len(), len);
        // Room in the ring (invariant 3) and in the link window.
        let ring = self.ring.len();
        let window = self.links.len() as u64 * 8;
        if end > self.written_lsn() + ring || start >= self.ready_lsn() + window {
            self.stats.buffer_waits.inc();
            self.wait_until(
                &self.written_event,
                || end <= self.written_lsn() + ring && start < self.ready_lsn() + window,
                None,
            )?;
        }
        // SAFETY: [start, end) was reserved above by our fetch_add and is
        // not read before `complete` marks it.
        unsafe { self.ring.copy_in(start, &bytes) };
        self.stats.groups.inc();
        self.stats.bytes.add(len as u64);
        Ok((start, end))
    }

    /// Marks `[start, end)` complete: the writer may write it.
    pub fn complete(&self, start: Lsn, end: Lsn) {
        let slot = ((start / 8) as usize) % self.links.len();
        self.links[slot].store(end, Ordering::Release);
    }

    /// Waits for free log space when the file is nearly full of log not
    /// yet covered by a checkpoint (invariant 3). `limit` is the age at
    /// which appenders must stop.
    pub fn wait_for_log_space(&self, limit: u64) -> Result<()> {
        if self.checkpoint_age() <= limit {
            return Ok(());
        }
        self.stats.checkpoint_waits.inc();
        self.wait_until(&self.checkpoint_event, || self.checkpoint_age() <= limit, None)
    }

    fn notify_everyone(&self) {
        self.written_event.notify_all();
        for e in self.flushed_events.iter() {
            e.notify_all();
        }
        self.checkpoint_event.notify_all();
    }

    /// Waits until `done()` holds, spinning briefly, then sleeping on
    /// `event`.
    ///
    /// While the disk is full the wait goes on, reported in the error log
    /// every 30 s, unless `full_patience` is given: then a full disk that
    /// has lasted that long ends the wait with ENOSPC. Commits and appends
    /// pass `None`: by the time a commit waits, its change is visible and
    /// will be durable once space frees, so an error would lie ("an error
    /// at COMMIT means not committed"); an append must not fail halfway
    /// through a mini-transaction. Only a checkpoint and shutdown, which
    /// can retry or give up honestly, pass a patience.
    fn wait_until(&self, event: &Event, done: impl Fn() -> bool, full_patience: Option<Duration>) -> Result<()> {
        for _ in 0..SPIN_ROUNDS {
            if done() {
                return Ok(());
            }
            std::hint::spin_loop();
        }
        self.check_failed()?;
        self.poke_writer();
        let start = Instant::now();
        let mut full_since: Option<Instant> = None;
        let mut reported = start;
        let mut g = event.lock.lock();
        event.waiters.fetch_add(1, Ordering::SeqCst);
        let res = loop {
            if done() {
                break Ok(());
            }
            if let Err(e) = self.check_failed() {
                break Err(e);
            }
            // The writer retries every 50 ms while the disk is full.
            let full = self.disk_full.load(Ordering::Acquire);
            if full {
                let since = *full_since.get_or_insert_with(Instant::now);
                if full_patience.is_some_and(|p| since.elapsed() > p) {
                    break Err(self.disk_full_error());
                }
                if reported.elapsed() > DISK_FULL_REPORT_EVERY {
                    reported = Instant::now();
                    tracing::warn!(
                        "waiting {:.0}s for the redo log to be written: the disk is full; free some space",
                        start.elapsed().as_secs_f64()
                    );
                }
            } else {
                full_since = None;
            }
            // Notifications are reliable; the timeout is a safety net (and
            // paces the disk-full check).
            event.cond.wait_for(&mut g, if full { IDLE_WAIT } else { WAIT_SAFETY_NET });
        };
        event.waiters.fetch_sub(1, Ordering::SeqCst);
        res
    }

    /// The event a waiter for `flushed_lsn >= lsn` sleeps on.
    fn flushed_event_for(&self, lsn: Lsn) -> &Event {
        &self.flushed_events[((lsn.saturating_sub(1) / FLUSH_EVENT_BLOCK) as usize) % FLUSH_EVENT_SLOTS]
    }

    /// Wakes the waiters whose LSN lies in `(from, to]`: those of the
    /// blocks the range covers (all slots if it covers them all).
    fn notify_flushed(&self, from: Lsn, to: Lsn) {
        let first = from / FLUSH_EVENT_BLOCK;
        let last = to.saturating_sub(1) / FLUSH_EVENT_BLOCK;
        let blocks = (last + 1).saturating_sub(first).min(FLUSH_EVENT_SLOTS as u64);
        for b in first..first + blocks {
            self.flushed_events[(b as usize) % FLUSH_EVENT_SLOTS].notify_all();
        }
    }

    /// Wakes the writer if it sleeps (free when it does not).
    fn poke_writer(&self) {
        self.writer_event.notify_all();
    }

    /// Waits until the log is durable up to `lsn` (the WAL rule). While
    /// the disk is full this waits; it fails only if the log failed (EIO).
    pub fn flush_up_to(&self, lsn: Lsn) -> Result<()> {
        self.flush_up_to_within(lsn, None)
    }

    /// `flush_up_to` for a caller that can retry (a page write under the
    /// WAL rule): a disk full for half a second fails it with ENOSPC.
    pub fn flush_up_to_retryable(&self, lsn: Lsn) -> Result<()> {
        self.flush_up_to_within(lsn, Some(CHECKPOINT_DISK_FULL_PATIENCE))
    }

    /// `flush_up_to`, giving up with ENOSPC once a full disk has lasted
    /// `full_patience`.
    fn flush_up_to_within(&self, lsn: Lsn, full_patience: Option<Duration>) -> Result<()> {
        if self.flushed_lsn() >= lsn {
            return Ok(());
        }
        self.flush_request.fetch_max(lsn, Ordering::SeqCst);
        self.poke_writer();
        self.flusher_event.notify_all();
        let res = crate::txn::admission::blocking(crate::wait::Instrument::LogFlush, || {
            self.wait_until(self.flushed_event_for(lsn), || self.flushed_lsn() >= lsn, full_patience)
        });
        res
    }

    /// Writes and syncs the log up to `lsn` in this thread when no sync is
    /// in flight (the leader, the head comment's point 5). Returns whether
    /// the log is now durable up to `lsn`; `false` when another sync runs
    /// or the log before `lsn` is not all complete yet (the caller waits
    /// for the threads then). A failed write is left to the writer thread
    /// to retry or report; a failed sync fails the log (a sync is not
    /// retried: the pages it lost are not known).
    fn lead(&self, lsn: Lsn) -> Result<bool> {
        let Some(sync) = self.sync_lock.try_lock() else {
            return Ok(false);
        };
        if self.flushed_lsn() >= lsn {
            return Ok(true);
        }
        if self.has_failed.load(Ordering::Acquire) || self.disk_full.load(Ordering::Acquire) {
            return Ok(false);
        }
        let led = self.lead_locked(lsn);
        drop(sync);
        // Requests that came while this sync ran are the flusher's, which
        // does not sync while a leader does.
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.flush_request.load(Ordering::SeqCst) > self.flushed_lsn() {
            self.flusher_event.notify_all();
        }
        led
    }

    /// `lead` with `sync_lock` held.
    fn lead_locked(&self, lsn: Lsn) -> Result<bool> {
        crate::txn::admission::blocking(crate::wait::Instrument::LogFlush, || {
            // The flusher is not woken for this write: the leader syncs it.
            if self.written_lsn() < lsn && (self.write_ready(false).is_err() || self.written_lsn() < lsn) {
                return Ok(false);
            }
            match self.sync_written() {
                Ok(()) => Ok(self.flushed_lsn() >= lsn),
                // A full disk is the flusher's to wait out.
                Err(e) if is_no_space(&e) => Ok(false),
                Err(e) => {
                    self.fail(&e);
                    Err(e)
                }
            }
        })
    }

    /// Syncs what is written. REQUIRES: `sync_lock` held (invariant 4).
    fn sync_written(&self) -> Result<()> {
        let written = self.written_lsn();
        let flushed = self.flushed_lsn();
        if written <= flushed {
            return Ok(());
        }
        self.file.sync()?;
        self.stats.syncs.fetch_add(1, Ordering::Relaxed);
        self.flushed_lsn.store(written, Ordering::SeqCst);
        self.notify_flushed(flushed, written);
        Ok(())
    }

    /// Writes what is complete and not yet written (invariant 4: under
    /// `write_lock`), waking the flusher if `wake_flusher`. Returns whether
    /// it wrote anything.
    fn write_ready(&self, wake_flusher: bool) -> Result<bool> {
        let mut buf = self.write_lock.lock();
        let written = self.written_lsn();
        // Never overwrite log the last checkpoint still needs.
        let ready = self.advance_ready().min(self.checkpoint_lsn() + self.file.capacity);
        if ready <= written {
            return Ok(false);
        }
        buf.clear();
        // SAFETY: [written, ready) is complete and, by invariant 3, not yet
        // overwritten (appenders wait for written_lsn, which only this
        // lock's holder moves).
        unsafe { self.ring.copy_out(written, &mut buf, (ready - written) as usize) };
        self.file.write_at(written, &buf)?;
        if self.disk_full.swap(false, Ordering::AcqRel) {
            tracing::info!("redo log: writes succeed again");
        }
        self.stats.writes.fetch_add(1, Ordering::Relaxed);
        self.written_lsn.store(ready, Ordering::SeqCst);
        drop(buf);
        if wake_flusher {
            self.flusher_event.notify_all();
        }
        self.written_event.notify_all();
        Ok(true)
    }

    /// Whether complete log waits to be written (no side effects).
    fn anything_ready(&self) -> bool {
        let r = self.ready_lsn.load(Ordering::Acquire);
        r > self.written_lsn() || self.links[((r / 8) as usize) % self.links.len()].load(Ordering::Acquire) > r
    }

    /// What a committing transaction waits for, by
    /// `innodb_flush_log_at_trx_commit`.
    pub fn commit(&self, lsn: Lsn) -> Result<()> {
        match self.flush_at_commit() {
            FlushAtCommit::Sync => {
                self.stats.commit_waits.inc();
                // A committer leads (the head comment's point 5); page
                // writes and checkpoints, background work whose hand-off to
                // the flusher costs nobody a wait, do not.
                if self.flushed_lsn() >= lsn {
                    return Ok(());
                }
                // Only a lone committer leads: when another already waits
                // for a sync, a group is forming and the flusher's next
                // sync takes this commit too; a leader would hold it off.
                let waited_for = self.flush_request.fetch_max(lsn, Ordering::SeqCst);
                if waited_for <= self.flushed_lsn() && self.lead(lsn)? {
                    return Ok(());
                }
                self.flush_up_to(lsn)
            }
            FlushAtCommit::Write => {
                if self.written_lsn() >= lsn {
                    return Ok(());
                }
                self.poke_writer();
                crate::txn::admission::blocking(crate::wait::Instrument::LogWrite, || {
                    self.wait_until(&self.written_event, || self.written_lsn() >= lsn, None)
                })
            }
            FlushAtCommit::Lazy => self.check_failed(),
        }
    }

    /// Follows the link buffer from `ready_lsn`. REQUIRES: `write_lock`
    /// held (the one thread that moves `ready_lsn`).
    fn advance_ready(&self) -> Lsn {
        let mut r = self.ready_lsn.load(Ordering::Acquire);
        let n = self.links.len();
        loop {
            let e = self.links[((r / 8) as usize) % n].load(Ordering::Acquire);
            if e <= r {
                break;
            }
            r = e;
        }
        self.ready_lsn.store(r, Ordering::Release);
        r
    }

    fn writer_loop(&self) {
        loop {
            let written = self.written_lsn();
            match self.write_ready(true) {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    if self.on_io_error(&e) {
                        continue;
                    }
                    return;
                }
            }
            let stopping = self.shutdown.load(Ordering::Acquire);
            let ready = self.ready_lsn();
            if stopping && (ready == self.current_lsn() || self.has_failed.load(Ordering::Acquire)) {
                self.flusher_event.notify_all();
                return;
            }
            let mut g = self.writer_event.lock.lock();
            self.writer_event.waiters.fetch_add(1, Ordering::SeqCst);
            if self.written_lsn() == written && !self.anything_ready() {
                self.writer_event.cond.wait_for(&mut g, IDLE_WAIT);
            }
            self.writer_event.waiters.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Whether the flusher should sync for requests up to `target` now
    /// (invariant 5): they are written, or nothing more can be written
    /// soon (the writer has caught up with what is complete, or the disk
    /// is full), so that what is written may be all some of them need and
    /// waiting would starve them. Never when nothing new is written (a
    /// full disk must not make the flusher spin).
    fn sync_due(&self, target: Lsn, flushed: Lsn) -> bool {
        let written = self.written_lsn();
        target > flushed
            && written > flushed
            && (written >= target || self.disk_full.load(Ordering::Acquire) || !self.anything_ready())
    }

    fn flusher_loop(&self) {
        let mut last_sync = Instant::now();
        // The requests the next sync covers (invariant 4): taken afresh
        // only once a sync has covered the last ones.
        let mut target: Lsn = 0;
        loop {
            let written = self.written_lsn();
            let flushed = self.flushed_lsn();
            if target <= flushed {
                target = self.flush_request.load(Ordering::SeqCst);
            }
            let due = self.sync_due(target, flushed);
            let periodic = last_sync.elapsed() >= Duration::from_secs(1);
            // While a leader syncs, the flusher waits for it (it is woken
            // after if requests are left).
            let leading = self.sync_lock.is_locked();
            if written > flushed && (due || periodic) && !leading {
                let synced = {
                    let _sync = self.sync_lock.lock();
                    // A leader may have synced the target meanwhile: what
                    // was written since is nobody's yet (invariant 5).
                    if periodic || self.flushed_lsn() < target {
                        self.sync_written()
                    } else {
                        continue;
                    }
                };
                if let Err(e) = synced {
                    if self.on_io_error(&e) {
                        continue;
                    }
                    return;
                }
                last_sync = Instant::now();
                continue;
            }
            let stopping = self.shutdown.load(Ordering::Acquire);
            let caught_up = written == self.current_lsn() && flushed == written;
            if stopping && (caught_up || self.has_failed.load(Ordering::Acquire)) {
                return;
            }
            let mut g = self.flusher_event.lock.lock();
            self.flusher_event.waiters.fetch_add(1, Ordering::SeqCst);
            // Asleep until the writer moves (a request waits for it), a
            // leader's sync ends, or, with no request pending, one comes.
            std::sync::atomic::fence(Ordering::SeqCst);
            let pending = target > flushed;
            let idle = if pending {
                !self.sync_due(target, flushed) || self.sync_lock.is_locked()
            } else {
                self.flush_request.load(Ordering::SeqCst) <= flushed
            };
            if self.written_lsn() == written && idle && !self.shutdown.load(Ordering::Acquire) {
                self.flusher_event.cond.wait_for(&mut g, IDLE_WAIT);
            }
            self.flusher_event.waiters.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Writes a checkpoint at `lsn`. REQUIRES: every page change below
    /// `lsn` is on disk and synced; `lsn` is a group boundary not above
    /// `ready_lsn`, and the log is flushed up to it.
    pub fn checkpoint(&self, lsn: Lsn) -> Result<()> {
        if lsn <= self.checkpoint_lsn() {
            return Ok(());
        }
        self.flush_up_to_within(lsn, Some(CHECKPOINT_DISK_FULL_PATIENCE))?;
        let no = self.checkpoint_no.load(Ordering::Acquire) + 1;
        if let Err(e) = self.file.write_checkpoint(no, lsn) {
            self.fail(&e);
            return Err(e);
        }
        self.checkpoint_no.store(no, Ordering::Release);
        self.checkpoint_lsn.store(lsn, Ordering::SeqCst);
        self.checkpoint_event.notify_all();
        Ok(())
    }

    /// Writes and syncs everything appended, then stops the threads. The
    /// threads stop even if that fails (the error is returned).
    pub fn shutdown(&self) -> Result<()> {
        let end = self.current_lsn();
        let res = self.flush_up_to_within(end, Some(SHUTDOWN_DISK_FULL_PATIENCE));
        if res.is_err() && !self.has_failed.load(Ordering::Acquire) {
            // Cannot catch up (the disk stayed full): give up on the tail.
            // It was never acknowledged as durable: commits waiting for it
            // get an error, and it is not there after a restart.
            self.fail(&Error::io("the redo log", std::io::Error::other("shut down with unwritten log")));
        }
        self.shutdown.store(true, Ordering::Release);
        self.writer_event.notify_all();
        self.flusher_event.notify_all();
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
        res
    }
}
