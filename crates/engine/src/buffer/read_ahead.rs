//! Read-ahead (InnoDB's `buf0rea`): pages a scan is about to need are read
//! before it asks, a whole extent at a time, by background read threads
//! (`innodb_read_io_threads`), so that a scan over pages not in the pool
//! waits for one large read per extent instead of one 16 KiB read per page.
//!
//! Two triggers, both InnoDB's:
//! - **Linear** (`innodb_read_ahead_threshold`, default 56; 0 turns it off
//!   here): at the first access of the first or last page of an extent
//!   (64 pages of 16 KiB: 1 MiB), if at least `threshold` pages of that
//!   extent are in the pool and were first accessed in page order
//!   (ascending for the last page, descending for the first), the next
//!   extent in that direction is read. InnoDB follows the boundary page's
//!   sibling link to choose the extent; quire takes the adjacent one (a
//!   table loaded in key order lays its leaves out in page order; when
//!   they are not, the access pattern does not pass the test anyway).
//! - **Random** (`innodb_random_read_ahead`, off by default as in InnoDB):
//!   at a miss, if 13 or more pages of the extent are in the pool and were
//!   accessed recently (in the young part of the LRU), the rest of the
//!   extent is read.
//!
//! A request names an extent; a read thread installs a frame for every page
//! of it not in the pool (exclusively latched, in the old part of the LRU,
//! as a miss would), reads each run of consecutive pages with one system
//! call, verifies each page and unlatches it. A thread that wants one of
//! those pages meanwhile waits on its latch, as it would for another
//! thread's miss. Read-ahead never waits for a free frame: with no frame
//! free or clean at the LRU tail it stops (the pool is short of frames;
//! taking more would only evict pages in use). A page that fails its
//! checks is dropped silently: the access that needs it reads it again and
//! reports the error. So is a page with changes waiting in the change
//! buffer (`crate::ibuf`): the read that needs it merges them.
//!
//! Counters: `Innodb_buffer_pool_read_ahead` (pages read by either
//! trigger), `_read_ahead_rnd` (requests by the random trigger),
//! `_read_ahead_evicted` (pages read ahead and evicted before any access:
//! read-ahead that was wasted).

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::frame::{Frame, NO_PAGE};
use super::{page_table, BufferPool, Instance};
use crate::sync::Counter;
use crate::{Error, PageId, PageNo, Result, SpaceId};

/// Pages of an extent recently accessed that trigger random read-ahead
/// (InnoDB's `BUF_READ_AHEAD_RANDOM_THRESHOLD`: 5 + area / 8 = 13).
fn random_threshold(area: u32) -> u32 {
    5 + area / 8
}

/// Extents waiting at most; more requests are dropped (read-ahead is a
/// hint: when the read threads fall this far behind, the scans have caught
/// up with them and read for themselves).
const MAX_QUEUED: usize = 64;

/// Settings and state of read-ahead, owned by the pool.
pub struct ReadAhead {
    /// `innodb_read_ahead_threshold` (0-64; 0: linear read-ahead off).
    threshold: AtomicU32,
    /// `innodb_random_read_ahead`.
    random: AtomicBool,
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Read threads run (checked by the triggers without a lock).
    running: AtomicBool,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    pub stats: ReadAheadStats,
}

#[derive(Default)]
struct Queue {
    /// (space, first page of the extent).
    pending: VecDeque<(SpaceId, PageNo)>,
    /// The same, for de-duplication (queued or being read).
    queued: HashSet<(SpaceId, PageNo)>,
    stopping: bool,
}

#[derive(Default)]
pub struct ReadAheadStats {
    /// Pages read ahead (`Innodb_buffer_pool_read_ahead`).
    pub pages: Counter,
    /// Requests made by the random trigger (`Innodb_buffer_pool_read_ahead_rnd`).
    pub random_requests: Counter,
    /// Pages read ahead and evicted unused (`Innodb_buffer_pool_read_ahead_evicted`).
    pub evicted_unused: Counter,
}

impl Default for ReadAhead {
    fn default() -> Self {
        Self {
            threshold: AtomicU32::new(56),
            random: AtomicBool::new(false),
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            running: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            stats: ReadAheadStats::default(),
        }
    }
}

impl ReadAhead {
    /// `innodb_read_ahead_threshold`.
    pub fn set_threshold(&self, pages: u32) {
        self.threshold.store(pages.min(64), Ordering::Relaxed);
    }

    /// `innodb_random_read_ahead`.
    pub fn set_random(&self, on: bool) {
        self.random.store(on, Ordering::Relaxed);
    }

    pub fn threshold(&self) -> u32 {
        self.threshold.load(Ordering::Relaxed)
    }

