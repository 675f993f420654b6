//! Read access to page bytes that works both for latched pages (`&[u8]`) and
//! for optimistic reads of pages another thread may be writing ([`OptPage`]).
//!
//! Optimistic reads follow REFERENCES.md: bytes are read with volatile loads
//! from frame memory that lives as long as the pool, nothing read is trusted
//! before the latch version is validated, and every accessor is
//! bounds-checked against the page size so that garbage offsets read from a
//! page under modification can neither panic nor read out of bounds:
//! out-of-range reads return zeros / `false`, and callers treat the resulting
//! inconsistency as a restart.

use std::cmp::Ordering;
use std::marker::PhantomData;

#[allow(clippy::len_without_is_empty)]
pub trait PageView: Copy {
    fn len(&self) -> usize;
    fn u8_at(&self, off: usize) -> u8;
    fn u16_at(&self, off: usize) -> u16;
    fn u32_at(&self, off: usize) -> u32;
    fn u64_at(&self, off: usize) -> u64;
    /// Copies `dst.len()` bytes from `off`; false (and nothing copied) if the
    /// range is outside the page.
    fn copy_out(&self, off: usize, dst: &mut [u8]) -> bool;
    /// Appends `len` bytes from `off` to `out`; false (nothing appended) if
    /// the range is outside the page.
    fn append_to(&self, off: usize, len: usize, out: &mut Vec<u8>) -> bool;
    /// Compares the page bytes `[off, off+len)` with `other`; an
    /// out-of-range slice compares as empty.
    fn cmp_bytes(&self, off: usize, len: usize, other: &[u8]) -> Ordering;

    #[inline]
    fn in_bounds(&self, off: usize, len: usize) -> bool {
        off.checked_add(len).is_some_and(|e| e <= self.len())
    }
}

impl PageView for &[u8] {
    #[inline]
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    #[inline]
    fn u8_at(&self, off: usize) -> u8 {
        self.get(off).copied().unwrap_or(0)
    }
    #[inline]
    fn u16_at(&self, off: usize) -> u16 {
        match self.get(off..off.wrapping_add(2)) {
            Some(b) => u16::from_le_bytes([b[0], b[1]]),
            None => 0,
        }
    }
    #[inline]
    fn u32_at(&self, off: usize) -> u32 {
        match self.get(off..off.wrapping_add(4)) {
            Some(b) => u32::from_le_bytes(b.try_into().expect("4")),
            None => 0,
        }
    }
    #[inline]
    fn u64_at(&self, off: usize) -> u64 {
        match self.get(off..off.wrapping_add(8)) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("8")),
            None => 0,
        }
    }
    #[inline]
    fn copy_out(&self, off: usize, dst: &mut [u8]) -> bool {
        match self.get(off..off.wrapping_add(dst.len())) {
            Some(b) => {
                dst.copy_from_slice(b);
                true
            }
            None => false,
        }
    }
    #[inline]
    fn append_to(&self, off: usize, len: usize, out: &mut Vec<u8>) -> bool {
        match self.get(off..off.wrapping_add(len)) {
            Some(b) => {
                out.extend_from_slice(b);
                true
            }
            None => false,
        }
    }
    #[inline]
    fn cmp_bytes(&self, off: usize, len: usize, other: &[u8]) -> Ordering {
        match self.get(off..off.wrapping_add(len)) {
            Some(b) => b.cmp(other),
            None => [].as_slice().cmp(other),
        }
    }
}

/// A page being read optimistically: a raw view of frame memory.
#[derive(Clone, Copy)]
pub struct OptPage<'a> {
    ptr: *const u8,
    len: usize,
    _frame: PhantomData<&'a [u8]>,
}

impl<'a> OptPage<'a> {
    /// # Safety
    /// `ptr` must point to `len` bytes that stay allocated for `'a`. Other
    /// threads may write them concurrently; readers validate a latch version
    /// before trusting what they read.
    pub unsafe fn new(ptr: *const u8, len: usize) -> Self {
        Self { ptr, len, _frame: PhantomData }
    }

