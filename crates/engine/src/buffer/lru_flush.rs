//! LRU flushers: one thread per buffer pool instance keeps free frames
//! ready before anyone asks (seeds 000 and 003).
//!
//! Protocol:
//! 1. A thread that takes a free frame and leaves fewer than the target on
//!    the free list signals the instance's `lru_wake` event; so does a
//!    thread that finds the list empty. The flusher sleeps on that event —
//!    never a sleep-and-poll loop (its only timeout, 1 s, is a safety net).
//! 2. Woken, the flusher walks the LRU's old part from its tail, at most
//!    `innodb_lru_scan_depth` frames: clean frames nobody holds near the
//!    tail go to the free list; dirty ones are collected into one
//!    doublewrite batch (LRU shard), written with no mutex held, and freed
//!    on the next walk.
//! 3. A user thread never writes a page to get a frame. While more frames
//!    than the target are free (warm-up) it takes one of them; then a
//!    clean frame near the tail if there is one (no write: the free list
//!    stays for when the tail is dirty), else a free frame, else it signals the
//!    flusher and waits on `free_ready` (bounded; counted as
//!    `Innodb_buffer_pool_wait_free`).
//! 4. While the flusher's writes fail (a full disk, a failing device),
//!    dirty frames cannot be freed but clean ones still can: the flusher
//!    and waiting threads then look for clean frames along the whole LRU,
//!    not only near its tail, so reads go on. Only when no frame at all is
//!    clean does a waiting thread get the write error, after
//!    `WAIT_FREE_WHILE_FAILING` (the flusher retries meanwhile).
//!
//! Latching: the flusher takes frame latches only with `try_lock` under the
//! instance mutex (contract 1 of `buffer/mod.rs`), and writes through
//! `flush_batch` without blocking on latches, so a pool nearly all dirty
//! and latched makes progress as soon as any holder lets go.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::frame::NO_PAGE;
use super::{page_table, BufferPool, Instance, Lists};
use crate::dblwr::FlushType;
use crate::{Error, Result};

/// How long a user thread waits for a free frame before giving up.
const WAIT_FREE_LIMIT: Duration = Duration::from_secs(30);
/// How long it waits while the flusher's writes fail (protocol step 4).
const WAIT_FREE_WHILE_FAILING: Duration = Duration::from_secs(1);

/// A flusher's last write error, kept to hand to waiting threads.
#[derive(Clone, Debug)]
pub(super) struct FlushError {
    os: Option<i32>,
    kind: std::io::ErrorKind,
    message: String,
}

impl FlushError {
    fn of(e: &Error) -> Self {
        match e {
            Error::Io { source, .. } => {
                FlushError { os: source.raw_os_error(), kind: source.kind(), message: e.to_string() }
            }
            other => FlushError { os: None, kind: std::io::ErrorKind::Other, message: other.to_string() },
        }
    }

    fn to_error(&self) -> Error {
        let source = match self.os {
            Some(code) => std::io::Error::from_raw_os_error(code),
            None => std::io::Error::new(self.kind, self.message.clone()),
        };
        Error::io(format!("a page write by the LRU flusher ({})", self.message), source)
    }
}

impl BufferPool {
    /// Free frames an instance keeps ready: `innodb_lru_scan_depth`, at
    /// most 1/64 of the instance (every free frame is a page not cached:
    /// a larger cushion costs hit ratio on small pools).
    pub(super) fn free_target(&self, inst: &Instance) -> usize {
        self.lru_scan_depth.load(Ordering::Relaxed).min(inst.frames.len() / 64).max(4)
    }

    /// `innodb_lru_scan_depth`.
    pub fn set_lru_scan_depth(&self, n: usize) {
        self.lru_scan_depth.store(n.max(1), Ordering::Relaxed);
        for inst in self.instances.iter() {
            inst.lru_wake.notify_one();
        }
    }

    /// Starts one LRU flusher per instance. From then on user threads never
    /// write a page to get a frame.
    pub fn start_lru_flushers(self: &Arc<Self>) -> Result<()> {
        let mut threads = self.lru_flushers.lock();
        if !threads.is_empty() {
            return Ok(());
        }
        self.stopping.store(false, Ordering::Release);
        for i in 0..self.instances.len() {
            let pool = Arc::clone(self);
            let t = std::thread::Builder::new()
                .name(format!("lru_flusher-{i}"))
                .spawn(move || {
                    crate::sync::priority::raise_background_priority();
                    pool.lru_flusher_loop(i)
                })
                .map_err(|e| Error::io("starting an LRU flusher", e))?;
            threads.push(t);
        }
        self.flushers_running.store(true, Ordering::Release);
        Ok(())
    }

    /// Stops the LRU flushers (shutdown); user threads write victims
    /// themselves again.
    pub fn stop_lru_flushers(&self) {
        self.stopping.store(true, Ordering::Release);
        let threads: Vec<_> = self.lru_flushers.lock().drain(..).collect();
        for inst in self.instances.iter() {
            let _l = inst.lists.lock();
            inst.lru_wake.notify_all();
        }
        for t in threads {
            let _ = t.join();
        }
        self.flushers_running.store(false, Ordering::Release);
        for inst in self.instances.iter() {
            let _l = inst.lists.lock();
            inst.free_ready.notify_all();
        }
    }

