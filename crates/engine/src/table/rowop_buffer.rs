//! The change-buffer side of a row change (`rowop.rs`, `crate::ibuf`):
//! changes to non-unique secondary leaves that are not in the pool are
//! put in the change buffer's tree, in the row change's mini-transaction.
//!
//! After the row change latched every leaf it changes itself (phase 1), it
//! latches the change buffer's leaves that will take its deferred changes
//! (phase 1b; last of all, so no one waits for a user page while holding
//! one), then records each deferred change as pending for its page under
//! the page's shard mutex (`buffer/pending.rs`), which refuses if the page
//! came into the pool meanwhile, if the tree's parent no longer points
//! there, if the page has no room left for it, or (an insert) if the index
//! has gap locks. A refused change goes the ordinary way on the next
//! attempt.

use super::rowop::Op as RowOp;
use crate::btree::{node, Fences};
use crate::buffer::{BufferPool, ExclusiveGuard, OptGuard};
use crate::ibuf::entry::{self, Change, Op};
use crate::ibuf::ChangeBuffer;
use crate::mtr::Mtr;
use crate::txn::lock::LockSys;
use crate::{PageId, Result};

/// A change whose leaf is not in the pool.
pub(crate) struct Deferred<'t> {
    /// (tree, op) in the row change's plan.
    pub at: (usize, usize),
    op: Op,
    page: PageId,
    /// The leaf's parent as read when the leaf was found absent.
    parent: OptGuard<'t>,
    index_id: u32,
    /// Bytes the change takes in the leaf when merged (0: a removal).
    leaf_need: usize,
    /// The change buffer entry.
    value: Vec<u8>,
    /// Its key in the change buffer, once numbered.
    key: [u8; entry::KEY_LEN],
    /// The change-buffer leaf (index into the latched ones) that takes it.
    leaf: usize,
}

impl<'t> Deferred<'t> {
    pub(crate) fn new(
        at: (usize, usize),
        op: Op,
        page: PageId,
        parent: OptGuard<'t>,
        index_id: u32,
        change: &RowOp,
    ) -> Self {
        let (key, val): (&[u8], &[u8]) = match change {
            RowOp::Ensure { key, val } => (key, &val.bytes),
            RowOp::Discard { key } => (key, &[]),
            _ => unreachable!("only ensures and discards are buffered (TreeOps::buffer_op)"),
        };
        let leaf_need = if op == Op::Insert { node::entry_size(key.len(), val.len()) } else { 0 };
        let value = entry::encode(&Change { op, index_id, key, val });
        Self { at, op, page, parent, index_id, leaf_need, value, key: [0; entry::KEY_LEN], leaf: 0 }
    }

    /// Bytes its entry takes in a change-buffer leaf.
    fn entry_bytes(&self) -> usize {
        node::entry_size(entry::KEY_LEN, self.value.len())
    }
}

/// The change buffer's leaves a row change holds, with the bytes it will add.
pub(crate) type Leaves<'a> = Vec<(ExclusiveGuard<'a>, Fences, usize)>;

/// What phase 1b found.
pub(crate) enum Buffered<'a> {
    /// Every deferred change is pending; their leaves, latched.
    Ready(Leaves<'a>),
    /// The change-buffer leaf for this key needs room for this many bytes.
    Split(Vec<u8>, usize),
    /// A second change-buffer leaf could not be latched without waiting.
    Warm(Vec<u8>),
    /// These changes must go the ordinary way.
    Refused(Vec<(usize, usize)>),
}

/// Phase 1b (see the module's comment). `gaps`: the lock system, if the
/// row change is a transaction's (its inserts would take insert-intention
/// locks).
pub(crate) fn prepare<'a>(
    pool: &BufferPool,
    cb: &'a ChangeBuffer,
    deferred: &mut [Deferred<'_>],
    gaps: Option<&LockSys>,
) -> Result<Buffered<'a>> {
    deferred.sort_by_key(|d| (d.page, d.at));
    let mut leaves: Leaves<'a> = Vec::new();
    for d in deferred.iter() {
        // Every entry of a page goes to the leaf covering the page's
        // highest possible key: the new one is above every earlier one.
        let probe = entry::key(d.page, u64::MAX);
        let li = match leaves.iter().position(|(_, f, _)| f.contains(&probe)) {
            Some(i) => i,
            None => {
                let got = if leaves.is_empty() {
                    Some(cb.tree().latch_leaf(&probe)?)
                } else {
                    cb.tree().try_latch_leaf(&probe)?
                };
                let Some((g, f)) = got else { return Ok(Buffered::Warm(probe.to_vec())) };
                leaves.push((g, f, 0));
                leaves.len() - 1
            }
        };
        let need = leaves[li].2 + d.entry_bytes();
        if !node::has_room(leaves[li].0.data(), need) {
            return Ok(Buffered::Split(probe.to_vec(), need));
        }
        leaves[li].2 = need;
    }
    let mut refused = Vec::new();
    for d in deferred.iter_mut() {
        let present = || {
            pool.in_page_table(d.page)
                || d.parent.validate().is_err()
                || (d.op == Op::Insert && gaps.is_some_and(|l| l.gap_locked(d.index_id)))
        };
        if !pool.pending.reserve(d.page, d.leaf_need, present) {
            refused.push(d.at);
            continue;
        }
        d.key = entry::key(d.page, cb.next_seq());
        match leaves.iter().position(|(_, f, _)| f.contains(&d.key)) {
            Some(li) => d.leaf = li,
            // Cannot happen (see `probe`); if it did, the ordinary way is
            // still right (the reservation only costs a needless merge).
            None => refused.push(d.at),
        }
    }
    if !refused.is_empty() {
        return Ok(Buffered::Refused(refused));
    }
    Ok(Buffered::Ready(leaves))
}

/// Phase 2: puts the deferred changes in the change buffer's leaves.
pub(crate) fn apply<'a>(mtr: &mut Mtr<'a>, deferred: &[Deferred<'_>], leaves: &mut Leaves<'a>) {
    for d in deferred {
        let g = &mut leaves[d.leaf].0;
        let (pos, _) = node::lower_bound(g.data(), &d.key).expect("a latched change-buffer leaf is consistent");
        mtr.node_insert(g, pos, &d.key, &d.value, false);
    }
}

/// After the commit: counts what was buffered.
pub(crate) fn committed(cb: &ChangeBuffer, deferred: &[Deferred<'_>]) {
    for d in deferred {
        cb.buffered(d.op, d.entry_bytes());
    }
}
