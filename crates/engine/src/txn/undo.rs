//! Undo logs: how a transaction's changes are taken back (rollback) and
//! how older row versions are rebuilt for consistent reads (MVCC).
//!
//! Storage (all in the system space, changed through mini-transactions, so
//! redo-logged and crash-safe like any page):
//!
//! Rollback segment page (one, named in the system space header):
//! ```text
//!  32  u32  number of slots N
//!  36  u32  history list: first page of its oldest log (0 = empty)
//!  40  u32  history list: first page of its newest log
//!  44  u32  history list length
//!  48  u32 x N  first page of the undo log in each slot, 0 = free
//!  P-16 u32  binary log file number of the last logged commit here (0 = none)
//!  P-12 u32  zero
//!  P-8  u64  binary log end offset of that commit
//! ```
//! (P: the page size.) The binary log position is written by the commit's
//! own mini-transaction (`finish` with a position) when the SQL layer
//! commits a transaction it logged, so it is as durable as the commit and
//! survives checkpoints; the highest over all segments is where the
//! binary log and the engine agree (docs/ARCHITECTURE.md "Binary log").
//! A page made before the field existed has slots up to its end: `open`
//! gives the last four back when they are free (they always are, short of
//! thousands of concurrent writers); otherwise the segment records no
//! position and the engine says so.
//! A slot holds an *active* log (its transaction has not finished) or a
//! *cached* one (purged, kept for reuse). Commit and rollback move the log
//! from its slot to the tail of the history list in one mini-transaction,
//! so slots bound only the number of concurrent writers (InnoDB's "too
//! many active concurrent transactions"), never the history: a long-open
//! read view lets the history grow as long as it must.
//!
//! Undo log page (a log is a chain of them; the first is its header):
//! ```text
//!  32  u64  transaction id
//!  40  u8   state (first page): 1 active, 2 committed, 3 rolled back, 4 cached
//!  41  u8   reserved
//!  42  u16  end of the records in this page (offset of free space)
//!  44  u32  next page of the log (0 = last)
//!  48  u32  previous page (0 = first)
//!  52  u32  last page of the log (first page only)
//!  56  u64  commit number (first page only; 0 while active)
//!  64  u32  previous log in the history list (first page only; 0 = none)
//!  68  u32  next log in the history list (first page only; 0 = none)
//!  72       records
//! ```
//! Latch order: the rollback segment page before any undo page, undo pages
//! before the space's allocation pages.
//! A record: `u16 length | u8 tag | payload | u16 length` (the trailing
//! copy lets rollback walk a page backwards). Tag 0: the whole payload;
//! a payload larger than a page is a tag-1 head holding its `u32` length,
//! followed by tag-2 parts, all appended in one mini-transaction. Its *roll pointer*, what a clustered
//! record will carry to find its previous version, is
//! `page number << 16 | offset of the record`.
//!
//! Recovery reads the slot directory and the history list: a log whose
//! state is active belongs to a transaction that never committed and is
//! rolled back; the history's logs (committed or rolled back) go back to
//! purge; cached logs back to the cache.

use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::page::{self, get_u16, get_u32, get_u64, PageType};
use crate::space;
use crate::{Error, PageId, PageNo, Result, SYSTEM_SPACE};

use super::TrxId;

const RSEG_SLOTS: usize = 32;
const RSEG_HIST_FIRST: usize = 36;
const RSEG_HIST_LAST: usize = 40;
const RSEG_HIST_LEN: usize = 44;
const RSEG_SLOT0: usize = 48;
/// Bytes at the end of a rollback segment page for the binary log
/// position (file number u32, zero u32, end offset u64).
const RSEG_BINLOG_LEN: usize = 16;

fn rseg_binlog_off(page_size: usize) -> usize {
    page_size - RSEG_BINLOG_LEN
}

/// A binary log position as the engine keeps it: (file number, end offset).
pub type BinlogPos = (u32, u64);

