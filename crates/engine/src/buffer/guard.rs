//! Latch guards on buffer pool pages: the latch discipline is in the types.
//!
//! - [`OptGuard`]: an optimistic read; holds no latch; must `validate`
//!   before anything read through it is trusted.
//! - [`SharedGuard`]: shared latch; the bytes are stable.
//! - [`ExclusiveGuard`]: exclusive latch; the bytes may be changed, and a
//!   changed page must be handed to the mini-transaction (`Mtr::keep`) so
//!   that it is stamped with the change's LSN and put on the flush list before
//!   its latch is released.

use std::sync::atomic::Ordering;

use super::frame::Frame;
use super::BufferPool;
use crate::sync::OptPage;
use crate::PageId;

/// An optimistic read failed validation; the operation restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Restart;

pub struct OptGuard<'a> {
    pub(super) pool: &'a BufferPool,
    pub(super) frame: &'a Frame,
    pub(super) id: PageId,
    pub(super) version: u64,
}

impl<'a> OptGuard<'a> {
    pub fn id(&self) -> PageId {
        self.id
    }

    pub fn view(&self) -> OptPage<'a> {
        self.frame.optimistic_view(self.pool.page_size())
    }

    /// Whether everything read so far is consistent.
    #[inline]
    pub fn validate(&self) -> Result<(), Restart> {
        if self.frame.latch.validate(self.version) {
            Ok(())
        } else {
            Err(Restart)
        }
    }

    /// Trades the optimistic read for an exclusive latch if nothing changed.
    pub fn upgrade_exclusive(self) -> Result<ExclusiveGuard<'a>, Restart> {
        if self.frame.latch.upgrade_exclusive(self.version) {
            Ok(ExclusiveGuard { pool: self.pool, frame: self.frame, id: self.id, modified: false })
        } else {
            Err(Restart)
        }
    }

    /// Trades the optimistic read for a shared latch if nothing changed.
    pub fn upgrade_shared(self) -> Result<SharedGuard<'a>, Restart> {
        if self.frame.latch.upgrade_shared(self.version) {
            Ok(SharedGuard { pool: self.pool, frame: self.frame, id: self.id })
        } else {
            Err(Restart)
        }
    }
}

pub struct SharedGuard<'a> {
    pub(super) pool: &'a BufferPool,
    pub(super) frame: &'a Frame,
    pub(super) id: PageId,
}

impl<'a> SharedGuard<'a> {
    pub fn id(&self) -> PageId {
        self.id
    }

    pub fn data(&self) -> &[u8] {
        // SAFETY: we hold the shared latch for our lifetime.
        unsafe { self.frame.bytes(self.pool.page_size()) }
    }
}

impl Drop for SharedGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: a SharedGuard exists only while the shared latch is held.
        unsafe { self.frame.latch.unlock_shared() }
    }
}

pub struct ExclusiveGuard<'a> {
    pub(super) pool: &'a BufferPool,
    pub(super) frame: &'a Frame,
    pub(super) id: PageId,
    /// Whether the bytes were borrowed mutably.
    pub(super) modified: bool,
}

impl<'a> ExclusiveGuard<'a> {
    pub fn id(&self) -> PageId {
        self.id
    }

    pub fn data(&self) -> &[u8] {
        // SAFETY: we hold the exclusive latch.
        unsafe { self.frame.bytes(self.pool.page_size()) }
    }

    /// The page bytes for modification. The guard must then be kept by a
    /// mini-transaction (`Mtr::keep`) rather than dropped.
    pub fn data_mut(&mut self) -> &mut [u8] {
        self.modified = true;
        // SAFETY: we hold the exclusive latch and &mut self.
        unsafe { self.frame.bytes_mut(self.pool.page_size()) }
    }

    pub fn is_modified(&self) -> bool {
        self.modified
    }

    /// For a freshly zeroed page: its zeroing needs no stamp of its own.
    pub(crate) fn forget_modification(&mut self) {
        self.modified = false;
    }

    pub(crate) fn pool(&self) -> &'a BufferPool {
        self.pool
    }

    /// Called by the mini-transaction at commit, while still latched: the
    /// page now carries the change logged in `[start, end)`.
    pub fn stamp(&mut self, start: crate::Lsn, end: crate::Lsn) {
        if self.modified {
            // SAFETY: exclusive latch held.
            let bytes = unsafe { self.frame.bytes_mut(self.pool.page_size()) };
            crate::page::set_page_lsn(bytes, end);
            self.pool.mark_dirty(self.frame, self.id, start, end);
            self.modified = false;
        }
    }

    /// Releases the exclusive latch but keeps a shared one, with no writer
    /// slipping in between.
    pub fn downgrade(self) -> SharedGuard<'a> {
        debug_assert!(!self.modified, "a modified page must be committed by its mtr first");
        let g = SharedGuard { pool: self.pool, frame: self.frame, id: self.id };
        // SAFETY: we hold the exclusive latch; forget self so Drop does not unlock.
        unsafe { self.frame.latch.downgrade() };
        std::mem::forget(self);
        g
    }
}

impl Drop for ExclusiveGuard<'_> {
    fn drop(&mut self) {
        if self.modified {
            // A modified page must go through Mtr::commit. Not doing so is a
            // bug; rather than lose the change, stamp it with a fresh LSN.
            debug_assert!(std::thread::panicking(), "modified page {} dropped outside an mtr", self.id);
            let lsn = self.pool.lsn_clock().fetch_add(1, Ordering::AcqRel) + 1;
            self.stamp(lsn, lsn);
        }
        // SAFETY: an ExclusiveGuard exists only while the exclusive latch is held.
        unsafe { self.frame.latch.unlock_exclusive() }
    }
}
