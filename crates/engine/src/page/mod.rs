//! The page format shared by every page of every space (docs/FORMAT.md).
//!
//! ```text
//! offset size field
//!      0    4 checksum   CRC-32C of bytes [4, page_size)
//!      4    4 space id
//!      8    4 page number
//!     12    2 page type  (PageType)
//!     14    2 format     (PAGE_FORMAT_VERSION)
//!     16    8 page LSN   newest change applied to this page
//!     24    8 reserved   zero
//!     32      page-type-specific body
//! ```
//!
//! All integers are little-endian. The checksum is written only when a page
//! leaves the buffer pool for disk ([`seal`]) and checked when it comes back
//! ([`verify`]); in memory it is stale and ignored.
//!
//! Invariants:
//! 1. A page on disk whose checksum does not match, whose id is not the
//!    address it was read from, or whose type is unknown is corrupt and is
//!    never handed to a caller.
//! 2. A page of all zeros is "never written"; it is only legitimate where the
//!    caller expects a fresh page, and [`verify`] reports it as such.

use crate::{Error, Lsn, PageId, Result};

pub const FIL_CHECKSUM: usize = 0;
pub const FIL_SPACE_ID: usize = 4;
pub const FIL_PAGE_NO: usize = 8;
pub const FIL_PAGE_TYPE: usize = 12;
pub const FIL_FORMAT: usize = 14;
pub const FIL_PAGE_LSN: usize = 16;
/// Size of the common header; page bodies start here.
pub const FIL_HEADER_SIZE: usize = 32;

pub const PAGE_FORMAT_VERSION: u16 = 1;

/// Page sizes quire accepts (`innodb_page_size`).
pub const PAGE_SIZES: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
pub const DEFAULT_PAGE_SIZE: usize = 16384;

pub fn validate_page_size(size: usize) -> Result<()> {
    if PAGE_SIZES.contains(&size) {
        Ok(())
    } else {
        Err(Error::Config(format!("innodb_page_size must be one of 4k, 8k, 16k, 32k, 64k, not {size}")))
    }
}

/// What a page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum PageType {
    /// Allocated-but-unused or freed page.
    Free = 0,
    /// Page 0 of every space: the space header.
    SpaceHeader = 1,
    /// Page-allocation bitmap.
    AllocBitmap = 2,
    /// B+tree node (leaf or inner), see `btree::node`.
    BTreeNode = 3,
    /// Part of a value stored outside its B+tree leaf.
    Overflow = 4,
    /// Undo log page (`txn::undo`).
    Undo = 5,
    /// Rollback segment header: the directory of undo logs.
    RollbackSegment = 6,
    /// The list of rollback segment pages.
    RollbackSegmentDirectory = 7,
}

impl PageType {
    pub fn from_u16(v: u16) -> Option<Self> {
        Some(match v {
            0 => PageType::Free,
            1 => PageType::SpaceHeader,
            2 => PageType::AllocBitmap,
            3 => PageType::BTreeNode,
            4 => PageType::Overflow,
            5 => PageType::Undo,
            6 => PageType::RollbackSegment,
            7 => PageType::RollbackSegmentDirectory,
            _ => return None,
        })
    }
}

#[inline]
pub fn get_u16(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
#[inline]
pub fn get_u32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().expect("4 bytes"))
}
#[inline]
pub fn get_u64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().expect("8 bytes"))
}
#[inline]
pub fn put_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
#[inline]
pub fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
#[inline]
pub fn put_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

/// Writes a fresh common header; the body is left as it is.
pub fn init_header(page: &mut [u8], id: PageId, ty: PageType) {
    page[..FIL_HEADER_SIZE].fill(0);
    put_u32(page, FIL_SPACE_ID, id.space);
    put_u32(page, FIL_PAGE_NO, id.page_no);
    put_u16(page, FIL_PAGE_TYPE, ty as u16);
    put_u16(page, FIL_FORMAT, PAGE_FORMAT_VERSION);
}