const U_TRX: usize = 32;
const U_STATE: usize = 40;
const U_END: usize = 42;
const U_NEXT: usize = 44;
const U_PREV: usize = 48;
const U_LAST: usize = 52;
const U_TRX_NO: usize = 56;
const U_HIST_PREV: usize = 64;
const U_HIST_NEXT: usize = 68;
pub const U_RECORDS: usize = 72;

pub const STATE_ACTIVE: u8 = 1;
pub const STATE_COMMITTED: u8 = 2;
/// Rolled back: nothing left to purge, freed when no view can need it.
pub const STATE_ROLLED_BACK: u8 = 3;
/// Free for reuse: a purged log whose first page and slot are kept, so the
/// next transaction starts without allocating (InnoDB's cached undo
/// segments).
pub const STATE_CACHED: u8 = 4;
/// Cached logs kept at most; beyond this, purged logs are freed.
const CACHE_MAX: usize = 1024;

/// First byte of a record's body: a whole record, the head of a record
/// too large for a page (`u32` total length; the parts follow), or a part.
const TAG_WHOLE: u8 = 0;
const TAG_HEAD: u8 = 1;
const TAG_CONT: u8 = 2;

/// Where an undo record lives: `page << 16 | offset`.
pub type RollPtr = u64;

fn roll_ptr(page: PageNo, off: usize) -> RollPtr {
    (page as u64) << 16 | off as u64
}

fn split_ptr(p: RollPtr) -> (PageNo, usize) {
    ((p >> 16) as PageNo, (p & 0xffff) as usize)
}

/// The binary log position field's bytes (zeros: none).
fn binlog_bytes(pos: Option<BinlogPos>) -> [u8; RSEG_BINLOG_LEN] {
    let mut b = [0u8; RSEG_BINLOG_LEN];
    if let Some((file, end)) = pos {
        b[..4].copy_from_slice(&file.to_le_bytes());
        b[8..].copy_from_slice(&end.to_le_bytes());
    }
    b
}

/// The largest undo record payload (it must fit one page).
pub fn max_record(page_size: usize) -> usize {
    page_size - U_RECORDS - 4
}

/// The directory of undo logs.
pub struct RollbackSegment {
    /// Its place in the [`RollbackSegments`] (0 when used alone).
    index: usize,
    page: PageNo,
    slots: usize,
    /// Cached logs (state 4): (slot, first page).
    cache: LogCache,
    /// Slots holding no log.
    free_slots: std::sync::atomic::AtomicUsize,
    /// The page has the binary log position field (see the module note).
    binlog_field: bool,
}

/// Cached logs (slot, first page), with their number readable without the
/// lock (every new transaction asks, in each segment it looks at).
struct LogCache {
    logs: crate::wait::Mutex<Vec<(usize, PageNo)>>,
    len: std::sync::atomic::AtomicUsize,
}

impl Default for LogCache {
    fn default() -> Self {
        Self { logs: crate::wait::Mutex::new(crate::wait::Instrument::TrxUndo, Vec::new()), len: Default::default() }
    }
}

impl LogCache {
    fn push(&self, log: (usize, PageNo)) {
        let mut v = self.logs.lock();
        v.push(log);
        self.len.store(v.len(), std::sync::atomic::Ordering::Relaxed);
    }

    fn pop(&self) -> Option<(usize, PageNo)> {
        let mut v = self.logs.lock();
        let log = v.pop();
        self.len.store(v.len(), std::sync::atomic::Ordering::Relaxed);
        log
    }

