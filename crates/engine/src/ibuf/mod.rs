//! The change buffer (InnoDB's insert buffer, `ibuf0ibuf`,
//! `innodb_change_buffering`): a change to a leaf of a non-unique
//! secondary index whose page is not in the buffer pool is recorded in a
//! B+tree of the system space instead of reading the leaf; the leaf takes
//! its buffered changes ("merge") when it is next read, before anyone
//! sees it, and a background thread merges a few pages a second so that
//! the buffer drains.
//!
//! Why: on I/O-bound inserts and secondary-key updates most of the pages
//! read are such leaves, read only to add one entry (docs/BENCHMARKS.md,
//! "Change buffering").
//!
//! How it stays correct:
//! - **Durability**: a change is buffered in the same mini-transaction as
//!   the rest of its row change (the change buffer's leaf latched after
//!   every other page), and a merge changes the leaf and removes the
//!   entries in one mini-transaction: redo covers both, and a crash loses
//!   or duplicates nothing.
//! - **Never a stale leaf**: `buffer/pending.rs` (a page with entries is
//!   never handed out unmerged; a writer buffers only while the page is
//!   not in the page table).
//! - **Room**: a merge cannot split the leaf, so buffered inserts are
//!   charged against the room the leaf had when it was evicted.
//! - **Order**: the entries of a page sort by a sequence number taken while
//!   the writer holds the change-buffer leaf that will hold it (the same
//!   leaf for every writer of that page), so they merge in the order the
//!   changes were made.
//! - **Locks**: an insert buffered skips the insert-intention lock on the
//!   next key (the leaf is not there to find it); so nothing is buffered
//!   into an index on which any gap or next-key lock exists (InnoDB: not
//!   into a page with explicit locks), checked after the residency check:
//!   a locking reader that comes later reads the leaf after its lock, and
//!   so sees the entry merged.
//! - **Drop**: DROP TABLE removes the space's entries ([`ChangeBuffer::drop_space`]);
//!   DROP INDEX frees the tree page by page, reading (so merging) each.
//!
//! What is buffered (`innodb_change_buffering`): quire's secondary
//! changes are inserts of entries (a new or changed row) and purge's
//! removals of entries no view needs; there is no delete-marking of
//! secondary entries. So `inserts` and `changes` buffer inserts, `purges`
//! buffers purge's removals, `all` both, `deletes` and `none` nothing.
//! Rollback changes leaves directly.

pub mod entry;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::btree::{node, BTree, Direction};
use crate::buffer::{BufferPool, ExclusiveGuard};
use crate::mtr::Mtr;
use crate::sync::Counter;
use crate::{Error, PageId, Result, SpaceId, SYSTEM_SPACE};
use entry::Op;

/// The index id of the change buffer's tree (above any id a table gets).
pub const IBUF_INDEX_ID: u32 = 0xFFFF_FF00;

/// `innodb_change_buffering`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    None = 0,
    Inserts = 1,
    Deletes = 2,
    Changes = 3,
    Purges = 4,
    All = 5,
}

impl Mode {
    pub const NAMES: [&'static str; 6] = ["none", "inserts", "deletes", "changes", "purges", "all"];

    pub fn from_name(s: &str) -> Option<Mode> {
        let i = Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(s))?;
        Some(Self::from_u8(i as u8))
    }

    fn from_u8(v: u8) -> Mode {
        match v {
            1 => Mode::Inserts,
            2 => Mode::Deletes,
            3 => Mode::Changes,
            4 => Mode::Purges,
            5 => Mode::All,
            _ => Mode::None,
        }
    }

    fn buffers(self, op: Op) -> bool {
        match op {
            Op::Insert => matches!(self, Mode::Inserts | Mode::Changes | Mode::All),
            Op::Remove => matches!(self, Mode::Purges | Mode::All),
        }
    }
}

/// Counters (`Innodb_ibuf_*`, INNODB_METRICS `ibuf_*`).
#[derive(Default)]
pub struct IbufStats {
    /// Changes buffered, by kind.
    pub buffered_inserts: Counter,
    pub buffered_removes: Counter,
    /// Changes merged into leaves, by kind (`Innodb_ibuf_merged_inserts`,
    /// `_deletes`).
    pub merged_inserts: Counter,
    pub merged_removes: Counter,
    /// Leaves that took buffered changes (`Innodb_ibuf_merges`).
    pub merges: Counter,
    /// Changes dropped with their tablespace, by kind
    /// (`Innodb_ibuf_discarded_inserts`, `_deletes`).
    pub discarded_inserts: Counter,
    pub discarded_removes: Counter,
}

