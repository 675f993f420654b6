//! Estimates over a B+tree for the optimizer's statistics: the tree's
//! shape (levels, leaf and total pages), a sample of leaf pages' keys, and
//! the number of entries between two keys.
//!
//! Everything here reads nodes under shared latches taken one at a time
//! (no latch coupling): a concurrent split or merge can make a descent
//! land on a stale page, which is checked (page type, index id, level)
//! and retried a bounded number of times. Estimates may therefore be
//! slightly off under concurrent change, never wrong in kind, and never
//! block a writer for longer than one page copy.
//!
//! Entries are counted as stored: delete-marked records and secondary
//! entries purge has not removed yet are included (InnoDB's sampling sees
//! them too).

use std::ops::Bound;

use super::{node, BTree, Direction};
use crate::page::{self, PageType};
use crate::{Error, Result};

/// How many times a sampling descent that met a moving page is retried.
const RETRIES: usize = 8;

/// Page counts of one tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeShape {
    /// Levels above the leaves (0: the root is a leaf).
    pub height: u16,
    pub leaf_pages: u64,
    /// Leaves and inner nodes (overflow pages are not counted).
    pub total_pages: u64,
}

/// Keys of sampled leaves.
pub struct LeafSample {
    /// Each sampled leaf's keys, in key order. When `exhaustive`, one
    /// element holding every key of the tree in order.
    pub leaves: Vec<Vec<Vec<u8>>>,
    /// Every leaf was read (the tree had no more leaves than asked for).
    pub exhaustive: bool,
    pub shape: TreeShape,
}

/// A node read under a shared latch: its level, and its child pointers
/// (inner) or keys (leaf).
enum Read {
    Inner { level: u16, children: Vec<u32> },
    Leaf { keys: Vec<Vec<u8>> },
}

/// A small xorshift generator: sampling needs spread, not quality.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

impl BTree {
    /// Reads node `page_no` of this tree; `None` if it is no longer one of
    /// its nodes at `expect` level (a concurrent change moved it).
    fn read_node(&self, page_no: u32, expect: Option<u16>, want_keys: bool) -> Result<Option<Read>> {
        let id = self.pid(page_no);
        let g = self.pool.fix_shared(id)?;
        let p = g.data();
        if page::page_type(p) != Some(PageType::BTreeNode)
            || node::index_id(p) != self.index_id
            || expect.is_some_and(|l| l != node::level(p))
        {
            return Ok(None);
        }
        let corrupt = |e: node::Inconsistent| Error::corruption(id, e.0);
        let level = node::level(p);
        let n = node::count(p);
        if level == 0 {
            let mut keys = Vec::new();
            if want_keys {
                keys.reserve(n);
                for i in 0..n {
                    let mut k = Vec::new();
                    node::copy_key(p, i, &mut k).map_err(corrupt)?;
                    keys.push(k);
                }
            }
            return Ok(Some(Read::Leaf { keys }));
        }
        let children = (-1..n as isize).map(|i| node::child_at(p, i).map_err(corrupt)).collect::<Result<_>>()?;
        Ok(Some(Read::Inner { level, children }))
    }

    /// The tree's levels and page counts, from its inner nodes (leaves are
    /// counted from their parents' pointers, not read).
    pub fn shape(&self) -> Result<TreeShape> {
        for attempt in 0..RETRIES {
            if let Some(s) = self.try_shape(attempt + 1 == RETRIES)? {
                return Ok(s);
            }
        }
        Ok(TreeShape { height: 0, leaf_pages: 1, total_pages: 1 })
    }

    /// `tolerant`: a page that moved is left out instead of restarting.
    fn try_shape(&self, tolerant: bool) -> Result<Option<TreeShape>> {
        let (height, mut frontier) = match self.read_node(self.root.page_no, None, false)? {
            Some(Read::Leaf { .. }) => return Ok(Some(TreeShape { height: 0, leaf_pages: 1, total_pages: 1 })),
            Some(Read::Inner { level, children }) => (level, children),
            None => return Ok(None),
        };
        let mut total = 1u64;
        for level in (1..height).rev() {
            let mut next = Vec::new();
            for c in frontier {
                match self.read_node(c, Some(level), false)? {
                    Some(Read::Inner { children, .. }) => next.extend(children),
                    _ if tolerant => continue,
                    _ => return Ok(None),
                }
                total += 1;
            }
            frontier = next;
        }
        let leaves = frontier.len() as u64;
        Ok(Some(TreeShape { height, leaf_pages: leaves, total_pages: total + leaves }))
    }

