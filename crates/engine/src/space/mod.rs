//! Tablespaces: one file each (file-per-table) plus the system space.
//! This module owns page 0 (the space header) and the allocation bitmaps
//! (InnoDB's `fsp0fsp`); [`files`] owns the open files.
//!
//! ```text
//! page 0             space header
//! page 1             allocation bitmap for pages [0, B)
//! page 2 ...         whatever the space's owner allocates
//! page k*B + 1       allocation bitmap for pages [k*B, (k+1)*B)
//! ```
//! `B` = bits per bitmap page. Bitmap pages are placed when the file first
//! grows into their range; they and page 0 are marked used.
//!
//! Space header body (after the common page header):
//! ```text
//!  32  8 magic "QUIRESPC"
//!  40  4 space format version (1)
//!  44  4 space id
//!  48  4 page size in bytes
//!  52  4 size in pages (the file spans at least this many)
//!  56  4 free hint: no page below it is free
//!  60  4 pages in use
//!  64 .. 128 owner-specific (the system space keeps its catalog state here)
//! ```
//!
//! Latch order: B+tree pages, then page 0, then bitmap pages. Allocation and
//! freeing both take page 0 then the bitmap page.
//! Growth: by one extent (1 MiB, at least 64 pages) while small, by up to
//! 1/8 of the size (in whole extents, at most 64) later.

pub mod files;
pub mod write_io;

use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::page::{self, get_u32, put_u32, PageType, FIL_HEADER_SIZE};
use crate::{Error, PageId, PageNo, Result, SpaceId};

pub const SPACE_MAGIC: &[u8; 8] = b"QUIRESPC";
pub const SPACE_FORMAT_VERSION: u32 = 1;

const HDR_MAGIC: usize = 32;
const HDR_VERSION: usize = 40;
const HDR_SPACE_ID: usize = 44;
const HDR_PAGE_SIZE: usize = 48;
const HDR_SIZE_PAGES: usize = 52;
const HDR_FREE_HINT: usize = 56;
const HDR_USED_PAGES: usize = 60;
/// Start of the owner-specific area of page 0.
pub const HDR_OWNER_AREA: usize = 64;
pub const HDR_OWNER_AREA_END: usize = 128;

/// Bitmap page body: a used-count then the bits.
const BM_USED: usize = FIL_HEADER_SIZE;
const BM_BITS: usize = 64;

/// Pages a new space file starts with.
pub const INITIAL_PAGES: u32 = 8;

/// Pages covered by one bitmap page.
pub fn pages_per_bitmap(page_size: usize) -> u32 {
    ((page_size - BM_BITS) * 8) as u32
}

pub fn extent_pages(page_size: usize) -> u32 {
    ((1 << 20) / page_size).max(64) as u32
}

fn is_bitmap_page(page_no: PageNo, per: u32) -> bool {
    page_no % per == 1
}

/// How far a space of `size` pages grows when full.
fn grow_to(size: u32, page_size: usize) -> u32 {
    let ext = extent_pages(page_size);
    if size < ext {
        return ext;
    }
    let step = (size / 8 / ext).clamp(1, 64) * ext;
    (size / ext) * ext + step
}

/// Creates the first pages of a new space whose file is already registered
/// in the pool's file registry. Page 0 and page 1 are written into the pool
/// (dirty); the owner allocates from page 2 on.
pub fn init_space(pool: &BufferPool, space: SpaceId) -> Result<()> {
    let ps = pool.page_size();
    let file = pool.files().get(space)?;
    file.extend_to(INITIAL_PAGES)?;
    let mut mtr = Mtr::new(pool);
    let mut hdr = mtr.create_page(PageId::new(space, 0))?;
    let mut bm = mtr.create_page(PageId::new(space, 1))?;
    mtr.format(&mut hdr, PageType::SpaceHeader, |h| {
        h[HDR_MAGIC..HDR_MAGIC + 8].copy_from_slice(SPACE_MAGIC);
        put_u32(h, HDR_VERSION, SPACE_FORMAT_VERSION);
        put_u32(h, HDR_SPACE_ID, space);
        put_u32(h, HDR_PAGE_SIZE, ps as u32);
        put_u32(h, HDR_SIZE_PAGES, INITIAL_PAGES);
        put_u32(h, HDR_FREE_HINT, 2);
        put_u32(h, HDR_USED_PAGES, 2);
    });
    mtr.format(&mut bm, PageType::AllocBitmap, |b| {
        set_bit(b, 0, true);
        set_bit(b, 1, true);
        put_u32(b, BM_USED, 2);
    });
    mtr.keep(hdr);
    mtr.keep(bm);
    mtr.commit();
    Ok(())
}

