//! One row change is one mini-transaction across every index it touches:
//! the clustered record and all its secondary entries change together, in
//! one redo group, so that a crash can never leave a row half applied
//! (say, in the clustered index but missing from a secondary one).
//!
//! Latch order, which makes concurrent row changes deadlock-free: trees in
//! plan order (the clustered index first, then secondary indexes by
//! position), and within a tree, leaves by key. A second leaf of a tree the
//! row change already holds a leaf of is latched without waiting (a
//! splitter holding their parent may be waiting for the first one); if it
//! cannot be, everything is released and the change starts over. Structure
//! modifications never happen while a row change holds leaves: if a leaf
//! lacks room, all latches are released, that leaf is split on its own,
//! and the row change starts over.
//!
//! Phantom protection: an insert into a tree of a transactional table asks,
//! while it holds the leaf, for an insert-intention lock on the key that
//! will follow the new one (the next key, or the index's supremum). Taking
//! that lock and inserting happen under the same leaf latch, and a locking
//! reader re-reads the tree after its next-key lock is granted, so an
//! insert either meets the reader's gap lock or is seen by the reader. If
//! the lock cannot be granted at once, the write returns
//! [`RowWrite::LockWait`]: the caller waits for it with no latch held and
//! retries.

use super::super::btree::write::{LeafFor, Prepared};
use super::rowop_buffer::{self, Buffered, Deferred};
use crate::btree::{node, overflow, BTree, Fences};
use crate::buffer::{BufferPool, ExclusiveGuard};
use crate::ibuf::{self, ChangeBuffer};
use crate::mtr::Mtr;
use crate::txn::lock::{LockKey, LockKind, LockMode, LockSys, TrxLocks};
use crate::txn::TrxId;
use crate::{Error, Result};

/// One change to one index entry.
pub(crate) enum Op {
    /// A new entry; `Duplicate` if the key is present.
    Insert { key: Vec<u8>, val: Prepared },
    /// A new entry unless the key is present (secondary entries, which
    /// MVCC keeps until purge removes them).
    Ensure { key: Vec<u8>, val: Prepared },
    /// A new value for a present key; `Missing` if absent.
    Replace { key: Vec<u8>, val: Prepared },
    /// Removes a present key; `Missing` if absent.
    Remove { key: Vec<u8> },
    /// Removes the key if present.
    Discard { key: Vec<u8> },
}

impl Op {
    fn key(&self) -> &[u8] {
        match self {
            Op::Insert { key, .. }
            | Op::Ensure { key, .. }
            | Op::Replace { key, .. }
            | Op::Remove { key }
            | Op::Discard { key } => key,
        }
    }
}

/// Why a secondary index changes: what the change buffer may defer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// A row change (its `Ensure`s may be buffered as inserts).
    Change,
    /// Purge (its `Discard`s may be buffered as removals).
    Purge,
    /// A rollback (never buffered).
    Rollback,
}

/// The changes to one tree, in key order.
pub(crate) struct TreeOps<'t> {
    pub tree: &'t BTree,
    pub ops: Vec<Op>,
    /// A non-unique secondary index: its changes may be buffered
    /// (`crate::ibuf`) when the leaf is not in the pool, and the leaves
    /// read for them are counted
    /// ([`crate::buffer::PoolStats::reads_for_change_leaf`]).
    bufferable: Option<Cause>,
}

impl<'t> TreeOps<'t> {
    pub fn new(tree: &'t BTree, mut ops: Vec<Op>) -> Self {
        ops.sort_by(|a, b| a.key().cmp(b.key()));
        Self { tree, ops, bufferable: None }
    }

    /// Changes to a secondary index (`unique`: a UNIQUE one) for `cause`.
    pub fn secondary(tree: &'t BTree, ops: Vec<Op>, unique: bool, cause: Cause) -> Self {
        Self { bufferable: (!unique).then_some(cause), ..Self::new(tree, ops) }
    }

    /// The change buffer's operation for `op`, if this tree's changes of
    /// that kind may be buffered.
    fn buffer_op(&self, op: &Op) -> Option<ibuf::entry::Op> {
        match (self.bufferable?, op) {
            (Cause::Change, Op::Ensure { val, .. }) if !val.external => Some(ibuf::entry::Op::Insert),
            (Cause::Purge, Op::Discard { .. }) => Some(ibuf::entry::Op::Remove),
            _ => None,
        }
    }

