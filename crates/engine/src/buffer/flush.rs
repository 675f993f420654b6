//! Writing dirty pages back (the synchronous scaffolding; page cleaners and
//! LRU flushers build on [`BufferPool::flush_frame`]).
//!
//! Marking a page clean races with new changes. The protocol:
//! 1. set the frame's `flushing` flag (one writer per page at a time);
//! 2. under the shared latch, note `newest_modification` and copy the bytes;
//! 3. write the sealed copy with no latch held;
//! 4. under the shared latch again, mark the page clean only if
//!    `newest_modification` is unchanged (a change in between keeps it dirty
//!    with its original oldest modification, so it is written again).
//!
//! Changes (`mark_dirty`) happen under the exclusive latch, so step 4's check
//! and a change can never interleave.

use std::sync::atomic::Ordering;

use quire_io::AlignedBuf;

use super::{page_table, BufferPool};
use crate::{PageId, Result, SpaceId};

/// An aligned buffer for one page of I/O.
pub fn io_buffer(page_size: usize) -> AlignedBuf {
    AlignedBuf::zeroed(page_size)
}

impl BufferPool {
    /// Writes frame `f` of instance `i` if it is dirty. Returns whether a
    /// page was written.
    pub fn flush_frame(&self, i: usize, f: u32) -> Result<bool> {
        let inst = &self.instances[i];
        let frame = &inst.frames[f as usize];
        if frame.flushing.swap(true, Ordering::AcqRel) {
            return Ok(false);
        }
        let res = self.flush_frame_flagged(i, f);
        frame.flushing.store(false, Ordering::Release);
        res
    }

    fn flush_frame_flagged(&self, i: usize, f: u32) -> Result<bool> {
        let inst = &self.instances[i];
        let frame = &inst.frames[f as usize];
        frame.latch.lock_shared();
        let (id, newest, mut copy) = match frame.page() {
            Some(id) if frame.is_dirty() => {
                let mut copy = io_buffer(self.page_size());
                // SAFETY: shared latch held.
                copy.copy_from_slice(unsafe { frame.bytes(self.page_size()) });
                (id, frame.newest(), copy)
            }
            _ => {
                // SAFETY: locked above.
                unsafe { frame.latch.unlock_shared() };
                return Ok(false);
            }
        };
        // SAFETY: locked above.
        unsafe { frame.latch.unlock_shared() };
        self.wal_check(crate::page::page_lsn(&copy))?;
        crate::page::seal(&mut copy);
        self.files.get(id.space)?.write_page(id.page_no, &copy)?;
        self.stats.writes.inc();
        frame.latch.lock_shared();
        if frame.holds(id) && frame.newest() == newest {
            self.remove_from_flush_list(inst, f, frame);
        }
        // SAFETY: locked above.
        unsafe { frame.latch.unlock_shared() };
        Ok(true)
    }

    /// Dirty frames of every instance, optionally of one space only, as
    /// (instance, frame) in oldest-modification order per instance.
    fn dirty_frames(&self, space: Option<SpaceId>) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        for (i, inst) in self.instances.iter().enumerate() {
            let fl = inst.flush_list.lock();
            for &(_, f) in fl.iter() {
                let keep = match space {
                    None => true,
                    Some(s) => inst.frames[f as usize].page().is_some_and(|id| id.space == s),
                };
                if keep {
                    out.push((i, f));
                }
            }
        }
        out
    }

    /// Writes every dirty page and syncs every file. Returns pages written.
    pub fn flush_all(&self) -> Result<usize> {
        let mut n = 0;
        // Pages changed while we flush are picked up by the next pass.
        for _ in 0..8 {
            let dirty = self.dirty_frames(None);
            if dirty.is_empty() {
                break;
            }
            for (i, f) in dirty {
                n += self.flush_frame(i, f)? as usize;
            }
        }
        self.files.sync_all()?;
        Ok(n)
    }

    /// Writes every page whose oldest unwritten change is below `lsn` (the
    /// checkpoint's flush). Returns pages written; files are not synced.
    pub fn flush_older_than(&self, lsn: crate::Lsn) -> Result<usize> {
        let mut n = 0;
        for _ in 0..4 {
            let mut victims = Vec::new();
            for (i, inst) in self.instances.iter().enumerate() {
                let fl = inst.flush_list.lock();
                victims.extend(fl.iter().take_while(|&&(o, _)| o < lsn).map(|&(_, f)| (i, f)));
            }
            if victims.is_empty() {
                break;
            }
            for (i, f) in victims {
                n += self.flush_frame(i, f)? as usize;
            }
        }
        Ok(n)
    }

    /// Writes every dirty page of one space and syncs its file.
    pub fn flush_space(&self, space: SpaceId) -> Result<usize> {
        let mut n = 0;
        for (i, f) in self.dirty_frames(Some(space)) {
            n += self.flush_frame(i, f)? as usize;
        }
        self.files.get(space)?.sync()?;
        Ok(n)
    }

    /// Whether a page is cached (tests and diagnostics).
    pub fn is_resident(&self, id: PageId) -> bool {
        let h = page_table::hash(id);
        let inst = self.instance_of(h);
        let _lists = inst.lists.lock();
        inst.table.lookup(id, h, &inst.frames).is_some()
    }
}
