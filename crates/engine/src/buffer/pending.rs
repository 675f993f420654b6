//! What the change buffer (`crate::ibuf`) needs the pool to know about
//! leaves that are *not* in it: which have buffered changes waiting, and
//! how much room each had when it was evicted.
//!
//! The one invariant, which makes buffering safe: **no page is ever
//! handed out while a change buffered for it is unmerged.** Two rules
//! keep it, both under the mutex of the page's shard:
//! - a writer buffers a change for page P only if P is not in the page
//!   table (any state: being read counts as present), and records the
//!   entry here in the same critical section ([`Pending::reserve`]);
//! - a read inserts P in the page table first, then asks here whether P
//!   has entries ([`Pending::on_read`]), and merges them before
//!   anyone sees the page.
//!
//! Whichever critical section comes first, the other sees its effect: the
//! writer sees P present (and changes the leaf itself), or the read sees
//! the entry. A reader that sees the entry then latches the change-buffer
//! leaf holding it, which the writer holds from before its critical
//! section until its mini-transaction commits, so the entry is in the
//! tree by the time the reader looks. An evicted page does not change, so
//! its room recorded at eviction stays true until it is read again;
//! buffered inserts are charged against it, so that they all fit when
//! merged (a merge inside a read cannot split the page).
//!
//! The map holds evicted leaves of the indexes that take buffered changes
//! (non-unique secondary ones, marked by the writers that change them:
//! [`Pending::track`]); it is bounded (`cap`): past it, evictions are not
//! recorded and their pages take changes the ordinary way. It is not persistent: after a restart only
//! the pages with entries are known (rebuilt from the change buffer's
//! tree), with no room, until they are read and evicted again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::Mutex;

use crate::{PageId, SpaceId};

const SHARDS: usize = 64;

#[derive(Default, Clone, Copy)]
struct Slot {
    /// Bytes buffered inserts may still take when merged.
    room: u32,
    /// Changes buffered for the page, not yet merged.
    entries: u32,
}

pub struct Pending {
    shards: Box<[Mutex<HashMap<PageId, Slot>>]>,
    slots: AtomicUsize,
    cap: usize,
    /// A change buffer is attached: evictions record room, reads check.
    active: AtomicBool,
    /// Index ids (modulo the bit count) whose leaves' room is recorded.
    tracked: Box<[AtomicU64]>,
}

const TRACKED_WORDS: usize = 64;