    fn len(&self) -> usize {
        self.len.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// An undo log found in the directory or the history list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoLogInfo {
    /// Its rollback segment (index in [`RollbackSegments`]).
    pub rseg: usize,
    /// Its slot while active or cached; `None` once in the history list.
    pub slot: Option<usize>,
    pub first_page: PageNo,
    pub trx: TrxId,
    pub state: u8,
}

impl RollbackSegment {
    /// Creates the rollback segment page in the system space.
    pub fn create(pool: &BufferPool) -> Result<Self> {
        let slots = (rseg_binlog_off(pool.page_size()) - RSEG_SLOT0) / 4;
        let mut mtr = Mtr::new(pool);
        let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
        let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
        mtr.format(&mut g, PageType::RollbackSegment, |p| {
            p[RSEG_SLOTS..RSEG_SLOTS + 4].copy_from_slice(&(slots as u32).to_le_bytes());
        });
        mtr.keep(g);
        mtr.commit();
        Ok(Self { index: 0, page: no, slots, cache: Default::default(), free_slots: slots.into(), binlog_field: true })
    }

    pub fn open(pool: &BufferPool, page: PageNo) -> Result<Self> {
        let id = PageId::new(SYSTEM_SPACE, page);
        let g = pool.fix_shared(id)?;
        if page::page_type(g.data()) != Some(PageType::RollbackSegment) {
            return Err(Error::corruption(id, "not a rollback segment page"));
        }
        let mut slots = get_u32(g.data(), RSEG_SLOTS) as usize;
        if RSEG_SLOT0 + slots * 4 > g.data().len() {
            return Err(Error::corruption(id, "rollback segment slot count too large"));
        }
        let field = rseg_binlog_off(g.data().len());
        let mut binlog_field = RSEG_SLOT0 + slots * 4 <= field;
        if !binlog_field && g.data()[field..].iter().all(|&b| b == 0) {
            // A page made before the field: its last slots are free, so
            // they become the field (one mini-transaction, redo-logged).
            drop(g);
            let mut mtr = Mtr::new(pool);
            let h = mtr.x_latch(id)?;
            let fewer = (field - RSEG_SLOT0) / 4;
            mtr.write_held(h, RSEG_SLOTS, &(fewer as u32).to_le_bytes());
            mtr.commit();
            slots = fewer;
            binlog_field = true;
        } else {
            drop(g);
        }
        let g = pool.fix_shared(id)?;
        let free = (0..slots).filter(|&s| get_u32(g.data(), RSEG_SLOT0 + 4 * s) == 0).count();
        Ok(Self { index: 0, page, slots, cache: Default::default(), free_slots: free.into(), binlog_field })
    }

    /// Whether this segment's page can hold a binary log position.
    pub fn has_binlog_field(&self) -> bool {
        self.binlog_field
    }

    /// The binary log position recorded here (`None`: none, or no field).
    pub fn binlog_position(&self, pool: &BufferPool) -> Result<Option<BinlogPos>> {
        if !self.binlog_field {
            return Ok(None);
        }
        let g = pool.fix_shared(self.id())?;
        let off = rseg_binlog_off(g.data().len());
        let file = get_u32(g.data(), off);
        Ok((file != 0).then(|| (file, get_u64(g.data(), off + 8))))
    }

    /// Records `pos` (or clears the field) in a mini-transaction of its
    /// own; returns its end LSN (the caller makes it durable).
    pub fn set_binlog_position(&self, pool: &BufferPool, pos: Option<BinlogPos>) -> Result<crate::Lsn> {
        if !self.binlog_field {
            return Ok(0);
        }
        let mut mtr = Mtr::new(pool);
        let h = mtr.x_latch(self.id())?;
        mtr.write_held(h, rseg_binlog_off(pool.page_size()), &binlog_bytes(pos));
        Ok(mtr.commit())
    }

    /// This segment as number `index` of a [`super::rsegs::RollbackSegments`].
    pub fn with_index(mut self, index: usize) -> Self {
        self.index = index;
        self
    }

    /// Whether [`RollbackSegment::begin`] would find a slot now.
    pub fn available(&self) -> bool {
        self.free_slots.load(std::sync::atomic::Ordering::Relaxed) > 0 || self.cache.len() > 0
    }

