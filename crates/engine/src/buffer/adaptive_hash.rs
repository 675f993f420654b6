//! The adaptive hash index's table (`innodb_adaptive_hash_index`,
//! `innodb_adaptive_hash_index_parts`): a fixed-size array of buckets
//! mapping the hash of (B+tree, search key) to where the key's leaf was last
//! found (buffer pool instance, frame, page number) and the slot the key
//! had there. What a hit means for a B+tree lookup is in `btree/ahi.rs`;
//! this module owns the memory, the on/off switch and the counters, and
//! reads a remembered frame optimistically.
//!
//! Representation: `parts` partitions (a tree's partition comes from its
//! space and index id, as InnoDB partitions by index), each a power-of-two
//! array of buckets. A bucket is two words, written with plain atomic
//! stores and read with plain atomic loads:
//!
//! ```text
//!  word 0   tag (the hash's high 48 bits, lowest bit forced to 1) << 16 | slot hint
//!           0 = empty
//!  word 1   page number << 32 | instance << 26 | frame
//! ```
//!
//! Size: `pool bytes / 64` bytes in all (16-byte buckets, so one bucket per
//! KiB of buffer pool; InnoDB's cell array is the same pool / 64), rounded
//! down to a power of two per part, at least 64 buckets per part. It is
//! allocated the first time the index is switched on and never grows: a new
//! entry overwrites whatever its bucket held.
//!
//! Invariants:
//! 1. Nothing read from a bucket is trusted. The two words may come from
//!    two different writers (a torn entry), the frame may hold another page
//!    now, the page may have changed. The reader (`btree/ahi.rs`) accepts a
//!    hit only after reading, under the frame's latch version, a leaf of the
//!    right tree that holds the key itself. A stale entry therefore costs a
//!    wasted probe, never a wrong answer, and invalidation is lazy: DROP,
//!    ALTER, splits, merges and evictions never visit this table.
//! 2. Readers write nothing (no lock, no counter on a shared line other
//!    than the striped [`Counter`]s): there is no latch to convoy on.
//!    Writers never wait either: the last store wins.
//! 3. A remembered (instance, frame) pair always names frame memory that
//!    exists: frames are allocated once with the pool and never freed.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::guard::OptGuard;
use super::{page_table, BufferPool};
use crate::sync::Counter;
use crate::PageId;

/// Bits of a location word naming the frame within its instance.
const FRAME_BITS: u32 = 26;
/// Bytes of buffer pool per bucket (one 16-byte bucket per KiB: the table
/// is 1/64 of the pool).
const POOL_BYTES_PER_BUCKET: usize = 1024;
const MIN_BUCKETS_PER_PART: usize = 64;

/// The parts' buckets, one allocation.
struct Table {
    buckets: Box<[[AtomicU64; 2]]>,
    /// Buckets per part (a power of two).
    per_part: usize,
    parts: usize,
}

/// What a bucket says about a key: a guess to be verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Instance << 26 | frame.
    pub location: u32,
    pub page_no: u32,
    /// The key's slot in the leaf when the entry was made.
    pub slot: u16,
}

pub struct AdaptiveHash {
    /// `innodb_adaptive_hash_index`.
    enabled: AtomicBool,
    /// `innodb_adaptive_hash_index_parts` (read when the table is made).
    parts: AtomicUsize,
    pool_bytes: usize,
    table: OnceLock<Table>,
    /// Lookups answered through the hash (INNODB_METRICS
    /// `adaptive_hash_searches`).
    pub searches: Counter,
    /// Lookups that descended the B+tree while the index was on
    /// (`adaptive_hash_searches_btree`).
    pub searches_btree: Counter,
    /// Entries written.
    pub rows_added: Counter,
}

impl AdaptiveHash {
    pub fn new(pool_bytes: usize) -> Self {
        Self {
            enabled: AtomicBool::new(false),
            parts: AtomicUsize::new(8),
            pool_bytes,
            table: OnceLock::new(),
            searches: Counter::default(),
            searches_btree: Counter::default(),
            rows_added: Counter::default(),
        }
    }