pub struct ChangeBuffer {
    tree: BTree,
    mode: AtomicU8,
    /// `innodb_change_buffer_max_size`: percent of the buffer pool.
    max_size_pct: AtomicU32,
    pool_bytes: u64,
    /// The next sequence number (entry.rs).
    next_seq: AtomicU64,
    /// Bytes of the entries in the tree (as leaf space: `node::entry_size`).
    bytes: AtomicU64,
    /// Entries in the tree.
    entries: AtomicU64,
    /// Entries the tree held when it was opened.
    entries_at_open: AtomicU64,
    pub stats: IbufStats,
    stopping: AtomicBool,
    /// Tests hold the background merge back, to see what is buffered.
    merge_paused: AtomicBool,
    /// Keys of change-buffer leaves that merges left underfull: the
    /// background merge joins them with a neighbour (a merge inside a read
    /// holds a user page and does not restructure the tree).
    thin: Mutex<Vec<Vec<u8>>>,
    /// Held by the background merge around each page and by
    /// [`ChangeBuffer::drop_space`], so that no merge reads a page of a
    /// space being dropped.
    dropping: Mutex<()>,
    wake: (Mutex<()>, Condvar),
    merger: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl ChangeBuffer {
    /// Creates the empty tree in the system space; returns its root.
    pub(crate) fn create(pool: &Arc<BufferPool>) -> Result<PageId> {
        Ok(BTree::create(pool, SYSTEM_SPACE, IBUF_INDEX_ID)?.root())
    }

    /// Opens the tree at `root`, counts what it holds for each page, and
    /// attaches it to the pool (which merges from now on); drops what it
    /// holds for tablespaces that are gone (a crash between a DROP TABLE
    /// and that cleanup).
    pub(crate) fn open(pool: &Arc<BufferPool>, root: PageId, mode: Mode, max_size_pct: u32) -> Result<Arc<Self>> {
        let tree = BTree::open(pool, root, IBUF_INDEX_ID)?;
        let cb = Arc::new(Self {
            tree,
            mode: AtomicU8::new(mode as u8),
            max_size_pct: AtomicU32::new(max_size_pct),
            pool_bytes: pool.config().size_bytes as u64,
            next_seq: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            entries_at_open: AtomicU64::new(0),
            stats: IbufStats::default(),
            stopping: AtomicBool::new(false),
            merge_paused: AtomicBool::new(false),
            thin: Mutex::new(Vec::new()),
            dropping: Mutex::new(()),
            wake: (Mutex::new(()), Condvar::new()),
            merger: Mutex::new(None),
        });
        let spaces = cb.count_entries()?;
        pool.attach_change_buffer(&cb);
        cb.merge_resident()?;
        for space in spaces.into_iter().filter(|s| pool.files().get(*s).is_err()) {
            tracing::warn!("change buffer: dropping the changes buffered for space {space}, which no longer exists");
            cb.drop_space(space)?;
        }
        Ok(cb)
    }

    /// Merges into the pages with changes waiting that are already in the
    /// pool: crash recovery reads pages before the change buffer is open,
    /// and a page handed out must have its changes. REQUIRES: nothing else
    /// runs yet (the engine is opening).
    fn merge_resident(&self) -> Result<()> {
        let pool = self.tree.pool();
        let all = pool.pending.pages_with_entries(usize::MAX, 0);
        for id in all.into_iter().filter(|id| pool.in_page_table(*id)) {
            let mut g = pool.fix_exclusive(id)?;
            self.merge_into(&mut g)?;
            drop(g);
            pool.pending.forget(id);
        }
        Ok(())
    }

    /// Startup: which pages have entries, how many bytes, the next
    /// sequence; returns the tablespaces that have entries.
    fn count_entries(&self) -> Result<Vec<SpaceId>> {
        let mut cur = self.tree.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded, Direction::Forward);
        let mut last: Option<(PageId, u32)> = None;
        let mut max_seq = 0;
        let mut spaces = Vec::new();
        let pending = &self.tree.pool().pending;
        while let Some((k, v)) = cur.next()? {
            let Some((page, seq)) = entry::parse_key(k) else {
                return Err(Error::corruption(self.tree.root(), "a change buffer key of the wrong length"));
            };
            max_seq = max_seq.max(seq + 1);
            if spaces.last() != Some(&page.space) {
                spaces.push(page.space);
            }
            self.bytes.fetch_add(node::entry_size(k.len(), v.len()) as u64, Ordering::Relaxed);
            self.entries.fetch_add(1, Ordering::Relaxed);
            match &mut last {
                Some((p, n)) if *p == page => *n += 1,
                _ => {
                    if let Some((p, n)) = last.take() {
                        pending.add_found(p, n);
                    }
                    last = Some((page, 1));
                }
            }
        }
        if let Some((p, n)) = last {
            pending.add_found(p, n);
        }
        self.next_seq.store(max_seq, Ordering::Relaxed);
        let n = self.entries.load(Ordering::Relaxed);
        self.entries_at_open.store(n, Ordering::Relaxed);
        if n > 0 {
            tracing::info!("change buffer: {n} buffered changes for {} pages", pending.pages_waiting());
        }
        Ok(spaces)
    }

