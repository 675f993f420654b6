//! B+tree node pages: a slotted page with a sorted slot array growing up
//! and a record heap growing down (docs/FORMAT.md, "B+tree node").
//!
//! ```text
//!  0 .. 32   common page header (type BTreeNode)
//! 32   u16   level             0 = leaf
//! 34   u16   count             number of slots
//! 36   u16   heap_used         bytes of the heap, which is [page_size - heap_used, page_size)
//! 38   u16   garbage           heap bytes of dead records (reclaimed by compaction)
//! 40   u32   leftmost child    inner nodes: child for keys below the first separator
//! 44   u32   index id          the index this node belongs to
//! 48   u16   prefix length     every key of the node starts with the same this-many bytes
//! 50   [12]  the first min(prefix length, 12) bytes of that prefix
//! 62   u16   reserved
//! 64         slots: count x 8 bytes, in key order
//!              u16 record offset | u16 key length | u32 key head: the 4 key bytes after
//!              the common prefix, read big-endian and 0-padded, so heads order like
//!              keys (stored little-endian)
//!            ... free space ...
//!            heap: records, each  u16 value length | key bytes | value bytes
//!              value length bit 15 set = value stored in overflow pages; the
//!              inline value is then the 8-byte stub  u32 total length | u32 first page
//! ```
//!
//! Inner nodes: entry i is (separator key_i, child_i); child_i holds keys in
//! [key_i, key_{i+1}); the leftmost child holds keys below key_0.
//!
//! Invariants (checked by [`check`]):
//! 1. Keys are strictly increasing by slot.
//! 2. Every record lies inside the heap; slots and heap do not overlap.
//! 3. An entry (record + slot) is at most a quarter of the usable space, so
//!    a split always leaves room for the entry that caused it.
//! 4. Every key is at least `prefix length` bytes long and all keys agree on
//!    those bytes; each slot's head is taken after them. Binary search then
//!    compares heads in the slot array and touches a record only on a tie.
//!
//! Reading functions are generic over [`PageView`] so the same code serves
//! optimistic readers (who get `Err(Inconsistent)` instead of a panic when
//! they read a page mid-change) and latched ones (for whom the same error
//! means corruption). Writing functions take `&mut [u8]` of a latched page;
//! they are deterministic functions of the page and their arguments, so each
//! can be replayed as a redo record.

use std::cmp::Ordering;

use crate::page::{self, get_u16, put_u16, put_u32, PageType, FIL_HEADER_SIZE};
use crate::sync::PageView;
use crate::PageId;

pub const LEVEL: usize = FIL_HEADER_SIZE;
pub const COUNT: usize = 34;
pub const HEAP_USED: usize = 36;
pub const GARBAGE: usize = 38;
pub const LEFTMOST: usize = 40;
pub const INDEX_ID: usize = 44;
pub const PREFIX_LEN: usize = 48;
pub const PREFIX_BYTES: usize = 50;
/// Prefix bytes kept in the header: checking a search key against them
/// touches no other cache line.
pub const INLINE_PREFIX: usize = 12;
pub const SLOTS: usize = 64;
pub const SLOT_SIZE: usize = 8;
/// Record header: the value length.
pub const REC_HDR: usize = 2;
pub const EXTERNAL_FLAG: u16 = 0x8000;
/// Inline stub of an external value: total length, first overflow page.
pub const EXTERNAL_STUB: usize = 8;

/// The page read was inconsistent: mid-change (optimistic) or corrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inconsistent(pub &'static str);

pub type NResult<T> = Result<T, Inconsistent>;

pub fn usable(page_size: usize) -> usize {
    page_size - SLOTS
}

/// The largest key an index may hold with this page size.
pub fn max_key_len(page_size: usize) -> usize {
    (usable(page_size) / 4 - SLOT_SIZE - REC_HDR - EXTERNAL_STUB - 8).min(3500)
}

/// The largest inline leaf entry (record + slot); larger values go to
/// overflow pages.
pub fn max_entry(page_size: usize) -> usize {
    usable(page_size) / 4
}

#[inline]
pub fn entry_size(key_len: usize, val_len: usize) -> usize {
    SLOT_SIZE + REC_HDR + key_len + val_len
}

