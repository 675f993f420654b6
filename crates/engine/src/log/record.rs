//! Redo records: physiological, one page each ("apply this operation to
//! page P"), replayed by calling the very functions that made the change.
//! Every operation here is a deterministic function of the page's bytes and
//! the record's arguments, so replaying the records that follow a page's
//! LSN onto its on-disk image rebuilds the page exactly.
//!
//! ```text
//! u8 type | u32 space | u32 page | body
//!  0 END            (padding; ends the group)
//!  1 PAGE_ZERO      -                      the page becomes all zeros (it is being created)
//!  2 WRITE          u16 offset, u16 len, bytes
//!  3 NODE_INIT      u16 level, u32 index id   (B+tree node::init)
//!  4 NODE_INSERT    u16 pos, u8 external, u16 key len, key, u16 value len, value
//!  5 NODE_REMOVE    u16 pos
//!  6 NODE_REPLACE   u16 pos, u8 external, u16 value len, value
//!  7 NODE_LEFTMOST  u32 child
//!  8 NODE_TRUNCATE  u16 from              (node::truncate: drop [from, n), compact)
//!  9 NODE_PREFIX    -                      (node::recompute_prefix)
//! 10 PAGE_BODY      u32 len, bytes         the page body from 32, verbatim; the rest zeros
//! 11 PAGE_HEADER    u16 page type          (page::init_header)
//! ```

use crate::btree::node;
use crate::page::{self, PageType, FIL_HEADER_SIZE};
use crate::PageId;

pub const END: u8 = 0;
pub const PAGE_ZERO: u8 = 1;
pub const WRITE: u8 = 2;
pub const NODE_INIT: u8 = 3;
pub const NODE_INSERT: u8 = 4;
pub const NODE_REMOVE: u8 = 5;
pub const NODE_REPLACE: u8 = 6;
pub const NODE_LEFTMOST: u8 = 7;
pub const NODE_TRUNCATE: u8 = 8;
pub const NODE_PREFIX: u8 = 9;
pub const PAGE_BODY: u8 = 10;
pub const PAGE_HEADER: u8 = 11;

fn head(out: &mut Vec<u8>, ty: u8, id: PageId) {
    out.push(ty);
    out.extend_from_slice(&id.space.to_le_bytes());
    out.extend_from_slice(&id.page_no.to_le_bytes());
}

fn u16v(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u16).to_le_bytes());
}

pub fn page_zero(out: &mut Vec<u8>, id: PageId) {
    head(out, PAGE_ZERO, id);
}

pub fn write(out: &mut Vec<u8>, id: PageId, offset: usize, bytes: &[u8]) {
    head(out, WRITE, id);
    u16v(out, offset);
    u16v(out, bytes.len());
    out.extend_from_slice(bytes);
}

pub fn node_init(out: &mut Vec<u8>, id: PageId, level: u16, index_id: u32) {
    head(out, NODE_INIT, id);
    u16v(out, level as usize);
    out.extend_from_slice(&index_id.to_le_bytes());
}

pub fn node_insert(out: &mut Vec<u8>, id: PageId, pos: usize, key: &[u8], val: &[u8], ext: bool) {
    head(out, NODE_INSERT, id);
    u16v(out, pos);
    out.push(ext as u8);
    u16v(out, key.len());
    out.extend_from_slice(key);
    u16v(out, val.len());
    out.extend_from_slice(val);
}

pub fn node_remove(out: &mut Vec<u8>, id: PageId, pos: usize) {
    head(out, NODE_REMOVE, id);
    u16v(out, pos);
}

pub fn node_replace(out: &mut Vec<u8>, id: PageId, pos: usize, val: &[u8], ext: bool) {
    head(out, NODE_REPLACE, id);
    u16v(out, pos);
    out.push(ext as u8);
    u16v(out, val.len());
    out.extend_from_slice(val);
}

pub fn node_leftmost(out: &mut Vec<u8>, id: PageId, child: u32) {
    head(out, NODE_LEFTMOST, id);
    out.extend_from_slice(&child.to_le_bytes());
}

pub fn node_truncate(out: &mut Vec<u8>, id: PageId, from: usize) {
    head(out, NODE_TRUNCATE, id);
    u16v(out, from);
}

pub fn node_prefix(out: &mut Vec<u8>, id: PageId) {
    head(out, NODE_PREFIX, id);
}

pub fn page_body(out: &mut Vec<u8>, id: PageId, body: &[u8]) {
    head(out, PAGE_BODY, id);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

pub fn page_header(out: &mut Vec<u8>, id: PageId, ty: PageType) {
    head(out, PAGE_HEADER, id);
    u16v(out, ty as usize);
}

/// One decoded record, borrowing from the group.
#[derive(Debug)]
pub struct Record<'a> {
    pub ty: u8,
    pub page: PageId,
    pub body: &'a [u8],
}

/// A reader over the records of one group's payload.
pub struct Records<'a> {
    b: &'a [u8],
    pos: usize,
}

/// Why a group's records cannot be read: the group is damaged (its
/// checksum matched, so this is a bug or corruption, not a torn write).
#[derive(Debug)]
pub struct Malformed;

