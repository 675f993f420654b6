//! An instance's page table: page id -> frame, readable without any lock.
//!
//! Open addressing with linear probing over a power-of-two array of words,
//! at most half full. A slot holds `tag << 32 | frame` where `tag` is the
//! high half of the page id's hash; [`EMPTY`] marks a free slot.
//!
//! Readers probe with plain atomic loads and confirm a tag match by checking
//! the frame's own `page_id`. Writers (insert, remove) hold the instance
//! mutex. Removal uses backward-shift deletion (no tombstones), during which
//! a concurrent reader may miss an entry that is present: a *false miss*.
//! That is harmless by construction: a miss sends the reader to the slow
//! path, which re-probes under the instance mutex. A reader can never get a
//! wrong frame, because the frame's `page_id` (validated under its latch) is
//! the authority, not this table.

use std::sync::atomic::{AtomicU64, Ordering};

use super::frame::Frame;
use crate::PageId;

const EMPTY: u64 = u64::MAX;

pub struct PageTable {
    slots: Box<[AtomicU64]>,
    mask: usize,
}

/// splitmix64's finaliser: a good spread for sequential page numbers.
#[inline]
pub fn hash(id: PageId) -> u64 {
    let mut z = id.to_u64().wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl PageTable {
    pub fn new(frames: usize) -> Self {
        let cap = (frames * 2).next_power_of_two().max(16);
        Self { slots: (0..cap).map(|_| AtomicU64::new(EMPTY)).collect(), mask: cap - 1 }
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        h as usize & self.mask
    }

    /// The frame holding `id`, if found. May miss falsely while a removal
    /// runs (see the module note).
    #[inline]
    pub fn lookup(&self, id: PageId, h: u64, frames: &[Frame]) -> Option<u32> {
        let tag = h >> 32;
        let mut i = self.home(h);
        for _ in 0..=self.mask {
            let s = self.slots[i].load(Ordering::Acquire);
            if s == EMPTY {
                return None;
            }
            if s >> 32 == tag {
                let f = s as u32;
                if frames.get(f as usize).is_some_and(|fr| fr.holds(id)) {
                    return Some(f);
                }
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    /// REQUIRES: instance mutex held; `id` not present; `frames[frame]`
    /// already holds `id`.
    pub fn insert(&self, _id: PageId, h: u64, frame: u32) {
        let mut i = self.home(h);
        loop {
            if self.slots[i].load(Ordering::Relaxed) == EMPTY {
                self.slots[i].store(((h >> 32) << 32) | frame as u64, Ordering::Release);
                return;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// REQUIRES: instance mutex held; `frames[frame]` still holds `id`, and
    /// every frame referenced by the table holds the page it was inserted
    /// under (so homes can be recomputed).
    pub fn remove(&self, id: PageId, h: u64, frame: u32, frames: &[Frame]) {
        let want = ((h >> 32) << 32) | frame as u64;
        let mut i = self.home(h);
        loop {
            let s = self.slots[i].load(Ordering::Relaxed);
            assert!(s != EMPTY, "page table: removing {id:?} which is absent");
            if s == want {
                break;
            }
            i = (i + 1) & self.mask;
        }
        // Backward-shift deletion.
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let s = self.slots[j].load(Ordering::Relaxed);
            if s == EMPTY {
                break;
            }
            let pid = frames[(s as u32) as usize].page().expect("table entry for an empty frame");
            let k = self.home(hash(pid));
            // Keep s where it is if its home lies cyclically in (hole, j].
            let stays = if hole <= j { hole < k && k <= j } else { hole < k || k <= j };
            if !stays {
                self.slots[hole].store(s, Ordering::Release);
                hole = j;
            }
        }
        self.slots[hole].store(EMPTY, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::frame::FrameMemory;
    use std::collections::HashMap;

    #[test]
    fn table_matches_a_hashmap_under_random_inserts_and_removes() {
        use rand::{Rng, SeedableRng};
        let n = 64;
        let mem = FrameMemory::new(n, 4096);
        let frames: Vec<Frame> = (0..n).map(|i| Frame::new(mem.frame_ptr(i, 4096))).collect();
        let t = PageTable::new(n);
        let mut model: HashMap<PageId, u32> = HashMap::new();
        let mut free: Vec<u32> = (0..n as u32).collect();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        for _ in 0..20_000 {
            let id = PageId::new(rng.gen_range(0..3), rng.gen_range(0..200));
            if let Some(&f) = model.get(&id) {
                assert_eq!(t.lookup(id, hash(id), &frames), Some(f));
                if rng.gen_bool(0.5) {
                    t.remove(id, hash(id), f, &frames);
                    frames[f as usize].page_id.store(NO, Ordering::Relaxed);
                    model.remove(&id);
                    free.push(f);
                }
            } else {
                assert_eq!(t.lookup(id, hash(id), &frames), None);
                if let Some(f) = free.pop() {
                    frames[f as usize].page_id.store(id.to_u64(), Ordering::Relaxed);
                    t.insert(id, hash(id), f);
                    model.insert(id, f);
                }
            }
        }
        for (id, f) in model {
            assert_eq!(t.lookup(id, hash(id), &frames), Some(f));
        }
    }
    const NO: u64 = super::super::frame::NO_PAGE;
}