    /// Takes back a cached log found at startup.
    pub fn recache(&self, log: &UndoLogInfo) {
        if let Some(slot) = log.slot {
            self.cache.push((slot, log.first_page));
        }
    }

    /// Cached logs ready for reuse.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    pub fn page(&self) -> PageNo {
        self.page
    }

    fn id(&self) -> PageId {
        PageId::new(SYSTEM_SPACE, self.page)
    }

    /// Every undo log: those in slots (active or cached), then the history
    /// list's, oldest first.
    pub fn logs(&self, pool: &BufferPool) -> Result<Vec<UndoLogInfo>> {
        let g = pool.fix_shared(self.id())?;
        let firsts: Vec<(usize, PageNo)> =
            (0..self.slots).map(|s| (s, get_u32(g.data(), RSEG_SLOT0 + 4 * s))).filter(|&(_, p)| p != 0).collect();
        let (mut next, len) = (get_u32(g.data(), RSEG_HIST_FIRST), get_u32(g.data(), RSEG_HIST_LEN) as usize);
        drop(g);
        let mut out = Vec::new();
        for (slot, first) in firsts {
            let h = pool.fix_shared(PageId::new(SYSTEM_SPACE, first))?;
            let state = h.data()[U_STATE];
            if page::page_type(h.data()) != Some(PageType::Undo) || !matches!(state, STATE_ACTIVE | STATE_CACHED) {
                return Err(Error::corruption(h.id(), "a rollback segment slot names no active or cached undo log"));
            }
            out.push(UndoLogInfo {
                rseg: self.index,
                slot: Some(slot),
                first_page: first,
                trx: get_u64(h.data(), U_TRX),
                state,
            });
        }
        let mut prev = 0;
        let mut seen = 0;
        while next != 0 {
            let h = pool.fix_shared(PageId::new(SYSTEM_SPACE, next))?;
            let p = h.data();
            let state = p[U_STATE];
            if page::page_type(p) != Some(PageType::Undo)
                || !matches!(state, STATE_COMMITTED | STATE_ROLLED_BACK)
                || get_u32(p, U_HIST_PREV) != prev
                || seen >= len
            {
                return Err(Error::corruption(h.id(), "the undo history list is broken"));
            }
            out.push(UndoLogInfo { rseg: self.index, slot: None, first_page: next, trx: get_u64(p, U_TRX), state });
            seen += 1;
            prev = next;
            next = get_u32(p, U_HIST_NEXT);
        }
        if seen != len {
            return Err(Error::corruption(self.id(), "the undo history list is shorter than its length"));
        }
        Ok(out)
    }