#[inline]
pub fn key_head(key: &[u8]) -> u32 {
    let mut b = [0u8; 4];
    let n = key.len().min(4);
    b[..n].copy_from_slice(&key[..n]);
    u32::from_be_bytes(b)
}

// ---- reading --------------------------------------------------------------

#[inline]
pub fn level<V: PageView>(v: V) -> u16 {
    v.u16_at(LEVEL)
}
#[inline]
pub fn count<V: PageView>(v: V) -> usize {
    v.u16_at(COUNT) as usize
}
#[inline]
pub fn is_leaf<V: PageView>(v: V) -> bool {
    level(v) == 0
}
#[inline]
pub fn leftmost<V: PageView>(v: V) -> u32 {
    v.u32_at(LEFTMOST)
}
pub fn index_id<V: PageView>(v: V) -> u32 {
    v.u32_at(INDEX_ID)
}
fn heap_used<V: PageView>(v: V) -> usize {
    v.u16_at(HEAP_USED) as usize
}
fn garbage<V: PageView>(v: V) -> usize {
    v.u16_at(GARBAGE) as usize
}
#[inline]
pub fn prefix_len<V: PageView>(v: V) -> usize {
    v.u16_at(PREFIX_LEN) as usize
}

/// The head of `key` in a node whose keys share `p` bytes.
#[inline]
fn head_after(key: &[u8], p: usize) -> u32 {
    key_head(key.get(p..).unwrap_or(&[]))
}

/// Bytes in use by live entries (slots + live records).
pub fn used_bytes<V: PageView>(v: V) -> usize {
    count(v) * SLOT_SIZE + heap_used(v).saturating_sub(garbage(v))
}

/// Contiguous free bytes between slots and heap.
pub fn contiguous_free<V: PageView>(v: V) -> usize {
    usable(v.len()).saturating_sub(count(v) * SLOT_SIZE + heap_used(v))
}

/// Bytes that entries may still take (from [`entry_size`]), possibly
/// after compaction.
pub fn room<V: PageView>(v: V) -> usize {
    contiguous_free(v) + garbage(v)
}

/// Whether an entry of `size` bytes (from [`entry_size`]) fits, possibly
/// after compaction.
pub fn has_room<V: PageView>(v: V, size: usize) -> bool {
    room(v) >= size
}

/// A slot: (record offset, key length, key head).
#[inline]
pub fn slot<V: PageView>(v: V, i: usize) -> (usize, usize, u32) {
    let w = v.u64_at(SLOTS + i * SLOT_SIZE);
    (w as u16 as usize, (w >> 16) as u16 as usize, (w >> 32) as u32)
}

/// Where a record's key and value lie: (key offset, key len, value offset,
/// value len, external).
#[inline]
pub fn record<V: PageView>(v: V, i: usize) -> NResult<(usize, usize, usize, usize, bool)> {
    let (off, klen, _) = slot(v, i);
    let raw = v.u16_at(off);
    let vlen = (raw & !EXTERNAL_FLAG) as usize;
    let ext = raw & EXTERNAL_FLAG != 0;
    let kofs = off + REC_HDR;
    if off < SLOTS || !v.in_bounds(kofs, klen + vlen) || (ext && vlen != EXTERNAL_STUB) {
        return Err(Inconsistent("record outside the page"));
    }
    Ok((kofs, klen, kofs + klen, vlen, ext))
}

/// Compares slot `i`'s key with `key`, both known to start with the node's
/// `p`-byte prefix; `head` is `key`'s head after it.
#[inline]
fn cmp_slot<V: PageView>(v: V, i: usize, key: &[u8], head: u32, p: usize) -> NResult<Ordering> {
    let (off, klen, h) = slot(v, i);
    if h != head {
        return Ok(h.cmp(&head));
    }
    if klen <= p + 4 && key.len() <= p + 4 {
        return Ok(klen.cmp(&key.len()));
    }
    let kofs = off + REC_HDR;
    if klen < p || !v.in_bounds(kofs, klen) {
        return Err(Inconsistent("key outside the page"));
    }
    Ok(v.cmp_bytes(kofs + p, klen - p, &key[p..]))
}