    #[inline]
    fn load<const N: usize>(&self, off: usize) -> [u8; N] {
        if !self.in_bounds(off, N) {
            return [0; N];
        }
        // SAFETY: in bounds of the frame, which outlives 'a. A racing write
        // yields garbage that the caller's version validation discards.
        unsafe {
            let p = self.ptr.add(off);
            // Volatile loads of byte arrays are split into single bytes;
            // word-sized loads stay whole when aligned.
            match N {
                8 if (p as usize).is_multiple_of(8) => {
                    let w = std::ptr::read_volatile(p as *const u64);
                    std::mem::transmute_copy::<[u8; 8], [u8; N]>(&w.to_ne_bytes())
                }
                4 if (p as usize).is_multiple_of(4) => {
                    let w = std::ptr::read_volatile(p as *const u32);
                    std::mem::transmute_copy::<[u8; 4], [u8; N]>(&w.to_ne_bytes())
                }
                2 if (p as usize).is_multiple_of(2) => {
                    let w = std::ptr::read_volatile(p as *const u16);
                    std::mem::transmute_copy::<[u8; 2], [u8; N]>(&w.to_ne_bytes())
                }
                _ => std::ptr::read_volatile(p as *const [u8; N]),
            }
        }
    }
}

impl PageView for OptPage<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn u8_at(&self, off: usize) -> u8 {
        self.load::<1>(off)[0]
    }
    #[inline]
    fn u16_at(&self, off: usize) -> u16 {
        u16::from_le_bytes(self.load(off))
    }
    #[inline]
    fn u32_at(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.load(off))
    }
    #[inline]
    fn u64_at(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.load(off))
    }
    fn copy_out(&self, off: usize, dst: &mut [u8]) -> bool {
        if !self.in_bounds(off, dst.len()) {
            return false;
        }
        let mut i = 0;
        while i + 8 <= dst.len() {
            dst[i..i + 8].copy_from_slice(&self.load::<8>(off + i));
            i += 8;
        }
        while i < dst.len() {
            dst[i] = self.load::<1>(off + i)[0];
            i += 1;
        }
        true
    }
    fn append_to(&self, off: usize, len: usize, out: &mut Vec<u8>) -> bool {
        if !self.in_bounds(off, len) {
            return false;
        }
        out.reserve(len);
        let base = out.len();
        // SAFETY: the source range is in bounds of the frame (checked above);
        // the destination is the vector's reserved spare capacity, fully
        // written before set_len. Volatile loads as in `load`.
        unsafe {
            let src = self.ptr.add(off);
            let dst = out.as_mut_ptr().add(base);
            let mut i = 0;
            // Bytes up to an 8-byte boundary, then aligned words, then the tail.
            while i < len && !(src.add(i) as usize).is_multiple_of(8) {
                *dst.add(i) = std::ptr::read_volatile(src.add(i));
                i += 1;
            }
            while i + 8 <= len {
                let w = std::ptr::read_volatile(src.add(i) as *const u64);
                std::ptr::write_unaligned(dst.add(i) as *mut u64, w);
                i += 8;
            }
            while i < len {
                *dst.add(i) = std::ptr::read_volatile(src.add(i));
                i += 1;
            }
            out.set_len(base + len);
        }
        true
    }
    fn cmp_bytes(&self, off: usize, len: usize, other: &[u8]) -> Ordering {
        if !self.in_bounds(off, len) {
            return [].as_slice().cmp(other);
        }
        let n = len.min(other.len());
        let mut i = 0;
        while i + 8 <= n {
            let a = u64::from_be_bytes(self.load::<8>(off + i));
            let b = u64::from_be_bytes(other[i..i + 8].try_into().expect("8"));
            if a != b {
                return a.cmp(&b);
            }
            i += 8;
        }
        while i < n {
            let a = self.load::<1>(off + i)[0];
            if a != other[i] {
                return a.cmp(&other[i]);
            }
            i += 1;
        }
        len.cmp(&other.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimistic_view_agrees_with_slice_view_and_never_reads_out_of_bounds() {
        let data: Vec<u8> = (0..100u8).collect();
        let s: &[u8] = &data;
        let o = unsafe { OptPage::new(data.as_ptr(), data.len()) };
        for off in [0usize, 1, 50, 92, 96, 98, 99, 100, 1000, usize::MAX - 1] {
            assert_eq!(s.u16_at(off), o.u16_at(off));
            assert_eq!(s.u32_at(off), o.u32_at(off));
            assert_eq!(s.u64_at(off), o.u64_at(off));
            for len in [0usize, 1, 7, 8, 9, 17] {
                let mut a = vec![0u8; len];
                let mut b = vec![0u8; len];
                assert_eq!(s.copy_out(off, &mut a), o.copy_out(off, &mut b));
                assert_eq!(a, b);
                let other: Vec<u8> = (0..len).map(|i| off.wrapping_add(i) as u8).collect();
                assert_eq!(s.cmp_bytes(off, len, &other), o.cmp_bytes(off, len, &other));
                assert_eq!(s.cmp_bytes(off, len, &[5, 6]), o.cmp_bytes(off, len, &[5, 6]));
            }
        }
    }
}