    fn running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// Queues an extent; false if it was queued already, the queue is full
    /// or the threads are stopping.
    fn request(&self, space: SpaceId, first: PageNo) -> bool {
        let mut q = self.queue.lock();
        if q.stopping || q.pending.len() >= MAX_QUEUED || !q.queued.insert((space, first)) {
            return false;
        }
        q.pending.push_back((space, first));
        drop(q);
        self.wake.notify_one();
        true
    }
}

impl BufferPool {
    /// Pages per read-ahead area: one extent.
    fn area(&self) -> u32 {
        crate::space::extent_pages(self.page_size())
    }

    /// Starts `threads` read threads (`innodb_read_io_threads`).
    pub fn start_read_ahead(self: &Arc<Self>, threads: usize) -> Result<()> {
        let mut handles = self.read_ahead.threads.lock();
        if !handles.is_empty() {
            return Ok(());
        }
        self.read_ahead.queue.lock().stopping = false;
        for i in 0..threads.max(1) {
            let pool = Arc::clone(self);
            let h = std::thread::Builder::new()
                .name(format!("io_read-{i}"))
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    pool.read_ahead_loop()
                })
                .map_err(|e| Error::io("starting a read-ahead thread", e))?;
            handles.push(h);
        }
        self.read_ahead.running.store(true, Ordering::Release);
        Ok(())
    }

    /// Stops the read threads; queued requests are dropped.
    pub fn stop_read_ahead(&self) {
        self.read_ahead.running.store(false, Ordering::Release);
        {
            let mut q = self.read_ahead.queue.lock();
            q.stopping = true;
            q.pending.clear();
        }
        self.read_ahead.wake.notify_all();
        let handles: Vec<_> = self.read_ahead.threads.lock().drain(..).collect();
        for h in handles {
            let _ = h.join();
        }
    }

    /// The first access to page `id` since it was read (by a miss, or by
    /// read-ahead): InnoDB's `buf_read_ahead_linear` test, which only
    /// boundary pages of an extent pass on to the full check.
    #[inline]
    pub(super) fn on_first_access(&self, id: PageId) {
        let area = self.area();
        let pos = id.page_no % area;
        if pos != 0 && pos != area - 1 {
            return;
        }
        self.linear_read_ahead(id, pos == area - 1);
    }

    #[cold]
    fn linear_read_ahead(&self, id: PageId, ascending: bool) {
        let threshold = self.read_ahead.threshold();
        if threshold == 0 || !self.read_ahead.running() {
            return;
        }
        let area = self.area();
        let low = id.page_no - id.page_no % area;
        // Pages that spoil the pattern: not in the pool, never accessed, or
        // accessed out of order. Stop as soon as too many do.
        let allowed = area - threshold;
        let mut fails = 0;
        let mut prev: Option<u32> = None;
        for i in 0..area {
            let p = if ascending { low + i } else { low + area - 1 - i };
            let t = self.first_access_of(PageId::new(id.space, p));
            let ok = match (t, prev) {
                (0, _) => false,
                (t, Some(pt)) => t >= pt,
                (_, None) => true,
            };
            if ok {
                prev = Some(t);
            } else {
                fails += 1;
                if fails > allowed {
                    return;
                }
            }
        }
        let next = if ascending {
            low + area
        } else if low >= area {
            low - area
        } else {
            return;
        };
        self.read_ahead.request(id.space, next);
    }

    /// After a miss on `id` (random read-ahead, when on).
    pub(super) fn after_miss(&self, id: PageId) {
        if !self.read_ahead.random.load(Ordering::Relaxed) || !self.read_ahead.running() {
            return;
        }
        let area = self.area();
        let low = id.page_no - id.page_no % area;
        let mut recent = 0;
        for p in low..low + area {
            if self.recently_accessed(PageId::new(id.space, p)) {
                recent += 1;
                if recent >= random_threshold(area) {
                    if self.read_ahead.request(id.space, low) {
                        self.read_ahead.stats.random_requests.inc();
                    }
                    return;
                }
            }
        }
    }

    /// The first-access time of a resident page (0: not resident or not
    /// accessed). A racy read: read-ahead is a heuristic.
    fn first_access_of(&self, id: PageId) -> u32 {
        self.resident_frame(id).map_or(0, |f| f.first_access_ms.load(Ordering::Relaxed))
    }

    /// Whether a resident page was accessed and sits in the young part of
    /// the LRU (InnoDB: accessed and `buf_page_peek_if_young`).
    fn recently_accessed(&self, id: PageId) -> bool {
        self.resident_frame(id)
            .is_some_and(|f| f.first_access_ms.load(Ordering::Relaxed) != 0 && !f.in_old.load(Ordering::Relaxed))
    }

    fn resident_frame(&self, id: PageId) -> Option<&Frame> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        let f = inst.table.lookup(id, h, &inst.frames)?;
        let frame = &inst.frames[f as usize];
        frame.holds(id).then_some(frame)
    }

    fn read_ahead_loop(&self) {
        // One extent's bytes, reused for every run this thread reads.
        let mut buf = quire_io::AlignedBuf::zeroed(self.area() as usize * self.page_size());
        loop {
            let (space, first) = {
                let mut q = self.read_ahead.queue.lock();
                loop {
                    if q.stopping {
                        return;
                    }
                    if let Some(r) = q.pending.pop_front() {
                        break r;
                    }
                    self.read_ahead.wake.wait(&mut q);
                }
            };
            self.read_extent(space, first, &mut buf);
            self.read_ahead.queue.lock().queued.remove(&(space, first));
        }
    }

    /// Reads the pages of the extent at `first` that are not in the pool.
    fn read_extent(&self, space: SpaceId, first: PageNo, buf: &mut [u8]) {
        let Ok(file) = self.files.get(space) else { return };
        let Ok(size) = file.size_pages() else { return };
        let end = (first + self.area()).min(size);
        let mut run: Vec<(PageNo, &Instance, u32)> = Vec::new();
        let mut p = first;
        while p < end {
            match self.install_for_read_ahead(PageId::new(space, p)) {
                Some(Installed::Frame(inst, f)) => run.push((p, inst, f)),
                Some(Installed::Resident) => {
                    self.read_run(&file, &mut run, buf);
                }
                None => break,
            }
            p += 1;
        }
        self.read_run(&file, &mut run, buf);
    }

    /// Installs a frame for `id`, exclusively latched, unless it is in the
    /// pool already. `None`: no frame to be had without waiting.
    fn install_for_read_ahead(&self, id: PageId) -> Option<Installed<'_>> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        let mut lists = inst.lists.lock();
        if inst.table.lookup(id, h, &inst.frames).is_some() {
            return Some(Installed::Resident);
        }
        let f = self.try_take_free_frame(inst, &mut lists)?;
        self.install(inst, &mut lists, f, id, h, false);
        inst.frames[f as usize].read_ahead.store(true, Ordering::Relaxed);
        Some(Installed::Frame(inst, f))
    }

    /// Reads a run of consecutive pages (installed and latched) with one
    /// system call, then checks and unlatches each; empties `run`.
    fn read_run(&self, file: &crate::space::files::SpaceFile, run: &mut Vec<(PageNo, &Instance, u32)>, buf: &mut [u8]) {
        if run.is_empty() {
            return;
        }
        let ps = self.page_size();
        let first = run[0].0;
        let buf = &mut buf[..run.len() * ps];
        // The run's pages may belong to several instances: each counts its own.
        for (_, inst, _) in run.iter() {
            inst.stats.pending_reads.fetch_add(1, Ordering::Relaxed);
        }
        let read = file.read_pages(first, buf);
        for (_, inst, _) in run.iter() {
            inst.stats.pending_reads.fetch_sub(1, Ordering::Relaxed);
        }
        for (i, &(p, inst, f)) in run.iter().enumerate() {
            let frame = &inst.frames[f as usize];
            let id = PageId::new(file.id, p);
            // SAFETY: exclusively latched since install_for_read_ahead.
            let bytes = unsafe { frame.bytes_mut(ps) };
            let ok = read.is_ok() && {
                bytes.copy_from_slice(&buf[i * ps..(i + 1) * ps]);
                crate::page::verify(bytes, id).and_then(|()| Self::check_structure(bytes, id)).is_ok()
            };
            // A page with buffered changes is left to the read that needs
            // it, which merges them (read-ahead holds no latch order that
            // would allow taking the change buffer's).
            let ok = ok && !(self.pending.is_active() && self.pending.on_read(id));
            if ok {
                self.count_read_kind(bytes, false);
                self.read_ahead.stats.pages.inc();
                self.stats.reads.inc();
                inst.stats.reads.inc();
                inst.stats.read_ahead.inc();
            } else {
                let h = page_table::hash(id);
                let mut lists = inst.lists.lock();
                lists.lru.remove(f, &inst.frames);
                inst.table.remove(id, h, f, &inst.frames);
                frame.page_id.store(NO_PAGE, Ordering::Release);
                frame.read_ahead.store(false, Ordering::Relaxed);
                bytes.fill(0);
                lists.free.push(f);
            }
            // SAFETY: held since install_for_read_ahead.
            unsafe { frame.latch.unlock_exclusive() };
        }
        run.clear();
    }
}

enum Installed<'a> {
    Frame(&'a Instance, u32),
    Resident,
}
