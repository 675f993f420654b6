//! Writing dirty pages back, in batches through the doublewrite buffer
//! (page cleaners and LRU flushers build on [`BufferPool::flush_frames`]).
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
use crate::dblwr::FlushType;
use crate::{PageId, Result, SpaceId};

/// An aligned buffer for one page of I/O.
pub fn io_buffer(page_size: usize) -> AlignedBuf {
    AlignedBuf::zeroed(page_size)
}

impl BufferPool {
    /// Writes the dirty pages among `frames` (instance, frame), in batches
    /// through the doublewrite buffer (flush-list shards). Returns pages
    /// written.
    pub fn flush_frames(&self, frames: &[(usize, u32)]) -> Result<usize> {
        let batch = self.dblwr().map_or(64, |d| d.batch_pages());
        let mut by_instance: Vec<Vec<u32>> = vec![Vec::new(); self.instances.len()];
        for &(i, f) in frames {
            by_instance[i].push(f);
        }
        let mut n = 0;
        for (i, fs) in by_instance.iter().enumerate() {
            for chunk in fs.chunks(batch) {
                n += self.flush_batch(i, chunk, FlushType::FlushList, true)?;
            }
        }
        Ok(n)
    }

    /// One batch of one instance (protocol steps 1-4 in the module note).
    /// Without `blocking`, frames whose latch is not free at once are
    /// skipped (and a written page whose latch is busy afterwards stays
    /// dirty, to be written again): the evicting thread may hold exclusive
    /// latches itself and must never wait for a frame latch.
    pub(crate) fn flush_batch(&self, i: usize, frames: &[u32], ty: FlushType, blocking: bool) -> Result<usize> {
        let inst = &self.instances[i];
        // Step 1 and 2: claim each frame, copy it under the shared latch.
        let mut taken: Vec<(u32, PageId, crate::Lsn, quire_io::AlignedBuf)> = Vec::new();
        for &f in frames {
            let frame = &inst.frames[f as usize];
            if frame.flushing.swap(true, Ordering::AcqRel) {
                continue;
            }
            if blocking {
                frame.latch.lock_shared();
            } else if !frame.latch.try_lock_shared() {
                frame.flushing.store(false, Ordering::Release);
                continue;
            }
            match frame.page() {
                Some(id) if frame.is_dirty() => {
                    let mut copy = io_buffer(self.page_size());
                    // SAFETY: shared latch held.
                    copy.copy_from_slice(unsafe { frame.bytes(self.page_size()) });
                    taken.push((f, id, frame.newest(), copy));
                }
                _ => frame.flushing.store(false, Ordering::Release),
            }
            // SAFETY: locked above.
            unsafe { frame.latch.unlock_shared() };
        }
        let release = |taken: &[(u32, PageId, crate::Lsn, quire_io::AlignedBuf)]| {
            for (f, ..) in taken {
                inst.frames[*f as usize].flushing.store(false, Ordering::Release);
            }
        };
        // Step 3: the WAL rule, then the writes, without any latch.
        let res = (|| {
            let max_lsn = taken.iter().map(|t| crate::page::page_lsn(&t.3)).max().unwrap_or(0);
            self.wal_check(max_lsn)?;
            for t in taken.iter_mut() {
                crate::page::seal(&mut t.3);
            }
            let pages: Vec<(PageId, &[u8])> = taken.iter().map(|t| (t.1, &t.3[..])).collect();
            self.write_sealed(i, ty, &pages)
        })();
        if let Err(e) = res {
            release(&taken);
            return Err(e);
        }
        self.stats.writes.add(taken.len() as u64);
        if ty == FlushType::Lru {
            self.stats.flushed_lru.add(taken.len() as u64);
        }
        // Step 4: clean, unless changed meanwhile.
        for (f, id, newest, _) in &taken {
            let frame = &inst.frames[*f as usize];
            if blocking {
                frame.latch.lock_shared();
            } else if !frame.latch.try_lock_shared() {
                continue;
            }
            if frame.holds(*id) && frame.newest() == *newest {
                self.remove_from_flush_list(inst, *f, frame);
            }
            // SAFETY: locked above.
            unsafe { frame.latch.unlock_shared() };
        }
        release(&taken);
        Ok(taken.len())
    }

    /// Writes sealed page images of instance `i`: through the doublewrite
    /// buffer when there is one, else in place.
    pub(crate) fn write_sealed(&self, i: usize, ty: FlushType, pages: &[(PageId, &[u8])]) -> Result<()> {
        let st = &self.instances[i].stats;
        let gauge = match ty {
            FlushType::Lru => &st.pending_flush_lru,
            FlushType::FlushList => &st.pending_flush_list,
        };
        let r = super::instance_stats::pending(gauge, pages.len() as u64, || match self.dblwr() {
            Some(d) => d.write_batch(i, ty, pages, &self.files),
            None => self.files.write_pages(pages),
        });
        if r.is_ok() {
            st.written.add(pages.len() as u64);
        }
        r
    }

    /// Dirty frames of every instance, optionally of one space only, as
    /// (instance, frame) in oldest-modification order per instance.
    fn dirty_frames(&self, space: Option<SpaceId>) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        for (i, inst) in self.instances.iter().enumerate() {
            let fl = inst.flush_list.lock();
            match space {
                None => out.extend(fl.by_lsn.iter().map(|&(_, f)| (i, f))),
                // Only this space's pages: never a scan of the others.
                Some(s) => out.extend(fl.by_space.get(&s).into_iter().flatten().map(|&f| (i, f))),
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
            n += self.flush_frames(&dirty)?;
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
                victims.extend(fl.by_lsn.iter().take_while(|&&(o, _)| o < lsn).map(|&(_, f)| (i, f)));
            }
            if victims.is_empty() {
                break;
            }
            n += self.flush_frames(&victims)?;
        }
        Ok(n)
    }

    /// Writes every dirty page of one space and syncs its file.
    pub fn flush_space(&self, space: SpaceId) -> Result<usize> {
        let mut n = 0;
        n += self.flush_frames(&self.dirty_frames(Some(space)))?;
        self.stats.flushed_space.add(n as u64);
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
