//! Mini-transactions: the unit in which pages change atomically.
//!
//! A B+tree insert, a page split, a page allocation: each is one `Mtr`. The
//! pages it changes stay exclusively latched until [`Mtr::commit`], which
//! assigns the change one LSN, stamps that LSN into every changed page and
//! puts newly dirtied pages on their flush list, and only then releases the
//! latches. A page therefore never reaches disk, nor another thread, with
//! half of a mini-transaction applied.
//!
//! Rule for callers: do everything that can fail (fixing pages, allocating)
//! before changing the first page.
//!
//! Redo logging attaches here: the records describing the changes are
//! appended to the mtr and written to the log at commit, before the latches
//! are released.

use std::sync::atomic::Ordering;

use crate::buffer::{BufferPool, ExclusiveGuard};
use crate::{Lsn, PageId, Result};

pub struct Mtr<'a> {
    pool: &'a BufferPool,
    kept: Vec<ExclusiveGuard<'a>>,
}

impl<'a> Mtr<'a> {
    pub fn new(pool: &'a BufferPool) -> Self {
        Self { pool, kept: Vec::new() }
    }

    /// Keeps a page latched until commit. Every page changed through
    /// `ExclusiveGuard::data_mut` must be kept.
    pub fn keep(&mut self, guard: ExclusiveGuard<'a>) {
        debug_assert!(std::ptr::eq(guard.pool(), self.pool));
        debug_assert!(!self.holds(guard.id()), "page {} latched twice in one mtr", guard.id());
        self.kept.push(guard);
    }

    /// Latches `id` exclusively for this mtr, or finds it already latched
    /// by it (a page is latched once per mtr: a second `fix_exclusive` of it
    /// would wait for itself). Returns a handle for [`Mtr::page`].
    pub fn x_latch(&mut self, id: PageId) -> Result<usize> {
        if let Some(i) = self.kept.iter().position(|g| g.id() == id) {
            return Ok(i);
        }
        let g = self.pool.fix_exclusive(id)?;
        self.kept.push(g);
        Ok(self.kept.len() - 1)
    }

    /// Like [`Mtr::x_latch`] for a page being created (no read from disk).
    pub fn x_create(&mut self, id: PageId) -> Result<usize> {
        if let Some(i) = self.kept.iter().position(|g| g.id() == id) {
            let g = &mut self.kept[i];
            g.data_mut().fill(0);
            return Ok(i);
        }
        let g = self.pool.create_page(id)?;
        self.kept.push(g);
        Ok(self.kept.len() - 1)
    }

    /// A page latched by this mtr.
    pub fn page(&mut self, handle: usize) -> &mut ExclusiveGuard<'a> {
        &mut self.kept[handle]
    }

    /// Whether this mtr holds `id`.
    pub fn holds(&self, id: PageId) -> bool {
        self.kept.iter().any(|g| g.id() == id)
    }

    /// Whether any page was changed.
    pub fn is_dirty(&self) -> bool {
        self.kept.iter().any(|g| g.is_modified())
    }

    /// Makes the changes visible and releases every latch. Returns the LSN
    /// of the change (or the current LSN if nothing changed).
    pub fn commit(mut self) -> Lsn {
        self.commit_inner()
    }

    fn commit_inner(&mut self) -> Lsn {
        let clock = self.pool.lsn_clock();
        let lsn =
            if self.is_dirty() { clock.fetch_add(1, Ordering::AcqRel) + 1 } else { clock.load(Ordering::Acquire) };
        for g in self.kept.iter_mut() {
            g.stamp(lsn);
        }
        // Release in reverse order of acquisition.
        while let Some(g) = self.kept.pop() {
            drop(g);
        }
        lsn
    }
}

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if !self.kept.is_empty() {
            // An error path: whatever was changed is committed as is. Callers
            // make changes only after every fallible step, so this is a
            // consistent state.
            self.commit_inner();
        }
    }
}