    /// Frames on the free lists now.
    pub fn free_frames(&self) -> usize {
        self.instances.iter().map(|i| i.lists.lock().free.len()).sum()
    }

    /// Frees frame `f` if it is clean and nobody holds it. With `keep` it
    /// stays exclusively latched for the caller; otherwise it goes to the
    /// free list. REQUIRES: the instance mutex (`lists`).
    pub(super) fn try_evict_clean(&self, inst: &Instance, lists: &mut Lists, f: u32, keep: bool) -> bool {
        let frame = &inst.frames[f as usize];
        if frame.is_dirty()
            || frame.flushing.load(Ordering::Acquire)
            || frame.is_pinned()
            || !frame.latch.try_lock_exclusive()
        {
            return false;
        }
        let id = match frame.page() {
            Some(id) if !frame.is_dirty() && !frame.flushing.load(Ordering::Acquire) && !frame.is_pinned() => id,
            _ => {
                // SAFETY: latched just above.
                unsafe { frame.latch.unlock_exclusive() };
                return false;
            }
        };
        lists.lru.remove(f, &inst.frames);
        self.note_eviction(frame, id);
        inst.turnover.on_eviction(self.now_ms(), lists.lru.old_len());
        inst.table.remove(id, page_table::hash(id), f, &inst.frames);
        frame.page_id.store(NO_PAGE, Ordering::Release);
        self.stats.evictions.inc();
        if frame.read_ahead.swap(false, Ordering::Relaxed) {
            self.read_ahead.stats.evicted_unused.inc();
            inst.stats.read_ahead_evicted.inc();
        }
        if !inst.has_evicted.load(Ordering::Relaxed) {
            inst.has_evicted.store(true, Ordering::Relaxed);
        }
        if !keep {
            lists.free.push(f);
            // SAFETY: latched above.
            unsafe { frame.latch.unlock_exclusive() };
        }
        true
    }

    /// A free frame without waiting, for read-ahead: the free list while it
    /// is above the flusher's target, else a clean frame near the LRU tail.
    /// `None` when neither is there (or the flushers do not run). The frame
    /// is returned exclusively latched. REQUIRES: the instance mutex.
    pub(super) fn try_take_free_frame(&self, inst: &Instance, lists: &mut Lists) -> Option<u32> {
        if !self.flushers_running.load(Ordering::Acquire) {
            return None;
        }
        if lists.free.len() > self.free_target(inst) {
            if let Some(f) = Self::pop_free(inst, lists) {
                return Some(f);
            }
        }
        self.evict_clean_near_tail(inst, lists, (inst.frames.len() / 16).max(8))
    }

    /// A frame from the free list, exclusively latched; one a stale reader
    /// holds for a moment goes back to the bottom. REQUIRES: the instance
    /// mutex.
    pub(super) fn pop_free(inst: &Instance, lists: &mut Lists) -> Option<u32> {
        let f = lists.free.pop()?;
        if inst.frames[f as usize].latch.try_lock_exclusive() {
            return Some(f);
        }
        lists.free.insert(0, f);
        None
    }

    /// The first clean frame nobody holds among the `depth` frames at the
    /// LRU tail, evicted and kept exclusively latched. REQUIRES: the
    /// instance mutex.
    fn evict_clean_near_tail(&self, inst: &Instance, lists: &mut Lists, depth: usize) -> Option<u32> {
        let mut cand = lists.lru.tail();
        let mut scanned = 0;
        while let Some(f) = cand {
            if scanned >= depth {
                break;
            }
            scanned += 1;
            let prev = lists.lru.prev_of(f);
            if self.try_evict_clean(inst, lists, f, true) {
                return Some(f);
            }
            cand = prev;
        }
        None
    }

