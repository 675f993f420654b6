//! B+trees over variable-length byte keys and values: the clustered index
//! (primary key -> row) and secondary indexes (secondary key + primary key)
//! are both this one structure. Keys compare as bytes; the row layer makes
//! them memcomparable.
//!
//! Concurrency: optimistic lock coupling (Leis et al.; LeanStore).
//! - Readers descend with optimistic guards: read a node, pick the child,
//!   fix the child, then validate the parent. Nothing is written to any
//!   shared cache line, and readers never block readers.
//! - Writers descend the same way and take the exclusive latch on the leaf
//!   only (upgrading the optimistic read, which fails if the leaf changed).
//! - A full node is split by a separate structure modification: latch the
//!   parent, then the child, exclusively (top-down), split, and retry the
//!   write. A full parent is split first, recursively. Merges latch the
//!   parent, then the two siblings left to right.
//! - Any inconsistency seen optimistically (a validation failure, or a page
//!   that reads as garbage and then fails validation) restarts the operation
//!   from the root. Garbage that *passes* validation is corruption.
//!
//! The root page never moves: a root split moves the root's contents into a
//! new child, and a root with a single child absorbs it.

pub mod ahi;
pub mod cursor;
pub mod estimate;
pub mod node;
pub mod overflow;
pub(crate) mod write;

use std::sync::Arc;

use crate::buffer::{BufferPool, FrameHint, OptGuard, Restart};
use crate::mtr::Mtr;
use crate::page::{self, PageType};
use crate::sync::PageView;
use crate::{space, Error, PageId, Result};

pub use cursor::{Cursor, Direction};
use node::Inconsistent;

/// A node holding less than this percentage of its usable bytes after a
/// delete is merged with a sibling when the two fit in one page (InnoDB's
/// MERGE_THRESHOLD, information_schema.INNODB_INDEXES; InnoDB's default
/// is 50). A divisor of 100.
pub const MERGE_THRESHOLD_PCT: u32 = 25;

/// A B+tree whose root is at a fixed page. Cheap to clone (an `Arc`).
#[derive(Clone)]
pub struct BTree {
    pool: Arc<BufferPool>,
    root: PageId,
    index_id: u32,
    /// Where the root's frame was last seen.
    root_hint: FrameHint,
    /// `innodb_force_recovery`: scans skip the key range of a damaged
    /// page (logged) instead of failing.
    salvage: bool,
}

/// How to choose a child at each inner node.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seek {
    /// The child whose range contains the key.
    At,
    /// The child holding the greatest key strictly below the key.
    Before,
    /// The rightmost child.
    Last,
}

/// Key range of the node a descent reached: `None` is unbounded.
#[derive(Default)]
pub(crate) struct Fences {
    pub lower: Option<Vec<u8>>,
    pub upper: Option<Vec<u8>>,
}

impl Fences {
    /// Whether `key` lies in [lower, upper).
    pub fn contains(&self, key: &[u8]) -> bool {
        self.lower.as_deref().is_none_or(|l| key >= l) && self.upper.as_deref().is_none_or(|u| key < u)
    }
}

/// Where an optimistic descent ended.
pub(crate) struct Path<'a> {
    pub node: OptGuard<'a>,
    /// The parent and the index of the entry that led to `node`.
    pub parent: Option<(OptGuard<'a>, isize)>,
}

pub(crate) type Step<T> = std::result::Result<T, Restart>;

impl BTree {
    /// Creates an empty tree in `space_id`, allocating its root.
    pub fn create(pool: &Arc<BufferPool>, space_id: u32, index_id: u32) -> Result<Self> {
        let mut mtr = Mtr::new(pool);
        let page_no = space::alloc_page(pool, space_id, &mut mtr)?;
        let id = PageId::new(space_id, page_no);
        let mut g = mtr.create_page(id)?;
        mtr.node_init(&mut g, 0, index_id);
        mtr.keep(g);
        mtr.commit();
        Ok(Self { pool: pool.clone(), root: id, index_id, root_hint: FrameHint::default(), salvage: false })
    }