/// Binary search: the first slot whose key is >= `key`, and whether it is
/// equal.
pub fn lower_bound<V: PageView>(v: V, key: &[u8]) -> NResult<(usize, bool)> {
    let n = count(v);
    if SLOTS + n * SLOT_SIZE > v.len() {
        return Err(Inconsistent("slot array overflows the page"));
    }
    if n == 0 {
        return Ok((0, false));
    }
    let p = prefix_len(v);
    if p > 0 {
        // Keys not sharing the node's prefix sort before or after all of it.
        let m = key.len().min(p);
        let inline = m.min(INLINE_PREFIX);
        let mut ord = v.cmp_bytes(PREFIX_BYTES, inline, &key[..inline]);
        if ord == Ordering::Equal && m > INLINE_PREFIX {
            let (off, klen, _) = slot(v, 0);
            if klen < p {
                return Err(Inconsistent("key shorter than the node prefix"));
            }
            ord = v.cmp_bytes(off + REC_HDR + INLINE_PREFIX, m - INLINE_PREFIX, &key[INLINE_PREFIX..m]);
        }
        match ord {
            Ordering::Greater => return Ok((0, false)),
            Ordering::Less => return Ok((n, false)),
            Ordering::Equal if key.len() < p => return Ok((0, false)),
            Ordering::Equal => {}
        }
    }
    let head = head_after(key, p);
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match cmp_slot(v, mid, key, head, p)? {
            Ordering::Less => lo = mid + 1,
            Ordering::Equal => return Ok((mid, true)),
            Ordering::Greater => hi = mid,
        }
    }
    Ok((lo, false))
}

/// Inner node: which child covers `key`. Returns (child page, entry index
/// or -1 for the leftmost child).
pub fn child_for<V: PageView>(v: V, key: &[u8]) -> NResult<(u32, isize)> {
    let (pos, found) = lower_bound(v, key)?;
    // The last separator <= key.
    let idx = if found { pos as isize } else { pos as isize - 1 };
    Ok((child_at(v, idx)?, idx))
}

/// Inner node: the child covering keys strictly below `key` at the
/// boundary, i.e. the child holding the greatest key < `key`.
pub fn child_before<V: PageView>(v: V, key: &[u8]) -> NResult<(u32, isize)> {
    let (pos, _) = lower_bound(v, key)?;
    // The last separator < key.
    let idx = pos as isize - 1;
    Ok((child_at(v, idx)?, idx))
}

/// Inner node: child of entry `idx` (-1 = leftmost).
pub fn child_at<V: PageView>(v: V, idx: isize) -> NResult<u32> {
    let child = if idx < 0 {
        leftmost(v)
    } else {
        let (_, _, vofs, vlen, _) = record(v, idx as usize)?;
        if vlen != 4 {
            return Err(Inconsistent("inner entry without a child pointer"));
        }
        v.u32_at(vofs)
    };
    if child < 2 {
        return Err(Inconsistent("child pointer to a space management page"));
    }
    Ok(child)
}

/// Copies the key of slot `i` into `out` (cleared first).
pub fn copy_key<V: PageView>(v: V, i: usize, out: &mut Vec<u8>) -> NResult<()> {
    let (kofs, klen, _, _, _) = record(v, i)?;
    out.clear();
    out.resize(klen, 0);
    if !v.copy_out(kofs, out) {
        return Err(Inconsistent("key outside the page"));
    }
    Ok(())
}

/// Appends the value bytes of slot `i` to `out`; returns whether the value
/// is an external stub.
pub fn append_value<V: PageView>(v: V, i: usize, out: &mut Vec<u8>) -> NResult<bool> {
    let (_, _, vofs, vlen, ext) = record(v, i)?;
    if !v.append_to(vofs, vlen, out) {
        return Err(Inconsistent("value outside the page"));
    }
    Ok(ext)
}

