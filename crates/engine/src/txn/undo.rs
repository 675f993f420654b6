//! Undo logs: how a transaction's changes are taken back (rollback) and
//! how older row versions are rebuilt for consistent reads (MVCC).
//!
//! Storage (all in the system space, changed through mini-transactions, so
//! redo-logged and crash-safe like any page):
//!
//! Rollback segment page (one, named in the system space header):
//! ```text
//!  32  u32  number of slots N
//!  36  u32 x N  first page of the undo log in each slot, 0 = free
//! ```
//! Undo log page (a log is a chain of them; the first is its header):
//! ```text
//!  32  u64  transaction id
//!  40  u8   state (first page): 1 active, 2 committed
//!  41  u8   reserved
//!  42  u16  end of the records in this page (offset of free space)
//!  44  u32  next page of the log (0 = last)
//!  48  u32  previous page (0 = first)
//!  52  u32  last page of the log (first page only)
//!  56  u64  commit number (first page only; 0 while active)
//!  64       records
//! ```
//! A record: `u16 length | payload | u16 length` (the trailing copy lets
//! rollback walk a page backwards). Its *roll pointer*, what a clustered
//! record will carry to find its previous version, is
//! `page number << 16 | offset of the record`.
//!
//! Recovery reads the slot directory: a log whose state is active belongs
//! to a transaction that never committed and is rolled back.

use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::page::{self, get_u16, get_u32, get_u64, PageType};
use crate::space;
use crate::{Error, PageId, PageNo, Result, SYSTEM_SPACE};

use super::TrxId;

const RSEG_SLOTS: usize = 32;
const RSEG_SLOT0: usize = 36;

const U_TRX: usize = 32;
const U_STATE: usize = 40;
const U_END: usize = 42;
const U_NEXT: usize = 44;
const U_PREV: usize = 48;
const U_LAST: usize = 52;
const U_TRX_NO: usize = 56;
pub const U_RECORDS: usize = 64;

pub const STATE_ACTIVE: u8 = 1;
pub const STATE_COMMITTED: u8 = 2;

/// Where an undo record lives: `page << 16 | offset`.
pub type RollPtr = u64;

fn roll_ptr(page: PageNo, off: usize) -> RollPtr {
    (page as u64) << 16 | off as u64
}

fn split_ptr(p: RollPtr) -> (PageNo, usize) {
    ((p >> 16) as PageNo, (p & 0xffff) as usize)
}

/// The largest undo record payload (it must fit one page).
pub fn max_record(page_size: usize) -> usize {
    page_size - U_RECORDS - 4
}

/// The directory of undo logs.
pub struct RollbackSegment {
    page: PageNo,
    slots: usize,
}

/// An undo log found in the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoLogInfo {
    pub slot: usize,
    pub first_page: PageNo,
    pub trx: TrxId,
    pub state: u8,
}

impl RollbackSegment {
    /// Creates the rollback segment page in the system space.
    pub fn create(pool: &BufferPool) -> Result<Self> {
        let slots = (pool.page_size() - RSEG_SLOT0) / 4;
        let mut mtr = Mtr::new(pool);
        let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
        let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
        mtr.format(&mut g, PageType::RollbackSegment, |p| {
            p[RSEG_SLOTS..RSEG_SLOTS + 4].copy_from_slice(&(slots as u32).to_le_bytes());
        });
        mtr.keep(g);
        mtr.commit();
        Ok(Self { page: no, slots })
    }

    pub fn open(pool: &BufferPool, page: PageNo) -> Result<Self> {
        let id = PageId::new(SYSTEM_SPACE, page);
        let g = pool.fix_shared(id)?;
        if page::page_type(g.data()) != Some(PageType::RollbackSegment) {
            return Err(Error::corruption(id, "not a rollback segment page"));
        }
        let slots = get_u32(g.data(), RSEG_SLOTS) as usize;
        if RSEG_SLOT0 + slots * 4 > g.data().len() {
            return Err(Error::corruption(id, "rollback segment slot count too large"));
        }
        Ok(Self { page, slots })
    }

    pub fn page(&self) -> PageNo {
        self.page
    }

    fn id(&self) -> PageId {
        PageId::new(SYSTEM_SPACE, self.page)
    }

    /// Every undo log in the directory.
    pub fn logs(&self, pool: &BufferPool) -> Result<Vec<UndoLogInfo>> {
        let g = pool.fix_shared(self.id())?;
        let firsts: Vec<(usize, PageNo)> =
            (0..self.slots).map(|s| (s, get_u32(g.data(), RSEG_SLOT0 + 4 * s))).filter(|&(_, p)| p != 0).collect();
        drop(g);
        let mut out = Vec::new();
        for (slot, first) in firsts {
            let h = pool.fix_shared(PageId::new(SYSTEM_SPACE, first))?;
            if page::page_type(h.data()) != Some(PageType::Undo) {
                return Err(Error::corruption(h.id(), "rollback segment slot names a page that is not an undo log"));
            }
            out.push(UndoLogInfo { slot, first_page: first, trx: get_u64(h.data(), U_TRX), state: h.data()[U_STATE] });
        }
        Ok(out)
    }

    /// Starts the undo log of transaction `trx`. Fails if every slot is
    /// taken (too many transactions with uncommitted or unpurged undo).
    pub fn begin(&self, pool: &BufferPool, trx: TrxId) -> Result<UndoLog> {
        let mut mtr = Mtr::new(pool);
        let rseg = mtr.x_latch(self.id())?;
        let slot = (0..self.slots)
            .find(|&s| get_u32(mtr.page(rseg).data(), RSEG_SLOT0 + 4 * s) == 0)
            .ok_or_else(|| Error::LockWaitTimeout("too many concurrent transactions: no free undo slot".into()))?;
        let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
        let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
        mtr.format(&mut g, PageType::Undo, |p| init_undo_page(p, trx, 0, true, no));
        mtr.keep(g);
        mtr.write_held(rseg, RSEG_SLOT0 + 4 * slot, &no.to_le_bytes());
        mtr.commit();
        Ok(UndoLog { trx, slot, first: no, last: no })
    }