    /// Opens the tree rooted at `root`.
    pub fn open(pool: &Arc<BufferPool>, root: PageId, index_id: u32) -> Result<Self> {
        let g = pool.fix_shared(root)?;
        if page::page_type(g.data()) != Some(PageType::BTreeNode) {
            return Err(Error::corruption(root, "index root is not a B+tree node"));
        }
        if node::index_id(g.data()) != index_id {
            return Err(Error::corruption(root, format!("root belongs to index {}", node::index_id(g.data()))));
        }
        drop(g);
        Ok(Self { pool: pool.clone(), root, index_id, root_hint: FrameHint::default(), salvage: false })
    }

    /// This tree with salvaging scans (see `salvage`).
    pub(crate) fn salvaging(mut self) -> Self {
        self.salvage = true;
        self
    }

    pub fn root(&self) -> PageId {
        self.root
    }

    pub fn index_id(&self) -> u32 {
        self.index_id
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// The largest key this tree accepts.
    pub fn max_key_len(&self) -> usize {
        node::max_key_len(self.pool.page_size())
    }

    pub(crate) fn space(&self) -> u32 {
        self.root.space
    }

    fn pid(&self, page_no: u32) -> PageId {
        PageId::new(self.root.space, page_no)
    }

    /// Turns an inconsistency seen through `g` into a restart (if `g` no
    /// longer validates) or a corruption error.
    fn inconsistent(g: &OptGuard<'_>, e: Inconsistent) -> Result<Restart> {
        match g.validate() {
            Err(Restart) => Ok(Restart),
            Ok(()) => Err(Error::corruption(g.id(), e.0)),
        }
    }

    /// Descends optimistically to the node at `level` on the path of `key`.
    pub(crate) fn descend(
        &self,
        key: &[u8],
        level: u16,
        seek: Seek,
        fences: Option<&mut Fences>,
    ) -> Result<Step<Path<'_>>> {
        self.descend_impl(key, level, seek, fences, false)
    }