    /// Ends `log`'s transaction as committed or rolled back (`state`) with
    /// commit number `trx_no`: in one mini-transaction the log leaves its
    /// slot for the tail of the history list, where purge finds it. With
    /// `binlog`, the same mini-transaction records that binary log
    /// position in the segment page (the log-off path writes nothing more).
    pub fn finish(
        &self,
        pool: &BufferPool,
        log: &UndoLog,
        trx_no: u64,
        state: u8,
        binlog: Option<BinlogPos>,
    ) -> Result<()> {
        let first = PageId::new(SYSTEM_SPACE, log.first);
        let slot = log.slot.ok_or_else(|| Error::corruption(first, "finishing an undo log that holds no slot"))?;
        // This log's first page is read into the pool before the segment
        // latch (see `free`). The history's tail, the last log committed
        // in this segment, is not looked up first: that would fix the
        // segment page on every commit, and the tail was written moments
        // ago.
        prefetch(pool, &[log.first]);
        let mut mtr = Mtr::new(pool);
        let rseg = mtr.x_latch(self.id())?;
        let me = mtr.x_latch(PageId::new(SYSTEM_SPACE, log.first))?;
        let (tail, len) = {
            let r = mtr.page(rseg).data();
            (get_u32(r, RSEG_HIST_LAST), get_u32(r, RSEG_HIST_LEN))
        };
        let mut hdr = [0u8; 8];
        hdr[..4].copy_from_slice(&tail.to_le_bytes());
        mtr.write_held(me, U_HIST_PREV, &hdr);
        mtr.write_held(me, U_TRX_NO, &trx_no.to_le_bytes());
        mtr.write_held(me, U_STATE, &[state]);
        if tail == 0 {
            mtr.write_held(rseg, RSEG_HIST_FIRST, &log.first.to_le_bytes());
        } else {
            let t = mtr.x_latch(PageId::new(SYSTEM_SPACE, tail))?;
            mtr.write_held(t, U_HIST_NEXT, &log.first.to_le_bytes());
        }
        mtr.write_held(rseg, RSEG_HIST_LAST, &log.first.to_le_bytes());
        mtr.write_held(rseg, RSEG_HIST_LEN, &(len + 1).to_le_bytes());
        mtr.write_held(rseg, RSEG_SLOT0 + 4 * slot, &0u32.to_le_bytes());
        if binlog.is_some() && self.binlog_field {
            mtr.write_held(rseg, rseg_binlog_off(pool.page_size()), &binlog_bytes(binlog));
        }
        mtr.commit();
        self.free_slots.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Starts the undo log of transaction `trx`. Fails if every slot is
    /// taken (too many transactions with uncommitted or unpurged undo).
    pub fn begin(&self, pool: &BufferPool, trx: TrxId) -> Result<UndoLog> {
        let cached = self.cache.pop();
        if let Some((slot, no)) = cached {
            let mut mtr = Mtr::new(pool);
            let g = match mtr.x_latch(PageId::new(SYSTEM_SPACE, no)) {
                Ok(g) => g,
                Err(e) => {
                    self.cache.push((slot, no));
                    return Err(e);
                }
            };
            // Only the header changes (records beyond the end are dead).
            let mut hdr = [0u8; U_RECORDS];
            init_undo_page(&mut hdr, trx, 0, true, no);
            mtr.write_held(g, U_TRX, &hdr[U_TRX..U_RECORDS]);
            mtr.commit();
            return Ok(UndoLog { rseg: self.index, trx, slot: Some(slot), first: no, last: no });
        }
        // A new page needs a frame: wait for one before latching the
        // segment page every commit in this segment needs.
        pool.wait_for_free_frames();
        let mut mtr = Mtr::new(pool);
        let rseg = mtr.x_latch(self.id())?;
        let slot = (0..self.slots)
            .find(|&s| get_u32(mtr.page(rseg).data(), RSEG_SLOT0 + 4 * s) == 0)
            .ok_or(Error::UndoSlotsFull)?;
        let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
        let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
        mtr.format(&mut g, PageType::Undo, |p| init_undo_page(p, trx, 0, true, no));
        mtr.keep(g);
        mtr.write_held(rseg, RSEG_SLOT0 + 4 * slot, &no.to_le_bytes());
        mtr.commit();
        self.free_slots.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        Ok(UndoLog { rseg: self.index, trx, slot: Some(slot), first: no, last: no })
    }

    /// Frees a log of the history list once purge no longer needs it; its
    /// first page is kept for reuse (cached, in a free slot) while the
    /// cache has room.
    pub fn free(&self, pool: &BufferPool, log: &UndoLogInfo) -> Result<()> {
        // Pages after the first, from the last back, each in its own mtr:
        // a crash part-way leaves a shorter log in the history list.
        let mut page_no = {
            let g = pool.fix_shared(PageId::new(SYSTEM_SPACE, log.first_page))?;
            get_u32(g.data(), U_LAST)
        };
        while page_no != log.first_page && page_no != 0 {
            let id = PageId::new(SYSTEM_SPACE, page_no);
            let mut mtr = Mtr::new(pool);
            let mut g = pool.fix_exclusive(id)?;
            let prev = get_u32(g.data(), U_PREV);
            space::free_page(pool, id, &mut mtr)?;
            mtr.page_free(&mut g);
            mtr.keep(g);
            let first = mtr.x_latch(PageId::new(SYSTEM_SPACE, log.first_page))?;
            mtr.write_held(first, U_LAST, &prev.to_le_bytes());
            mtr.commit();
            page_no = prev;
        }
        // Then, in one mtr: out of the history list, and into the cache or
        // freed. Every commit latches the rollback segment page too: the
        // pages this mtr needs are read into the pool first, so that no
        // disk read happens while it is held.
        let (prev, next) = {
            let g = pool.fix_shared(PageId::new(SYSTEM_SPACE, log.first_page))?;
            (get_u32(g.data(), U_HIST_PREV), get_u32(g.data(), U_HIST_NEXT))
        };
        prefetch(pool, &[prev, next]);
        let mut mtr = Mtr::new(pool);
        let rseg = mtr.x_latch(self.id())?;
        let me = mtr.x_latch(PageId::new(SYSTEM_SPACE, log.first_page))?;
        let (prev, next) = {
            let p = mtr.page(me).data();
            (get_u32(p, U_HIST_PREV), get_u32(p, U_HIST_NEXT))
        };
        if prev == 0 {
            mtr.write_held(rseg, RSEG_HIST_FIRST, &next.to_le_bytes());
        } else {
            let h = mtr.x_latch(PageId::new(SYSTEM_SPACE, prev))?;
            mtr.write_held(h, U_HIST_NEXT, &next.to_le_bytes());
        }
        if next == 0 {
            mtr.write_held(rseg, RSEG_HIST_LAST, &prev.to_le_bytes());
        } else {
            let h = mtr.x_latch(PageId::new(SYSTEM_SPACE, next))?;
            mtr.write_held(h, U_HIST_PREV, &prev.to_le_bytes());
        }
        let len = get_u32(mtr.page(rseg).data(), RSEG_HIST_LEN);
        mtr.write_held(rseg, RSEG_HIST_LEN, &len.saturating_sub(1).to_le_bytes());
        let slot = if self.cache.len() < CACHE_MAX {
            (0..self.slots).find(|&s| get_u32(mtr.page(rseg).data(), RSEG_SLOT0 + 4 * s) == 0)
        } else {
            None
        };
        match slot {
            Some(slot) => {
                mtr.write_held(me, U_STATE, &[STATE_CACHED]);
                mtr.write_held(me, U_LAST, &log.first_page.to_le_bytes());
                mtr.write_held(me, U_NEXT, &0u32.to_le_bytes());
                mtr.write_held(me, U_HIST_PREV, &[0u8; 8]);
                mtr.write_held(rseg, RSEG_SLOT0 + 4 * slot, &log.first_page.to_le_bytes());
                self.free_slots.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                mtr.commit();
                self.cache.push((slot, log.first_page));
            }
            None => {
                let id = PageId::new(SYSTEM_SPACE, log.first_page);
                space::free_page(pool, id, &mut mtr)?;
                mtr.page_free_held(me);
                mtr.commit();
            }
        }
        Ok(())
    }
}

fn init_undo_page(p: &mut [u8], trx: TrxId, prev: PageNo, first: bool, no: PageNo) {
    p[U_TRX..U_TRX + 8].copy_from_slice(&trx.to_le_bytes());
    p[U_STATE] = if first { STATE_ACTIVE } else { 0 };
    p[U_END..U_END + 2].copy_from_slice(&(U_RECORDS as u16).to_le_bytes());
    p[U_PREV..U_PREV + 4].copy_from_slice(&prev.to_le_bytes());
    if first {
        p[U_LAST..U_LAST + 4].copy_from_slice(&no.to_le_bytes());
    }
}

/// A transaction's undo log, open for appending.
#[derive(Debug)]
pub struct UndoLog {
    /// Its rollback segment (index in [`RollbackSegments`]).
    pub rseg: usize,
    pub trx: TrxId,
    /// Its slot while active (`None` for a finished log reopened by purge).
    pub slot: Option<usize>,
    pub first: PageNo,
    last: PageNo,
}

impl UndoLog {
    /// Reopens a log found by recovery.
    pub fn reopen(pool: &BufferPool, info: &UndoLogInfo) -> Result<Self> {
        let g = pool.fix_shared(PageId::new(SYSTEM_SPACE, info.first_page))?;
        let last = get_u32(g.data(), U_LAST);
        Ok(Self { rseg: info.rseg, trx: info.trx, slot: info.slot, first: info.first_page, last })
    }

