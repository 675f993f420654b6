//! Mini-transactions: the unit in which pages change atomically and are
//! logged.
//!
//! A B+tree insert, a page split, a page allocation: each is one `Mtr`.
//! Every change goes through an `Mtr` method that both applies it to the
//! page and appends its redo record (`log::record`) to the mtr's group.
//! The pages changed stay exclusively latched until [`Mtr::commit`], which:
//! 1. appends the group to the redo log, getting its LSN range [start, end);
//! 2. stamps `end` into every changed page and puts newly dirtied pages on
//!    their flush list with oldest modification `start`;
//! 3. marks the range complete in the log (the writer may write it; a
//!    checkpoint may pass it);
//! 4. releases the latches.
//!
//! So no page reaches disk, nor another thread, with part of a
//! mini-transaction applied, and no page reaches disk before its log: the
//! page cleaner's WAL check waits for the log up to the page LSN.
//!
//! Rule for callers: do everything that can fail (fixing pages, allocating)
//! before the first change.
//!
//! Without a redo log (unit tests of the lower layers) an mtr still
//! latches and stamps pages, taking LSNs from the pool's counter.

use std::sync::atomic::Ordering;

use crate::btree::node;
use crate::buffer::{BufferPool, ExclusiveGuard};
use crate::log::{group, record};
use crate::page::{self, PageType, FIL_HEADER_SIZE};
use crate::{Lsn, PageId, Result};

thread_local! {
    /// End LSN of the last mtr this thread committed: what a transaction
    /// commit must wait for.
    static LAST_COMMIT: std::cell::Cell<Lsn> = const { std::cell::Cell::new(0) };
}

/// The end LSN of the last change this thread made (0 if none).
pub fn last_commit_lsn() -> Lsn {
    LAST_COMMIT.with(|c| c.get())
}

pub struct Mtr<'a> {
    pool: &'a BufferPool,
    kept: Vec<ExclusiveGuard<'a>>,
    /// The redo group being built (None without a log).
    recs: Option<Vec<u8>>,
}

impl<'a> Mtr<'a> {
    pub fn new(pool: &'a BufferPool) -> Self {
        Self { pool, kept: Vec::new(), recs: pool.log().map(|_| group::new_buffer()) }
    }

    /// Keeps a page latched until commit. Every page changed through this
    /// mtr must be kept.
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

    /// A page being created, all zeros, latched and kept by this mtr.
    pub fn x_create(&mut self, id: PageId) -> Result<usize> {
        let g = match self.kept.iter().position(|g| g.id() == id) {
            Some(i) => {
                self.kept[i].data_mut().fill(0);
                if let Some(r) = self.recs.as_mut() {
                    record::page_zero(r, id);
                }
                return Ok(i);
            }
            None => self.create_page(id)?,
        };
        self.kept.push(g);
        Ok(self.kept.len() - 1)
    }

