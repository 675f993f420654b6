//! B+tree writes: insert / update / delete at the leaf, and the structure
//! modifications (split, merge, root growth and shrink) they trigger.

use super::{node, overflow, BTree, Fences, Seek, Step};
use crate::buffer::{ExclusiveGuard, OptGuard, Restart};
use crate::mtr::Mtr;
use crate::page::PageType;
use crate::{space, Error, Result};

/// What a write does when the key exists or not.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PutMode {
    /// Only if absent.
    Insert,
    /// Only if present.
    Update,
    /// Either.
    Upsert,
}

/// What a write found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PutOutcome {
    Inserted,
    Updated,
    /// Insert of an existing key: nothing changed.
    Exists,
    /// Update of a missing key: nothing changed.
    Missing,
}

/// Where a change to a key's leaf can go ([`BTree::latch_leaf_unless_absent`]).
pub(crate) enum LeafFor<'a> {
    /// The leaf, exclusively latched, and the key range it covers.
    Latched(ExclusiveGuard<'a>, Fences),
    /// The leaf is not in the pool: its page, and the parent as read.
    Absent { page: crate::PageId, parent: OptGuard<'a> },
}

/// Whether a page read optimistically is a B+tree leaf of `index_id`.
fn v_is_leaf_of<V: crate::sync::PageView>(v: V, index_id: u32) -> bool {
    v.u16_at(crate::page::FIL_PAGE_TYPE) == PageType::BTreeNode as u16
        && node::level(v) == 0
        && node::index_id(v) == index_id
}

/// A value ready for a leaf: inline bytes or an overflow stub.
pub(crate) struct Prepared {
    pub bytes: Vec<u8>,
    pub external: bool,
}

impl BTree {
    /// Inserts `key` -> `val` if the key is absent; `Ok(false)` if present.
    pub fn insert(&self, key: &[u8], val: &[u8]) -> Result<bool> {
        Ok(self.put(key, val, PutMode::Insert)? == PutOutcome::Inserted)
    }

    /// Replaces the value of an existing key; `Ok(false)` if absent.
    pub fn update(&self, key: &[u8], val: &[u8]) -> Result<bool> {
        Ok(self.put(key, val, PutMode::Update)? == PutOutcome::Updated)
    }

    /// Inserts or replaces.
    pub fn upsert(&self, key: &[u8], val: &[u8]) -> Result<PutOutcome> {
        self.put(key, val, PutMode::Upsert)
    }

    fn check_key(&self, key: &[u8]) -> Result<()> {
        let max = self.max_key_len();
        if key.len() > max {
            return Err(Error::KeyTooLong { len: key.len(), max });
        }
        Ok(())
    }

    pub(crate) fn prepare_value(&self, key: &[u8], val: &[u8]) -> Result<Prepared> {
        if node::entry_size(key.len(), val.len()) <= node::max_entry(self.pool.page_size()) {
            Ok(Prepared { bytes: val.to_vec(), external: false })
        } else {
            let stub = overflow::write_chain(&self.pool, self.space(), val)?;
            Ok(Prepared { bytes: stub.to_vec(), external: true })
        }
    }

    /// Before a write takes any latch: wait while the redo log is too full
    /// (the checkpointer frees it by writing pages, which it could not do
    /// if we held their latches).
    pub(crate) fn log_free_check(&self) -> Result<()> {
        match self.pool.log() {
            Some(log) => log.wait_for_log_space(log.capacity() / 4 * 3),
            None => Ok(()),
        }
    }

    pub fn put(&self, key: &[u8], val: &[u8], mode: PutMode) -> Result<PutOutcome> {
        self.check_key(key)?;
        self.log_free_check()?;
        let value = self.prepare_value(key, val)?;
        let res = self.put_prepared(key, &value, mode);
        let unused = !matches!(res, Ok(PutOutcome::Inserted | PutOutcome::Updated));
        if value.external && unused {
            overflow::free_chain(&self.pool, self.space(), &value.bytes)?;
        }
        res
    }

    fn put_prepared(&self, key: &[u8], value: &Prepared, mode: PutMode) -> Result<PutOutcome> {
        let need = node::entry_size(key.len(), value.bytes.len());
        loop {
            let path = match self.descend(key, 0, Seek::At, None)? {
                Ok(p) => p,
                Err(Restart) => continue,
            };
            let Ok(mut leaf) = path.node.upgrade_exclusive() else { continue };
            let (pos, found) = node::lower_bound(leaf.data(), key).map_err(|e| Error::corruption(leaf.id(), e.0))?;
            match (mode, found) {
                (PutMode::Insert, true) => return Ok(PutOutcome::Exists),
                (PutMode::Update, false) => return Ok(PutOutcome::Missing),
                _ => {}
            }
            if found {
                let mut old = Vec::new();
                let old_ext =
                    node::append_value(leaf.data(), pos, &mut old).map_err(|e| Error::corruption(leaf.id(), e.0))?;
                if node::replace_fits(leaf.data(), pos, value.bytes.len()) {
                    let mut mtr = Mtr::new(&self.pool);
                    mtr.node_replace(&mut leaf, pos, &value.bytes, value.external);
                    mtr.keep(leaf);
                    mtr.commit();
                    if old_ext {
                        self.after_commit(overflow::free_chain(&self.pool, self.space(), &old));
                    }
                    return Ok(PutOutcome::Updated);
                }
                // No room to relocate the record: split and retry.
                drop(leaf);
                self.split_for(key, 0, need)?;
                continue;
            }
            if node::has_room(leaf.data(), need) {
                let mut mtr = Mtr::new(&self.pool);
                mtr.node_insert(&mut leaf, pos, key, &value.bytes, value.external);
                mtr.keep(leaf);
                mtr.commit();
                return Ok(PutOutcome::Inserted);
            }
            drop(leaf);
            self.split_for(key, 0, need)?;
        }
    }

    /// Deletes `key`; `Ok(false)` if absent.
    pub fn remove(&self, key: &[u8]) -> Result<bool> {
        self.log_free_check()?;
        loop {
            let path = match self.descend(key, 0, Seek::At, None)? {
                Ok(p) => p,
                Err(Restart) => continue,
            };
            let has_parent = path.parent.is_some();
            let Ok(mut leaf) = path.node.upgrade_exclusive() else { continue };
            let (pos, found) = node::lower_bound(leaf.data(), key).map_err(|e| Error::corruption(leaf.id(), e.0))?;
            if !found {
                return Ok(false);
            }
            let mut old = Vec::new();
            let ext = node::append_value(leaf.data(), pos, &mut old).map_err(|e| Error::corruption(leaf.id(), e.0))?;
            let mut mtr = Mtr::new(&self.pool);
            mtr.node_remove(&mut leaf, pos);
            let underfull = self.is_underfull(leaf.data());
            mtr.keep(leaf);
            mtr.commit();
            if ext {
                self.after_commit(overflow::free_chain(&self.pool, self.space(), &old));
            }
            if underfull && has_parent {
                self.after_commit(self.try_merge(key, 0));
            }
            return Ok(true);
        }
    }

    /// Housekeeping after a change has committed (freeing an old overflow
    /// chain, merging an underfull node) cannot undo the change: its
    /// failure is logged, not returned. The cost is a page leak or an
    /// unmerged node, both harmless.
    pub(crate) fn after_commit(&self, res: Result<()>) {
        if let Err(e) = res {
            tracing::warn!("index {}: housekeeping after a committed change failed: {e}", self.index_id);
        }
    }

    pub(crate) fn is_underfull(&self, p: &[u8]) -> bool {
        node::used_bytes(p) < node::usable(p.len()) / (100 / super::MERGE_THRESHOLD_PCT as usize)
    }

    /// Gives back pages allocated in `mtr` before anything used them (an
    /// error came between allocating and changing pages), so that the mtr
    /// commits no leak. Returns `err`.
    fn unallocate<'a>(&'a self, mtr: &mut Mtr<'a>, pages: &[u32], err: Error) -> Error {
        for &p in pages {
            if let Err(e) = space::free_page(&self.pool, self.pid(p), mtr) {
                tracing::warn!("could not give back page {p} after {err}: {e}");
            }
        }
        err
    }

    fn root_level(&self) -> Result<u16> {
        let g = self.pool.fix_shared(self.root)?;
        Ok(node::level(g.data()))
    }

    /// The node at `level` on `key`'s path, exclusively latched.
    fn latch_at_level(&self, key: &[u8], level: u16) -> Result<Step<ExclusiveGuard<'_>>> {
        let path = match self.descend(key, level, Seek::At, None)? {
            Ok(p) => p,
            Err(Restart) => return Ok(Err(Restart)),
        };
        if node::level(path.node.view()) != level {
            return Ok(Err(Restart));
        }
        Ok(path.node.upgrade_exclusive())
    }

    // ---- row-level writes across trees -----------------------------------

    /// Latches exclusively the leaf where `key` belongs, and returns the
    /// key range that leaf covers. The range stays valid while the latch is
    /// held (only a split or merge of the leaf changes it, and both need the
    /// latch). Waits for log space first.
    ///
    /// REQUIRES: the caller holds no leaf of this tree whose range contains
    /// `key`, and holds leaves of this tree only for keys below `key` (latch
    /// order: by key within a tree).
    pub(crate) fn latch_leaf(&self, key: &[u8]) -> Result<(ExclusiveGuard<'_>, Fences)> {
        loop {
            let mut fences = Fences::default();
            let path = match self.descend(key, 0, Seek::At, Some(&mut fences))? {
                Ok(p) => p,
                Err(Restart) => continue,
            };
            if let Ok(g) = path.node.upgrade_exclusive() {
                return Ok((g, fences));
            }
        }
    }

    /// Like [`BTree::latch_leaf`], but if the leaf is not in the pool it is
    /// not read: its page number comes back with its parent as read (for
    /// the change buffer, `crate::ibuf`; the parent's validation tells
    /// whether it still points there). A tree whose root is its only leaf
    /// always latches.
    pub(crate) fn latch_leaf_unless_absent(&self, key: &[u8]) -> Result<LeafFor<'_>> {
        loop {
            let mut fences = Fences::default();
            let path = match self.descend(key, 1, Seek::At, Some(&mut fences))? {
                Ok(p) => p,
                Err(Restart) => continue,
            };
            let parent = path.node;
            let v = parent.view();
            if node::level(v) == 0 {
                match parent.upgrade_exclusive() {
                    Ok(g) => return Ok(LeafFor::Latched(g, fences)),
                    Err(Restart) => continue,
                }
            }
            let (child, idx) = match node::child_for(v, key) {
                Ok(c) => c,
                Err(e) => {
                    Self::inconsistent(&parent, e)?;
                    continue;
                }
            };
            if let Err(e) = Self::narrow_fences(v, idx, &mut fences) {
                Self::inconsistent(&parent, e)?;
                continue;
            }
            let page = self.pid(child);
            if parent.validate().is_err() {
                continue;
            }
            if !self.pool.in_page_table(page) {
                return Ok(LeafFor::Absent { page, parent });
            }
            let leaf = match self.pool.fix_optimistic_below(&parent, page) {
                Ok(l) => l,
                Err(e) if parent.validate().is_ok() => return Err(e),
                Err(_) => continue,
            };
            if parent.validate().is_err() {
                continue;
            }
            let lv = leaf.view();
            if v_is_leaf_of(lv, self.index_id) {
                if let Ok(g) = leaf.upgrade_exclusive() {
                    return Ok(LeafFor::Latched(g, fences));
                }
                continue;
            }
            if leaf.validate().is_err() {
                continue;
            }
            return Err(Error::corruption(page, "a level-1 node points at a page that is not a leaf of its index"));
        }
    }

    /// Like [`BTree::latch_leaf`] for a thread that already holds leaves
    /// of this tree below `key`: never waits (a splitter holding a parent
    /// may be waiting for a leaf the caller holds). `None` means the caller
    /// must release its latches and try again.
    pub(crate) fn try_latch_leaf(&self, key: &[u8]) -> Result<Option<(ExclusiveGuard<'_>, Fences)>> {
        for _ in 0..4 {
            let mut fences = Fences::default();
            let path = match self.descend_nowait(key, &mut fences)? {
                Ok(p) => p,
                Err(Restart) => continue,
            };
            if let Ok(g) = path.node.upgrade_exclusive() {
                return Ok(Some((g, fences)));
            }
        }
        Ok(None)
    }

    // ---- split ---------------------------------------------------------

    /// Makes room for an entry of `need` bytes in the node at `level` on
    /// the path of `key`, splitting it (and its ancestors as needed).
    pub(crate) fn split_for(&self, key: &[u8], level: u16, need: usize) -> Result<()> {
        loop {
            let root_level = self.root_level()?;
            if root_level == level {
                let root = self.pool.fix_exclusive(self.root)?;
                if node::level(root.data()) != level {
                    continue;
                }
                if node::has_room(root.data(), need) {
                    return Ok(());
                }
                return self.split_root(root, key);
            }
            if root_level < level {
                // The tree shrank under us: nothing to split.
                return Ok(());
            }
            let Ok(mut parent) = self.latch_at_level(key, level + 1)? else { continue };
            let (child_no, idx) =
                node::child_for(parent.data(), key).map_err(|e| Error::corruption(parent.id(), e.0))?;
            let mut child = self.pool.fix_exclusive(self.pid(child_no))?;
            if node::level(child.data()) != level {
                return Err(Error::corruption(child.id(), "child level does not match its parent"));
            }
            if node::has_room(child.data(), need) {
                return Ok(());
            }
            let pos = node::lower_bound(child.data(), key).map_err(|e| Error::corruption(child.id(), e.0))?.0;
            let at = node::split_point(child.data(), pos);
            let mut sep = Vec::new();
            node::copy_key(child.data(), at, &mut sep).map_err(|e| Error::corruption(child.id(), e.0))?;
            let sep_need = node::entry_size(sep.len(), 4);
            if !node::has_room(parent.data(), sep_need) {
                drop(child);
                drop(parent);
                self.split_for(key, level + 1, sep_need)?;
                continue;
            }
            let mut mtr = Mtr::new(&self.pool);
            let right_no = space::alloc_page(&self.pool, self.space(), &mut mtr)?;
            let mut right = match mtr.create_page(self.pid(right_no)) {
                Ok(g) => g,
                Err(e) => return Err(self.unallocate(&mut mtr, &[right_no], e)),
            };
            self.split_child(&mut mtr, &mut parent, idx, &mut child, &mut right, at, &sep);
            mtr.keep(parent);
            mtr.keep(child);
            mtr.keep(right);
            mtr.commit();
            return Ok(());
        }
    }

    /// Moves entries `[at, n)` of `child` into the fresh page `right` and
    /// links `right` into `parent` after entry `idx`.
    #[allow(clippy::too_many_arguments)]
    fn split_child(
        &self,
        mtr: &mut Mtr<'_>,
        parent: &mut ExclusiveGuard<'_>,
        idx: isize,
        child: &mut ExclusiveGuard<'_>,
        right: &mut ExclusiveGuard<'_>,
        at: usize,
        sep: &[u8],
    ) {
        let level = node::level(child.data());
        let right_id = right.id();
        mtr.node_init(right, level, self.index_id);
        if level == 0 {
            mtr.node_move_upper(child, right, at);
        } else {
            // The separator moves up; its child becomes right's leftmost.
            let c = node::child_at(child.data(), at as isize).expect("latched node is consistent");
            mtr.node_leftmost(right, c);
            mtr.node_move_upper(child, right, at + 1);
            mtr.node_truncate(child, at);
        }
        mtr.node_insert(parent, (idx + 1) as usize, sep, &right_id.page_no.to_le_bytes(), false);
    }

    /// Grows the tree by one level: the root's contents move to a new child,
    /// which is then split with the root as its parent.
    fn split_root<'a>(&'a self, mut root: ExclusiveGuard<'a>, key: &[u8]) -> Result<()> {
        let mut mtr = Mtr::new(&self.pool);
        let left_no = space::alloc_page(&self.pool, self.space(), &mut mtr)?;
        let right_no = space::alloc_page(&self.pool, self.space(), &mut mtr)?;
        let (mut left, mut right) =
            match mtr.create_page(self.pid(left_no)).and_then(|l| Ok((l, mtr.create_page(self.pid(right_no))?))) {
                Ok(pair) => pair,
                Err(e) => return Err(self.unallocate(&mut mtr, &[left_no, right_no], e)),
            };
        let level = node::level(root.data());
        // left := root's contents.
        mtr.init_header(&mut left, PageType::BTreeNode);
        mtr.copy_body(&mut left, root.data());
        mtr.node_init(&mut root, level + 1, self.index_id);
        mtr.node_leftmost(&mut root, left_no);
        let pos = node::lower_bound(left.data(), key).map_err(|e| Error::corruption(left.id(), e.0))?.0;
        let at = node::split_point(left.data(), pos);
        let mut sep = Vec::new();
        node::copy_key(left.data(), at, &mut sep).map_err(|e| Error::corruption(left.id(), e.0))?;
        self.split_child(&mut mtr, &mut root, -1, &mut left, &mut right, at, &sep);
        mtr.keep(root);
        mtr.keep(left);
        mtr.keep(right);
        mtr.commit();
        Ok(())
    }

    // ---- merge ---------------------------------------------------------

    /// Merges the underfull node at `level` on `key`'s path with a sibling
    /// if the two fit in one page; then looks at the parent.
    pub(crate) fn try_merge(&self, key: &[u8], level: u16) -> Result<()> {
        loop {
            if self.root_level()? <= level {
                return Ok(());
            }
            let Ok(mut parent) = self.latch_at_level(key, level + 1)? else { continue };
            let pid = parent.id();
            let corrupt = |e: node::Inconsistent| Error::corruption(pid, e.0);
            let n = node::count(parent.data()) as isize;
            let (_, idx) = node::child_for(parent.data(), key).map_err(corrupt)?;
            let (li, ri) = if idx + 1 < n {
                (idx, idx + 1)
            } else if idx >= 0 {
                (idx - 1, idx)
            } else {
                return Ok(()); // an only child: the root shrink handles it
            };
            let left_no = node::child_at(parent.data(), li).map_err(corrupt)?;
            let right_no = node::child_at(parent.data(), ri).map_err(corrupt)?;
            let mut left = self.pool.fix_exclusive(self.pid(left_no))?;
            let mut right = self.pool.fix_exclusive(self.pid(right_no))?;
            if node::level(left.data()) != level || node::level(right.data()) != level {
                return Err(Error::corruption(pid, "children at the wrong level"));
            }
            if !self.is_underfull(left.data()) && !self.is_underfull(right.data()) {
                return Ok(());
            }
            let mut sep = Vec::new();
            node::copy_key(parent.data(), ri as usize, &mut sep).map_err(corrupt)?;
            let extra = if level == 0 { 0 } else { node::entry_size(sep.len(), 4) };
            let ps = self.pool.page_size();
            let combined = node::used_bytes(left.data()) + node::used_bytes(right.data()) + extra;
            if combined > node::usable(ps) - node::max_entry(ps) {
                // Too full to merge. An empty leaf still goes away: its
                // range is absorbed by its neighbour.
                let (lc, rc) = (node::count(left.data()), node::count(right.data()));
                if level > 0 || (lc > 0 && rc > 0) {
                    return Ok(());
                }
                let mut mtr = Mtr::new(&self.pool);
                let victim = if rc == 0 { &mut right } else { &mut left };
                space::free_page(&self.pool, victim.id(), &mut mtr)?;
                mtr.page_free(victim);
                if rc == 0 {
                    mtr.node_remove(&mut parent, ri as usize);
                } else if li < 0 {
                    mtr.node_leftmost(&mut parent, right_no);
                    mtr.node_remove(&mut parent, ri as usize);
                } else {
                    mtr.node_remove(&mut parent, li as usize);
                }
                let parent_is_root = parent.id() == self.root;
                let parent_empty = node::count(parent.data()) == 0;
                let parent_underfull = self.is_underfull(parent.data());
                mtr.keep(parent);
                mtr.keep(left);
                mtr.keep(right);
                mtr.commit();
                return self.after_merge(key, level, parent_is_root, parent_empty, parent_underfull);
            }
            let mut mtr = Mtr::new(&self.pool);
            space::free_page(&self.pool, right.id(), &mut mtr)?;
            if level > 0 {
                let c = node::leftmost(right.data());
                let at = node::count(left.data());
                mtr.node_insert(&mut left, at, &sep, &c.to_le_bytes(), false);
            }
            mtr.node_append_from(&mut left, right.data(), 0);
            mtr.node_remove(&mut parent, ri as usize);
            mtr.page_free(&mut right);
            let parent_is_root = parent.id() == self.root;
            let parent_empty = node::count(parent.data()) == 0;
            let parent_underfull = self.is_underfull(parent.data());
            mtr.keep(parent);
            mtr.keep(left);
            mtr.keep(right);
            mtr.commit();
            return self.after_merge(key, level, parent_is_root, parent_empty, parent_underfull);
        }
    }

    /// After a node left the tree: shrink the root or merge the parent.
    fn after_merge(&self, key: &[u8], level: u16, parent_is_root: bool, empty: bool, underfull: bool) -> Result<()> {
        if parent_is_root {
            if empty {
                self.shrink_root()?;
            }
        } else if underfull {
            self.try_merge(key, level + 1)?;
        }
        Ok(())
    }

    /// A root with no separator and one child absorbs that child.
    fn shrink_root(&self) -> Result<()> {
        let mut root = self.pool.fix_exclusive(self.root)?;
        if node::level(root.data()) == 0 || node::count(root.data()) != 0 {
            return Ok(());
        }
        let child_no = node::leftmost(root.data());
        let mut child = self.pool.fix_exclusive(self.pid(child_no))?;
        let mut mtr = Mtr::new(&self.pool);
        space::free_page(&self.pool, child.id(), &mut mtr)?;
        mtr.copy_body(&mut root, child.data());
        mtr.page_free(&mut child);
        mtr.keep(root);
        mtr.keep(child);
        mtr.commit();
        Ok(())
    }
}