    pub fn mode(&self) -> Mode {
        Mode::from_u8(self.mode.load(Ordering::Relaxed))
    }

    pub fn set_mode(&self, m: Mode) {
        self.mode.store(m as u8, Ordering::Relaxed);
    }

    pub fn set_max_size_pct(&self, pct: u32) {
        self.max_size_pct.store(pct.min(50), Ordering::Relaxed);
    }

    /// Entries in the tree (`Innodb_ibuf_size`-like reporting is in pages:
    /// [`ChangeBuffer::size_pages`]).
    pub fn entries(&self) -> u64 {
        self.entries.load(Ordering::Relaxed)
    }

    /// Entries the tree held when the engine opened (before any merge).
    pub fn entries_at_open(&self) -> u64 {
        self.entries_at_open.load(Ordering::Relaxed)
    }

    /// The tree's pages, counted by walking it (tests, CHECK).
    pub fn tree_pages(&self) -> Result<u64> {
        Ok(self.tree.verify()?.1)
    }

    /// The tree's size in pages, estimated from its bytes.
    pub fn size_pages(&self) -> u64 {
        let ps = self.tree.pool().page_size() as u64;
        1 + self.bytes.load(Ordering::Relaxed).div_ceil(ps / 2)
    }

    /// Whether a change of kind `op` may be buffered now: the mode says so
    /// and the buffer is below its size limit.
    pub(crate) fn admits(&self, op: Op) -> bool {
        self.mode().buffers(op)
            && self.bytes.load(Ordering::Relaxed) * 2
                < self.pool_bytes * u64::from(self.max_size_pct.load(Ordering::Relaxed)) / 100
    }

    pub(crate) fn tree(&self) -> &BTree {
        &self.tree
    }

    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// A change was put in the tree (its mini-transaction committed).
    pub(crate) fn buffered(&self, op: Op, leaf_bytes: usize) {
        self.bytes.fetch_add(leaf_bytes as u64, Ordering::Relaxed);
        self.entries.fetch_add(1, Ordering::Relaxed);
        match op {
            Op::Insert => self.stats.buffered_inserts.inc(),
            Op::Remove => self.stats.buffered_removes.inc(),
        }
    }

    /// Entries left the tree (every one was counted when it came in).
    fn removed(&self, n: u64, leaf_bytes: u64) {
        self.entries.fetch_sub(n, Ordering::Relaxed);
        self.bytes.fetch_sub(leaf_bytes, Ordering::Relaxed);
    }