    /// The keys of `n_pages` leaves picked by random descents from the
    /// root (InnoDB's `btr_cur_open_at_rnd_pos`), or of every leaf, read
    /// in one ordered scan, when the tree has no more than `n_pages`.
    pub fn sample_leaves(&self, n_pages: usize, seed: u64) -> Result<LeafSample> {
        let shape = self.shape()?;
        if shape.leaf_pages <= n_pages as u64 {
            let mut all = Vec::new();
            let mut c = self.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
            while let Some((k, _)) = c.next()? {
                all.push(k.to_vec());
            }
            return Ok(LeafSample { leaves: vec![all], exhaustive: true, shape });
        }
        let mut rng = Rng::new(seed);
        let mut leaves = Vec::with_capacity(n_pages);
        for _ in 0..n_pages {
            if let Some(keys) = self.random_leaf(&mut rng)? {
                leaves.push(keys);
            }
        }
        Ok(LeafSample { leaves, exhaustive: false, shape })
    }

    fn random_leaf(&self, rng: &mut Rng) -> Result<Option<Vec<Vec<u8>>>> {
        'retry: for _ in 0..RETRIES {
            let mut page_no = self.root.page_no;
            let mut expect = None;
            loop {
                match self.read_node(page_no, expect, true)? {
                    Some(Read::Leaf { keys }) => return Ok(Some(keys)),
                    Some(Read::Inner { level, children }) => {
                        page_no = children[rng.below(children.len())];
                        expect = Some(level - 1);
                    }
                    None => continue 'retry,
                }
            }
        }
        Ok(None)
    }

    /// Estimated entries with keys in [`lower`, `upper`] (InnoDB's
    /// `btr_estimate_n_rows_in_range`): the tree is descended to each end.
    /// Both ends in one leaf: the entries between them, exactly. Else each
    /// end's position is taken as a fraction of the key space (its index
    /// among its node's children at every level, then among the leaf's
    /// entries), and the difference scales the tree's entries, estimated
    /// as the product of the fan-outs met on the way down.
    /// `None`: the tree changed under every attempt.
    pub fn estimate_range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Result<Option<u64>> {
        for _ in 0..RETRIES {
            let (Some(lo), Some(hi)) = (self.position(lower, true)?, self.position(upper, false)?) else {
                continue;
            };
            if lo.leaf == hi.leaf {
                return Ok(Some(hi.index.saturating_sub(lo.index) as u64));
            }
            let entries = (lo.fanout_product + hi.fanout_product) / 2.0;
            return Ok(Some(((hi.fraction - lo.fraction).max(0.0) * entries).round() as u64));
        }
        Ok(None)
    }

    /// Where `bound` falls: descends along it, keeping the fraction of
    /// the key space before it. `low`: it starts a range (its key is
    /// inside unless excluded); else it ends one. `None`: a page moved.
    fn position(&self, bound: Bound<&[u8]>, low: bool) -> Result<Option<Position>> {
        let mut page_no = self.root.page_no;
        let (mut fraction, mut width, mut fanout_product) = (0f64, 1f64, 1f64);
        let mut expect = None;
        loop {
            let id = self.pid(page_no);
            let g = self.pool.fix_shared(id)?;
            let p = g.data();
            if page::page_type(p) != Some(PageType::BTreeNode)
                || node::index_id(p) != self.index_id
                || expect.is_some_and(|l| l != node::level(p))
            {
                return Ok(None);
            }
            let corrupt = |e: node::Inconsistent| Error::corruption(id, e.0);
            let level = node::level(p);
            let n = node::count(p);
            if level == 0 {
                // The index of the first entry past the range's start (low)
                // or past its end (!low).
                let index = match bound {
                    Bound::Unbounded if low => 0,
                    Bound::Unbounded => n,
                    Bound::Included(k) => {
                        let (i, found) = node::lower_bound(p, k).map_err(corrupt)?;
                        i + (found && !low) as usize
                    }
                    Bound::Excluded(k) => {
                        let (i, found) = node::lower_bound(p, k).map_err(corrupt)?;
                        i + (found && low) as usize
                    }
                };
                fanout_product *= n.max(1) as f64;
                fraction += width * index as f64 / n.max(1) as f64;
                return Ok(Some(Position { leaf: page_no, index, fraction, fanout_product }));
            }
            let ci = match bound {
                Bound::Unbounded if low => -1,
                Bound::Unbounded => n as isize - 1,
                Bound::Included(k) | Bound::Excluded(k) => node::child_for(p, k).map_err(corrupt)?.1,
            };
            let children = (n + 1) as f64;
            fanout_product *= children;
            width /= children;
            fraction += width * (ci + 1) as f64;
            page_no = node::child_at(p, ci).map_err(corrupt)?;
            expect = Some(level - 1);
        }
    }
}

/// One end of a range estimate.
struct Position {
    leaf: u32,
    /// Entries of the leaf before the end.
    index: usize,
    /// Share of the key space before the end.
    fraction: f64,
    /// Product of the node sizes on the path: the tree's entries as seen
    /// from it.
    fanout_product: f64,
}