    /// Whether lookups use the index (one relaxed load).
    #[inline]
    pub fn is_on(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Sets the number of parts. Has an effect only before the index is
    /// first switched on (the variable is read-only at runtime).
    pub fn set_parts(&self, parts: usize) {
        self.parts.store(parts.clamp(1, 512), Ordering::Relaxed);
    }

    /// Switches the index on or off. Off empties it at once (O(buckets),
    /// the pool is not visited); a lookup that was already under way may
    /// still leave an entry behind, which is harmless (invariant 1).
    pub fn set_enabled(&self, on: bool) {
        if on {
            self.table();
            self.enabled.store(true, Ordering::Release);
        } else {
            self.enabled.store(false, Ordering::Release);
            if let Some(t) = self.table.get() {
                for b in t.buckets.iter() {
                    b[0].store(0, Ordering::Relaxed);
                    b[1].store(0, Ordering::Relaxed);
                }
            }
        }
    }

    fn table(&self) -> &Table {
        self.table.get_or_init(|| {
            let parts = self.parts.load(Ordering::Relaxed).max(1);
            let want = (self.pool_bytes / POOL_BYTES_PER_BUCKET / parts).max(MIN_BUCKETS_PER_PART);
            // The largest power of two not above `want`.
            let per_part = 1usize << (usize::BITS - 1 - want.leading_zeros());
            let buckets = (0..parts * per_part).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]).collect();
            Table { buckets, per_part, parts }
        })
    }

    /// `innodb_adaptive_hash_index_parts`.
    pub fn parts(&self) -> usize {
        self.table.get().map_or_else(|| self.parts.load(Ordering::Relaxed), |t| t.parts)
    }

    /// (parts, buckets per part) once the table exists.
    pub fn shape(&self) -> Option<(usize, usize)> {
        self.table.get().map(|t| (t.parts, t.per_part))
    }

    /// Entries in use, counted over the whole table (SHOW ENGINE INNODB
    /// STATUS; O(buckets)).
    pub fn used(&self) -> usize {
        self.table.get().map_or(0, |t| t.buckets.iter().filter(|b| b[0].load(Ordering::Relaxed) != 0).count())
    }

    #[inline]
    fn bucket(&self, part_hash: u64, key_hash: u64) -> Option<&[AtomicU64; 2]> {
        let t = self.table.get()?;
        let part = ((part_hash & 0xffff_ffff) * t.parts as u64) >> 32;
        let i = part as usize * t.per_part + (key_hash as usize & (t.per_part - 1));
        t.buckets.get(i)
    }

    #[inline]
    fn tag(key_hash: u64) -> u64 {
        ((key_hash >> 16) | 1) << 16
    }

    /// The entry for `key_hash` in the part of `part_hash`, if the bucket
    /// holds one with its tag.
    #[inline]
    pub fn find(&self, part_hash: u64, key_hash: u64) -> Option<Entry> {
        let b = self.bucket(part_hash, key_hash)?;
        let w0 = b[0].load(Ordering::Relaxed);
        if w0 & !0xffff != Self::tag(key_hash) {
            return None;
        }
        let w1 = b[1].load(Ordering::Relaxed);
        Some(Entry { location: w1 as u32, page_no: (w1 >> 32) as u32, slot: w0 as u16 })
    }

    /// Remembers `e` for `key_hash`, replacing what the bucket held.
    #[inline]
    pub fn insert(&self, part_hash: u64, key_hash: u64, e: Entry) {
        let Some(b) = self.bucket(part_hash, key_hash) else { return };
        b[1].store(((e.page_no as u64) << 32) | e.location as u64, Ordering::Relaxed);
        b[0].store(Self::tag(key_hash) | e.slot as u64, Ordering::Relaxed);
        self.rows_added.inc();
    }
}

impl BufferPool {
    /// Where the frame `g` reads lies: instance << 26 | frame, or `None`
    /// if the frame number does not fit.
    pub(crate) fn frame_location(&self, g: &OptGuard<'_>) -> Option<u32> {
        let inst = self.instance_of(page_table::hash(g.id));
        let f = self.frame_no(inst, g.frame);
        (f < 1 << FRAME_BITS).then_some(((inst.id as u32) << FRAME_BITS) | f)
    }

    /// Reads the frame at `location` optimistically if it holds `id` and
    /// is not exclusively latched right now; never waits, never loads.
    #[inline]
    pub(crate) fn fix_optimistic_at(&self, location: u32, id: PageId) -> Option<OptGuard<'_>> {
        let inst = self.instances.get((location >> FRAME_BITS) as usize)?;
        self.try_optimistic_frame(inst, location & ((1 << FRAME_BITS) - 1), id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_bounded_and_a_power_of_two_per_part() {
        let h = AdaptiveHash::new(1 << 30);
        h.set_parts(8);
        assert_eq!(h.shape(), None, "no memory until switched on");
        h.set_enabled(true);
        let (parts, per) = h.shape().unwrap();
        assert_eq!(parts, 8);
        assert!(per.is_power_of_two());
        assert!(parts * per * 16 <= (1 << 30) / 64);
        // 1 MiB: 1024 buckets, 341 per part, rounded down.
        let h = AdaptiveHash::new(1 << 20);
        h.set_parts(3);
        h.set_enabled(true);
        assert_eq!(h.shape(), Some((3, 256)));
        let h = AdaptiveHash::new(1 << 16);
        h.set_parts(3);
        h.set_enabled(true);
        assert_eq!(h.shape(), Some((3, MIN_BUCKETS_PER_PART)));
    }

    #[test]
    fn entries_round_trip_and_off_empties() {
        let h = AdaptiveHash::new(64 << 20);
        h.set_enabled(true);
        let e = Entry { location: (3 << FRAME_BITS) | 77, page_no: 123_456, slot: 9 };
        h.insert(42, 0xdead_beef_cafe_f00d, e);
        assert_eq!(h.find(42, 0xdead_beef_cafe_f00d), Some(e));
        assert_eq!(h.find(42, 0x1111_beef_cafe_f00d), None, "another tag in the same bucket");
        assert_eq!(h.used(), 1);
        h.set_enabled(false);
        assert_eq!(h.find(42, 0xdead_beef_cafe_f00d), None);
        assert_eq!(h.used(), 0);
    }

    #[test]
    fn a_new_entry_overwrites_its_bucket() {
        let h = AdaptiveHash::new(1 << 20);
        h.set_parts(1);
        h.set_enabled(true);
        let per = h.shape().unwrap().1 as u64;
        let a = Entry { location: 1, page_no: 5, slot: 0 };
        let b = Entry { location: 2, page_no: 6, slot: 1 };
        h.insert(0, 7 | (1 << 40), a);
        h.insert(0, (7 + per * 1000) | (2 << 40), b);
        assert_eq!(h.find(0, 7 | (1 << 40)), None);
        assert_eq!(h.find(0, (7 + per * 1000) | (2 << 40)), Some(b));
        assert_eq!(h.used(), 1);
    }
}