    /// How the history list names this log once it has finished.
    pub fn info(&self, state: u8) -> UndoLogInfo {
        UndoLogInfo { rseg: self.rseg, slot: None, first_page: self.first, trx: self.trx, state }
    }

    /// Appends a record; returns its roll pointer. A record larger than a
    /// page is stored as a head record followed by continuation records,
    /// all in one mini-transaction (so it is never found half written).
    pub fn append(&mut self, pool: &BufferPool, payload: &[u8]) -> Result<RollPtr> {
        let cap = max_record(pool.page_size()) - 1;
        let mut mtr = Mtr::new(pool);
        let first = if payload.len() <= cap {
            self.append_one(pool, &mut mtr, &[&[TAG_WHOLE], payload])?
        } else {
            let head = self.append_one(pool, &mut mtr, &[&[TAG_HEAD], &(payload.len() as u32).to_le_bytes()])?;
            for chunk in payload.chunks(cap) {
                self.append_one(pool, &mut mtr, &[&[TAG_CONT], chunk])?;
            }
            head
        };
        mtr.commit();
        Ok(first)
    }

    /// Appends one framed record (the concatenation of `parts`) inside
    /// `mtr`, chaining a new page when the last one is full.
    fn append_one<'p>(&mut self, pool: &'p BufferPool, mtr: &mut Mtr<'p>, parts: &[&[u8]]) -> Result<RollPtr> {
        let ps = pool.page_size();
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let need = len + 4;
        let last = mtr.x_latch(PageId::new(SYSTEM_SPACE, self.last))?;
        let end = get_u16(mtr.page(last).data(), U_END) as usize;
        let (target, off) = if end + need <= ps {
            (last, end)
        } else {
            let no = space::alloc_page(pool, SYSTEM_SPACE, mtr)?;
            let g = mtr.x_create(PageId::new(SYSTEM_SPACE, no))?;
            let prev = self.last;
            let trx = self.trx;
            mtr.format_held(g, PageType::Undo, |p| init_undo_page(p, trx, prev, false, no));
            mtr.write_held(last, U_NEXT, &no.to_le_bytes());
            let h = mtr.x_latch(PageId::new(SYSTEM_SPACE, self.first))?;
            mtr.write_held(h, U_LAST, &no.to_le_bytes());
            self.last = no;
            (g, U_RECORDS)
        };
        let mut rec = Vec::with_capacity(need);
        rec.extend_from_slice(&(len as u16).to_le_bytes());
        for p in parts {
            rec.extend_from_slice(p);
        }
        rec.extend_from_slice(&(len as u16).to_le_bytes());
        mtr.write_held(target, off, &rec);
        mtr.write_held(target, U_END, &((off + need) as u16).to_le_bytes());
        let page_no = mtr.page(target).id().page_no;
        Ok(roll_ptr(page_no, off))
    }