pub fn page_type(page: &[u8]) -> Option<PageType> {
    PageType::from_u16(get_u16(page, FIL_PAGE_TYPE))
}

pub fn page_lsn(page: &[u8]) -> Lsn {
    get_u64(page, FIL_PAGE_LSN)
}

pub fn set_page_lsn(page: &mut [u8], lsn: Lsn) {
    put_u64(page, FIL_PAGE_LSN, lsn);
}

pub fn page_id(page: &[u8]) -> PageId {
    PageId::new(get_u32(page, FIL_SPACE_ID), get_u32(page, FIL_PAGE_NO))
}

pub fn checksum(page: &[u8]) -> u32 {
    crc32c::crc32c(&page[FIL_CHECKSUM + 4..])
}

/// Stamps the checksum into a copy of a page about to be written.
pub fn seal(page: &mut [u8]) {
    let c = checksum(page);
    put_u32(page, FIL_CHECKSUM, c);
}

/// Why a page read from disk cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageFault {
    /// All zeros: the page was never written.
    AllZero,
    ChecksumMismatch {
        stored: u32,
        computed: u32,
    },
    WrongId {
        found: PageId,
    },
    UnknownType(u16),
    UnknownFormat(u16),
}

impl std::fmt::Display for PageFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageFault::AllZero => write!(f, "page is all zeros (never written)"),
            PageFault::ChecksumMismatch { stored, computed } => {
                write!(f, "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")
            }
            PageFault::WrongId { found } => write!(f, "page carries the id {found}"),
            PageFault::UnknownType(t) => write!(f, "unknown page type {t}"),
            PageFault::UnknownFormat(v) => write!(f, "unknown page format version {v}"),
        }
    }
}

/// Checks a page just read from disk at address `expected`.
pub fn check(page: &[u8], expected: PageId) -> std::result::Result<(), PageFault> {
    let stored = get_u32(page, FIL_CHECKSUM);
    let computed = checksum(page);
    if stored != computed {
        if page.iter().all(|&b| b == 0) {
            return Err(PageFault::AllZero);
        }
        return Err(PageFault::ChecksumMismatch { stored, computed });
    }
    let found = page_id(page);
    if found != expected {
        return Err(PageFault::WrongId { found });
    }
    let ty = get_u16(page, FIL_PAGE_TYPE);
    if PageType::from_u16(ty).is_none() {
        return Err(PageFault::UnknownType(ty));
    }
    let fmt = get_u16(page, FIL_FORMAT);
    if fmt != PAGE_FORMAT_VERSION {
        return Err(PageFault::UnknownFormat(fmt));
    }
    Ok(())
}

/// [`check`] as an engine error naming the page.
pub fn verify(page: &[u8], expected: PageId) -> Result<()> {
    check(page, expected).map_err(|f| Error::corruption(expected, f.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_page_verifies_and_any_flipped_byte_is_caught() {
        let id = PageId::new(7, 42);
        let mut page = vec![0u8; 4096];
        init_header(&mut page, id, PageType::BTreeNode);
        page[100] = 9;
        seal(&mut page);
        verify(&page, id).unwrap();
        for i in [0usize, 3, 4, 15, 31, 32, 100, 4095] {
            let mut bad = page.clone();
            bad[i] ^= 0x10;
            assert!(verify(&bad, id).unwrap_err().is_corruption(), "flip at {i} not caught");
        }
    }

    #[test]
    fn page_read_from_the_wrong_address_is_rejected() {
        let mut page = vec![0u8; 4096];
        init_header(&mut page, PageId::new(1, 5), PageType::BTreeNode);
        seal(&mut page);
        assert_eq!(check(&page, PageId::new(1, 6)), Err(PageFault::WrongId { found: PageId::new(1, 5) }));
    }

    #[test]
    fn zero_page_is_reported_as_never_written() {
        assert_eq!(check(&[0u8; 4096], PageId::new(0, 0)), Err(PageFault::AllZero));
    }
}