    /// The change-buffer leaves holding `page`'s entries, exclusively
    /// latched in key order, or `Err(key)` if the leaf of `key` could not
    /// be latched without waiting (the caller releases everything, waits
    /// for that leaf, and starts over).
    fn latch_entries_of(&self, page: PageId) -> Result<std::result::Result<Vec<ExclusiveGuard<'_>>, Vec<u8>>> {
        let hi = entry::key(page, u64::MAX);
        let (g, f) = self.tree.latch_leaf(&entry::key(page, 0))?;
        let mut leaves = vec![g];
        let mut upper = f.upper;
        while let Some(u) = upper.take().filter(|u| u.as_slice() <= &hi[..]) {
            match self.tree.try_latch_leaf(&u)? {
                Some((g, f)) => {
                    leaves.push(g);
                    upper = f.upper;
                }
                None => return Ok(Err(u)),
            }
        }
        Ok(Ok(leaves))
    }

    /// Applies every change buffered for the leaf in `page` (exclusively
    /// latched by its reader, not yet handed out), and removes them, in
    /// one mini-transaction. Everything that can fail is checked first.
    pub(crate) fn merge_into(&self, page: &mut ExclusiveGuard<'_>) -> Result<()> {
        let id = page.id();
        let (lo, hi) = (entry::key(id, 0), entry::key(id, u64::MAX));
        let leaves = loop {
            match self.latch_entries_of(id)? {
                Ok(l) => break l,
                // Not resident, or latched: wait for it with nothing held.
                Err(key) => drop(self.tree.latch_leaf(&key)?),
            }
        };
        // (leaf, position) of each entry, in order.
        let mut found: Vec<(usize, usize)> = Vec::new();
        // (leaf, its first entry's key): a key in the leaf's range.
        let mut probes: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut need = 0;
        let mut bytes = 0;
        for (li, g) in leaves.iter().enumerate() {
            let p = g.data();
            let corrupt = |e: node::Inconsistent| Error::corruption(g.id(), e.0);
            let (start, _) = node::lower_bound(p, &lo).map_err(corrupt)?;
            for pos in start..node::count(p) {
                let (ko, kl, vo, vl, _) = node::record(p, pos).map_err(corrupt)?;
                if p[ko..ko + kl] > hi[..] {
                    break;
                }
                let c = entry::decode(&p[vo..vo + vl])
                    .ok_or_else(|| Error::corruption(g.id(), "an undecodable change buffer entry"))?;
                if c.index_id != node::index_id(page.data()) || !node::is_leaf(page.data()) {
                    return Err(Error::corruption(
                        id,
                        format!("a change buffered for index {} but the page is not its leaf", c.index_id),
                    ));
                }
                if c.op == Op::Insert {
                    need += node::entry_size(c.key.len(), c.val.len());
                }
                bytes += node::entry_size(kl, vl);
                if probes.last().is_none_or(|(l, _)| *l != li) {
                    probes.push((li, p[ko..ko + kl].to_vec()));
                }
                found.push((li, pos));
            }
        }
        if need > node::room(page.data()) {
            return Err(Error::corruption(id, "the changes buffered for this page do not fit in it"));
        }
        let mut mtr = Mtr::new(self.tree.pool());
        let (mut ins, mut rem) = (0, 0);
        for &(li, pos) in &found {
            let p = leaves[li].data();
            let (_, _, vo, vl, _) = node::record(p, pos).expect("checked above");
            let c = entry::decode(&p[vo..vo + vl]).expect("checked above");
            let (at, present) = node::lower_bound(page.data(), c.key).map_err(|e| Error::corruption(id, e.0))?;
            match (c.op, present) {
                (Op::Insert, false) => {
                    mtr.node_insert(page, at, c.key, c.val, false);
                    ins += 1;
                }
                (Op::Remove, true) => {
                    mtr.node_remove(page, at);
                    rem += 1;
                }
                _ => {}
            }
        }
        let mut leaves = leaves;
        for (li, g) in leaves.iter_mut().enumerate() {
            for &(_, pos) in found.iter().rev().filter(|(l, _)| *l == li) {
                mtr.node_remove(g, pos);
            }
            if let Some((_, k)) = probes.iter().find(|(l, _)| *l == li) {
                self.note_if_thin(g, k);
            }
        }
        for g in leaves {
            mtr.keep(g);
        }
        mtr.commit_keeping(page);
        self.removed(found.len() as u64, bytes as u64);
        self.stats.merged_inserts.add(ins);
        self.stats.merged_removes.add(rem);
        self.stats.merges.inc();
        Ok(())
    }

    /// Remembers a change-buffer leaf that removals left underfull (not the
    /// root), by `key`, one in its range, for [`ChangeBuffer::join_thin`].
    /// A bounded list: a leaf left out is noted again by a later removal.
    fn note_if_thin(&self, g: &ExclusiveGuard<'_>, key: &[u8]) {
        if g.id() == self.tree.root() || !self.tree.is_underfull(g.data()) {
            return;
        }
        let mut thin = self.thin.lock();
        if thin.len() < 1024 {
            thin.push(key.to_vec());
        }
    }

    /// Joins the leaves merges left underfull with a neighbour (best
    /// effort: a failure is logged).
    fn join_thin(&self) {
        let keys = std::mem::take(&mut *self.thin.lock());
        for k in keys {
            self.tree.after_commit(self.tree.try_merge(&k, 0));
        }
    }

    /// Removes every change buffered for a tablespace being dropped.
    pub(crate) fn drop_space(&self, space: SpaceId) -> Result<()> {
        let _dropping = self.dropping.lock();
        let mut from = entry::key(PageId::new(space, 0), 0).to_vec();
        loop {
            let (mut g, f) = self.tree.latch_leaf(&from)?;
            let gid = g.id();
            let corrupt = |e: node::Inconsistent| Error::corruption(gid, e.0);
            let p = g.data();
            let (start, _) = node::lower_bound(p, &from).map_err(corrupt)?;
            let mut end = start;
            let mut bytes = 0;
            let mut inserts = 0;
            while end < node::count(p) {
                let (ko, kl, vo, vl, _) = node::record(p, end).map_err(corrupt)?;
                if p[ko..ko + kl].get(..4) != Some(&space.to_be_bytes()[..]) {
                    break;
                }
                bytes += node::entry_size(kl, vl);
                inserts += u64::from(p.get(vo) == Some(&(Op::Insert as u8)));
                end += 1;
            }
            if end > start {
                let mut mtr = Mtr::new(self.tree.pool());
                for pos in (start..end).rev() {
                    mtr.node_remove(&mut g, pos);
                }
                self.note_if_thin(&g, &from);
                mtr.keep(g);
                mtr.commit();
                self.removed((end - start) as u64, bytes as u64);
                self.stats.discarded_inserts.add(inserts);
                self.stats.discarded_removes.add((end - start) as u64 - inserts);
            } else {
                drop(g);
            }
            match f.upper {
                Some(u) if u.get(..4).is_some_and(|s| s <= &space.to_be_bytes()[..]) => from = u,
                _ => break,
            }
        }
        self.tree.pool().pending.drop_space(space);
        Ok(())
    }

    // ---- background merge ------------------------------------------------

    /// Starts the thread that merges a few pages a second (InnoDB's master
    /// thread merges 5 % of `innodb_io_capacity` pages a second).
    pub(crate) fn start_merger(self: &Arc<Self>) -> Result<()> {
        let me = Arc::downgrade(self);
        let h = std::thread::Builder::new()
            .name("ibuf-merge".into())
            .spawn(move || {
                crate::sync::priority::raise_background_priority();
                let mut start = 0;
                while let Some(cb) = me.upgrade() {
                    if cb.stopping.load(Ordering::Acquire) {
                        return;
                    }
                    cb.merge_some(&mut start);
                    let mut g = cb.wake.0.lock();
                    if !cb.stopping.load(Ordering::Acquire) {
                        cb.wake.1.wait_for(&mut g, Duration::from_secs(1));
                    }
                }
            })
            .map_err(|e| Error::io("starting the change buffer merge", e))?;
        *self.merger.lock() = Some(h);
        Ok(())
    }

    pub(crate) fn stop_merger(&self) {
        self.stopping.store(true, Ordering::Release);
        {
            let _g = self.wake.0.lock();
            self.wake.1.notify_all();
        }
        if let Some(h) = self.merger.lock().take() {
            let _ = h.join();
        }
    }

    /// Test hook: holds the background merge back (or lets it go again).
    #[doc(hidden)]
    pub fn pause_background_merge(&self, paused: bool) {
        self.merge_paused.store(paused, Ordering::Relaxed);
    }

    /// One round of the background merge: reads (and so merges) some pages
    /// that have changes waiting.
    fn merge_some(&self, start: &mut usize) {
        if self.merge_paused.load(Ordering::Relaxed) {
            return;
        }
        self.join_thin();
        let pool = self.tree.pool();
        let budget = (pool.tuning.io_capacity.load(Ordering::Relaxed) / 20).max(1) as usize;
        let pages = pool.pending.pages_with_entries(budget, *start);
        *start = start.wrapping_add(1);
        for id in pages {
            if self.stopping.load(Ordering::Acquire) {
                return;
            }
            let _dropping = self.dropping.lock();
            if !pool.pending.has_entries(id) {
                continue; // merged meanwhile, or its space dropped
            }
            if let Err(e) = pool.fix_shared(id) {
                tracing::warn!("change buffer: merging into page {id} failed: {e}");
            }
        }
    }

    /// Merges everything buffered (tests).
    pub fn merge_all(&self) -> Result<()> {
        let pool = self.tree.pool();
        loop {
            let pages = pool.pending.pages_with_entries(1024, 0);
            if pages.is_empty() {
                return Ok(());
            }
            for id in pages {
                drop(pool.fix_shared(id)?);
            }
            self.join_thin();
        }
    }
}