    /// The records, newest first (rollback order), with their roll pointers.
    pub fn records_backward(&self, pool: &BufferPool) -> Result<Vec<(RollPtr, Vec<u8>)>> {
        let mut out = Vec::new();
        // Multi-part records, assembled once the walk is done (their parts
        // follow the head): (position in `out`, roll pointer).
        let mut heads: Vec<(usize, RollPtr)> = Vec::new();
        let mut page_no = self.last;
        let mut budget = 1 << 20;
        while page_no != 0 {
            budget -= 1;
            let id = PageId::new(SYSTEM_SPACE, page_no);
            if budget == 0 {
                return Err(Error::corruption(id, "undo log chain loops"));
            }
            let g = pool.fix_shared(id)?;
            let p = g.data();
            if page::page_type(p) != Some(PageType::Undo) || get_u64(p, U_TRX) != self.trx {
                return Err(Error::corruption(id, "undo log chain leads to a foreign page"));
            }
            let mut end = get_u16(p, U_END) as usize;
            while end > U_RECORDS {
                if end < U_RECORDS + 4 || end > p.len() {
                    return Err(Error::corruption(id, "undo record outside the page"));
                }
                let len = get_u16(p, end - 2) as usize;
                let start = end
                    .checked_sub(len + 4)
                    .filter(|&s| s >= U_RECORDS)
                    .ok_or_else(|| Error::corruption(id, "bad undo record length"))?;
                let body = &p[start + 2..start + 2 + len];
                match body.first() {
                    Some(&TAG_WHOLE) => out.push((roll_ptr(page_no, start), body[1..].to_vec())),
                    Some(&TAG_CONT) => {}
                    Some(&TAG_HEAD) => heads.push((out.len(), roll_ptr(page_no, start))),
                    _ => return Err(Error::corruption(id, "undo record with an unknown tag")),
                }
                end = start;
            }
            page_no = if page_no == self.first { 0 } else { get_u32(p, U_PREV) };
        }
        for (at, ptr) in heads.into_iter().rev() {
            out.insert(at, (ptr, read(pool, ptr)?));
        }
        Ok(out)
    }
}

