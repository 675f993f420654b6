//! The adaptive hash index (`innodb_adaptive_hash_index`): point lookups
//! ([`BTree::get`]) of keys looked up often go straight to their leaf,
//! skipping the descent through the inner nodes. The table itself (memory,
//! switch, counters) is `buffer/adaptive_hash.rs`.
//!
//! A lookup through the hash:
//! 1. hash (space, index id, root, key); the bucket names a frame, a page
//!    number and a slot;
//! 2. read that frame optimistically, without waiting, if it holds that
//!    page ([`BufferPool::fix_optimistic_at`]);
//! 3. accept the page only if it is a B+tree leaf of this index;
//! 4. find the key at the remembered slot, else by binary search in the
//!    leaf; a key not found there proves nothing (it may have moved), so
//!    the lookup falls back to the descent;
//! 5. copy the value and validate the frame's version. A value stored in
//!    overflow pages also falls back.
//!
//! Why a hit is never stale: every key of a tree lies in exactly one of
//! its leaves at any moment no structure modification is latching, and
//! a structure modification latches every node it changes exclusively
//! (bumping their versions) before it changes any. A page that leaves the
//! tree is re-typed as free under that latch (merge, root shrink, DROP
//! INDEX), and a dropped space's frames are emptied under theirs. So a
//! version-validated read of a page that is a leaf of this index (index ids
//! and space ids are never reused) and holds the key *is* the tree's
//! current entry for that key, whichever way the page was found. The
//! entry is only a hint; nothing about it needs invalidating.
//!
//! Which keys get entries: a lookup that descended and found its key
//! writes an entry one time in [`ADMIT_EVERY`] (a per-thread count), so a
//! key read k times through the descent is in the table with probability
//! 1 − (1 − 1/ADMIT_EVERY)^k: hot keys enter after a few lookups, a key read
//! once writes a bucket with probability 1/ADMIT_EVERY. (InnoDB decides per
//! index and page after ~100 lookups that the hash would have served; an
//! entry here costs one bucket, so the decision can be per key.) A hit
//! whose key moved within its leaf rewrites the slot hint; a miss whose
//! key moved to another leaf is a new admission.

use std::cell::Cell;
use std::cmp::Ordering;

use super::{node, BTree};
use crate::buffer::adaptive_hash::Entry;
use crate::buffer::OptGuard;
use crate::page::{self, PageType};
use crate::sync::PageView;

/// One found-by-descent lookup in this many (per thread) writes an entry.
pub const ADMIT_EVERY: u32 = 4;

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's finaliser.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash of `key`, 8 bytes at a time, seeded with the tree.
#[inline]
fn hash_key(seed: u64, key: &[u8]) -> u64 {
    let mut h = seed ^ (key.len() as u64).wrapping_mul(MUL);
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(MUL).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(MUL).rotate_left(29);
    }
    mix(h)
}

/// Whether slot `i` of the leaf `v` holds exactly `key` (an inconsistent
/// read answers false).
#[inline]
fn key_at_is<V: PageView>(v: V, i: usize, key: &[u8]) -> bool {
    if i >= node::count(v) || node::SLOTS + (i + 1) * node::SLOT_SIZE > v.len() {
        return false;
    }
    match node::record(v, i) {
        Ok((kofs, klen, _, _, _)) => klen == key.len() && v.cmp_bytes(kofs, klen, key) == Ordering::Equal,
        Err(_) => false,
    }
}

/// Whether this thread's next descent-found key should be remembered.
#[inline]
fn admit() -> bool {
    thread_local!(static N: Cell<u32> = const { Cell::new(0) });
    N.with(|n| {
        let c = n.get().wrapping_add(1);
        n.set(c);
        c % ADMIT_EVERY == 0
    })
}

impl BTree {
    /// (part hash, key hash) of `key` in this tree.
    #[inline]
    fn ahi_hashes(&self, key: &[u8]) -> (u64, u64) {
        let tree = ((self.root.space as u64) << 32) | self.index_id as u64;
        let part = mix(tree.wrapping_add(MUL));
        (part, hash_key(part ^ (self.root.page_no as u64).wrapping_mul(MUL), key))
    }

    /// Point lookup through the adaptive hash index: true if `key` was
    /// found and its value copied into `out`; false means "descend" (the
    /// key may still exist). REQUIRES: the index is on.
    pub(super) fn get_hashed(&self, key: &[u8], out: &mut Vec<u8>) -> bool {
        let ahi = &self.pool.adaptive_hash;
        let (part, h) = self.ahi_hashes(key);
        let hit = ahi.find(part, h).and_then(|e| {
            let g = self.pool.fix_optimistic_at(e.location, self.pid(e.page_no))?;
            let pos = self.read_leaf(&g, key, e.slot as usize, out)?;
            if pos != e.slot as usize {
                ahi.insert(part, h, Entry { slot: pos as u16, ..e });
            }
            Some(())
        });
        if hit.is_some() {
            ahi.searches.inc();
            true
        } else {
            ahi.searches_btree.inc();
            false
        }
    }

    /// Steps 3 to 5 of a lookup through the hash: the slot of `key` in the
    /// leaf `g` if the page is a leaf of this tree holding it and its
    /// value is inline (copied into `out`), all validated.
    #[inline]
    fn read_leaf(&self, g: &OptGuard<'_>, key: &[u8], hint: usize, out: &mut Vec<u8>) -> Option<usize> {
        let v = g.view();
        if v.u16_at(page::FIL_PAGE_TYPE) != PageType::BTreeNode as u16
            || node::level(v) != 0
            || node::index_id(v) != self.index_id
        {
            return None;
        }
        let pos = if key_at_is(v, hint, key) {
            hint
        } else {
            match node::lower_bound(v, key) {
                Ok((pos, true)) => pos,
                _ => return None,
            }
        };
        out.clear();
        let external = node::append_value(v, pos, out).ok()?;
        if external || g.validate().is_err() {
            return None;
        }
        Some(pos)
    }

    /// After a descent found `key` at slot `pos` of the validated `leaf`:
    /// maybe remember where (see "Which keys get entries").
    pub(super) fn ahi_remember(&self, key: &[u8], leaf: &OptGuard<'_>, pos: usize) {
        if !admit() || pos > u16::MAX as usize {
            return;
        }
        let Some(location) = self.pool.frame_location(leaf) else { return };
        let (part, h) = self.ahi_hashes(key);
        self.pool.adaptive_hash.insert(part, h, Entry { location, page_no: leaf.id().page_no, slot: pos as u16 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_hash_depends_on_every_byte_and_the_length() {
        let base = hash_key(1, b"abcdefghij");
        assert_ne!(base, hash_key(1, b"abcdefghik"));
        assert_ne!(base, hash_key(1, b"bbcdefghij"));
        assert_ne!(base, hash_key(2, b"abcdefghij"));
        assert_ne!(hash_key(1, b"ab"), hash_key(1, b"ab\0"));
    }
}
