//! Identifiers used everywhere: spaces, pages, log sequence numbers.

use std::fmt;

/// A tablespace: one file. Space 0 is the system space.
pub type SpaceId = u32;

/// The system space's id.
pub const SYSTEM_SPACE: SpaceId = 0;

/// A page number within a space.
pub type PageNo = u32;

/// Log sequence number: a position in the redo stream. Every page carries
/// the LSN of its newest change. 0 means "never modified".
pub type Lsn = u64;

/// A page's address: (space, page number).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PageId {
    pub space: SpaceId,
    pub page_no: PageNo,
}

impl PageId {
    pub const fn new(space: SpaceId, page_no: PageNo) -> Self {
        Self { space, page_no }
    }

    /// Packs into one word (space in the high half).
    pub const fn to_u64(self) -> u64 {
        ((self.space as u64) << 32) | self.page_no as u64
    }

    pub const fn from_u64(v: u64) -> Self {
        Self { space: (v >> 32) as u32, page_no: v as u32 }
    }
}

impl fmt::Display for PageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[space {} page {}]", self.space, self.page_no)
    }
}

impl fmt::Debug for PageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.space, self.page_no)
    }
}