/// Checks the invariants of a latched node; `Err` names the violation.
pub fn check(p: &[u8]) -> NResult<()> {
    if page::page_type(p) != Some(PageType::BTreeNode) {
        return Err(Inconsistent("not a B+tree node"));
    }
    let n = count(p);
    if SLOTS + n * SLOT_SIZE + heap_used(p) > p.len() {
        return Err(Inconsistent("slots and heap overlap"));
    }
    let heap_start = p.len() - heap_used(p);
    let mut prev: Option<&[u8]> = None;
    let mut live = 0;
    for i in 0..n {
        let (kofs, klen, _, vlen, _) = record(p, i)?;
        if kofs - REC_HDR < heap_start {
            return Err(Inconsistent("record below the heap"));
        }
        let key = &p[kofs..kofs + klen];
        let pl = prefix_len(p);
        if key.len() < pl || (i > 0 && key[..pl] != p[record(p, 0)?.0..record(p, 0)?.0 + pl]) {
            return Err(Inconsistent("a key does not share the node prefix"));
        }
        if i == 0 && key[..pl.min(INLINE_PREFIX)] != p[PREFIX_BYTES..PREFIX_BYTES + pl.min(INLINE_PREFIX)] {
            return Err(Inconsistent("stale inline prefix"));
        }
        if slot(p, i).2 != head_after(key, pl) {
            return Err(Inconsistent("stale key head"));
        }
        if let Some(pk) = prev {
            if pk >= key {
                return Err(Inconsistent("keys out of order"));
            }
        }
        prev = Some(key);
        live += REC_HDR + klen + vlen;
        if !is_leaf(p) {
            child_at(p, i as isize)?;
        }
    }
    if live + garbage(p) != heap_used(p) {
        return Err(Inconsistent("heap accounting is off"));
    }
    Ok(())
}

// ---- writing (exclusively latched pages) ------------------------------------

/// Formats an empty node.
pub fn init(p: &mut [u8], id: PageId, level: u16, index_id: u32) {
    page::init_header(p, id, PageType::BTreeNode);
    p[FIL_HEADER_SIZE..SLOTS].fill(0);
    put_u16(p, LEVEL, level);
    put_u32(p, INDEX_ID, index_id);
}

pub fn set_leftmost(p: &mut [u8], child: u32) {
    put_u32(p, LEFTMOST, child);
}

/// Rewrites the heap without garbage.
pub fn compact(p: &mut [u8]) {
    let ps = p.len();
    let n = count(&*p);
    let mut tmp = Vec::with_capacity(heap_used(&*p));
    let mut offs = Vec::with_capacity(n);
    for i in 0..n {
        let (off, klen, _) = slot(&*p, i);
        let vlen = (get_u16(p, off) & !EXTERNAL_FLAG) as usize;
        let len = REC_HDR + klen + vlen;
        offs.push(tmp.len());
        tmp.extend_from_slice(&p[off..off + len]);
    }
    let start = ps - tmp.len();
    p[start..].copy_from_slice(&tmp);
    for (i, o) in offs.into_iter().enumerate() {
        put_u16(p, SLOTS + i * SLOT_SIZE, (start + o) as u16);
    }
    put_u16(p, HEAP_USED, tmp.len() as u16);
    put_u16(p, GARBAGE, 0);
}

/// Inserts an entry at slot `pos`. REQUIRES: `has_room` for it; `pos` keeps
/// the keys ordered.
pub fn insert_at(p: &mut [u8], pos: usize, key: &[u8], val: &[u8], external: bool) {
    let size = entry_size(key.len(), val.len());
    debug_assert!(has_room(&*p, size));
    if contiguous_free(&*p) < size {
        compact(p);
    }
    let ps = p.len();
    let n = count(&*p);
    let rec_len = REC_HDR + key.len() + val.len();
    let off = ps - heap_used(&*p) - rec_len;
    let raw = val.len() as u16 | if external { EXTERNAL_FLAG } else { 0 };
    put_u16(p, off, raw);
    p[off + REC_HDR..off + REC_HDR + key.len()].copy_from_slice(key);
    p[off + REC_HDR + key.len()..off + rec_len].copy_from_slice(val);
    // A key at either end may share less of the prefix (invariant 4).
    let mut pl = prefix_len(&*p);
    let mut shrink = false;
    if pl > 0 && n == 0 {
        pl = 0;
        shrink = true;
    } else if pl > 0 && (pos == 0 || pos == n) {
        let (k0, _, _, _, _) = record(&*p, 0).expect("latched node is consistent");
        let common = key.iter().zip(&p[k0..k0 + pl]).take_while(|(a, b)| a == b).count();
        if common < pl {
            pl = common;
            shrink = true;
        }
    }
    let s = SLOTS + pos * SLOT_SIZE;
    p.copy_within(s..SLOTS + n * SLOT_SIZE, s + SLOT_SIZE);
    put_u16(p, s, off as u16);
    put_u16(p, s + 2, key.len() as u16);
    put_u32(p, s + 4, head_after(key, pl));
    put_u16(p, COUNT, (n + 1) as u16);
    let hu = heap_used(&*p) + rec_len;
    put_u16(p, HEAP_USED, hu as u16);
    if shrink {
        set_prefix(p, pl);
    }
}