impl<'a> Records<'a> {
    pub fn new(payload: &'a [u8]) -> Self {
        Self { b: payload, pos: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let s = self.b.get(self.pos..self.pos + n).ok_or(Malformed)?;
        self.pos += n;
        Ok(s)
    }

    fn u16(&mut self) -> Result<usize, Malformed> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().map_err(|_| Malformed)?) as usize)
    }

    /// The next record, or `None` at the end of the group.
    pub fn next_record(&mut self) -> Result<Option<Record<'a>>, Malformed> {
        let Some(&ty) = self.b.get(self.pos) else { return Ok(None) };
        if ty == END {
            return Ok(None);
        }
        self.pos += 1;
        let space = u32::from_le_bytes(self.take(4)?.try_into().map_err(|_| Malformed)?);
        let page_no = u32::from_le_bytes(self.take(4)?.try_into().map_err(|_| Malformed)?);
        let start = self.pos;
        match ty {
            PAGE_ZERO | NODE_PREFIX => {}
            WRITE => {
                self.u16()?;
                let n = self.u16()?;
                self.take(n)?;
            }
            NODE_INIT => {
                self.take(6)?;
            }
            NODE_INSERT => {
                self.take(3)?;
                let k = self.u16()?;
                self.take(k)?;
                let v = self.u16()?;
                self.take(v)?;
            }
            NODE_REMOVE | NODE_TRUNCATE | PAGE_HEADER => {
                self.take(2)?;
            }
            NODE_REPLACE => {
                self.take(3)?;
                let v = self.u16()?;
                self.take(v)?;
            }
            NODE_LEFTMOST => {
                self.take(4)?;
            }
            PAGE_BODY => {
                let n = u32::from_le_bytes(self.take(4)?.try_into().map_err(|_| Malformed)?) as usize;
                self.take(n)?;
            }
            _ => return Err(Malformed),
        }
        Ok(Some(Record { ty, page: PageId::new(space, page_no), body: &self.b[start..self.pos] }))
    }
}

/// Applies a record to its page. `Err` if the record does not fit the
/// page (corruption).
pub fn apply(rec: &Record<'_>, p: &mut [u8]) -> Result<(), Malformed> {
    let b = rec.body;
    let u16_at = |o: usize| -> Result<usize, Malformed> {
        Ok(u16::from_le_bytes(b.get(o..o + 2).ok_or(Malformed)?.try_into().map_err(|_| Malformed)?) as usize)
    };
    let bytes = |o: usize, n: usize| b.get(o..o + n).ok_or(Malformed);
    match rec.ty {
        PAGE_ZERO => p.fill(0),
        WRITE => {
            let (off, n) = (u16_at(0)?, u16_at(2)?);
            p.get_mut(off..off + n).ok_or(Malformed)?.copy_from_slice(bytes(4, n)?);
        }
        NODE_INIT => {
            let level = u16_at(0)? as u16;
            let index_id = u32::from_le_bytes(bytes(2, 4)?.try_into().map_err(|_| Malformed)?);
            node::init(p, rec.page, level, index_id);
        }
        NODE_INSERT => {
            let pos = u16_at(0)?;
            let ext = bytes(2, 1)?[0] != 0;
            let kl = u16_at(3)?;
            let key = bytes(5, kl)?;
            let vl = u16_at(5 + kl)?;
            let val = bytes(7 + kl, vl)?;
            if pos > node::count(&*p) || !node::has_room(&*p, node::entry_size(kl, vl)) {
                return Err(Malformed);
            }
            node::insert_at(p, pos, key, val, ext);
        }
        NODE_REMOVE => {
            let pos = u16_at(0)?;
            if pos >= node::count(&*p) {
                return Err(Malformed);
            }
            node::remove_at(p, pos);
        }
        NODE_REPLACE => {
            let pos = u16_at(0)?;
            let ext = bytes(2, 1)?[0] != 0;
            let vl = u16_at(3)?;
            if pos >= node::count(&*p) || !node::replace_fits(p, pos, vl) {
                return Err(Malformed);
            }
            node::replace_value(p, pos, bytes(5, vl)?, ext);
        }
        NODE_LEFTMOST => {
            node::set_leftmost(p, u32::from_le_bytes(bytes(0, 4)?.try_into().map_err(|_| Malformed)?));
        }
        NODE_TRUNCATE => {
            let from = u16_at(0)?;
            if from > node::count(&*p) {
                return Err(Malformed);
            }
            node::truncate(p, from);
        }
        NODE_PREFIX => node::recompute_prefix(p),
        PAGE_BODY => {
            let n = u32::from_le_bytes(bytes(0, 4)?.try_into().map_err(|_| Malformed)?) as usize;
            if n > p.len() - FIL_HEADER_SIZE {
                return Err(Malformed);
            }
            p[FIL_HEADER_SIZE..FIL_HEADER_SIZE + n].copy_from_slice(bytes(4, n)?);
            p[FIL_HEADER_SIZE + n..].fill(0);
        }
        PAGE_HEADER => {
            let ty = PageType::from_u16(u16_at(0)? as u16).ok_or(Malformed)?;
            page::init_header(p, rec.page, ty);
        }
        _ => return Err(Malformed),
    }
    Ok(())
}
