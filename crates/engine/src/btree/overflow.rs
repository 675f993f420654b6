//! Values too large for a leaf live in a chain of overflow pages; the leaf
//! keeps an 8-byte stub (total length, first page).
//!
//! Overflow page body:
//! ```text
//! 32 u32 next page (0 = last)
//! 36 u32 bytes of data in this page
//! 40     data
//! ```
//! A chain belongs to exactly one leaf record; it is read under that leaf's
//! shared latch, so it cannot be freed meanwhile.

use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::page::{self, get_u32, PageType, FIL_HEADER_SIZE};
use crate::space;
use crate::{Error, PageId, Result, SpaceId};

const NEXT: usize = FIL_HEADER_SIZE;
const LEN: usize = FIL_HEADER_SIZE + 4;
const DATA: usize = FIL_HEADER_SIZE + 8;

pub fn capacity(page_size: usize) -> usize {
    page_size - DATA
}

/// Writes `data` to a new chain; returns the stub for the leaf.
///
/// Each page is its own mini-transaction (so neither the latches held nor
/// the redo group grow with the value), written from the last chunk to the
/// first so that every page is complete, next pointer included, when
/// written. A failure part-way frees what was written.
pub fn write_chain(pool: &BufferPool, space_id: SpaceId, data: &[u8]) -> Result<[u8; 8]> {
    let cap = capacity(pool.page_size());
    let mut next = 0u32;
    for chunk in data.chunks(cap).rev() {
        let written = (|| {
            let mut mtr = Mtr::new(pool);
            let page_no = space::alloc_page(pool, space_id, &mut mtr)?;
            let mut g = mtr.create_page(PageId::new(space_id, page_no))?;
            mtr.init_header(&mut g, PageType::Overflow);
            let mut hdr = [0u8; 8];
            hdr[..4].copy_from_slice(&next.to_le_bytes());
            hdr[4..].copy_from_slice(&(chunk.len() as u32).to_le_bytes());
            mtr.write(&mut g, NEXT, &hdr);
            mtr.write(&mut g, DATA, chunk);
            mtr.keep(g);
            mtr.commit();
            Ok(page_no)
        })();
        match written {
            Ok(p) => next = p,
            Err(e) => {
                let _ = free_chain(pool, space_id, &stub(0, next));
                return Err(e);
            }
        }
    }
    Ok(stub(data.len(), next))
}

fn stub(len: usize, first: u32) -> [u8; 8] {
    let mut stub = [0u8; 8];
    stub[..4].copy_from_slice(&(len as u32).to_le_bytes());
    stub[4..].copy_from_slice(&first.to_le_bytes());
    stub
}

fn parse_stub(stub: &[u8]) -> (usize, u32) {
    (get_u32(stub, 0) as usize, get_u32(stub, 4))
}

/// Appends the value a stub points to onto `out`.
/// REQUIRES: the caller holds the owning leaf latched (shared or exclusive).
pub fn read_chain(pool: &BufferPool, space_id: SpaceId, stub: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let (total, mut next) = parse_stub(stub);
    let start = out.len();
    // A corrupt chain could loop: a valid one has at most this many pages.
    let mut budget = total / capacity(pool.page_size()) + 1;
    while out.len() - start < total {
        let id = PageId::new(space_id, next);
        if next < 2 || budget == 0 {
            return Err(Error::corruption(id, "overflow chain ends early or loops"));
        }
        budget -= 1;
        let g = pool.fix_shared(id)?;
        let p = g.data();
        let len = get_u32(p, LEN) as usize;
        if page::page_type(p) != Some(PageType::Overflow) || len > capacity(p.len()) || out.len() - start + len > total
        {
            return Err(Error::corruption(id, "bad overflow page"));
        }
        out.extend_from_slice(&p[DATA..DATA + len]);
        next = get_u32(p, NEXT);
    }
    Ok(())
}

/// Frees the chain a stub points to. REQUIRES: the stub was removed from its
/// leaf (and that change committed), so no reader can reach the chain.
pub fn free_chain(pool: &BufferPool, space_id: SpaceId, stub: &[u8]) -> Result<()> {
    let (_, mut next) = parse_stub(stub);
    while next != 0 {
        let id = PageId::new(space_id, next);
        let mut mtr = Mtr::new(pool);
        let mut g = pool.fix_exclusive(id)?;
        if page::page_type(g.data()) != Some(PageType::Overflow) {
            return Err(Error::corruption(id, "expected an overflow page"));
        }
        let after = get_u32(g.data(), NEXT);
        space::free_page(pool, id, &mut mtr)?;
        mtr.page_free(&mut g);
        mtr.keep(g);
        mtr.commit();
        next = after;
    }
    Ok(())
}
