//! Heap buffers aligned for direct I/O.

use std::alloc::{self, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::DIRECT_IO_ALIGN;

/// A zero-initialised byte buffer whose address is aligned to
/// [`DIRECT_IO_ALIGN`]. Its length is whatever the caller asked for; for
/// direct I/O the caller keeps lengths multiples of the alignment.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared references only permit reads.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    pub fn zeroed(len: usize) -> Self {
        if len == 0 {
            return Self { ptr: NonNull::dangling(), len: 0 };
        }
        let layout = Self::layout(len);
        // SAFETY: layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Self { ptr, len }
    }

    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut buf = Self::zeroed(bytes.len());
        buf.copy_from_slice(bytes);
        buf
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len, DIRECT_IO_ALIGN).expect("buffer size overflows")
    }

    /// Whether a slice may be handed to direct I/O as is.
    pub fn is_aligned(bytes: &[u8], offset: u64) -> bool {
        (bytes.as_ptr() as usize).is_multiple_of(DIRECT_IO_ALIGN)
            && bytes.len().is_multiple_of(DIRECT_IO_ALIGN)
            && offset.is_multiple_of(DIRECT_IO_ALIGN as u64)
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: allocated in `zeroed` with this same layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
        }
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised bytes (or dangling with len 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Clone for AlignedBuf {
    fn clone(&self) -> Self {
        Self::from_slice(self)
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBuf({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_buffers_are_aligned_and_zeroed() {
        for len in [1usize, 512, 4096, 16384, 65536] {
            let b = AlignedBuf::zeroed(len);
            assert_eq!(b.as_ptr() as usize % DIRECT_IO_ALIGN, 0);
            assert!(b.iter().all(|&x| x == 0));
        }
    }
}