/// Sets the common prefix length and recomputes every head.
fn set_prefix(p: &mut [u8], pl: usize) {
    put_u16(p, PREFIX_LEN, pl as u16);
    p[PREFIX_BYTES..PREFIX_BYTES + INLINE_PREFIX].fill(0);
    if pl > 0 {
        let (k0, _, _, _, _) = record(&*p, 0).expect("latched node is consistent");
        let inline = pl.min(INLINE_PREFIX);
        p.copy_within(k0..k0 + inline, PREFIX_BYTES);
    }
    for i in 0..count(&*p) {
        let (kofs, klen, _, _, _) = record(&*p, i).expect("latched node is consistent");
        let h = head_after(&p[kofs..kofs + klen], pl);
        put_u32(p, SLOTS + i * SLOT_SIZE + 4, h);
    }
}

/// Recomputes the prefix as the longest one the first and last keys share
/// (all keys between them share it too). Called after bulk changes.
pub fn recompute_prefix(p: &mut [u8]) {
    let n = count(&*p);
    let pl = if n < 2 {
        0
    } else {
        let (a, al, _, _, _) = record(&*p, 0).expect("latched node is consistent");
        let (b, bl, _, _, _) = record(&*p, n - 1).expect("latched node is consistent");
        p[a..a + al].iter().zip(&p[b..b + bl]).take_while(|(x, y)| x == y).count()
    };
    set_prefix(p, pl.min(u16::MAX as usize));
}

/// Removes the entry at slot `pos`.
pub fn remove_at(p: &mut [u8], pos: usize) {
    let n = count(&*p);
    let (off, klen, _) = slot(&*p, pos);
    let vlen = (get_u16(p, off) & !EXTERNAL_FLAG) as usize;
    let s = SLOTS + pos * SLOT_SIZE;
    p.copy_within(s + SLOT_SIZE..SLOTS + n * SLOT_SIZE, s);
    put_u16(p, COUNT, (n - 1) as u16);
    let g = garbage(&*p) + REC_HDR + klen + vlen;
    put_u16(p, GARBAGE, g as u16);
}

/// Whether [`replace_value`] with a value of `vlen` bytes would succeed.
pub fn replace_fits(p: &[u8], pos: usize, vlen: usize) -> bool {
    let (off, klen, _) = slot(p, pos);
    let old_vlen = (get_u16(p, off) & !EXTERNAL_FLAG) as usize;
    vlen <= old_vlen || contiguous_free(p) + garbage(p) + REC_HDR + klen + old_vlen >= REC_HDR + klen + vlen
}

/// Replaces the value of slot `pos`: in place if it is not longer, else by
/// relocating the record inside the page. Returns false (page unchanged) if
/// the page has no room for the relocated record.
pub fn replace_value(p: &mut [u8], pos: usize, val: &[u8], external: bool) -> bool {
    let (off, klen, _) = slot(&*p, pos);
    let old_vlen = (get_u16(p, off) & !EXTERNAL_FLAG) as usize;
    let raw = val.len() as u16 | if external { EXTERNAL_FLAG } else { 0 };
    if val.len() <= old_vlen {
        put_u16(p, off, raw);
        let v = off + REC_HDR + klen;
        p[v..v + val.len()].copy_from_slice(val);
        let g = garbage(&*p) + old_vlen - val.len();
        put_u16(p, GARBAGE, g as u16);
        // The slack now at the record's end is garbage; compaction drops it
        // because it copies only REC_HDR + key + current value length.
        return true;
    }
    // Relocate: the old record becomes garbage, a new one goes in the heap.
    let grow = REC_HDR + klen + val.len();
    if contiguous_free(&*p) + garbage(&*p) + REC_HDR + klen + old_vlen < grow {
        return false;
    }
    let key = p[off + REC_HDR..off + REC_HDR + klen].to_vec();
    remove_at(p, pos);
    insert_at(p, pos, &key, val, external);
    true
}

