//! One row change is one mini-transaction across every index it touches:
//! the clustered record and all its secondary entries change together, in
//! one redo group, so that a crash can never leave a row half applied
//! (say, in the clustered index but missing from a secondary one).
//!
//! Latch order, which makes concurrent row changes deadlock-free: trees in
//! plan order (the clustered index first, then secondary indexes by
//! position), and within a tree, leaves by key. Structure modifications
//! never happen while a row change holds leaves: if a leaf lacks room, all
//! latches are released, that leaf is split on its own, and the row change
//! starts over.

use super::super::btree::write::Prepared;
use crate::btree::{node, overflow, BTree};
use crate::buffer::BufferPool;
use crate::mtr::Mtr;
use crate::{Error, Result};

/// One change to one index entry.
pub(crate) enum Op {
    Insert { key: Vec<u8>, val: Prepared },
    Replace { key: Vec<u8>, val: Prepared },
    Remove { key: Vec<u8> },
}

impl Op {
    fn key(&self) -> &[u8] {
        match self {
            Op::Insert { key, .. } | Op::Replace { key, .. } | Op::Remove { key } => key,
        }
    }
}

/// The changes to one tree, in key order.
pub(crate) struct TreeOps<'t> {
    pub tree: &'t BTree,
    pub ops: Vec<Op>,
}

impl<'t> TreeOps<'t> {
    pub fn new(tree: &'t BTree, mut ops: Vec<Op>) -> Self {
        ops.sort_by(|a, b| a.key().cmp(b.key()));
        Self { tree, ops }
    }
}

/// What a row write found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RowWrite {
    Done,
    /// An insert found its key present in tree `tree` (nothing changed).
    Duplicate {
        tree: usize,
    },
    /// A replace or remove did not find its key in tree `tree` (nothing
    /// changed).
    Missing {
        tree: usize,
    },
}

/// Applies every change of `plan` in one mini-transaction.
pub(crate) fn write_row(pool: &BufferPool, plan: &[TreeOps<'_>]) -> Result<RowWrite> {
    if let Some(t) = plan.first() {
        t.tree.log_free_check()?;
    }
    loop {
        // Phase 1: latch every leaf in order and check every change fits.
        let mut held = Vec::new();
        let mut split: Option<(usize, Vec<u8>, usize)> = None;
        'plan: for (ti, t) in plan.iter().enumerate() {
            for op in &t.ops {
                let key = op.key();
                let gi = match held
                    .iter()
                    .position(|(i, _, f): &(usize, _, crate::btree::Fences)| *i == ti && f.contains(key))
                {
                    Some(i) => i,
                    None => {
                        let (g, f) = t.tree.latch_leaf(key)?;
                        held.push((ti, g, f));
                        held.len() - 1
                    }
                };
                let g = &held[gi].1;
                let (pos, found) = node::lower_bound(g.data(), key).map_err(|e| Error::corruption(g.id(), e.0))?;
                match op {
                    Op::Insert { val, .. } => {
                        if found {
                            return Ok(RowWrite::Duplicate { tree: ti });
                        }
                        let need = node::entry_size(key.len(), val.bytes.len());
                        if !node::has_room(g.data(), need) {
                            split = Some((ti, key.to_vec(), need));
                            break 'plan;
                        }
                    }
                    Op::Replace { val, .. } => {
                        if !found {
                            return Ok(RowWrite::Missing { tree: ti });
                        }
                        if !node::replace_fits(g.data(), pos, val.bytes.len()) {
                            split = Some((ti, key.to_vec(), node::entry_size(key.len(), val.bytes.len())));
                            break 'plan;
                        }
                    }
                    Op::Remove { .. } => {
                        if !found {
                            return Ok(RowWrite::Missing { tree: ti });
                        }
                    }
                }
            }
        }
        if let Some((ti, key, need)) = split {
            drop(held);
            plan[ti].tree.split_for(&key, 0, need)?;
            continue;
        }
        // Phase 2: apply, in one mtr.
        let mut mtr = Mtr::new(pool);
        let mut old_chains: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut thin: Vec<(usize, Vec<u8>)> = Vec::new();
        for (ti, t) in plan.iter().enumerate() {
            for op in &t.ops {
                let key = op.key();
                let gi = held.iter().position(|(i, _, f)| *i == ti && f.contains(key)).expect("latched in phase 1");
                let g = &mut held[gi].1;
                let (pos, _) = node::lower_bound(g.data(), key).map_err(|e| Error::corruption(g.id(), e.0))?;
                match op {
                    Op::Insert { val, .. } => mtr.node_insert(g, pos, key, &val.bytes, val.external),
                    Op::Replace { val, .. } => {
                        let mut old = Vec::new();
                        if node::append_value(g.data(), pos, &mut old).map_err(|e| Error::corruption(g.id(), e.0))? {
                            old_chains.push((ti, old));
                        }
                        mtr.node_replace(g, pos, &val.bytes, val.external);
                    }
                    Op::Remove { .. } => {
                        let mut old = Vec::new();
                        if node::append_value(g.data(), pos, &mut old).map_err(|e| Error::corruption(g.id(), e.0))? {
                            old_chains.push((ti, old));
                        }
                        mtr.node_remove(g, pos);
                        if t.tree.is_underfull(g.data()) && g.id() != t.tree.root() {
                            thin.push((ti, key.to_vec()));
                        }
                    }
                }
            }
        }
        for (_, g, _) in held {
            mtr.keep(g);
        }
        mtr.commit();
        // Housekeeping of committed changes: best effort.
        for (ti, stub) in old_chains {
            let t = plan[ti].tree;
            t.after_commit(overflow::free_chain(pool, t.space(), &stub));
        }
        for (ti, key) in thin {
            let t = plan[ti].tree;
            t.after_commit(t.try_merge(&key, 0));
        }
        return Ok(RowWrite::Done);
    }
}
