//! The buffer pool: page-sized frames caching tablespace pages, split into
//! instances to spread contention (`innodb_buffer_pool_instances`).
//!
//! Each instance owns, for the pages hashed to it:
//! - a page table readable without locks ([`page_table`]),
//! - a free list and an LRU list with midpoint insertion ([`lru`]), under the
//!   instance mutex,
//! - a flush list of dirty frames ordered by oldest modification LSN, under
//!   its own mutex: the hook for checkpoints and page cleaners.
//!
//! Access: [`BufferPool::fix_optimistic`], [`BufferPool::fix_shared`] and
//! [`BufferPool::fix_exclusive`] return latch guards ([`guard`]); a page not
//! in the pool is read first. Concurrent misses on one page cause one read:
//! the first thread inserts the frame in the page table, exclusively latched,
//! before it reads, and the others block on that latch.
//!
//! Latching contract:
//! 1. The instance mutex is never held while blocking on a frame latch (only
//!    `try_lock` is used under it), nor during I/O.
//! 2. A frame's `page_id` changes only under both the instance mutex and the
//!    frame's exclusive latch.
//! 3. A frame is evicted only when its exclusive latch can be taken at once,
//!    so no holder of a guard ever loses its page.
//! 4. A dirty page is removed from the page table only after it was written,
//!    so a reader can never read a stale copy from disk.
//!
//! Free frames come from the LRU flushers ([`lru_flush`]) once they run
//! (the engine starts them): user threads then never write a page. A pool
//! without them (unit tests of the pool alone, shutdown) writes a dirty
//! victim from the thread that needs the frame.

pub mod adaptive_hash;
pub mod flush;
pub mod frame;
pub mod guard;
pub mod instance_stats;
pub mod lru;
pub mod lru_flush;
mod old_turnover;
pub mod page_cleaner;
pub mod page_table;
pub mod pending;
pub mod read_ahead;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::dblwr::Doublewrite;
use crate::log::RedoLog;
use crate::space::files::SpaceFiles;
use crate::sync::Counter;
use crate::{Error, Lsn, PageId, Result};
use frame::{Frame, FrameMemory, Pin, NO_PAGE};
pub use guard::{ExclusiveGuard, OptGuard, Restart, SharedGuard};
pub use instance_stats::InstanceCounters;
use instance_stats::InstanceStats;
use lru::Lru;
use page_table::PageTable;

/// Buffer pool settings (InnoDB names).
#[derive(Clone, Debug)]
pub struct PoolConfig {
    pub page_size: usize,
    /// `innodb_buffer_pool_size` in bytes.
    pub size_bytes: usize,
    /// `innodb_buffer_pool_instances`.
    pub instances: usize,
    /// `innodb_old_blocks_pct`.
    pub old_blocks_pct: u32,
    /// `innodb_old_blocks_time` in milliseconds.
    pub old_blocks_time_ms: u32,
}

/// Mutable per-instance lists, under the instance mutex.
struct Lists {
    free: Vec<u32>,
    lru: Lru,
}

struct Instance {
    id: usize,
    frames: Box<[Frame]>,
    _memory: FrameMemory,
    table: PageTable,
    lists: crate::wait::Mutex<Lists>,
    /// Dirty frames by oldest modification, and by tablespace.
    flush_list: crate::wait::Mutex<FlushList>,
    /// Set at the first eviction; until then hits never reorder the LRU.
    has_evicted: AtomicBool,
    /// How fast the old part turns over (`old_turnover.rs`).
    turnover: old_turnover::Turnover,
    /// The LRU flusher's event: free frames are wanted (with `lists`).
    lru_wake: parking_lot::Condvar,
    /// Frames were put on the free list (with `lists`).
    free_ready: parking_lot::Condvar,
    /// The LRU flusher's last write error, while it lasts.
    flush_error: Mutex<Option<lru_flush::FlushError>>,
    /// INNODB_BUFFER_POOL_STATS' counters (`instance_stats.rs`).
    stats: InstanceStats,
}

/// An instance's dirty frames: ordered by oldest modification (what
/// checkpoints and page cleaners take first), and indexed by tablespace, so
/// that flushing one table visits only its own pages (seed 003: adding an
/// index must not scan every dirty page of the pool).
#[derive(Default)]
struct FlushList {
    /// (oldest modification, frame number).
    by_lsn: BTreeSet<(Lsn, u32)>,
    /// Frame numbers by space.
    by_space: std::collections::HashMap<crate::SpaceId, std::collections::HashSet<u32>>,
}

impl FlushList {
    fn insert(&mut self, oldest: Lsn, f: u32, space: crate::SpaceId) {
        self.by_lsn.insert((oldest, f));
        self.by_space.entry(space).or_default().insert(f);
    }

    fn remove(&mut self, oldest: Lsn, f: u32, space: Option<crate::SpaceId>) {
        self.by_lsn.remove(&(oldest, f));
        match space {
            Some(s) => {
                if let Some(set) = self.by_space.get_mut(&s) {
                    set.remove(&f);
                    if set.is_empty() {
                        self.by_space.remove(&s);
                    }
                }
            }
            // A frame without a page cannot be dirty; be thorough anyway.
            None => self.by_space.retain(|_, set| {
                set.remove(&f);
                !set.is_empty()
            }),
        }
    }

    fn len(&self) -> usize {
        self.by_lsn.len()
    }
}

