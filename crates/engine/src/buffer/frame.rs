//! A frame: one page-sized slot of buffer pool memory and its control block.
//!
//! Frame memory is allocated once per instance and never freed while the
//! pool lives, so a stale frame index held by an optimistic reader always
//! points at valid memory (LeanStore's "no delayed reclamation" argument).
//!
//! Field ownership:
//! - `latch` guards the page bytes and `page_id` changes.
//! - `page_id` changes only under the instance mutex *and* the exclusive
//!   latch; readers check it after latching (or after reading an optimistic
//!   version) to detect that the frame was reused.
//! - `oldest_modification` / `newest_modification` change under the
//!   exclusive latch (mtr commit) or under the shared latch plus the
//!   `flushing` flag (marking a written page clean); see `buffer::flush`.
//! - `in_old` / `first_access_ms` are LRU hints written under the instance
//!   mutex and read without it.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::sync::{HybridLatch, OptPage};
use crate::{Lsn, PageId};

/// `page_id` of a frame that holds no page.
pub const NO_PAGE: u64 = u64::MAX;

pub struct Frame {
    pub latch: HybridLatch,
    /// The page held (`PageId::to_u64`), or [`NO_PAGE`].
    pub page_id: AtomicU64,
    /// LSN of the first change not yet written to disk; 0 when clean.
    pub oldest_modification: AtomicU64,
    /// LSN of the newest change.
    pub newest_modification: AtomicU64,
    /// Set while one thread writes this page; excludes a second writer.
    pub flushing: AtomicBool,
    /// Whether the frame sits in the old part of the LRU list.
    pub in_old: AtomicBool,
    /// Milliseconds (pool clock) of the first access after the page was read.
    pub first_access_ms: AtomicU32,
    /// Read by read-ahead and not accessed since ([`super::read_ahead`]).
    pub read_ahead: AtomicBool,
    /// Descents waiting for a child page to be read hold their parent's
    /// frame here ([`Pin`]); eviction skips a pinned frame.
    pins: AtomicU32,
    /// Start of this frame's page bytes; fixed for the pool's life.
    data: *mut u8,
}

// SAFETY: the raw data pointer is only dereferenced under the latch protocol
// described above; all other fields are atomics.
unsafe impl Send for Frame {}
// SAFETY: as above.
unsafe impl Sync for Frame {}

impl Frame {
    pub fn new(data: *mut u8) -> Self {
        Self {
            latch: HybridLatch::new(),
            page_id: AtomicU64::new(NO_PAGE),
            oldest_modification: AtomicU64::new(0),
            newest_modification: AtomicU64::new(0),
            flushing: AtomicBool::new(false),
            in_old: AtomicBool::new(false),
            first_access_ms: AtomicU32::new(0),
            read_ahead: AtomicBool::new(false),
            pins: AtomicU32::new(0),
            data,
        }
    }

    #[inline]
    pub fn holds(&self, id: PageId) -> bool {
        self.page_id.load(Ordering::Acquire) == id.to_u64()
    }

    pub fn page(&self) -> Option<PageId> {
        match self.page_id.load(Ordering::Acquire) {
            NO_PAGE => None,
            v => Some(PageId::from_u64(v)),
        }
    }

    #[inline]
    fn ptr(&self) -> *mut u8 {
        self.data
    }

    /// # Safety
    /// The caller holds the latch shared or exclusive for `'a`.
    #[inline]
    pub unsafe fn bytes(&self, page_size: usize) -> &[u8] {
        // SAFETY: the frame memory is page_size bytes, alive for the pool's
        // life; the latch excludes writers.
        unsafe { std::slice::from_raw_parts(self.ptr(), page_size) }
    }

    /// # Safety
    /// The caller holds the latch exclusively for `'a` and creates no other
    /// reference to these bytes meanwhile.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn bytes_mut(&self, page_size: usize) -> &mut [u8] {
        // SAFETY: as above, and exclusivity comes from the exclusive latch.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(), page_size) }
    }

    /// An optimistic view: may be read without any latch, validated later.
    #[inline]
    pub fn optimistic_view(&self, page_size: usize) -> OptPage<'_> {
        // SAFETY: frame memory outlives &self.
        unsafe { OptPage::new(self.ptr(), page_size) }
    }

    /// Whether a [`Pin`] holds this frame. An evictor checks it before
    /// latching (so as not to disturb the pinner's optimistic version) and
    /// again once latched (a pin taken in between); with the pinner's
    /// order (pin, then validate the version) one of the two sees it.
    #[inline]
    pub fn is_pinned(&self) -> bool {
        self.pins.load(Ordering::SeqCst) != 0
    }

    pub fn is_dirty(&self) -> bool {
        self.oldest_modification.load(Ordering::Acquire) != 0
    }

    pub fn newest(&self) -> Lsn {
        self.newest_modification.load(Ordering::Acquire)
    }
}

/// Keeps a frame from being evicted while it lives. Not a latch: the page
/// may still change, and a pin taken on a frame that was already reused
/// for another page only delays that page's eviction. The pinner validates
/// its optimistic version after pinning to know the pin protects its page.
pub struct Pin<'a>(&'a Frame);

impl<'a> Pin<'a> {
    pub fn new(frame: &'a Frame) -> Self {
        frame.pins.fetch_add(1, Ordering::SeqCst);
        Pin(frame)
    }
}

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        self.0.pins.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The memory behind an instance's frames: one aligned allocation.
pub struct FrameMemory {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: plain owned memory; access is coordinated by frame latches.
unsafe impl Send for FrameMemory {}
// SAFETY: as above.
unsafe impl Sync for FrameMemory {}

impl FrameMemory {
    pub fn new(frames: usize, page_size: usize) -> Self {
        let layout =
            std::alloc::Layout::from_size_align(frames * page_size, quire_io::DIRECT_IO_ALIGN).expect("pool too large");
        // SAFETY: non-zero size (frames >= 1).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Self { ptr, layout }
    }

    pub fn frame_ptr(&self, i: usize, page_size: usize) -> *mut u8 {
        debug_assert!((i + 1) * page_size <= self.layout.size());
        // SAFETY: within the allocation.
        unsafe { self.ptr.add(i * page_size) }
    }
}

impl Drop for FrameMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}