    /// A free frame for a user thread while the flushers run (protocol
    /// step 3). Returns it exclusively latched.
    pub(super) fn take_free_frame_waiting<'a>(
        &'a self,
        inst: &'a Instance,
        mut lists: parking_lot::MutexGuard<'a, Lists>,
    ) -> Result<(u32, parking_lot::MutexGuard<'a, Lists>)> {
        let started = Instant::now();
        let mut counted = false;
        loop {
            // While the pool still has more free frames than the flusher's
            // target (warming up), use them: evicting the tail then would
            // only throw away pages in use.
            if lists.free.len() > self.free_target(inst) {
                if let Some(f) = Self::pop_free(inst, &mut lists) {
                    return Ok((f, lists));
                }
            }
            // A clean frame at the very tail costs no write and keeps the
            // free list for when the tail is dirty: take it first (a
            // read-mostly load then never needs the flusher).
            let failing = inst.flush_error.lock().is_some();
            let depth = if failing { inst.frames.len() } else { (inst.frames.len() / 16).max(8) };
            if let Some(f) = self.evict_clean_near_tail(inst, &mut lists, depth) {
                return Ok((f, lists));
            }
            if let Some(f) = Self::pop_free(inst, &mut lists) {
                // The tail is dirty: the flusher must write it.
                if lists.free.len() < self.free_target(inst) {
                    inst.lru_wake.notify_one();
                }
                return Ok((f, lists));
            }
            inst.lru_wake.notify_one();
            if !counted {
                self.stats.wait_free.inc();
                counted = true;
            }
            if let Some(e) = inst.flush_error.lock().as_ref() {
                if started.elapsed() > WAIT_FREE_WHILE_FAILING {
                    return Err(e.to_error());
                }
            }
            if !self.flushers_running.load(Ordering::Acquire) {
                // Shutting down: the caller's own path takes over.
                return self.take_free_frame(inst, lists);
            }
            if started.elapsed() > WAIT_FREE_LIMIT {
                return Err(Error::PoolExhausted { instance: inst.id });
            }
            crate::txn::admission::blocking(crate::wait::Instrument::FreeFrame, || {
                inst.free_ready.wait_for(&mut lists, Duration::from_millis(1))
            });
        }
    }

    /// Waits (up to a second) until every instance has a free frame: for
    /// a caller about to create a page while holding a latch many threads
    /// queue on (a rollback segment page), so that waiting for the LRU
    /// flusher happens before the latch, not under it. Another thread may
    /// still take the frame first; this only makes that wait rare.
    pub fn wait_for_free_frames(&self) {
        if !self.flushers_running.load(Ordering::Acquire) {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        for inst in self.instances.iter() {
            let mut lists = inst.lists.lock();
            while lists.free.is_empty() && Instant::now() < deadline && self.flushers_running.load(Ordering::Acquire) {
                inst.lru_wake.notify_one();
                inst.free_ready.wait_for(&mut lists, Duration::from_millis(1));
            }
        }
    }

    /// One instance's LRU flusher (protocol step 2).
    fn lru_flusher_loop(self: Arc<Self>, i: usize) {
        let inst = &self.instances[i];
        let batch = self.dblwr().map_or(64, |d| d.batch_pages());
        let mut lists = inst.lists.lock();
        while !self.stopping.load(Ordering::Acquire) {
            let target = self.free_target(inst);
            if lists.free.len() >= target {
                inst.lru_wake.wait_for(&mut lists, Duration::from_secs(1));
                continue;
            }
            // Walk the old part only, up to innodb_lru_scan_depth; free
            // clean frames only near the tail. Reaching further for clean
            // frames would evict pages just read (inner B+tree nodes,
            // clean) while dirty pages pile up at the tail: write those
            // instead, and free them on the next walk.
            let failing = inst.flush_error.lock().is_some();
            let (depth, clean_depth) = if failing {
                // Writes fail: free clean frames wherever they are (step 4).
                (inst.frames.len(), inst.frames.len())
            } else {
                (
                    self.lru_scan_depth.load(Ordering::Relaxed).min(lists.lru.old_len().max(1) as usize),
                    (inst.frames.len() / 16).max(8),
                )
            };
            let mut dirty = Vec::new();
            let mut freed = 0;
            let mut scanned = 0;
            let mut cand = lists.lru.tail();
            while let Some(f) = cand {
                if scanned >= depth || lists.free.len() >= target {
                    break;
                }
                scanned += 1;
                let prev = lists.lru.prev_of(f);
                let frame = &inst.frames[f as usize];
                if frame.is_dirty() {
                    if dirty.len() < batch && !frame.flushing.load(Ordering::Acquire) {
                        dirty.push(f);
                    }
                } else if scanned <= clean_depth && self.try_evict_clean(inst, &mut lists, f, false) {
                    freed += 1;
                }
                cand = prev;
            }
            if freed > 0 {
                inst.free_ready.notify_all();
            }
            if lists.free.len() >= target {
                continue;
            }
            if dirty.is_empty() {
                // Everything near the tail is latched: wait for a holder
                // to let go (or for more demand).
                inst.lru_wake.wait_for(&mut lists, Duration::from_millis(1));
                continue;
            }
            drop(lists);
            let res = self.flush_batch(i, &dirty, FlushType::Lru, false);
            lists = inst.lists.lock();
            match res {
                Ok(_) => {
                    if inst.flush_error.lock().take().is_some() {
                        tracing::info!("LRU flusher {i}: page writes succeed again");
                    }
                }
                Err(e) => {
                    // Said once per failure episode, not every 50 ms.
                    if inst.flush_error.lock().is_none() {
                        tracing::warn!("LRU flusher {i}: {e}; retrying, reads go on from clean pages");
                    }
                    *inst.flush_error.lock() = Some(FlushError::of(&e));
                    inst.free_ready.notify_all();
                    drop(lists);
                    std::thread::sleep(Duration::from_millis(50));
                    lists = inst.lists.lock();
                }
            }
        }
    }
}
