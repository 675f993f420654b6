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
    /// Page `p` is a node of this tree, at level `expect` if given (a
    /// concurrent change may have moved or freed it since it was named).
    fn is_node_at(&self, p: &[u8], expect: Option<u16>) -> bool {
        page::page_type(p) == Some(PageType::BTreeNode)
            && node::index_id(p) == self.index_id
            && expect.is_none_or(|l| l == node::level(p))
    }

    /// Reads node `page_no` of this tree; `None` if it is no longer one of
    /// its nodes at `expect` level (a concurrent change moved it).
    fn read_node(&self, page_no: u32, expect: Option<u16>, want_keys: bool) -> Result<Option<Read>> {
        let id = self.pid(page_no);
        let g = self.pool.fix_shared(id)?;
        let p = g.data();
        if !self.is_node_at(p, expect) {
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
    /// `btr_estimate_n_rows_in_range`): the tree is descended to each end,
    /// noting at every level the node's size and the end's place in it.
    /// Both ends in one leaf: the entries between them, exactly. Else, at
    /// the node where the two paths part, the whole subtrees between them
    /// count at the average subtree size (from the node sizes seen on both
    /// paths), and below it each end adds the subtrees beside its path
    /// (right of the lower end, left of the upper end) and its leaf's
    /// entries up to the end. `None`: the tree changed under every attempt.
    pub fn estimate_range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Result<Option<u64>> {
        for _ in 0..RETRIES {
            let (Some(lo), Some(hi)) = (self.path_to(lower, true)?, self.path_to(upper, false)?) else {
                continue;
            };
            if lo.len() != hi.len() {
                continue; // the root split between the descents
            }
            let leaf_mean = self.mean_leaf_size(&lo, &hi)?;
            return Ok(Some(estimate_between(&lo, &hi, leaf_mean)));
        }
        Ok(None)
    }

    /// The path to `bound`, root first. `low`: it starts a range (a key
    /// equal to it is inside unless excluded); else it ends one. `None`: a
    /// page moved under the descent.
    fn path_to(&self, bound: Bound<&[u8]>, low: bool) -> Result<Option<Vec<Step>>> {
        let mut page_no = self.root.page_no;
        let mut expect = None;
        let mut path = Vec::new();
        loop {
            let id = self.pid(page_no);
            let g = self.pool.fix_shared(id)?;
            let p = g.data();
            if !self.is_node_at(p, expect) {
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
                path.push(Step { page: page_no, size: n, at: index });
                return Ok(Some(path));
            }
            let ci = match bound {
                Bound::Unbounded if low => -1,
                Bound::Unbounded => n as isize - 1,
                Bound::Included(k) | Bound::Excluded(k) => node::child_for(p, k).map_err(corrupt)?.1,
            };
            path.push(Step { page: page_no, size: n + 1, at: (ci + 1) as usize });
            page_no = node::child_at(p, ci).map_err(corrupt)?;
            expect = Some(level - 1);
        }
    }
}

impl BTree {
    /// The mean entries of leaves inside the range: up to
    /// [`LEAVES_READ`] leaves beside the two paths' last inner nodes, with
    /// the two end leaves. A leaf at a range's end is often fuller than
    /// those inside it (splits leave half-full leaves behind), so the ends
    /// alone would overcount.
    fn mean_leaf_size(&self, lo: &[Step], hi: &[Step]) -> Result<f64> {
        let leaf = lo.len() - 1;
        let (mut sum, mut n) = ((lo[leaf].size + hi[leaf].size) as f64, 2.0);
        if leaf == 0 || lo[leaf].page == hi[leaf].page {
            return Ok(sum / n);
        }
        let parent = leaf - 1;
        let mut pages = Vec::new();
        for (step, right) in [(&lo[parent], true), (&hi[parent], false)] {
            if let Some(Read::Inner { children, .. }) = self.read_node(step.page, Some(1), false)? {
                let beside: Vec<u32> = if right {
                    children.iter().skip(step.at + 1).copied().collect()
                } else {
                    children.iter().take(step.at).copied().collect()
                };
                let same_node = lo[parent].page == hi[parent].page;
                let beside = if same_node && right {
                    // One node: the children strictly between the ends.
                    children.iter().take(hi[parent].at).skip(step.at + 1).copied().collect()
                } else if same_node {
                    Vec::new()
                } else {
                    beside
                };
                let stride = (beside.len() / (LEAVES_READ / 2)).max(1);
                pages.extend(beside.into_iter().step_by(stride).take(LEAVES_READ / 2));
            }
        }
        for page_no in pages {
            let g = self.pool.fix_shared(self.pid(page_no))?;
            let p = g.data();
            if page::page_type(p) == Some(PageType::BTreeNode) && node::index_id(p) == self.index_id && node::is_leaf(p)
            {
                sum += node::count(p) as f64;
                n += 1.0;
            }
        }
        Ok(sum / n)
    }
}

/// Leaves inside a range read to learn their mean size.
const LEAVES_READ: usize = 8;

/// One node on the path to a range's end.
struct Step {
    page: u32,
    /// Children (inner node) or entries (leaf).
    size: usize,
    /// The child taken (0 = leftmost), or in a leaf the entries before
    /// the end.
    at: usize,
}

/// See [`BTree::estimate_range`]. REQUIRES: paths of equal length.
fn estimate_between(lo: &[Step], hi: &[Step], leaf_mean: f64) -> u64 {
    let leaf = lo.len() - 1;
    // Entries under a node at each depth, from the mean node sizes.
    let mut under = vec![1f64; lo.len() + 1];
    for d in (0..lo.len()).rev() {
        let size = if d == leaf { leaf_mean } else { (lo[d].size + hi[d].size) as f64 / 2.0 };
        under[d] = under[d + 1] * size;
    }
    let Some(part) = (0..lo.len()).find(|&d| lo[d].page != hi[d].page || lo[d].at != hi[d].at || d == leaf) else {
        return 0;
    };
    if lo[part].page != hi[part].page {
        // The paths never shared a node below the root's: inconsistent
        // (a concurrent change); fall back to the leaves alone.
        return (lo[leaf].size - lo[leaf].at + hi[leaf].at) as u64;
    }
    if part == leaf {
        return hi[leaf].at.saturating_sub(lo[leaf].at) as u64;
    }
    if hi[part].at < lo[part].at {
        return 0;
    }
    let mut rows = (hi[part].at - lo[part].at - 1) as f64 * under[part + 1];
    for d in part + 1..leaf {
        rows += (lo[d].size - lo[d].at - 1) as f64 * under[d + 1];
        rows += hi[d].at as f64 * under[d + 1];
    }
    rows += (lo[leaf].size - lo[leaf].at.min(lo[leaf].size)) as f64 + hi[leaf].at as f64;
    rows.round() as u64
}