    /// Runs `f`, which may read pages of this tree for the change.
    fn reading<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.bufferable.is_some() {
            crate::buffer::for_bufferable_change(f)
        } else {
            f()
        }
    }
}

/// The transaction a write belongs to, for insert-intention locks.
pub(crate) struct LockCtx<'a> {
    pub sys: &'a LockSys,
    pub trx: TrxId,
    pub locks: &'a mut TrxLocks,
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
    /// An insert-intention lock on this key must be waited for (nothing
    /// changed; no latch is held).
    LockWait(LockKey),
}

type Held<'t> = Vec<(usize, ExclusiveGuard<'t>, Fences)>;

/// Applies every change of `plan` in one mini-transaction. Changes to
/// leaves not in the pool may go to the change buffer `ibuf` instead
/// (`rowop_buffer.rs`).
pub(crate) fn write_row(
    pool: &BufferPool,
    plan: &[TreeOps<'_>],
    mut lock: Option<LockCtx<'_>>,
    ibuf: Option<&ChangeBuffer>,
) -> Result<RowWrite> {
    if let Some(t) = plan.first() {
        t.tree.log_free_check()?;
    }
    // Changes (tree, op) the change buffer refused: they go the ordinary
    // way from the next attempt on.
    let mut ordinary: Vec<(usize, usize)> = Vec::new();
    'attempt: loop {
        // Phase 1: latch every leaf in order and check every change fits;
        // note the changes whose leaf is absent, for the change buffer.
        let mut held: Held<'_> = Vec::new();
        let mut deferred: Vec<Deferred<'_>> = Vec::new();
        let mut split: Option<(usize, Vec<u8>, usize)> = None;
        // Keys to latch (then release) before starting over: a leaf that
        // could not be latched without waiting.
        let mut warm: Option<(usize, Vec<u8>)> = None;
        'plan: for (ti, t) in plan.iter().enumerate() {
            for (oi, op) in t.ops.iter().enumerate() {
                let key = op.key();
                let gi = match held.iter().position(|(i, _, f)| *i == ti && f.contains(key)) {
                    Some(i) => i,
                    None if held.iter().any(|(i, _, _)| *i == ti) => match t.reading(|| t.tree.try_latch_leaf(key))? {
                        Some((g, f)) => {
                            held.push((ti, g, f));
                            held.len() - 1
                        }
                        None => {
                            warm = Some((ti, key.to_vec()));
                            break 'plan;
                        }
                    },
                    None => {
                        let buffer = ibuf
                            .zip(t.buffer_op(op))
                            .filter(|(cb, bop)| cb.admits(*bop) && !ordinary.contains(&(ti, oi)));
                        if buffer.is_some() {
                            pool.pending.track(t.tree.index_id());
                        }
                        let (g, f) = match buffer {
                            Some((_, bop)) => match t.reading(|| t.tree.latch_leaf_unless_absent(key))? {
                                LeafFor::Latched(g, f) => (g, f),
                                LeafFor::Absent { page, parent } => {
                                    deferred.push(Deferred::new((ti, oi), bop, page, parent, t.tree.index_id(), op));
                                    continue;
                                }
                            },
                            None => t.reading(|| t.tree.latch_leaf(key))?,
                        };
                        held.push((ti, g, f));
                        held.len() - 1
                    }
                };
                let (g, fences) = (&held[gi].1, &held[gi].2);
                let (pos, found) = node::lower_bound(g.data(), key).map_err(|e| Error::corruption(g.id(), e.0))?;
                let inserting = match op {
                    Op::Insert { val, .. } | Op::Ensure { val, .. } => {
                        if found {
                            if matches!(op, Op::Insert { .. }) {
                                return Ok(RowWrite::Duplicate { tree: ti });
                            }
                            None
                        } else {
                            Some(node::entry_size(key.len(), val.bytes.len()))
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
                        None
                    }
                    Op::Remove { .. } => {
                        if !found {
                            return Ok(RowWrite::Missing { tree: ti });
                        }
                        None
                    }
                    Op::Discard { .. } => None,
                };
                if let Some(need) = inserting {
                    if !node::has_room(g.data(), need) {
                        split = Some((ti, key.to_vec(), need));
                        break 'plan;
                    }
                    if let Some(ctx) = lock.as_mut() {
                        let next = if pos < node::count(g.data()) {
                            let mut k = Vec::new();
                            node::copy_key(g.data(), pos, &mut k).map_err(|e| Error::corruption(g.id(), e.0))?;
                            Some(k)
                        } else {
                            match &fences.upper {
                                None => None,
                                Some(u) => match t.tree.try_first_key_from(u)? {
                                    Some(k) => k,
                                    None => {
                                        warm = Some((ti, u.clone()));
                                        break 'plan;
                                    }
                                },
                            }
                        };
                        let index = t.tree.index_id();
                        let lk = match next {
                            Some(k) => LockKey { index, key: Some(k) },
                            None => LockKey::supremum(index),
                        };
                        if !ctx.sys.try_lock(ctx.trx, ctx.locks, &lk, LockMode::X, LockKind::InsertIntention) {
                            return Ok(RowWrite::LockWait(lk));
                        }
                    }
                }
            }
        }
        if let Some((ti, key, need)) = split {
            drop(held);
            plan[ti].tree.split_for(&key, 0, need)?;
            continue 'attempt;
        }
        if let Some((ti, key)) = warm {
            drop(held);
            // Wait out whoever held the way, and bring the leaf in.
            drop(plan[ti].reading(|| plan[ti].tree.latch_leaf(&key))?);
            continue 'attempt;
        }
        // Phase 1b: latch the change buffer's leaves (last of all) and
        // record the deferred changes as pending, or learn why not.
        let mut ibuf_leaves = Vec::new();
        if let Some(cb) = ibuf.filter(|_| !deferred.is_empty()) {
            let gaps = lock.as_ref().map(|c| c.sys);
            match rowop_buffer::prepare(pool, cb, &mut deferred, gaps)? {
                Buffered::Ready(leaves) => ibuf_leaves = leaves,
                Buffered::Split(key, need) => {
                    drop((held, deferred));
                    cb.tree().split_for(&key, 0, need)?;
                    continue 'attempt;
                }
                Buffered::Warm(key) => {
                    drop((held, deferred));
                    drop(cb.tree().latch_leaf(&key)?);
                    continue 'attempt;
                }
                Buffered::Refused(ops) => {
                    ordinary.extend(ops);
                    continue 'attempt;
                }
            }
        }
        // Phase 2: apply, in one mtr.
        let mut mtr = Mtr::new(pool);
        let mut old_chains: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut thin: Vec<(usize, Vec<u8>)> = Vec::new();
        for (ti, t) in plan.iter().enumerate() {
            for (oi, op) in t.ops.iter().enumerate() {
                if deferred.iter().any(|d| d.at == (ti, oi)) {
                    continue;
                }
                let key = op.key();
                let gi = held.iter().position(|(i, _, f)| *i == ti && f.contains(key)).expect("latched in phase 1");
                let g = &mut held[gi].1;
                let (pos, found) = node::lower_bound(g.data(), key).map_err(|e| Error::corruption(g.id(), e.0))?;
                match op {
                    Op::Insert { val, .. } => mtr.node_insert(g, pos, key, &val.bytes, val.external),
                    Op::Ensure { val, .. } => {
                        if !found {
                            mtr.node_insert(g, pos, key, &val.bytes, val.external)
                        }
                    }
                    Op::Replace { val, .. } => {
                        let mut old = Vec::new();
                        if node::append_value(g.data(), pos, &mut old).map_err(|e| Error::corruption(g.id(), e.0))? {
                            old_chains.push((ti, old));
                        }
                        mtr.node_replace(g, pos, &val.bytes, val.external);
                    }
                    Op::Remove { .. } | Op::Discard { .. } => {
                        if !found {
                            continue;
                        }
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
        rowop_buffer::apply(&mut mtr, &deferred, &mut ibuf_leaves);
        for (_, g, _) in held {
            mtr.keep(g);
        }
        for (g, _, _) in ibuf_leaves {
            mtr.keep(g);
        }
        mtr.commit();
        if let Some(cb) = ibuf {
            rowop_buffer::committed(cb, &deferred);
        }
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