/// One buffer pool instance at a moment ([`BufferPool::instance_summaries`]).
#[derive(Clone, Copy, Debug)]
pub struct InstanceSummary {
    pub frames: usize,
    pub free: usize,
    pub lru: usize,
    pub old: usize,
    pub dirty: usize,
    pub counters: InstanceCounters,
}

/// Counters reported as `Innodb_buffer_pool_*`.
#[derive(Default, Debug)]
pub struct PoolStats {
    /// Pages read from disk (`reads`).
    pub reads: Counter,
    /// Pages written (`pages_flushed`).
    pub writes: Counter,
    /// Of those, written to free a frame (`Innodb_buffer_pool_pages_LRU_flushed`).
    pub flushed_lru: Counter,
    /// Of those, written by per-table flushes.
    pub flushed_space: Counter,
    /// Of those, written by a thread that needed a frame (only while no
    /// LRU flusher runs).
    pub flushed_by_user: Counter,
    /// Times a thread found no free frame and waited for the LRU flusher
    /// (`Innodb_buffer_pool_wait_free`).
    pub wait_free: Counter,
    /// Pages written by the page cleaners.
    pub flushed_by_cleaners: Counter,
    /// Of those, pages written for a sync flush (the redo log filling
    /// faster than the pacing wrote).
    pub flushed_sync: Counter,
    /// Sync flushes asked for (`Innodb_buffer_pool_sync_flushes`).
    pub sync_flushes: Counter,
    /// Pages a sync flush's caller (the checkpointer) wrote itself: what
    /// the cleaners left below the LSN (none running, or the wait ran out).
    pub flushed_by_checkpointer: Counter,
    /// Sync flushes whose wait for the cleaners ran out.
    pub sync_flush_timeouts: Counter,
    /// Frames taken from the LRU tail.
    pub evictions: Counter,
    /// Pages read, by kind (InnoDB's `buffer_page_read_index_leaf` /
    /// `_non_leaf` monitor counters): B+tree leaves and inner nodes.
    pub reads_index_leaf: Counter,
    pub reads_index_non_leaf: Counter,
    /// Leaves of non-unique secondary indexes read to apply a change to
    /// them (an insert, a delete or a purge: [`for_bufferable_change`]):
    /// the reads InnoDB's change buffer defers. With the inner nodes read
    /// on the way (`reads_for_change_non_leaf`).
    pub reads_for_change_leaf: Counter,
    pub reads_for_change_non_leaf: Counter,
}

thread_local! {
    static BUFFERABLE_CHANGE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, which changes a non-unique secondary index, counting the
/// pages it reads as [`PoolStats::reads_for_change_leaf`] /
/// `_non_leaf`: the evidence for or against a change buffer.
pub(crate) fn for_bufferable_change<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the flag however `f` ends (an unwinding panic included).
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUFFERABLE_CHANGE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(BUFFERABLE_CHANGE.with(|c| c.replace(true)));
    f()
}

pub struct BufferPool {
    cfg: PoolConfig,
    instances: Box<[Instance]>,
    files: Arc<SpaceFiles>,
    lsn_clock: Arc<AtomicU64>,
    start: Instant,
    old_blocks_time_ms: AtomicU32,
    log: std::sync::OnceLock<Arc<RedoLog>>,
    dblwr: std::sync::OnceLock<Arc<Doublewrite>>,
    pub stats: PoolStats,
    /// `innodb_lru_scan_depth`.
    lru_scan_depth: std::sync::atomic::AtomicUsize,
    lru_flushers: Mutex<Vec<std::thread::JoinHandle<()>>>,
    flushers_running: AtomicBool,
    stopping: AtomicBool,
    /// Page cleaners' pacing (SET GLOBAL changes it live).
    pub tuning: page_cleaner::FlushTuning,
    page_cleaners: Mutex<Vec<std::thread::JoinHandle<()>>>,
    cleaners_stopping: AtomicBool,
    /// A sync flush asked of the cleaners: every page whose oldest change
    /// is below this LSN, at full speed (0: none).
    sync_flush_lsn: AtomicU64,
    /// Signalled by a cleaner after each sync flush round.
    sync_flush_done: (Mutex<()>, parking_lot::Condvar),
    cleaner_wake: (Mutex<()>, parking_lot::Condvar),
    /// Read-ahead settings, queue and threads.
    pub read_ahead: read_ahead::ReadAhead,
    /// The adaptive hash index's table (`btree/ahi.rs` uses it).
    pub adaptive_hash: adaptive_hash::AdaptiveHash,
    /// Evicted leaves' room and pages with buffered changes (`pending.rs`).
    pub pending: pending::Pending,
    /// The change buffer that merges into pages as they are read (weak:
    /// it holds the pool through its tree).
    change_buffer: std::sync::OnceLock<std::sync::Weak<crate::ibuf::ChangeBuffer>>,
}

/// Where a page was last found: a guess that saves a page-table probe for
/// pages visited constantly (a B+tree root).
#[derive(Default, Debug)]
pub struct FrameHint(AtomicU64);

