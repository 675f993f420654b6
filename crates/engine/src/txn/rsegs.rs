//! The rollback segments: several [`RollbackSegment`]s, so that commits,
//! purge and new undo logs do not all latch one page (InnoDB's
//! `innodb_rollback_segments`, 128 there).
//!
//! A transaction takes its undo log from one segment, round-robin,
//! preferring a segment with a cached log (no page allocation); the log
//! stays in that segment's slots and history list until purge frees it.
//! The history purge works through is one list across segments, in commit
//! order (`txn/purge.rs`); each segment keeps its own part of it on disk.
//!
//! Directory page (system space; named in the system space header at
//! offset 88; a data directory without one has a single segment, the page
//! at offset 84):
//! ```text
//!  32  u32      number of segments M
//!  36  u32 x M  page of each rollback segment
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::page::{self, get_u32, PageType};
use crate::space;
use crate::{Error, PageId, PageNo, Result, SYSTEM_SPACE};

use super::undo::{BinlogPos, RollbackSegment, UndoLog, UndoLogInfo};
use super::TrxId;

const DIR_COUNT: usize = 32;
const DIR_PAGES: usize = 36;

/// Rollback segments a new data directory gets by default.
pub const DEFAULT_SEGMENTS: usize = 16;

pub struct RollbackSegments {
    segs: Vec<RollbackSegment>,
    /// Round-robin position for the next transaction.
    next: AtomicUsize,
}

impl RollbackSegments {
    /// Creates `n` segments and their directory page; returns them and the
    /// directory's page number.
    pub fn create(pool: &BufferPool, n: usize) -> Result<(Self, PageNo)> {
        let n = n.clamp(1, (pool.page_size() - DIR_PAGES) / 4);
        let mut segs = Vec::with_capacity(n);
        for i in 0..n {
            segs.push(RollbackSegment::create(pool)?.with_index(i));
        }
        let mut mtr = Mtr::new(pool);
        let no = space::alloc_page(pool, SYSTEM_SPACE, &mut mtr)?;
        let mut g = mtr.create_page(PageId::new(SYSTEM_SPACE, no))?;
        mtr.format(&mut g, PageType::RollbackSegmentDirectory, |p| {
            p[DIR_COUNT..DIR_COUNT + 4].copy_from_slice(&(n as u32).to_le_bytes());
            for (i, s) in segs.iter().enumerate() {
                p[DIR_PAGES + 4 * i..DIR_PAGES + 4 * i + 4].copy_from_slice(&s.page().to_le_bytes());
            }
        });
        mtr.keep(g);
        mtr.commit();
        Ok((Self { segs, next: AtomicUsize::new(0) }, no))
    }

    /// Opens the segments listed by directory page `dir`, or the single
    /// segment `first` when there is no directory (`dir == 0`).
    pub fn open(pool: &BufferPool, first: PageNo, dir: PageNo) -> Result<Self> {
        if dir == 0 {
            return Ok(Self { segs: vec![RollbackSegment::open(pool, first)?], next: AtomicUsize::new(0) });
        }
        let id = PageId::new(SYSTEM_SPACE, dir);
        let pages: Vec<PageNo> = {
            let g = pool.fix_shared(id)?;
            let p = g.data();
            let n = get_u32(p, DIR_COUNT) as usize;
            if page::page_type(p) != Some(PageType::RollbackSegmentDirectory) || n == 0 || DIR_PAGES + 4 * n > p.len() {
                return Err(Error::corruption(id, "not a rollback segment directory"));
            }
            (0..n).map(|i| get_u32(p, DIR_PAGES + 4 * i)).collect()
        };
        let segs = pages
            .into_iter()
            .enumerate()
            .map(|(i, no)| Ok(RollbackSegment::open(pool, no)?.with_index(i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { segs, next: AtomicUsize::new(0) })
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// The first segment's page (the system space header names it).
    pub fn first_page(&self) -> PageNo {
        self.segs[0].page()
    }

    /// Starts the undo log of transaction `trx` in the next segment in
    /// turn that has a cached log, else in the next one that has a free
    /// slot. `Error::UndoSlotsFull` if every slot of every segment is
    /// taken.
    pub fn begin(&self, pool: &BufferPool, trx: TrxId) -> Result<UndoLog> {
        let n = self.segs.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let order = (0..n).map(|i| &self.segs[(start + i) % n]);
        if let Some(seg) = order.clone().find(|s| s.cached() > 0) {
            match seg.begin(pool, trx) {
                Err(Error::UndoSlotsFull) => {}
                other => return other,
            }
        }
        for seg in order {
            match seg.begin(pool, trx) {
                Err(Error::UndoSlotsFull) => continue,
                other => return other,
            }
        }
        Err(Error::UndoSlotsFull)
    }

    /// See [`RollbackSegment::finish`].
    pub fn finish(
        &self,
        pool: &BufferPool,
        log: &UndoLog,
        trx_no: u64,
        state: u8,
        binlog: Option<BinlogPos>,
    ) -> Result<()> {
        self.seg(log.rseg, log.first)?.finish(pool, log, trx_no, state, binlog)
    }

    /// Whether every segment can record a binary log position.
    pub fn records_binlog(&self) -> bool {
        self.segs.iter().all(|s| s.has_binlog_field())
    }

    /// The highest binary log position recorded in any segment. Commits
    /// that record one happen in binary log order, so this is the
    /// position of the last of them that recovery found.
    pub fn binlog_position(&self, pool: &BufferPool) -> Result<Option<BinlogPos>> {
        let mut best = None;
        for s in &self.segs {
            best = best.max(s.binlog_position(pool)?);
        }
        Ok(best)
    }

    /// Records `pos` in the first segment (it is then the highest), or
    /// with `None` clears every segment's. Returns the LSN to make durable.
    pub fn set_binlog_position(&self, pool: &BufferPool, pos: Option<BinlogPos>) -> Result<crate::Lsn> {
        if pos.is_some() {
            return self.segs[0].set_binlog_position(pool, pos);
        }
        let mut lsn = 0;
        for s in &self.segs {
            if s.binlog_position(pool)?.is_some() {
                lsn = lsn.max(s.set_binlog_position(pool, None)?);
            }
        }
        Ok(lsn)
    }

    /// See [`RollbackSegment::free`].
    pub fn free(&self, pool: &BufferPool, log: &UndoLogInfo) -> Result<()> {
        self.seg(log.rseg, log.first_page)?.free(pool, log)
    }

    /// Every undo log of every segment (see [`RollbackSegment::logs`]).
    pub fn logs(&self, pool: &BufferPool) -> Result<Vec<UndoLogInfo>> {
        let mut out = Vec::new();
        for s in &self.segs {
            out.extend(s.logs(pool)?);
        }
        Ok(out)
    }

    /// Whether `begin` would find a slot now.
    pub fn available(&self) -> bool {
        self.segs.iter().any(|s| s.available())
    }

    /// Takes back a cached log found at startup.
    pub fn recache(&self, log: &UndoLogInfo) {
        if let Some(s) = self.segs.get(log.rseg) {
            s.recache(log);
        }
    }

    /// Cached logs ready for reuse, in all segments.
    pub fn cached(&self) -> usize {
        self.segs.iter().map(|s| s.cached()).sum()
    }

    fn seg(&self, i: usize, page: PageNo) -> Result<&RollbackSegment> {
        self.segs.get(i).ok_or_else(|| {
            Error::corruption(PageId::new(SYSTEM_SPACE, page), "undo log of an unknown rollback segment")
        })
    }
}