    /// A page being created: a zeroed frame, nothing read from disk.
    ///
    /// The guard counts as changed only once a logged change touches it, so
    /// an error before that (the next allocation failing, say) can drop it.
    pub fn create_page(&mut self, id: PageId) -> Result<ExclusiveGuard<'a>> {
        let mut g = self.pool.create_page(id)?;
        g.forget_modification();
        if let Some(r) = self.recs.as_mut() {
            record::page_zero(r, id);
        }
        Ok(g)
    }

    /// A page latched by this mtr.
    pub fn page(&mut self, handle: usize) -> &mut ExclusiveGuard<'a> {
        &mut self.kept[handle]
    }

    /// Whether this mtr holds `id`.
    pub fn holds(&self, id: PageId) -> bool {
        self.kept.iter().any(|g| g.id() == id)
    }

    // ---- logged changes ------------------------------------------------

    /// Writes bytes at an offset of a page.
    pub fn write(&mut self, g: &mut ExclusiveGuard<'_>, off: usize, bytes: &[u8]) {
        write_logged(g, self.recs.as_mut(), off, bytes);
    }

    /// [`Mtr::write`] on a page this mtr holds.
    pub fn write_held(&mut self, handle: usize, off: usize, bytes: &[u8]) {
        write_logged(&mut self.kept[handle], self.recs.as_mut(), off, bytes);
    }

    /// Formats a page: a fresh common header of type `ty`, then `body`
    /// fills the rest (logged as one image of the body).
    pub fn format(&mut self, g: &mut ExclusiveGuard<'_>, ty: PageType, body: impl FnOnce(&mut [u8])) {
        format_logged(g, self.recs.as_mut(), ty, body);
    }

    /// [`Mtr::format`] on a page this mtr holds.
    pub fn format_held(&mut self, handle: usize, ty: PageType, body: impl FnOnce(&mut [u8])) {
        format_logged(&mut self.kept[handle], self.recs.as_mut(), ty, body);
    }

    /// Writes a fresh common header of type `ty` (the body is untouched).
    pub fn init_header(&mut self, g: &mut ExclusiveGuard<'_>, ty: PageType) {
        let id = g.id();
        page::init_header(g.data_mut(), id, ty);
        if let Some(r) = self.recs.as_mut() {
            record::page_header(r, id, ty);
        }
    }

    /// Marks a page free (its common header says so).
    pub fn page_free(&mut self, g: &mut ExclusiveGuard<'_>) {
        self.init_header(g, PageType::Free);
    }

    /// [`Mtr::page_free`] on a page this mtr holds.
    pub fn page_free_held(&mut self, handle: usize) {
        let g = &mut self.kept[handle];
        let id = g.id();
        page::init_header(g.data_mut(), id, PageType::Free);
        if let Some(r) = self.recs.as_mut() {
            record::page_header(r, id, PageType::Free);
        }
    }

    /// Copies another page's body (everything after the common header).
    pub fn copy_body(&mut self, g: &mut ExclusiveGuard<'_>, from: &[u8]) {
        g.data_mut()[FIL_HEADER_SIZE..].copy_from_slice(&from[FIL_HEADER_SIZE..]);
        if let Some(r) = self.recs.as_mut() {
            record::page_body(r, g.id(), &from[FIL_HEADER_SIZE..]);
        }
    }

    pub fn node_init(&mut self, g: &mut ExclusiveGuard<'_>, level: u16, index_id: u32) {
        let id = g.id();
        node::init(g.data_mut(), id, level, index_id);
        if let Some(r) = self.recs.as_mut() {
            record::node_init(r, id, level, index_id);
        }
    }

    pub fn node_insert(&mut self, g: &mut ExclusiveGuard<'_>, pos: usize, key: &[u8], val: &[u8], ext: bool) {
        node::insert_at(g.data_mut(), pos, key, val, ext);
        if let Some(r) = self.recs.as_mut() {
            record::node_insert(r, g.id(), pos, key, val, ext);
        }
    }

    pub fn node_remove(&mut self, g: &mut ExclusiveGuard<'_>, pos: usize) {
        node::remove_at(g.data_mut(), pos);
        if let Some(r) = self.recs.as_mut() {
            record::node_remove(r, g.id(), pos);
        }
    }

    /// REQUIRES: `node::replace_fits`.
    pub fn node_replace(&mut self, g: &mut ExclusiveGuard<'_>, pos: usize, val: &[u8], ext: bool) {
        let done = node::replace_value(g.data_mut(), pos, val, ext);
        debug_assert!(done);
        if let Some(r) = self.recs.as_mut() {
            record::node_replace(r, g.id(), pos, val, ext);
        }
    }

    pub fn node_leftmost(&mut self, g: &mut ExclusiveGuard<'_>, child: u32) {
        node::set_leftmost(g.data_mut(), child);
        if let Some(r) = self.recs.as_mut() {
            record::node_leftmost(r, g.id(), child);
        }
    }

    pub fn node_truncate(&mut self, g: &mut ExclusiveGuard<'_>, from: usize) {
        node::truncate(g.data_mut(), from);
        if let Some(r) = self.recs.as_mut() {
            record::node_truncate(r, g.id(), from);
        }
    }

    /// Moves entries `[from, n)` of `left` into the empty node `right`.
    pub fn node_move_upper(&mut self, left: &mut ExclusiveGuard<'_>, right: &mut ExclusiveGuard<'_>, from: usize) {
        self.node_append_from(right, left.data(), from);
        self.node_truncate(left, from);
    }

    /// Appends entries `[from, n)` of the node `src` to `dst` (all larger
    /// than `dst`'s keys), then recomputes `dst`'s prefix.
    pub fn node_append_from(&mut self, dst: &mut ExclusiveGuard<'_>, src: &[u8], from: usize) {
        for i in from..node::count(src) {
            let (kofs, klen, vofs, vlen, ext) = node::record(src, i).expect("latched node is consistent");
            let at = node::count(dst.data());
            self.node_insert(dst, at, &src[kofs..kofs + klen], &src[vofs..vofs + vlen], ext);
        }
        node::recompute_prefix(dst.data_mut());
        if let Some(r) = self.recs.as_mut() {
            record::node_prefix(r, dst.id());
        }
    }

    // ---- commit --------------------------------------------------------

    /// Whether any page was changed.
    pub fn is_dirty(&self) -> bool {
        self.kept.iter().any(|g| g.is_modified())
    }

    /// Logs the changes, makes them visible and releases every latch.
    /// Returns the end LSN of the change (or the current LSN if nothing
    /// changed).
    pub fn commit(mut self) -> Lsn {
        self.commit_inner(None)
    }

    /// Like [`Mtr::commit`], for an mtr that also changed `page`, which the
    /// caller keeps latched (a page being read, changed before its reader
    /// hands it out): it is stamped with the others, not released.
    pub(crate) fn commit_keeping(mut self, page: &mut ExclusiveGuard<'_>) -> Lsn {
        self.commit_inner(Some(page))
    }

    fn commit_inner(&mut self, mut also: Option<&mut ExclusiveGuard<'_>>) -> Lsn {
        let dirty = self.is_dirty() || also.as_ref().is_some_and(|g| g.is_modified());
        let (start, end) = match (self.pool.log(), self.recs.take()) {
            (Some(log), Some(mut recs)) if dirty => {
                debug_assert!(recs.len() > group::HEADER, "a page changed without a redo record");
                let len = group::padded_len(&recs);
                match log.append(
                    |lsn| {
                        group::seal(&mut recs, lsn);
                        std::mem::take(&mut recs)
                    },
                    len,
                ) {
                    Ok(range) => range,
                    // The log failed (its error is sticky): the change stays
                    // in memory, and pages stamped beyond the durable log
                    // can never be written (the WAL check fails too).
                    Err(_) => {
                        let l = log.current_lsn();
                        (l, l)
                    }
                }
            }
            (Some(log), _) => (log.current_lsn(), log.current_lsn()),
            (None, _) if dirty => {
                let l = self.pool.lsn_clock().fetch_add(1, Ordering::AcqRel) + 1;
                (l, l)
            }
            (None, _) => {
                let l = self.pool.lsn_clock().load(Ordering::Acquire);
                (l, l)
            }
        };
        for g in self.kept.iter_mut() {
            g.stamp(start, end);
        }
        if let Some(g) = also.as_mut() {
            g.stamp(start, end);
        }
        if dirty {
            if let Some(log) = self.pool.log() {
                if end > start {
                    log.complete(start, end);
                }
            }
        }
        // Release in reverse order of acquisition.
        while let Some(g) = self.kept.pop() {
            drop(g);
        }
        if dirty {
            LAST_COMMIT.with(|c| c.set(end));
        }
        end
    }
}

fn write_logged(g: &mut ExclusiveGuard<'_>, recs: Option<&mut Vec<u8>>, off: usize, bytes: &[u8]) {
    g.data_mut()[off..off + bytes.len()].copy_from_slice(bytes);
    if let Some(r) = recs {
        record::write(r, g.id(), off, bytes);
    }
}

fn format_logged(g: &mut ExclusiveGuard<'_>, recs: Option<&mut Vec<u8>>, ty: PageType, body: impl FnOnce(&mut [u8])) {
    let id = g.id();
    let p = g.data_mut();
    page::init_header(p, id, ty);
    body(p);
    if let Some(r) = recs {
        record::page_header(r, id, ty);
        // Trailing zeros are implied (a fresh page is mostly empty).
        let body = &p[FIL_HEADER_SIZE..];
        let used = body.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        record::page_body(r, id, &body[..used]);
    }
}

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if !self.kept.is_empty() {
            // An error path: whatever was changed is committed as is. Callers
            // make changes only after every fallible step, so this is a
            // consistent state.
            self.commit_inner(None);
        }
    }
}