    /// Like [`BTree::descend`], but a node that is exclusively latched or
    /// not resident ends the descent with `Restart` instead of a wait: for
    /// a thread that already holds a leaf of this tree, which must not wait
    /// behind a splitter that may be waiting for that leaf.
    pub(crate) fn descend_nowait(&self, key: &[u8], fences: &mut Fences) -> Result<Step<Path<'_>>> {
        self.descend_impl(key, 0, Seek::At, Some(fences), true)
    }

    fn descend_impl(
        &self,
        key: &[u8],
        level: u16,
        seek: Seek,
        mut fences: Option<&mut Fences>,
        nowait: bool,
    ) -> Result<Step<Path<'_>>> {
        let mut node = if nowait {
            match self.pool.fix_optimistic_try(self.root) {
                Some(n) => n,
                None => return Ok(Err(Restart)),
            }
        } else {
            self.pool.fix_optimistic_hinted(self.root, &self.root_hint)?
        };
        let mut parent: Option<(OptGuard<'_>, isize)> = None;
        let mut expect: Option<u16> = None;
        loop {
            let v = node.view();
            let lvl = node::level(v);
            if v.u16_at(page::FIL_PAGE_TYPE) != PageType::BTreeNode as u16
                || expect.is_some_and(|e| e != lvl)
                || node::index_id(v) != self.index_id
            {
                // Either we raced with a change of the node or its parent, or
                // a validated parent points at a wrong page: corruption.
                if node.validate().is_err() || parent.as_ref().is_some_and(|(p, _)| p.validate().is_err()) {
                    return Ok(Err(Restart));
                }
                return Err(Error::corruption(node.id(), "unexpected node on the B+tree path"));
            }
            if lvl <= level {
                if node.validate().is_err() {
                    return Ok(Err(Restart));
                }
                return Ok(Ok(Path { node, parent }));
            }
            let pick = match seek {
                Seek::At => node::child_for(v, key),
                Seek::Before => node::child_before(v, key),
                Seek::Last => {
                    let n = node::count(v) as isize;
                    node::child_at(v, n - 1).map(|c| (c, n - 1))
                }
            };
            let (child, idx) = match pick {
                Ok(c) => c,
                Err(e) => return Ok(Err(Self::inconsistent(&node, e)?)),
            };
            if let Some(f) = fences.as_deref_mut() {
                if let Err(e) = Self::narrow_fences(v, idx, f) {
                    return Ok(Err(Self::inconsistent(&node, e)?));
                }
            }
            let fixed = if nowait {
                match self.pool.fix_optimistic_try(self.pid(child)) {
                    Some(c) => Ok(c),
                    None => return Ok(Err(Restart)),
                }
            } else {
                self.pool.fix_optimistic_below(&node, self.pid(child))
            };
            let c = match fixed {
                Ok(c) => c,
                Err(e) => {
                    // A stale parent may point anywhere.
                    if node.validate().is_err() {
                        return Ok(Err(Restart));
                    }
                    return Err(e);
                }
            };
            if node.validate().is_err() {
                return Ok(Err(Restart));
            }
            expect = Some(lvl - 1);
            parent = Some((node, idx));
            node = c;
        }
    }

    fn narrow_fences<V: PageView>(v: V, idx: isize, f: &mut Fences) -> node::NResult<()> {
        let n = node::count(v) as isize;
        if idx >= 0 {
            let mut k = Vec::new();
            node::copy_key(v, idx as usize, &mut k)?;
            f.lower = Some(k);
        }
        if idx + 1 < n {
            let mut k = Vec::new();
            node::copy_key(v, (idx + 1) as usize, &mut k)?;
            f.upper = Some(k);
        }
        Ok(())
    }

    /// Point lookup: copies the value of `key` into `out` (cleared first).
    pub fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let ahi = self.pool.adaptive_hash.is_on();
        if ahi && self.get_hashed(key, out) {
            return Ok(true);
        }
        loop {
            let leaf = match self.descend(key, 0, Seek::At, None)? {
                Ok(p) => p.node,
                Err(Restart) => continue,
            };
            let v = leaf.view();
            let (pos, found) = match node::lower_bound(v, key) {
                Ok(r) => r,
                Err(e) => {
                    Self::inconsistent(&leaf, e)?;
                    continue;
                }
            };
            if !found {
                if leaf.validate().is_err() {
                    continue;
                }
                return Ok(false);
            }
            out.clear();
            let ext = match node::append_value(v, pos, out) {
                Ok(x) => x,
                Err(e) => {
                    Self::inconsistent(&leaf, e)?;
                    continue;
                }
            };
            if leaf.validate().is_err() {
                continue;
            }
            if ahi && !ext {
                self.ahi_remember(key, &leaf, pos);
            }
            if ext {
                let Ok(s) = leaf.upgrade_shared() else { continue };
                let (pos, found) = node::lower_bound(s.data(), key).map_err(|e| Error::corruption(s.id(), e.0))?;
                if !found {
                    return Ok(false);
                }
                let mut stub = Vec::new();
                node::append_value(s.data(), pos, &mut stub).map_err(|e| Error::corruption(s.id(), e.0))?;
                out.clear();
                overflow::read_chain(&self.pool, self.space(), &stub, out)?;
            }
            return Ok(true);
        }
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &[u8]) -> Result<bool> {
        loop {
            let leaf = match self.descend(key, 0, Seek::At, None)? {
                Ok(p) => p.node,
                Err(Restart) => continue,
            };
            let r = node::lower_bound(leaf.view(), key);
            match r {
                Ok((_, found)) if leaf.validate().is_ok() => return Ok(found),
                Ok(_) => continue,
                Err(e) => {
                    Self::inconsistent(&leaf, e)?;
                }
            }
        }
    }

    /// The first key at or after `from` (`Some(None)`: there is none), read
    /// without waiting for any latch; `None` if that would have meant
    /// waiting (see [`BTree::descend_nowait`]).
    pub(crate) fn try_first_key_from(&self, from: &[u8]) -> Result<Option<Option<Vec<u8>>>> {
        let mut from = from.to_vec();
        for _ in 0..64 {
            let mut fences = Fences::default();
            let leaf = match self.descend_nowait(&from, &mut fences)? {
                Ok(p) => p.node,
                Err(Restart) => return Ok(None),
            };
            let v = leaf.view();
            let found = node::lower_bound(v, &from).and_then(|(pos, _)| {
                if pos < node::count(v) {
                    let mut k = Vec::new();
                    node::copy_key(v, pos, &mut k).map(|_| Some(k))
                } else {
                    Ok(None)
                }
            });
            if leaf.validate().is_err() {
                return Ok(None);
            }
            match found {
                Ok(Some(k)) => return Ok(Some(Some(k))),
                Ok(None) => match fences.upper {
                    None => return Ok(Some(None)),
                    Some(u) => from = u, // an empty leaf: look further
                },
                Err(e) => return Err(Error::corruption(leaf.id(), e.0)),
            }
        }
        Ok(None)
    }

    /// A cursor over `[lower, upper]` bounds in the given direction.
    pub fn range(&self, lower: std::ops::Bound<&[u8]>, upper: std::ops::Bound<&[u8]>, dir: Direction) -> Cursor {
        Cursor::new(self.clone(), lower, upper, dir)
    }

    /// Walks the whole tree under shared latches, checking every node's
    /// invariants, key order across nodes, and levels. Returns
    /// (entries, pages). For tests and `CHECK TABLE`.
    pub fn verify(&self) -> Result<(u64, u64)> {
        let mut entries = 0;
        let mut pages = 0;
        let root = self.pool.fix_shared(self.root)?;
        let level = node::level(root.data());
        drop(root);
        self.verify_node(self.root.page_no, level, None, None, &mut entries, &mut pages)?;
        Ok((entries, pages))
    }

    fn verify_node(
        &self,
        page_no: u32,
        level: u16,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
        entries: &mut u64,
        pages: &mut u64,
    ) -> Result<()> {
        let id = self.pid(page_no);
        let g = self.pool.fix_shared(id)?;
        let p = g.data();
        node::check(p).map_err(|e| Error::corruption(id, e.0))?;
        if node::level(p) != level {
            return Err(Error::corruption(id, format!("level {} where {level} expected", node::level(p))));
        }
        if node::index_id(p) != self.index_id {
            return Err(Error::corruption(
                id,
                format!("node of index {} in index {}", node::index_id(p), self.index_id),
            ));
        }
        *pages += 1;
        let n = node::count(p);
        let mut keys = Vec::with_capacity(n);
        for i in 0..n {
            let mut k = Vec::new();
            node::copy_key(p, i, &mut k).map_err(|e| Error::corruption(id, e.0))?;
            if lower.is_some_and(|l| k.as_slice() < l) || upper.is_some_and(|u| k.as_slice() >= u) {
                return Err(Error::corruption(id, "key outside the node's fences"));
            }
            keys.push(k);
        }
        if level == 0 {
            *entries += n as u64;
            return Ok(());
        }
        let children: Vec<u32> = (-1..n as isize)
            .map(|i| node::child_at(p, i).map_err(|e| Error::corruption(id, e.0)))
            .collect::<Result<_>>()?;
        drop(g);
        for (j, child) in children.into_iter().enumerate() {
            let lo = if j == 0 { lower } else { Some(keys[j - 1].as_slice()) };
            let hi = if j < n { Some(keys[j].as_slice()) } else { upper };
            self.verify_node(child, level - 1, lo, hi, entries, pages)?;
        }
        Ok(())
    }

    /// Frees every page of the tree (DROP INDEX). REQUIRES: no concurrent use.
    pub fn destroy(self) -> Result<()> {
        let root = self.root;
        self.free_subtree(root.page_no, true)
    }

    fn free_subtree(&self, page_no: u32, is_root: bool) -> Result<()> {
        let id = self.pid(page_no);
        let g = self.pool.fix_shared(id)?;
        let p = g.data();
        let mut children = Vec::new();
        let mut stubs = Vec::new();
        if node::is_leaf(p) {
            for i in 0..node::count(p) {
                let mut v = Vec::new();
                if node::append_value(p, i, &mut v).map_err(|e| Error::corruption(id, e.0))? {
                    stubs.push(v);
                }
            }
        } else {
            for i in -1..node::count(p) as isize {
                children.push(node::child_at(p, i).map_err(|e| Error::corruption(id, e.0))?);
            }
        }
        drop(g);
        for c in children {
            self.free_subtree(c, false)?;
        }
        for s in stubs {
            overflow::free_chain(&self.pool, self.space(), &s)?;
        }
        let _ = is_root;
        let mut mtr = Mtr::new(&self.pool);
        let mut g = self.pool.fix_exclusive(id)?;
        space::free_page(&self.pool, id, &mut mtr)?;
        mtr.page_free(&mut g);
        mtr.keep(g);
        mtr.commit();
        Ok(())
    }
}