/// Reads the undo record a roll pointer names (consistent reads),
/// assembling a multi-part record from its continuations.
pub fn read(pool: &BufferPool, ptr: RollPtr) -> Result<Vec<u8>> {
    let (mut page_no, mut off) = split_ptr(ptr);
    let mut out = Vec::new();
    let mut total: Option<usize> = None;
    loop {
        let id = PageId::new(SYSTEM_SPACE, page_no);
        let g = pool.fix_shared(id)?;
        let p = g.data();
        if page::page_type(p) != Some(PageType::Undo) || off < U_RECORDS || off + 2 > p.len() {
            return Err(Error::corruption(id, format!("roll pointer {ptr:#x} names no undo record")));
        }
        let end = get_u16(p, U_END) as usize;
        let len = get_u16(p, off) as usize;
        if off + 4 + len > end || len == 0 {
            return Err(Error::corruption(id, format!("roll pointer {ptr:#x} runs past the records")));
        }
        let body = &p[off + 2..off + 2 + len];
        match (body[0], total) {
            (TAG_WHOLE, None) => return Ok(body[1..].to_vec()),
            (TAG_HEAD, None) if len == 5 => {
                total = Some(get_u32(body, 1) as usize);
                out.reserve(get_u32(body, 1) as usize);
            }
            (TAG_CONT, Some(t)) => {
                out.extend_from_slice(&body[1..]);
                if out.len() >= t {
                    out.truncate(t);
                    return Ok(out);
                }
            }
            _ => return Err(Error::corruption(id, format!("undo record {ptr:#x} is not a whole record"))),
        }
        // The next record of the log.
        off += len + 4;
        if off >= end {
            page_no = get_u32(p, U_NEXT);
            off = U_RECORDS;
            if page_no == 0 {
                return Err(Error::corruption(id, format!("undo record {ptr:#x} is cut short")));
            }
        }
    }
}

/// Brings undo pages into the buffer pool (page numbers in the system
/// space; 0 is skipped) so that a later latch on them does no I/O. A page
/// that cannot be read is left for the caller to meet, with its error.
fn prefetch(pool: &BufferPool, pages: &[u32]) {
    for &no in pages {
        if no != 0 {
            let _ = pool.fix_shared(PageId::new(SYSTEM_SPACE, no));
        }
    }
}