/// Checks page 0 of a space just opened.
pub fn check_header(pool: &BufferPool, space: SpaceId) -> Result<()> {
    let g = pool.fix_shared(PageId::new(space, 0))?;
    let h = g.data();
    let bad = |reason: String| Err(Error::corruption(PageId::new(space, 0), reason));
    if page::page_type(h) != Some(PageType::SpaceHeader) || &h[HDR_MAGIC..HDR_MAGIC + 8] != SPACE_MAGIC {
        return bad("not a quire space header".into());
    }
    if get_u32(h, HDR_VERSION) != SPACE_FORMAT_VERSION {
        return bad(format!("unknown space format version {}", get_u32(h, HDR_VERSION)));
    }
    if get_u32(h, HDR_SPACE_ID) != space {
        return bad(format!("header names space {}", get_u32(h, HDR_SPACE_ID)));
    }
    if get_u32(h, HDR_PAGE_SIZE) as usize != pool.page_size() {
        return bad(format!(
            "space has page size {} but the server runs with innodb_page_size={}",
            get_u32(h, HDR_PAGE_SIZE),
            pool.page_size()
        ));
    }
    Ok(())
}

fn set_bit(bm: &mut [u8], bit: u32, used: bool) {
    let byte = BM_BITS + (bit / 8) as usize;
    let mask = 1u8 << (bit % 8);
    if used {
        bm[byte] |= mask;
    } else {
        bm[byte] &= !mask;
    }
}

/// Sets or clears a bit of a bitmap page held by `mtr`, logged.
fn set_bit_logged(mtr: &mut Mtr<'_>, handle: usize, bit: u32, used: bool) {
    let byte = BM_BITS + (bit / 8) as usize;
    let mut v = [mtr.page(handle).data()[byte]];
    let mask = 1u8 << (bit % 8);
    if used {
        v[0] |= mask;
    } else {
        v[0] &= !mask;
    }
    mtr.write_held(handle, byte, &v);
}

fn get_bit(bm: &[u8], bit: u32) -> bool {
    bm[BM_BITS + (bit / 8) as usize] & (1 << (bit % 8)) != 0
}

/// Finds the first clear bit in `[from, to)` of a bitmap page.
fn find_clear(bm: &[u8], from: u32, to: u32) -> Option<u32> {
    let mut bit = from;
    while bit < to {
        if bit.is_multiple_of(64) && bit + 64 <= to {
            let off = BM_BITS + (bit / 8) as usize;
            let word = u64::from_le_bytes(bm[off..off + 8].try_into().expect("8"));
            if word == u64::MAX {
                bit += 64;
                continue;
            }
            return Some(bit + (!word).trailing_zeros());
        }
        if !get_bit(bm, bit) {
            return Some(bit);
        }
        bit += 1;
    }
    None
}

/// Allocates a page in `space`. The header and bitmap pages stay latched
/// in `mtr`; the caller creates the page itself (`Mtr::x_create` or
/// `BufferPool::create_page`).
pub fn alloc_page<'a>(pool: &'a BufferPool, space: SpaceId, mtr: &mut Mtr<'a>) -> Result<PageNo> {
    let ps = pool.page_size();
    let per = pages_per_bitmap(ps);
    let hdr = mtr.x_latch(PageId::new(space, 0))?;
    let mut size = get_u32(mtr.page(hdr).data(), HDR_SIZE_PAGES);
    let mut hint = get_u32(mtr.page(hdr).data(), HDR_FREE_HINT);
    loop {
        // Search the bitmaps from the hint to the current size.
        let mut range = hint / per;
        while range * per < size {
            let bm_id = PageId::new(space, range * per + 1);
            let lo = hint.max(range * per);
            let hi = size.min((range + 1) * per);
            let bm = mtr.x_latch(bm_id)?;
            if page::page_type(mtr.page(bm).data()) != Some(PageType::AllocBitmap) {
                return Err(Error::corruption(bm_id, "expected an allocation bitmap page"));
            }
            if let Some(bit) = find_clear(mtr.page(bm).data(), lo - range * per, hi - range * per) {
                let page_no = range * per + bit;
                set_bit_logged(mtr, bm, bit, true);
                let used = get_u32(mtr.page(bm).data(), BM_USED) + 1;
                mtr.write_held(bm, BM_USED, &used.to_le_bytes());
                mtr.write_held(hdr, HDR_FREE_HINT, &(page_no + 1).to_le_bytes());
                let used = get_u32(mtr.page(hdr).data(), HDR_USED_PAGES) + 1;
                mtr.write_held(hdr, HDR_USED_PAGES, &used.to_le_bytes());
                return Ok(page_no);
            }
            range += 1;
            hint = range * per;
        }
        // Full: grow the file by extents, placing any new bitmap pages.
        let new_size = grow_to(size, ps);
        pool.files().get(space)?.extend_to(new_size)?;
        let mut r = size.div_ceil(per);
        while r * per + 1 < new_size {
            let bm_no = r * per + 1;
            if bm_no >= size {
                let bm_id = PageId::new(space, bm_no);
                let bm = mtr.x_create(bm_id)?;
                mtr.format_held(bm, PageType::AllocBitmap, |b| {
                    set_bit(b, 1, true);
                    put_u32(b, BM_USED, 1);
                });
                let used = get_u32(mtr.page(hdr).data(), HDR_USED_PAGES) + 1;
                mtr.write_held(hdr, HDR_USED_PAGES, &used.to_le_bytes());
            }
            r += 1;
        }
        hint = size;
        size = new_size;
        mtr.write_held(hdr, HDR_SIZE_PAGES, &size.to_le_bytes());
        mtr.write_held(hdr, HDR_FREE_HINT, &hint.to_le_bytes());
    }
}

