//! Applying undo records to a table: rollback (put the previous version
//! back) and purge (remove what no read view needs any more).
//!
//! Secondary entries: a change never removes one (a view may reach an
//! older version through it), so whoever removes one — rollback of the
//! change that added it, or purge of the change that made it stale — first
//! checks that no version of the row a view may still read carries it:
//! the versions from the latest back to the first one every view sees
//! (`sec_needed`). Both run with the row's clustered key locked, so no
//! writer can add the entry back between the check and the removal, and
//! with `TxnSys::free_latch` held shared, so the undo records they follow
//! are not freed under them.

use super::rowop::{self, Cause, Op, RowWrite, TreeOps};
use super::trx::TxnSys;
use super::{Table, TableState};
use crate::row::Value;
use crate::txn::lock::{LockKind, LockMode, TrxLocks};
use crate::txn::record::{clustered_value, UndoKind, UndoRec};
use crate::txn::undo::{self, RollPtr};
use crate::txn::TrxId;
use crate::{Error, Result};

impl Table {
    /// Rolls back one change of transaction `trx` (which holds the row's X
    /// lock): the record at `ptr`, decoded as `rec`. A record whose change
    /// did not reach the row is skipped (the row's header names another
    /// undo record).
    pub(crate) fn undo_record(&self, sys: &TxnSys, trx: TrxId, ptr: RollPtr, rec: &UndoRec) -> Result<()> {
        let st = self.state.read();
        let Some((h, cur)) = self.latest(&rec.key)? else { return Ok(()) };
        if h.trx != trx || h.roll != ptr {
            return Ok(());
        }
        let schema = &st.def.schema;
        let cur_row = self.decode(schema, &rec.key, &cur)?;
        let _free = sys.free_latch.read();
        let limit = sys.trx_sys.oldest_view_limit();
        let mut plan = Vec::new();
        let restored = match &rec.prev {
            None => {
                // An insert: the row goes, with the entries it added.
                plan.push(TreeOps::new(&self.clustered, vec![Op::Remove { key: rec.key.clone() }]));
                None
            }
            Some((ph, prow)) => {
                let v = clustered_value(*ph, prow);
                let val = self.clustered.prepare_value(&rec.key, &v)?;
                plan.push(TreeOps::new(&self.clustered, vec![Op::Replace { key: rec.key.clone(), val }]));
                Some(v)
            }
        };
        for (ix, sec) in st.secondary.iter().enumerate() {
            let (k, _) = Self::sec_key(schema, ix, &cur_row, &rec.key);
            if !self.sec_needed(&st, ix, restored.as_deref(), &k, &rec.key, limit)? {
                plan.push(TreeOps::secondary(
                    &sec.tree,
                    vec![Op::Discard { key: k }],
                    schema.indexes[ix].unique,
                    Cause::Rollback,
                ));
            }
        }
        match rowop::write_row(self.clustered.pool(), &plan, None, Some(&sys.ibuf))? {
            RowWrite::Done => Ok(()),
            other => Err(self.inconsistent(&st, other)),
        }
    }

    /// Whether a secondary entry (`ix`, full key `entry`) is still needed
    /// by a version of row `pk` some view may read, starting from the
    /// record value `latest` (`None`: the row is gone) and going back to
    /// the first version every view sees (transaction below `limit`).
    fn sec_needed(
        &self,
        st: &TableState,
        ix: usize,
        latest: Option<&[u8]>,
        entry: &[u8],
        pk: &[u8],
        limit: TrxId,
    ) -> Result<bool> {
        let schema = &st.def.schema;
        let mut version: Option<Vec<u8>> = latest.map(|v| v.to_vec());
        let mut budget = 1 << 20;
        while let Some(v) = version.take() {
            budget -= 1;
            let (h, row) = self.split_record(pk, &v)?;
            if !h.deleted {
                let r = self.decode(schema, pk, row)?;
                if Self::sec_key(schema, ix, &r, pk).0 == entry {
                    return Ok(true);
                }
            }
            if h.trx < limit || h.roll == 0 || budget == 0 {
                return Ok(false);
            }
            let bytes = undo::read(self.clustered.pool(), h.roll)?;
            let u = UndoRec::decode(&bytes).ok_or_else(|| {
                Error::corruption(self.clustered.root(), "undecodable undo record on a version chain")
            })?;
            version = u.prev.map(|(ph, prow)| clustered_value(ph, &prow));
        }
        Ok(false)
    }

    /// Purges one undo record of committed transaction `trx` (every view
    /// sees it): removes the row if `trx` delete-marked it and nobody
    /// changed it since, and the secondary entries of the previous version
    /// that no version still needs. `purger` is the id purge locks under.
    pub(crate) fn purge_record(&self, sys: &TxnSys, trx: TrxId, rec: &UndoRec, purger: TrxId) -> Result<()> {
        let Some((_, prow)) = &rec.prev else { return Ok(()) }; // an insert leaves nothing behind
        if rec.kind == UndoKind::UpdateNoIndexChange {
            // Every secondary entry of the previous version is also one of
            // the version this update wrote: a later change that removes
            // one purges it through its own undo record.
            return Ok(());
        }
        let mut locks = TrxLocks::default();
        let key = self.row_lock_key(&rec.key);
        let timeout = std::time::Duration::from_secs(1);
        while sys.locks.lock(purger, &mut locks, key.clone(), LockMode::X, LockKind::Record, timeout).is_err() {
            if sys.shutting_down.load(std::sync::atomic::Ordering::Acquire) {
                return Ok(());
            }
        }
        let res = self.purge_locked(sys, trx, rec, prow);
        sys.locks.release_all(purger, &mut locks);
        res
    }

    fn purge_locked(&self, sys: &TxnSys, trx: TrxId, rec: &UndoRec, prow: &[u8]) -> Result<()> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let mut latest = self.latest(&rec.key)?;
        let mut plan = Vec::new();
        let mut removed_row: Option<Vec<Value>> = None;
        if let Some((h, row)) = &latest {
            if rec.kind == UndoKind::DeleteMark && h.deleted && h.trx == trx {
                plan.push(TreeOps::new(&self.clustered, vec![Op::Remove { key: rec.key.clone() }]));
                removed_row = Some(self.decode(schema, &rec.key, row)?);
                latest = None;
            }
        }
        let prev_row = self.decode(schema, &rec.key, prow)?;
        let latest_val = latest.map(|(h, row)| clustered_value(h, &row));
        let _free = sys.free_latch.read();
        let limit = sys.trx_sys.oldest_view_limit();
        for (ix, sec) in st.secondary.iter().enumerate() {
            let mut keys = vec![Self::sec_key(schema, ix, &prev_row, &rec.key).0];
            if let Some(r) = &removed_row {
                keys.push(Self::sec_key(schema, ix, r, &rec.key).0);
                keys.dedup();
            }
            let mut ops = Vec::new();
            for k in keys {
                if !self.sec_needed(&st, ix, latest_val.as_deref(), &k, &rec.key, limit)? {
                    ops.push(Op::Discard { key: k });
                }
            }
            if !ops.is_empty() {
                plan.push(TreeOps::secondary(&sec.tree, ops, schema.indexes[ix].unique, Cause::Purge));
            }
        }
        if plan.is_empty() {
            return Ok(());
        }
        match rowop::write_row(self.clustered.pool(), &plan, None, Some(&sys.ibuf))? {
            RowWrite::Done => Ok(()),
            other => Err(self.inconsistent(&st, other)),
        }
    }
}
