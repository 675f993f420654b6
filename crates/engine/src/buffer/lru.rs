//! The LRU list of one instance, with InnoDB's midpoint insertion.
//!
//! ```text
//!  head (most recent)                                  tail (eviction end)
//!   [ young ... young ][ old ... old ... old ... old ]
//!                       ^ old_head: newly read pages go here
//! ```
//!
//! The old part holds `innodb_old_blocks_pct` percent of the list. A page
//! created enters at the head of the list, as in InnoDB. A page read from
//! disk enters at the head of the old part; it moves to the head
//! of the list ("is made young") only when accessed again at least
//! `innodb_old_blocks_time` ms after its first access — or half the time
//! the old part takes to turn over, when that is shorter
//! (`old_turnover.rs`). One large scan therefore cycles through the old
//! part and cannot evict the hot set.
//! Pages already young are not moved on access (InnoDB's behaviour), so a
//! hit on a young page takes no lock.
//!
//! The list is index-based (frame numbers); the instance mutex protects it.
//! Invariants (checked by `check` in tests):
//! 1. `old_len` frames, ending at the tail, have `in_old` set; the others not.
//! 2. `old_len` is within one of the target fraction once the list holds at
//!    least `MIN_LEN_FOR_OLD` frames; below that every frame is old.

use std::sync::atomic::Ordering;

use super::frame::Frame;

const NIL: u32 = u32::MAX;
/// Below this length the whole list is "old" (new pages go to the head).
pub const MIN_LEN_FOR_OLD: u32 = 8;

pub struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    /// First frame of the old part, or NIL when the old part is empty.
    old_head: u32,
    len: u32,
    old_len: u32,
    old_pct: u32,
}

impl Lru {
    pub fn new(frames: usize, old_pct: u32) -> Self {
        Self {
            prev: vec![NIL; frames],
            next: vec![NIL; frames],
            head: NIL,
            tail: NIL,
            old_head: NIL,
            len: 0,
            old_len: 0,
            old_pct: old_pct.clamp(5, 95),
        }
    }

    pub fn set_old_pct(&mut self, pct: u32, frames: &[Frame]) {
        self.old_pct = pct.clamp(5, 95);
        self.rebalance(frames);
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn old_len(&self) -> u32 {
        self.old_len
    }

    pub fn tail(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    pub fn prev_of(&self, f: u32) -> Option<u32> {
        let p = self.prev[f as usize];
        (p != NIL).then_some(p)
    }

    fn target_old(&self) -> u32 {
        if self.len < MIN_LEN_FOR_OLD {
            self.len
        } else {
            (self.len as u64 * self.old_pct as u64 / 100).max(1) as u32
        }
    }

    fn link_before(&mut self, f: u32, at: u32) {
        // Insert f before `at` (at == NIL: append at tail).
        let p = if at == NIL { self.tail } else { self.prev[at as usize] };
        self.prev[f as usize] = p;
        self.next[f as usize] = at;
        if p == NIL {
            self.head = f;
        } else {
            self.next[p as usize] = f;
        }
        if at == NIL {
            self.tail = f;
        } else {
            self.prev[at as usize] = f;
        }
        self.len += 1;
    }

    fn unlink(&mut self, f: u32) {
        let (p, n) = (self.prev[f as usize], self.next[f as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[f as usize] = NIL;
        self.next[f as usize] = NIL;
        self.len -= 1;
    }

    /// Adds a frame just read from disk at the head of the old part.
    pub fn insert_midpoint(&mut self, f: u32, frames: &[Frame]) {
        let at = if self.old_head != NIL { self.old_head } else { NIL };
        self.link_before(f, at);
        frames[f as usize].in_old.store(true, Ordering::Relaxed);
        self.old_head = f;
        self.old_len += 1;
        self.rebalance(frames);
    }

    /// Adds a frame at the head of the list: a page just created (InnoDB's
    /// `buf_page_create` adds it young: it is about to be used).
    pub fn insert_young(&mut self, f: u32, frames: &[Frame]) {
        let at = self.head;
        self.link_before(f, at);
        frames[f as usize].in_old.store(false, Ordering::Relaxed);
        self.rebalance(frames);
    }

    /// Moves a frame to the head of the list.
    pub fn make_young(&mut self, f: u32, frames: &[Frame]) {
        self.remove(f, frames);
        let at = self.head;
        self.link_before(f, at);
        frames[f as usize].in_old.store(false, Ordering::Relaxed);
        if self.old_head == NIL && self.len == 1 {
            // A single young frame; rebalance decides.
        }
        self.rebalance(frames);
    }

    pub fn remove(&mut self, f: u32, frames: &[Frame]) {
        if frames[f as usize].in_old.load(Ordering::Relaxed) {
            if self.old_head == f {
                let n = self.next[f as usize];
                self.old_head = n;
            }
            self.old_len -= 1;
            frames[f as usize].in_old.store(false, Ordering::Relaxed);
        }
        self.unlink(f);
        self.rebalance(frames);
    }

    /// Moves the old/young boundary until the old part has its target size.
    fn rebalance(&mut self, frames: &[Frame]) {
        let target = self.target_old();
        while self.old_len > target {
            // The old head becomes young.
            let f = self.old_head;
            frames[f as usize].in_old.store(false, Ordering::Relaxed);
            self.old_head = self.next[f as usize];
            self.old_len -= 1;
        }
        while self.old_len < target {
            // The last young frame becomes old.
            let f = if self.old_head == NIL { self.tail } else { self.prev[self.old_head as usize] };
            if f == NIL {
                break;
            }
            frames[f as usize].in_old.store(true, Ordering::Relaxed);
            self.old_head = f;
            self.old_len += 1;
        }
    }

    /// Frames from head to tail (tests and diagnostics).
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let f = cur;
            cur = self.next[f as usize];
            Some(f)
        })
    }

    /// Checks the invariants; panics on violation (tests only).
    pub fn check(&self, frames: &[Frame]) {
        let order: Vec<u32> = self.iter().collect();
        assert_eq!(order.len() as u32, self.len);
        let young = order.len() as u32 - self.old_len;
        for (i, &f) in order.iter().enumerate() {
            assert_eq!(frames[f as usize].in_old.load(Ordering::Relaxed), i as u32 >= young, "invariant 1 at {i}");
        }
        if self.old_len > 0 {
            assert_eq!(order[young as usize], self.old_head);
        }
        assert!(self.old_len.abs_diff(self.target_old()) <= 1, "invariant 2");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::frame::FrameMemory;

    #[test]
    fn midpoint_insertion_keeps_the_old_fraction_and_young_pages_survive_a_scan() {
        let n = 100;
        let mem = FrameMemory::new(n, 4096);
        let frames: Vec<Frame> = (0..n).map(|i| Frame::new(mem.frame_ptr(i, 4096))).collect();
        let mut lru = Lru::new(n, 37);
        for f in 0..50 {
            lru.insert_midpoint(f, &frames);
            lru.check(&frames);
        }
        // Make the first ten hot.
        for f in 0..10 {
            lru.make_young(f, &frames);
            lru.check(&frames);
        }
        // A "scan" inserts and evicts 40 pages from the tail repeatedly.
        for f in 50..100 {
            lru.insert_midpoint(f, &frames);
            let victim = lru.tail().unwrap();
            lru.remove(victim, &frames);
            lru.check(&frames);
            assert!(victim >= 10, "a hot page was evicted by the scan");
        }
        let young: Vec<u32> = lru.iter().take(10).collect();
        assert!(young.iter().all(|&f| f < 10));
    }
}