/// Drops entries `[from, count)` and compacts.
pub fn truncate(p: &mut [u8], from: usize) {
    put_u16(p, COUNT, from as u16);
    // Garbage recount is simplest done by compaction.
    let n = from;
    let mut live = 0;
    for i in 0..n {
        let (off, klen, _) = slot(&*p, i);
        live += REC_HDR + klen + (get_u16(p, off) & !EXTERNAL_FLAG) as usize;
    }
    let hu = heap_used(&*p);
    put_u16(p, GARBAGE, (hu - live) as u16);
    compact(p);
    recompute_prefix(p);
}

/// The slot at which to split a full node. Appending workloads (inserts at
/// the end of the rightmost node) split near the end so pages fill up.
pub fn split_point(p: &[u8], insert_pos: usize) -> usize {
    let n = count(p);
    debug_assert!(n >= 2);
    if insert_pos >= n {
        return n - 1;
    }
    let total = used_bytes(p);
    let mut acc = 0;
    for i in 0..n {
        let (_, klen, vofs, vlen, _) = record(p, i).expect("latched node is consistent");
        let _ = vofs;
        acc += SLOT_SIZE + REC_HDR + klen + vlen;
        if acc >= total / 2 {
            return (i + 1).clamp(1, n - 1);
        }
    }
    n / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves entries `[from, count)` of `left` into the empty node `right`.
    fn move_upper(left: &mut [u8], right: &mut [u8], from: usize) {
        let n = count(&*left);
        for i in from..n {
            let (kofs, klen, vofs, vlen, ext) = record(&*left, i).expect("latched node is consistent");
            let j = i - from;
            let (k, v) = (&left[kofs..kofs + klen], &left[vofs..vofs + vlen]);
            insert_at(right, j, k, v, ext);
        }
        truncate(left, from);
        recompute_prefix(right);
    }

    /// Appends every entry of `right` to `left` (whose keys are all smaller).
    /// REQUIRES: they fit.
    fn append_all(left: &mut [u8], right: &[u8]) {
        let n = count(right);
        for i in 0..n {
            let (kofs, klen, vofs, vlen, ext) = record(right, i).expect("latched node is consistent");
            let at = count(&*left);
            insert_at(left, at, &right[kofs..kofs + klen], &right[vofs..vofs + vlen], ext);
        }
        recompute_prefix(left);
    }

    fn leaf(ps: usize) -> Vec<u8> {
        let mut p = vec![0u8; ps];
        init(&mut p, PageId::new(1, 2), 0, 7);
        p
    }

    #[test]
    fn inserts_keep_order_and_lookups_find_them() {
        let mut p = leaf(4096);
        let keys: Vec<Vec<u8>> = [5u32, 1, 9, 3, 7, 2].iter().map(|k| k.to_be_bytes().to_vec()).collect();
        for k in &keys {
            let (pos, found) = lower_bound(p.as_slice(), k).unwrap();
            assert!(!found);
            insert_at(&mut p, pos, k, b"value", false);
            check(&p).unwrap();
        }
        for k in &keys {
            assert!(lower_bound(p.as_slice(), k).unwrap().1);
        }
        let (pos, found) = lower_bound(p.as_slice(), &4u32.to_be_bytes()).unwrap();
        assert_eq!((pos, found), (3, false));
    }

    #[test]
    fn keys_sharing_a_head_compare_in_full() {
        let mut p = leaf(4096);
        for k in [&b"abcd"[..], b"abc", b"abcde", b"abcd\x00", b"ab", b"abcc\xff"] {
            let (pos, found) = lower_bound(p.as_slice(), k).unwrap();
            assert!(!found);
            insert_at(&mut p, pos, k, b"", false);
        }
        check(&p).unwrap();
        let mut keys = Vec::new();
        for i in 0..count(p.as_slice()) {
            let mut k = Vec::new();
            copy_key(p.as_slice(), i, &mut k).unwrap();
            keys.push(k);
        }
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }

    #[test]
    fn removal_and_relocation_reuse_space_through_compaction() {
        let mut p = leaf(4096);
        let mut n = 0u32;
        while has_room(p.as_slice(), entry_size(4, 100)) {
            let k = n.to_be_bytes();
            insert_at(&mut p, n as usize, &k, &[1u8; 100], false);
            n += 1;
        }
        for _ in 0..n / 2 {
            remove_at(&mut p, 0);
        }
        check(&p).unwrap();
        assert!(has_room(p.as_slice(), entry_size(4, 100)));
        // Growing values relocate records; keep going until full again.
        let mut grown = 0;
        for i in 0..count(p.as_slice()) {
            if replace_value(&mut p, i, &[2u8; 180], false) {
                grown += 1;
            }
            check(&p).unwrap();
        }
        assert!(grown > 0);
        assert!(replace_value(&mut p, 0, b"short", false));
        check(&p).unwrap();
    }

    #[test]
    fn split_moves_the_upper_half() {
        let mut l = leaf(4096);
        for i in 0..20u32 {
            insert_at(&mut l, i as usize, &i.to_be_bytes(), &[0u8; 50], false);
        }
        let mut r = leaf(4096);
        let at = split_point(&l, 5);
        move_upper(&mut l, &mut r, at);
        check(&l).unwrap();
        check(&r).unwrap();
        assert_eq!(count(l.as_slice()) + count(r.as_slice()), 20);
        append_all(&mut l, &r);
        check(&l).unwrap();
        assert_eq!(count(l.as_slice()), 20);
    }

    #[test]
    fn the_common_prefix_follows_inserts_at_the_ends_and_emptying() {
        let mut p = leaf(4096);
        for (i, k) in [&b"user:0005"[..], b"user:0007", b"user:0009"].iter().enumerate() {
            insert_at(&mut p, i, k, b"v", false);
        }
        recompute_prefix(&mut p);
        assert_eq!(prefix_len(p.as_slice()), 8);
        check(&p).unwrap();
        // A key sharing less of the prefix at either end shrinks it.
        insert_at(&mut p, 3, b"user:1", b"v", false);
        assert_eq!(prefix_len(p.as_slice()), 5);
        check(&p).unwrap();
        insert_at(&mut p, 0, b"admin", b"v", false);
        assert_eq!(prefix_len(p.as_slice()), 0);
        check(&p).unwrap();
        recompute_prefix(&mut p);
        while count(p.as_slice()) > 0 {
            remove_at(&mut p, 0);
        }
        insert_at(&mut p, 0, b"zebra", b"v", false);
        check(&p).unwrap();
        assert!(lower_bound(p.as_slice(), b"zebra").unwrap().1);
        assert_eq!(lower_bound(p.as_slice(), b"user:0007").unwrap(), (0, false));
    }

    #[test]
    fn search_keys_outside_the_prefix_land_before_or_after_all() {
        let mut p = leaf(4096);
        for (i, k) in [&b"prefix-long-enough-to-spill-a"[..], b"prefix-long-enough-to-spill-b"].iter().enumerate() {
            insert_at(&mut p, i, k, b"v", false);
        }
        recompute_prefix(&mut p);
        assert_eq!(prefix_len(p.as_slice()), 28);
        assert_eq!(lower_bound(p.as_slice(), b"a").unwrap(), (0, false));
        assert_eq!(lower_bound(p.as_slice(), b"prefix-long-enough-to-spill").unwrap(), (0, false));
        assert_eq!(lower_bound(p.as_slice(), b"prefix-long-enough-to-spill-").unwrap(), (0, false));
        assert_eq!(lower_bound(p.as_slice(), b"prefix-long-enough-to-spilz").unwrap(), (2, false));
        assert_eq!(lower_bound(p.as_slice(), b"prefix-long-enough-to-spill-b").unwrap(), (1, true));
        assert_eq!(lower_bound(p.as_slice(), b"z").unwrap(), (2, false));
    }

    #[test]
    fn garbage_bytes_never_panic_the_reader() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for _ in 0..2000 {
            let mut p = vec![0u8; 4096];
            rng.fill(&mut p[..]);
            let v = p.as_slice();
            let _ = lower_bound(v, b"key");
            let _ = child_for(v, b"key");
            let _ = check(v);
            let mut out = Vec::new();
            for i in 0..count(v).min(600) {
                let _ = copy_key(v, i, &mut out);
                let _ = append_value(v, i, &mut out);
            }
        }
    }
}