/// Returns a page to the free pool of its space. The caller re-initialises
/// the page (type Free) under its exclusive latch in the same mtr.
pub fn free_page<'a>(pool: &'a BufferPool, id: PageId, mtr: &mut Mtr<'a>) -> Result<()> {
    let per = pages_per_bitmap(pool.page_size());
    if id.page_no < 2 || is_bitmap_page(id.page_no, per) {
        return Err(Error::corruption(id, "attempt to free a space management page"));
    }
    let hdr = mtr.x_latch(PageId::new(id.space, 0))?;
    let range = id.page_no / per;
    let bm = mtr.x_latch(PageId::new(id.space, range * per + 1))?;
    let bit = id.page_no - range * per;
    if !get_bit(mtr.page(bm).data(), bit) {
        return Err(Error::corruption(id, "page freed twice"));
    }
    set_bit_logged(mtr, bm, bit, false);
    let used = get_u32(mtr.page(bm).data(), BM_USED).saturating_sub(1);
    mtr.write_held(bm, BM_USED, &used.to_le_bytes());
    if id.page_no < get_u32(mtr.page(hdr).data(), HDR_FREE_HINT) {
        mtr.write_held(hdr, HDR_FREE_HINT, &id.page_no.to_le_bytes());
    }
    let used = get_u32(mtr.page(hdr).data(), HDR_USED_PAGES).saturating_sub(1);
    mtr.write_held(hdr, HDR_USED_PAGES, &used.to_le_bytes());
    Ok(())
}

/// Every page the space's bitmaps mark used, page 0 and the bitmap pages
/// included, in page order (CHECK TABLE reads them all). Fails if page 0
/// or a bitmap page cannot be read.
pub fn used_pages(pool: &BufferPool, space: SpaceId) -> Result<Vec<PageNo>> {
    let per = pages_per_bitmap(pool.page_size());
    let size = usage(pool, space)?.0;
    let mut out = Vec::new();
    let mut range = 0;
    while range * per < size {
        let bm_id = PageId::new(space, range * per + 1);
        let g = pool.fix_shared(bm_id)?;
        if page::page_type(g.data()) != Some(PageType::AllocBitmap) {
            return Err(Error::corruption(bm_id, "expected an allocation bitmap page"));
        }
        let hi = size.min((range + 1) * per) - range * per;
        out.extend((0..hi).filter(|&bit| get_bit(g.data(), bit)).map(|bit| range * per + bit));
        range += 1;
    }
    Ok(out)
}

/// (size in pages, pages in use) of a space.
pub fn usage(pool: &BufferPool, space: SpaceId) -> Result<(u32, u32)> {
    let g = pool.fix_shared(PageId::new(space, 0))?;
    Ok((get_u32(g.data(), HDR_SIZE_PAGES), get_u32(g.data(), HDR_USED_PAGES)))
}

/// Reads a u32 from the owner area of page 0.
pub fn owner_u32(pool: &BufferPool, space: SpaceId, off: usize) -> Result<u32> {
    debug_assert!((HDR_OWNER_AREA..HDR_OWNER_AREA_END).contains(&off));
    let g = pool.fix_shared(PageId::new(space, 0))?;
    Ok(get_u32(g.data(), off))
}

/// Writes owner-area fields of page 0 in one mtr: (offset, bytes) pairs.
pub fn set_owner_fields(pool: &BufferPool, space: SpaceId, fields: &[(usize, &[u8])]) -> Result<()> {
    let mut mtr = Mtr::new(pool);
    let mut g = pool.fix_exclusive(PageId::new(space, 0))?;
    for &(off, bytes) in fields {
        debug_assert!(off >= HDR_OWNER_AREA && off + bytes.len() <= HDR_OWNER_AREA_END);
        mtr.write(&mut g, off, bytes);
    }
    mtr.keep(g);
    mtr.commit();
    Ok(())
}