impl Pending {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            slots: AtomicUsize::new(0),
            cap,
            active: AtomicBool::new(false),
            tracked: (0..TRACKED_WORDS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn bit(index_id: u32) -> (usize, u64) {
        let b = index_id as usize % (TRACKED_WORDS * 64);
        (b / 64, 1 << (b % 64))
    }

    /// Marks `index_id` as one whose changes may be buffered: its leaves'
    /// room is recorded when they are evicted. A read first, so that the
    /// shared word is written once per index.
    #[inline]
    pub(crate) fn track(&self, index_id: u32) {
        let (w, m) = Self::bit(index_id);
        if self.tracked[w].load(Ordering::Relaxed) & m == 0 {
            self.tracked[w].fetch_or(m, Ordering::Relaxed);
        }
    }

    pub(crate) fn tracks(&self, index_id: u32) -> bool {
        let (w, m) = Self::bit(index_id);
        self.tracked[w].load(Ordering::Relaxed) & m != 0
    }

    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    pub(crate) fn activate(&self) {
        self.active.store(true, Ordering::Release);
    }

    fn shard(&self, id: PageId) -> &Mutex<HashMap<PageId, Slot>> {
        let h = super::page_table::hash(id);
        &self.shards[(h >> 7) as usize % SHARDS]
    }

    /// A leaf of a user tablespace leaves the pool with `room` free bytes.
    /// REQUIRES: the page is still in the page table (so no change is being
    /// buffered for it) and has no entries.
    pub(crate) fn on_evict(&self, id: PageId, room: usize) {
        let mut s = self.shard(id).lock();
        if let Some(slot) = s.get_mut(&id) {
            slot.room = room as u32;
            return;
        }
        if self.slots.load(Ordering::Relaxed) >= self.cap {
            return;
        }
        self.slots.fetch_add(1, Ordering::Relaxed);
        s.insert(id, Slot { room: room as u32, entries: 0 });
    }

    /// Whether `id` has changes waiting. For a page being read (in the
    /// page table, so that no new change can be buffered for it), see
    /// [`Pending::on_read`].
    pub(crate) fn has_entries(&self, id: PageId) -> bool {
        self.shard(id).lock().get(&id).is_some_and(|s| s.entries > 0)
    }

    /// A page being read (REQUIRES: in the page table): whether it has
    /// changes waiting; if not, it is forgotten at once (one critical
    /// section per read). One that has is forgotten by [`Pending::forget`]
    /// once merged.
    pub(crate) fn on_read(&self, id: PageId) -> bool {
        let mut s = self.shard(id).lock();
        match s.get(&id) {
            Some(slot) if slot.entries > 0 => true,
            Some(_) => {
                s.remove(&id);
                self.slots.fetch_sub(1, Ordering::Relaxed);
                false
            }
            None => false,
        }
    }

    /// `id` is in the pool now, its changes merged: nothing to remember.
    pub(crate) fn forget(&self, id: PageId) {
        if self.shard(id).lock().remove(&id).is_some() {
            self.slots.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Records one change to be buffered for `id`, which needs `need` bytes
    /// of the page when merged (0 for a removal), unless `present()` says
    /// the page is in the pool (or the caller's view of the tree changed),
    /// or the page has no such room. `true`: the caller must now put the
    /// entry in the change buffer's tree (whose leaf it already holds).
    pub(crate) fn reserve(&self, id: PageId, need: usize, present: impl FnOnce() -> bool) -> bool {
        let mut s = self.shard(id).lock();
        if present() {
            return false;
        }
        match s.get_mut(&id) {
            Some(slot) if slot.room as usize >= need => {
                slot.room -= need as u32;
                slot.entries += 1;
                true
            }
            Some(_) => false,
            None if need == 0 => {
                self.slots.fetch_add(1, Ordering::Relaxed);
                s.insert(id, Slot { room: 0, entries: 1 });
                true
            }
            None => false,
        }
    }

    /// Counts `n` entries found in the change buffer's tree at startup.
    pub(crate) fn add_found(&self, id: PageId, n: u32) {
        let mut s = self.shard(id).lock();
        let slot = s.entry(id).or_insert_with(|| {
            self.slots.fetch_add(1, Ordering::Relaxed);
            Slot::default()
        });
        slot.entries += n;
    }

    /// Up to `max` pages with changes waiting, for the background merge.
    pub(crate) fn pages_with_entries(&self, max: usize, start: usize) -> Vec<PageId> {
        let mut out = Vec::new();
        for i in 0..SHARDS {
            let s = self.shards[(start + i) % SHARDS].lock();
            out.extend(s.iter().filter(|(_, v)| v.entries > 0).map(|(k, _)| *k).take(max - out.len()));
            if out.len() >= max {
                break;
            }
        }
        out
    }

    /// Pages with changes waiting (`Innodb_ibuf`-style reporting).
    pub fn pages_waiting(&self) -> usize {
        self.shards.iter().map(|s| s.lock().values().filter(|v| v.entries > 0).count()).sum()
    }

    /// Forgets every page of a dropped tablespace.
    pub(crate) fn drop_space(&self, space: SpaceId) {
        for shard in self.shards.iter() {
            let mut s = shard.lock();
            let before = s.len();
            s.retain(|k, _| k.space != space);
            self.slots.fetch_sub(before - s.len(), Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_are_charged_against_the_room_recorded_at_eviction() {
        let p = Pending::new(16);
        let id = PageId::new(3, 9);
        assert!(!p.reserve(id, 10, || false), "no room known: not buffered");
        assert!(p.reserve(id, 0, || false), "a removal needs no room");
        p.forget(id);
        p.on_evict(id, 100);
        assert!(p.reserve(id, 60, || false));
        assert!(!p.reserve(id, 60, || false), "only 40 bytes are left");
        assert!(p.reserve(id, 40, || false));
        assert!(p.has_entries(id));
        assert!(!p.reserve(id, 0, || true), "a page in the pool takes its changes itself");
        p.forget(id);
        assert!(!p.has_entries(id));
    }

    #[test]
    fn the_map_stays_within_its_cap_and_drops_a_space_whole() {
        let p = Pending::new(2);
        for n in 0..5 {
            p.on_evict(PageId::new(7, n), 100);
        }
        assert_eq!(p.slots.load(Ordering::Relaxed), 2);
        p.drop_space(7);
        assert_eq!(p.slots.load(Ordering::Relaxed), 0);
        p.on_evict(PageId::new(8, 1), 100);
        assert!(p.reserve(PageId::new(8, 1), 1, || false));
        assert_eq!(p.pages_with_entries(10, 0), vec![PageId::new(8, 1)]);
    }
}