    /// Frees an undo log's pages and its slot (after rollback, or when
    /// purge no longer needs a committed log).
    pub fn free(&self, pool: &BufferPool, log: &UndoLogInfo) -> Result<()> {
        // Pages first (from the last back), each in its own mtr; the slot
        // goes last, so a crash part-way leaves a shorter log in its slot.
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
        let mut mtr = Mtr::new(pool);
        let rseg = mtr.x_latch(self.id())?;
        let id = PageId::new(SYSTEM_SPACE, log.first_page);
        let mut g = pool.fix_exclusive(id)?;
        space::free_page(pool, id, &mut mtr)?;
        mtr.page_free(&mut g);
        mtr.keep(g);
        mtr.write_held(rseg, RSEG_SLOT0 + 4 * log.slot, &0u32.to_le_bytes());
        mtr.commit();
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
    pub trx: TrxId,
    pub slot: usize,
    pub first: PageNo,
    last: PageNo,
}

impl UndoLog {
    /// Reopens a log found by recovery.
    pub fn reopen(pool: &BufferPool, info: &UndoLogInfo) -> Result<Self> {
        let g = pool.fix_shared(PageId::new(SYSTEM_SPACE, info.first_page))?;
        let last = get_u32(g.data(), U_LAST);
        Ok(Self { trx: info.trx, slot: info.slot, first: info.first_page, last })
    }

    pub fn info(&self, state: u8) -> UndoLogInfo {
        UndoLogInfo { slot: self.slot, first_page: self.first, trx: self.trx, state }
    }

    /// Appends a record; returns its roll pointer.
    pub fn append(&mut self, pool: &BufferPool, payload: &[u8]) -> Result<RollPtr> {
        let ps = pool.page_size();
        if payload.len() > max_record(ps) {
            return Err(Error::InvalidSchema(format!(
                "undo record of {} bytes exceeds the page capacity {}",
                payload.len(),
                max_record(ps)
            )));
        }
        let need = payload.len() + 4;
        let mut mtr = Mtr::new(pool);
        let mut last = pool.fix_exclusive(PageId::new(SYSTEM_SPACE, self.last))?;
        let end = get_u16(last.data(), U_END) as usize;
        let (mut target, off) = if end + need <= ps {
            (last, end)
        } else {
            // Chain a new page.
            let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
            let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
            let prev = self.last;
            mtr.format(&mut g, PageType::Undo, |p| init_undo_page(p, self.trx, prev, false, no));
            mtr.write(&mut last, U_NEXT, &no.to_le_bytes());
            mtr.keep(last);
            // The header page: already held if it is the old last page.
            let h = mtr.x_latch(PageId::new(SYSTEM_SPACE, self.first))?;
            mtr.write_held(h, U_LAST, &no.to_le_bytes());
            self.last = no;
            (g, U_RECORDS)
        };
        let mut rec = Vec::with_capacity(need);
        rec.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        rec.extend_from_slice(payload);
        rec.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        mtr.write(&mut target, off, &rec);
        mtr.write(&mut target, U_END, &((off + need) as u16).to_le_bytes());
        let page_no = target.id().page_no;
        mtr.keep(target);
        mtr.commit();
        Ok(roll_ptr(page_no, off))
    }

    /// Marks the log committed with commit number `trx_no`: rollback will
    /// no longer touch it; purge frees it when no read view needs it.
    pub fn commit(&self, pool: &BufferPool, trx_no: u64) -> Result<()> {
        let mut mtr = Mtr::new(pool);
        let mut g = pool.fix_exclusive(PageId::new(SYSTEM_SPACE, self.first))?;
        mtr.write(&mut g, U_TRX_NO, &trx_no.to_le_bytes());
        mtr.write(&mut g, U_STATE, &[STATE_COMMITTED]);
        mtr.keep(g);
        mtr.commit();
        Ok(())
    }

    /// The records, newest first (rollback order), with their roll pointers.
    pub fn records_backward(&self, pool: &BufferPool) -> Result<Vec<(RollPtr, Vec<u8>)>> {
        let mut out = Vec::new();
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
                out.push((roll_ptr(page_no, start), p[start + 2..start + 2 + len].to_vec()));
                end = start;
            }
            page_no = if page_no == self.first { 0 } else { get_u32(p, U_PREV) };
        }
        Ok(out)
    }
}

/// Reads the undo record a roll pointer names (consistent reads).
pub fn read(pool: &BufferPool, ptr: RollPtr) -> Result<Vec<u8>> {
    let (page_no, off) = split_ptr(ptr);
    let id = PageId::new(SYSTEM_SPACE, page_no);
    let g = pool.fix_shared(id)?;
    let p = g.data();
    if page::page_type(p) != Some(PageType::Undo) || off < U_RECORDS || off + 2 > p.len() {
        return Err(Error::corruption(id, format!("roll pointer {ptr:#x} names no undo record")));
    }
    let len = get_u16(p, off) as usize;
    if off + 4 + len > get_u16(p, U_END) as usize {
        return Err(Error::corruption(id, format!("roll pointer {ptr:#x} runs past the records")));
    }
    Ok(p[off + 2..off + 2 + len].to_vec())
}