impl Clone for FrameHint {
    fn clone(&self) -> Self {
        FrameHint(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

/// How far from the LRU tail eviction looks for a victim.
const LRU_SCAN_DEPTH: usize = 1024;

/// The least frames an instance may have: a B+tree operation latches a
/// handful of pages at once, and every thread must be able to get a frame.
pub const MIN_FRAMES_PER_INSTANCE: usize = 16;

impl BufferPool {
    pub fn new(cfg: PoolConfig, files: Arc<SpaceFiles>, lsn_clock: Arc<AtomicU64>) -> Result<Self> {
        crate::page::validate_page_size(cfg.page_size)?;
        if cfg.instances == 0 || cfg.instances > 64 {
            return Err(Error::Config("innodb_buffer_pool_instances must be between 1 and 64".into()));
        }
        let total = cfg.size_bytes / cfg.page_size;
        let per = total / cfg.instances;
        if per < MIN_FRAMES_PER_INSTANCE {
            return Err(Error::Config(format!(
                "innodb_buffer_pool_size {} gives {per} pages per instance; at least {MIN_FRAMES_PER_INSTANCE} are needed",
                cfg.size_bytes
            )));
        }
        let instances = (0..cfg.instances)
            .map(|id| {
                let memory = FrameMemory::new(per, cfg.page_size);
                let frames: Box<[Frame]> = (0..per).map(|i| Frame::new(memory.frame_ptr(i, cfg.page_size))).collect();
                Instance {
                    id,
                    table: PageTable::new(per),
                    lists: crate::wait::Mutex::new(
                        crate::wait::Instrument::BufPoolLruList,
                        Lists { free: (0..per as u32).rev().collect(), lru: Lru::new(per, cfg.old_blocks_pct) },
                    ),
                    flush_list: crate::wait::Mutex::new(crate::wait::Instrument::FlushList, FlushList::default()),
                    has_evicted: AtomicBool::new(false),
                    turnover: Default::default(),
                    lru_wake: Default::default(),
                    free_ready: Default::default(),
                    flush_error: Mutex::new(None),
                    stats: InstanceStats::default(),
                    frames,
                    _memory: memory,
                }
            })
            .collect();
        Ok(Self {
            old_blocks_time_ms: AtomicU32::new(cfg.old_blocks_time_ms),
            adaptive_hash: adaptive_hash::AdaptiveHash::new(cfg.size_bytes),
            pending: pending::Pending::new(total * 8),
            change_buffer: std::sync::OnceLock::new(),
            cfg,
            instances,
            files,
            lsn_clock,
            start: Instant::now(),
            log: std::sync::OnceLock::new(),
            dblwr: std::sync::OnceLock::new(),
            stats: PoolStats::default(),
            lru_scan_depth: std::sync::atomic::AtomicUsize::new(1024),
            lru_flushers: Mutex::new(Vec::new()),
            flushers_running: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            tuning: {
                let t = page_cleaner::FlushTuning::default();
                t.set(&page_cleaner::FlushTuningConfig::default());
                t
            },
            page_cleaners: Mutex::new(Vec::new()),
            cleaners_stopping: AtomicBool::new(false),
            sync_flush_lsn: AtomicU64::new(0),
            sync_flush_done: (Mutex::new(()), parking_lot::Condvar::new()),
            cleaner_wake: (Mutex::new(()), parking_lot::Condvar::new()),
            read_ahead: read_ahead::ReadAhead::default(),
        })
    }

    #[inline]
    pub fn page_size(&self) -> usize {
        self.cfg.page_size
    }

    pub fn config(&self) -> &PoolConfig {
        &self.cfg
    }

    pub fn files(&self) -> &Arc<SpaceFiles> {
        &self.files
    }

    pub fn lsn_clock(&self) -> &Arc<AtomicU64> {
        &self.lsn_clock
    }

    pub fn frames_total(&self) -> usize {
        self.instances.iter().map(|i| i.frames.len()).sum()
    }

    pub fn set_old_blocks_time_ms(&self, ms: u32) {
        self.old_blocks_time_ms.store(ms, Ordering::Relaxed);
    }

    pub fn set_old_blocks_pct(&self, pct: u32) {
        for inst in self.instances.iter() {
            inst.lists.lock().lru.set_old_pct(pct, &inst.frames);
        }
    }

    fn now_ms(&self) -> u32 {
        // Never 0: 0 means "not accessed yet".
        (self.start.elapsed().as_millis() as u32).max(1)
    }

    #[inline]
    fn instance_of(&self, h: u64) -> &Instance {
        // The table uses the low bits of the hash and the tag its high half;
        // the instance comes from the middle bits, by multiply-shift rather
        // than a division.
        let mid = (h >> 16) & 0xffff_ffff;
        &self.instances[((mid * self.instances.len() as u64) >> 32) as usize]
    }

    // ---- access -------------------------------------------------------

    /// Reads `id` optimistically, loading it first if needed.
    #[inline]
    pub fn fix_optimistic(&self, id: PageId) -> Result<OptGuard<'_>> {
        self.fix_optimistic_pinning(id, None)
    }

    /// Like [`BufferPool::fix_optimistic`], for a descent that reached
    /// `id` from `parent`: while `id` is read, `parent`'s frame is pinned,
    /// so that making room for the child cannot evict the parent. (A
    /// descent whose parent went away restarts from the root; with only a
    /// path's worth of evictable frames, as when every dirty page fails to
    /// be written, each restart would evict the next parent: a livelock.)
    #[inline]
    pub fn fix_optimistic_below(&self, parent: &OptGuard<'_>, id: PageId) -> Result<OptGuard<'_>> {
        self.fix_optimistic_pinning(id, Some(parent.frame))
    }

    #[inline]
    fn fix_optimistic_pinning(&self, id: PageId, keep: Option<&Frame>) -> Result<OptGuard<'_>> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        inst.stats.requests.inc();
        loop {
            if let Some(f) = inst.table.lookup(id, h, &inst.frames) {
                let frame = &inst.frames[f as usize];
                let version = frame.latch.optimistic();
                if frame.holds(id) {
                    self.touch(inst, f, frame);
                    return Ok(OptGuard { pool: self, frame, id, version });
                }
                continue;
            }
            let _pin = keep.map(Pin::new);
            if let Some(g) = self.load(inst, id, h)? {
                let frame = g.frame;
                drop(g);
                let version = frame.latch.optimistic();
                if frame.holds(id) {
                    return Ok(OptGuard { pool: self, frame, id, version });
                }
            }
        }
    }

    /// Like [`BufferPool::fix_optimistic`], but never waits: `None` if the
    /// page is not resident or is exclusively latched right now (for a
    /// thread that holds other latches and must not block).
    pub fn fix_optimistic_try(&self, id: PageId) -> Option<OptGuard<'_>> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        let f = inst.table.lookup(id, h, &inst.frames)?;
        self.try_optimistic_frame(inst, f, id)
    }

    /// Frame `f` of `inst` read optimistically if it holds `id` and is not
    /// exclusively latched right now.
    #[inline]
    fn try_optimistic_frame<'a>(&'a self, inst: &'a Instance, f: u32, id: PageId) -> Option<OptGuard<'a>> {
        let frame = inst.frames.get(f as usize)?;
        let version = frame.latch.try_optimistic()?;
        if !frame.holds(id) {
            return None;
        }
        inst.stats.requests.inc();
        self.touch(inst, f, frame);
        Some(OptGuard { pool: self, frame, id, version })
    }

    /// Like [`BufferPool::fix_optimistic`], trying the frame `hint` names
    /// first (and updating it). A hint is only a guess: the frame's own page
    /// id, read under its latch version, decides.
    #[inline]
    pub fn fix_optimistic_hinted(&self, id: PageId, hint: &FrameHint) -> Result<OptGuard<'_>> {
        let h = hint.0.load(Ordering::Relaxed);
        if h != 0 {
            let (i, f) = ((h >> 32) as usize - 1, h as u32);
            if let Some(frame) = self.instances.get(i).and_then(|inst| inst.frames.get(f as usize)) {
                // Only if free right now and still ours: the hint may name a
                // frame reused for another page, busy with I/O.
                if let Some(version) = frame.latch.try_optimistic().filter(|_| frame.holds(id)) {
                    self.instances[i].stats.requests.inc();
                    self.touch(&self.instances[i], f, frame);
                    return Ok(OptGuard { pool: self, frame, id, version });
                }
            }
        }
        let g = self.fix_optimistic(id)?;
        let inst = self.instance_of(page_table::hash(id));
        let f = self.frame_no(inst, g.frame);
        hint.0.store(((inst.id as u64 + 1) << 32) | f as u64, Ordering::Relaxed);
        Ok(g)
    }

    /// Latches `id` shared, loading it first if needed.
    pub fn fix_shared(&self, id: PageId) -> Result<SharedGuard<'_>> {
        let frame = self.fix_latched(id, false)?;
        Ok(SharedGuard { pool: self, frame, id })
    }

    /// Latches `id` exclusively, loading it first if needed.
    pub fn fix_exclusive(&self, id: PageId) -> Result<ExclusiveGuard<'_>> {
        let frame = self.fix_latched(id, true)?;
        Ok(ExclusiveGuard { pool: self, frame, id, modified: false })
    }

    /// The frame holding `id` (read first if needed), latched exclusively
    /// or shared; the caller wraps it in the matching guard.
    fn fix_latched(&self, id: PageId, exclusive: bool) -> Result<&Frame> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        inst.stats.requests.inc();
        loop {
            if let Some(f) = inst.table.lookup(id, h, &inst.frames) {
                let frame = &inst.frames[f as usize];
                if exclusive {
                    frame.latch.lock_exclusive();
                } else {
                    frame.latch.lock_shared();
                }
                if frame.holds(id) {
                    self.touch(inst, f, frame);
                    return Ok(frame);
                }
                // SAFETY: locked just above, in this mode.
                unsafe {
                    if exclusive {
                        frame.latch.unlock_exclusive()
                    } else {
                        frame.latch.unlock_shared()
                    }
                };
                continue;
            }
            if let Some(g) = self.load(inst, id, h)? {
                let frame = g.frame;
                // The latch stays held: ownership passes to the caller's guard.
                if exclusive {
                    std::mem::forget(g);
                } else {
                    std::mem::forget(g.downgrade());
                }
                return Ok(frame);
            }
        }
    }

    /// A frame for a page that is being created: its bytes are zeroed and
    /// nothing is read from disk. If the page is still cached (a freed page
    /// being reused) that frame is taken over.
    pub fn create_page(&self, id: PageId) -> Result<ExclusiveGuard<'_>> {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        loop {
            if let Some(f) = inst.table.lookup(id, h, &inst.frames) {
                let frame = &inst.frames[f as usize];
                frame.latch.lock_exclusive();
                if frame.holds(id) {
                    let mut g = ExclusiveGuard { pool: self, frame, id, modified: false };
                    g.data_mut().fill(0);
                    return Ok(g);
                }
                // SAFETY: locked just above.
                unsafe { frame.latch.unlock_exclusive() };
                continue;
            }
            let mut lists = inst.lists.lock();
            if inst.table.lookup(id, h, &inst.frames).is_some() {
                continue;
            }
            let (f, l) = self.take_free_frame(inst, lists)?;
            lists = l;
            let frame = &inst.frames[f as usize];
            if inst.table.lookup(id, h, &inst.frames).is_some() {
                lists.free.push(f);
                drop(lists);
                // SAFETY: latched by take_free_frame.
                unsafe { frame.latch.unlock_exclusive() };
                continue;
            }
            self.install(inst, &mut lists, f, id, h, true);
            drop(lists);
            inst.stats.created.inc();
            let mut g = ExclusiveGuard { pool: self, frame, id, modified: false };
            g.data_mut().fill(0);
            return Ok(g);
        }
    }

    fn frame_no(&self, inst: &Instance, frame: &Frame) -> u32 {
        let base = inst.frames.as_ptr() as usize;
        ((frame as *const Frame as usize - base) / std::mem::size_of::<Frame>()) as u32
    }

    /// LRU bookkeeping on a hit: only pages in the old part may move, and
    /// only if their first access is old enough.
    ///
    /// As InnoDB does (`freed_page_clock == 0`), nothing moves in an
    /// instance that has never evicted a page: while everything fits, LRU
    /// order does not matter and the list mutex is never taken on a hit.
    #[inline]
    fn touch(&self, inst: &Instance, f: u32, frame: &Frame) {
        if frame.read_ahead.load(Ordering::Relaxed) {
            self.first_touch_after_read_ahead(frame);
        }
        if !frame.in_old.load(Ordering::Relaxed) || !inst.has_evicted.load(Ordering::Relaxed) {
            return;
        }
        self.touch_old(inst, f, frame);
    }

    /// The first access to a page read ahead: its access time starts now,
    /// and it may trigger the next read-ahead.
    #[cold]
    fn first_touch_after_read_ahead(&self, frame: &Frame) {
        if !frame.read_ahead.swap(false, Ordering::Relaxed) {
            return;
        }
        let _ = frame.first_access_ms.compare_exchange(0, self.now_ms(), Ordering::Relaxed, Ordering::Relaxed);
        if let Some(id) = frame.page() {
            self.on_first_access(id);
        }
    }

    #[cold]
    fn touch_old(&self, inst: &Instance, f: u32, frame: &Frame) {
        let now = self.now_ms();
        let first = frame.first_access_ms.load(Ordering::Relaxed);
        if first == 0 {
            frame.first_access_ms.store(now, Ordering::Relaxed);
            return;
        }
        if now.wrapping_sub(first) < inst.turnover.wait_ms(now, self.old_blocks_time_ms.load(Ordering::Relaxed)) {
            inst.stats.not_made_young.inc();
            return;
        }
        let mut lists = inst.lists.lock();
        // Re-check under the mutex: the frame may have been evicted or moved.
        if frame.in_old.load(Ordering::Relaxed) && frame.page_id.load(Ordering::Relaxed) != NO_PAGE {
            lists.lru.make_young(f, &inst.frames);
            inst.stats.made_young.inc();
        }
    }

    /// Brings `id` into the pool. Returns the frame exclusively latched, or
    /// `None` if another thread loaded it meanwhile (the caller retries).
    fn load<'a>(&'a self, inst: &'a Instance, id: PageId, h: u64) -> Result<Option<ExclusiveGuard<'a>>> {
        let lists = inst.lists.lock();
        if inst.table.lookup(id, h, &inst.frames).is_some() {
            return Ok(None);
        }
        let (f, mut lists) = self.take_free_frame(inst, lists)?;
        let frame = &inst.frames[f as usize];
        if inst.table.lookup(id, h, &inst.frames).is_some() {
            // Loaded by another thread while we wrote a victim.
            lists.free.push(f);
            drop(lists);
            // SAFETY: latched by take_free_frame.
            unsafe { frame.latch.unlock_exclusive() };
            return Ok(None);
        }
        self.install(inst, &mut lists, f, id, h, false);
        drop(lists);
        // Read outside the mutex; the exclusive latch makes others wait.
        let file = self.files.get(id.space);
        // SAFETY: exclusive latch held since take_free_frame.
        let bytes = unsafe { frame.bytes_mut(self.page_size()) };
        let res = file.and_then(|file| {
            let read = || instance_stats::pending(&inst.stats.pending_reads, 1, || file.read_page(id.page_no, bytes));
            crate::txn::admission::lend(crate::wait::Instrument::DataFile, read)?;
            crate::page::verify(bytes, id)
                .and_then(|()| Self::check_structure(bytes, id))
                .map_err(|e| e.in_file(&file.path))
        });
        self.stats.reads.inc();
        inst.stats.reads.inc();
        match res {
            Ok(()) => {
                self.count_read_kind(bytes, BUFFERABLE_CHANGE.with(|c| c.get()));
                let mut g = ExclusiveGuard { pool: self, frame, id, modified: false };
                if let Err(e) = self.merge_buffered(&mut g) {
                    std::mem::forget(g);
                    return Err(self.unload(inst, f, id, h, e));
                }
                // The read is for an access: that is the page's first.
                frame.first_access_ms.store(self.now_ms(), Ordering::Relaxed);
                self.on_first_access(id);
                self.after_miss(id);
                Ok(Some(g))
            }
            Err(e) => Err(self.unload(inst, f, id, h, e)),
        }
    }

    /// Applies the changes buffered for a page just read (`crate::ibuf`),
    /// before anyone else sees it.
    fn merge_buffered(&self, g: &mut ExclusiveGuard<'_>) -> Result<()> {
        if !self.pending.is_active() {
            return Ok(());
        }
        let id = g.id();
        if self.pending.on_read(id) {
            let cb = self.change_buffer.get().and_then(std::sync::Weak::upgrade);
            let Some(cb) = cb else {
                return Err(Error::corruption(id, "changes are buffered for this page but no change buffer is open"));
            };
            cb.merge_into(g)?;
            self.pending.forget(id);
        }
        Ok(())
    }

    /// Attaches the change buffer: from now on evictions record the room
    /// of leaves and reads merge buffered changes.
    pub(crate) fn attach_change_buffer(&self, cb: &Arc<crate::ibuf::ChangeBuffer>) {
        let _ = self.change_buffer.set(Arc::downgrade(cb));
        self.pending.activate();
    }

    /// Whether `id` is in the page table (resident, or being read),
    /// without any lock.
    pub(crate) fn in_page_table(&self, id: PageId) -> bool {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        inst.table.lookup(id, h, &inst.frames).is_some()
    }

    /// A page about to leave the page table: a leaf of an index that takes
    /// buffered changes leaves its room behind for the change buffer. REQUIRES: the frame
    /// exclusively latched, still in the page table.
    fn note_eviction(&self, frame: &Frame, id: PageId) {
        if !self.pending.is_active() || id.space == crate::SYSTEM_SPACE {
            return;
        }
        // SAFETY: exclusively latched (the caller's requirement).
        let bytes = unsafe { frame.bytes(self.page_size()) };
        use crate::btree::node;
        if crate::page::page_type(bytes) == Some(crate::page::PageType::BTreeNode)
            && node::is_leaf(bytes)
            && self.pending.tracks(node::index_id(bytes))
        {
            self.pending.on_evict(id, node::room(bytes));
        }
    }

    /// Undoes the installation of a page whose read failed and returns the
    /// error; waiters see the frame no longer holds the page and retry
    /// (and meet the error themselves). REQUIRES: the frame exclusively
    /// latched since `take_free_frame`.
    fn unload(&self, inst: &Instance, f: u32, id: PageId, h: u64, e: Error) -> Error {
        let frame = &inst.frames[f as usize];
        // SAFETY: exclusively latched (the caller's requirement).
        let bytes = unsafe { frame.bytes_mut(self.page_size()) };
        let mut lists = inst.lists.lock();
        lists.lru.remove(f, &inst.frames);
        inst.table.remove(id, h, f, &inst.frames);
        frame.page_id.store(NO_PAGE, Ordering::Release);
        bytes.fill(0);
        lists.free.push(f);
        drop(lists);
        // SAFETY: held since take_free_frame.
        unsafe { frame.latch.unlock_exclusive() };
        e
    }

    /// Counts a page just read by its kind (B+tree leaf or inner node),
    /// and as read for a bufferable change if it was.
    fn count_read_kind(&self, bytes: &[u8], for_change: bool) {
        if crate::page::page_type(bytes) != Some(crate::page::PageType::BTreeNode) {
            return;
        }
        let leaf = crate::btree::node::level(bytes) == 0;
        if leaf {
            self.stats.reads_index_leaf.inc();
        } else {
            self.stats.reads_index_non_leaf.inc();
        }
        if for_change {
            if leaf {
                self.stats.reads_for_change_leaf.inc();
            } else {
                self.stats.reads_for_change_non_leaf.inc();
            }
        }
    }

    /// A page that passes its checksum may still be internally inconsistent
    /// (a bug elsewhere, a deliberate edit): B+tree nodes are checked when
    /// they come from disk, so that code working on latched pages can rely
    /// on their structure and corruption stays an error, never a panic.
    fn check_structure(bytes: &[u8], id: PageId) -> Result<()> {
        if crate::page::page_type(bytes) == Some(crate::page::PageType::BTreeNode) {
            crate::btree::node::check(bytes).map_err(|e| Error::corruption(id, e.0))?;
        }
        Ok(())
    }

    /// REQUIRES: instance mutex held, frame `f` exclusively latched and
    /// holding no page.
    /// A page to be read enters the LRU at the midpoint; a page created
    /// (`created`) at the head, accessed now (InnoDB's buf_page_create: it
    /// is about to be written; at the midpoint, a load's new pages — a
    /// CREATE INDEX's whole index — would be the first evicted and read
    /// back).
    fn install(&self, inst: &Instance, lists: &mut Lists, f: u32, id: PageId, h: u64, created: bool) {
        let frame = &inst.frames[f as usize];
        frame.page_id.store(id.to_u64(), Ordering::Release);
        frame.oldest_modification.store(0, Ordering::Relaxed);
        frame.newest_modification.store(0, Ordering::Relaxed);
        frame.first_access_ms.store(if created { self.now_ms() } else { 0 }, Ordering::Relaxed);
        frame.read_ahead.store(false, Ordering::Relaxed);
        inst.table.insert(id, h, f);
        if created {
            lists.lru.insert_young(f, &inst.frames);
        } else {
            lists.lru.insert_midpoint(f, &inst.frames);
        }
    }

    /// Takes a frame from the free list, or evicts the least recently used
    /// unlatched one. The frame is returned exclusively latched, holding no
    /// page. May drop and retake the instance mutex (to write a dirty victim).
    fn take_free_frame<'a>(
        &'a self,
        inst: &'a Instance,
        mut lists: parking_lot::MutexGuard<'a, Lists>,
    ) -> Result<(u32, parking_lot::MutexGuard<'a, Lists>)> {
        if self.flushers_running.load(Ordering::Acquire) {
            return self.take_free_frame_waiting(inst, lists);
        }
        let mut attempts = 0u32;
        // Victims whose write failed: not tried again by this call.
        let mut failed: Vec<u32> = Vec::new();
        // Whether this call already wrote a batch from the LRU tail.
        let mut batch_written = false;
        loop {
            if let Some(f) = Self::pop_free(inst, &mut lists) {
                return Ok((f, lists));
            }
            // Scan the LRU from the tail for a frame nobody holds: a clean
            // one among the last few (freeing it costs no write), else the
            // first latchable one. The clean search must stay near the tail:
            // reaching further would evict pages just read (inserted at the
            // old part's head) while dirty pages pile up at the tail, and a
            // descent would then evict its own parent over and over.
            let mut victim = None;
            let clean_depth = (inst.frames.len() / 16).max(8);
            for (want_clean, depth) in [(true, clean_depth), (false, LRU_SCAN_DEPTH)] {
                if !want_clean && !batch_written {
                    // Nothing clean near the tail: write a batch of the
                    // dirty tail pages through one doublewrite batch (one
                    // set of syncs for many pages), then look again.
                    // Scaffolding until background LRU flushers do this
                    // ahead of demand.
                    let batch = self.dblwr().map_or(64, |d| d.batch_pages());
                    let mut dirty = Vec::with_capacity(batch);
                    let mut cand = lists.lru.tail();
                    let mut scanned = 0;
                    while let Some(f) = cand {
                        if scanned >= LRU_SCAN_DEPTH || dirty.len() >= batch {
                            break;
                        }
                        scanned += 1;
                        let frame = &inst.frames[f as usize];
                        if frame.is_dirty() && !frame.flushing.load(Ordering::Acquire) && !failed.contains(&f) {
                            dirty.push(f);
                        }
                        cand = lists.lru.prev_of(f);
                    }
                    if !dirty.is_empty() {
                        batch_written = true;
                        drop(lists);
                        let res = self.flush_batch(inst.id, &dirty, crate::dblwr::FlushType::Lru, false);
                        if let Ok(n) = &res {
                            self.stats.flushed_by_user.add(*n as u64);
                        }
                        lists = inst.lists.lock();
                        res?;
                        break;
                    }
                }
                let mut cand = lists.lru.tail();
                let mut scanned = 0;
                while let Some(f) = cand {
                    if scanned >= depth {
                        break;
                    }
                    scanned += 1;
                    let frame = &inst.frames[f as usize];
                    if (!want_clean || !frame.is_dirty())
                        && !frame.flushing.load(Ordering::Acquire)
                        && !frame.is_pinned()
                        && !failed.contains(&f)
                        && frame.latch.try_lock_exclusive()
                    {
                        // A flusher may have claimed the frame between the
                        // check and the latch; its copy must not land after
                        // our write.
                        if frame.flushing.load(Ordering::Acquire)
                            || (want_clean && frame.is_dirty())
                            || frame.is_pinned()
                        {
                            // Dirtied between the check and the latch.
                            // SAFETY: latched just above.
                            unsafe { frame.latch.unlock_exclusive() };
                        } else {
                            victim = Some(f);
                            break;
                        }
                    }
                    cand = lists.lru.prev_of(f);
                }
                if victim.is_some() {
                    break;
                }
            }
            if let Some(f) = victim {
                let frame = &inst.frames[f as usize];
                let id = frame.page().expect("LRU frame without a page");
                lists.lru.remove(f, &inst.frames);
                if frame.is_dirty() {
                    // Scaffolding: write the victim ourselves, outside the mutex.
                    drop(lists);
                    // SAFETY: exclusively latched above.
                    let bytes = unsafe { frame.bytes(self.page_size()) };
                    let res = self.write_page_copy(inst, id, bytes);
                    lists = inst.lists.lock();
                    if let Err(e) = res {
                        // Keep the page; try another victim before giving up.
                        lists.lru.insert_midpoint(f, &inst.frames);
                        // SAFETY: latched above.
                        unsafe { frame.latch.unlock_exclusive() };
                        failed.push(f);
                        if failed.len() >= 4 {
                            return Err(e);
                        }
                        continue;
                    }
                    self.remove_from_flush_list(inst, f, frame);
                }
                self.note_eviction(frame, id);
                inst.turnover.on_eviction(self.now_ms(), lists.lru.old_len());
                inst.table.remove(id, page_table::hash(id), f, &inst.frames);
                frame.page_id.store(NO_PAGE, Ordering::Release);
                self.stats.evictions.inc();
                if !inst.has_evicted.load(Ordering::Relaxed) {
                    inst.has_evicted.store(true, Ordering::Relaxed);
                }
                return Ok((f, lists));
            }
            if batch_written && attempts == 0 {
                // The batch made clean pages: look again at once.
                attempts += 1;
                continue;
            }
            attempts += 1;
            if attempts > 2000 {
                return Err(Error::PoolExhausted { instance: inst.id });
            }
            // Every frame is latched: wait for someone to let go.
            drop(lists);
            std::thread::sleep(Duration::from_micros(200));
            lists = inst.lists.lock();
        }
    }

    // ---- dirty pages --------------------------------------------------

    /// Records a change logged in `[start, end)` to a page. REQUIRES:
    /// exclusive latch held.
    pub(crate) fn mark_dirty(&self, frame: &Frame, id: PageId, start: Lsn, end: Lsn) {
        frame.newest_modification.store(end, Ordering::Release);
        if frame.oldest_modification.load(Ordering::Acquire) == 0 {
            // 0 means clean; an LSN of 0 never occurs (logs start above it).
            let oldest = start.max(1);
            frame.oldest_modification.store(oldest, Ordering::Release);
            let inst = self.instance_of(page_table::hash(id));
            let f = self.frame_no(inst, frame);
            inst.flush_list.lock().insert(oldest, f, id.space);
        }
    }

    /// Attaches the redo log: mini-transactions log through it and page
    /// writes wait for it (the WAL rule).
    pub fn set_log(&self, log: Arc<RedoLog>) {
        let _ = self.log.set(log);
    }

    #[inline]
    pub fn log(&self) -> Option<&Arc<RedoLog>> {
        self.log.get()
    }

    /// REQUIRES: the frame's latch held (shared or exclusive) and the page
    /// written as of its current newest modification.
    fn remove_from_flush_list(&self, inst: &Instance, f: u32, frame: &Frame) {
        let oldest = frame.oldest_modification.swap(0, Ordering::AcqRel);
        if oldest != 0 {
            inst.flush_list.lock().remove(oldest, f, frame.page().map(|id| id.space));
        }
    }

    /// Seals a copy of an evicted page and writes it (an LRU batch of one).
    fn write_page_copy(&self, inst: &Instance, id: PageId, bytes: &[u8]) -> Result<()> {
        self.wal_check(crate::page::page_lsn(bytes))?;
        let mut copy = flush::io_buffer(self.page_size());
        copy.copy_from_slice(bytes);
        crate::page::seal(&mut copy);
        self.write_sealed(inst.id, crate::dblwr::FlushType::Lru, &[(id, &copy)])?;
        self.stats.writes.inc();
        self.stats.flushed_lru.inc();
        self.stats.flushed_by_user.inc();
        Ok(())
    }

    /// Attaches the doublewrite buffer: every page write goes through it.
    pub fn set_doublewrite(&self, d: Arc<Doublewrite>) {
        let _ = self.dblwr.set(d);
    }

    pub fn dblwr(&self) -> Option<&Arc<Doublewrite>> {
        self.dblwr.get()
    }

    /// The WAL rule: a page with LSN `lsn` may be written only once the
    /// log is durable up to it.
    pub(crate) fn wal_check(&self, lsn: Lsn) -> Result<()> {
        match self.log() {
            // A page write can be retried: it gives up (ENOSPC) rather
            // than wait for a full disk without end, so that a flusher
            // stays stoppable.
            Some(log) => log.flush_up_to_retryable(lsn),
            None => Ok(()),
        }
    }

    /// Number of dirty pages.
    pub fn dirty_pages(&self) -> usize {
        self.instances.iter().map(|i| i.flush_list.lock().len()).sum()
    }

    /// The smallest oldest-modification LSN of any dirty page.
    pub fn oldest_modification(&self) -> Option<Lsn> {
        self.instances.iter().filter_map(|i| i.flush_list.lock().by_lsn.first().map(|e| e.0)).min()
    }

    /// Pages currently cached.
    /// Each instance's frames, free frames, LRU length (and its old part)
    /// and dirty pages, as SHOW ENGINE INNODB STATUS prints them.
    pub fn instance_summaries(&self) -> Vec<InstanceSummary> {
        self.instances
            .iter()
            .map(|i| {
                let (free, lru, old) = {
                    let l = i.lists.lock();
                    (l.free.len(), l.lru.len() as usize, l.lru.old_len() as usize)
                };
                let dirty = i.flush_list.lock().len();
                InstanceSummary { frames: i.frames.len(), free, lru, old, dirty, counters: i.stats.snapshot() }
            })
            .collect()
    }

    /// Pages asked for, hits and misses (`Innodb_buffer_pool_read_requests`).
    pub fn page_requests(&self) -> u64 {
        self.instances.iter().map(|i| i.stats.requests.get()).sum()
    }

    /// Pages moved from the old to the young part of an LRU list.
    pub fn made_young(&self) -> u64 {
        self.instances.iter().map(|i| i.stats.made_young.get()).sum()
    }

    /// Accesses to old pages not made young (too soon after the first).
    pub fn not_made_young(&self) -> u64 {
        self.instances.iter().map(|i| i.stats.not_made_young.get()).sum()
    }

    /// Pages created without a read.
    pub fn pages_created(&self) -> u64 {
        self.instances.iter().map(|i| i.stats.created.get()).sum()
    }

    pub fn resident_pages(&self) -> usize {
        self.instances.iter().map(|i| i.lists.lock().lru.len() as usize).sum()
    }

    /// Forgets every cached page of a space without writing it (the space is
    /// being dropped). REQUIRES: nobody uses the space any more.
    pub fn discard_space(&self, space: crate::SpaceId) {
        for inst in self.instances.iter() {
            for (f, frame) in inst.frames.iter().enumerate() {
                let Some(id) = frame.page() else { continue };
                if id.space != space {
                    continue;
                }
                frame.latch.lock_exclusive();
                let mut lists = inst.lists.lock();
                if frame.holds(id) {
                    self.remove_from_flush_list(inst, f as u32, frame);
                    lists.lru.remove(f as u32, &inst.frames);
                    inst.table.remove(id, page_table::hash(id), f as u32, &inst.frames);
                    frame.page_id.store(NO_PAGE, Ordering::Release);
                    lists.free.push(f as u32);
                }
                drop(lists);
                // SAFETY: locked above.
                unsafe { frame.latch.unlock_exclusive() };
            }
        }
    }

    /// Checks the LRU invariants of every instance (tests).
    pub fn check_lists(&self) {
        for inst in self.instances.iter() {
            let lists = inst.lists.lock();
            lists.lru.check(&inst.frames);
            assert_eq!(lists.lru.len() as usize + lists.free.len(), inst.frames.len());
        }
    }
}
