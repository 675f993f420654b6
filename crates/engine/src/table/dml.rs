//! Row changes inside a transaction: INSERT, UPDATE and DELETE by primary
//! key, with row locks and undo logging.
//!
//! Every change follows the same steps:
//! 1. X-lock the clustered key (waits happen here, with no latch held);
//! 2. read the row's latest version (stable: the lock keeps other writers
//!    out, and purge takes the same lock);
//! 3. append the undo record (the previous version) to the transaction's
//!    undo log, in its own mini-transaction;
//! 4. change the clustered record (header: this transaction and the roll
//!    pointer of step 3) and the secondary entries in one row
//!    mini-transaction (`rowop.rs`), taking insert-intention locks for
//!    new entries.
//!
//! Deletes only delete-mark the clustered record; secondary entries are
//! never removed by a change, only added (an updated row keeps its old
//! entries for the views that still need them). Purge removes what no
//! view needs. An insert over a delete-marked record of a committed
//! transaction reuses that record (undo kind `Revive`), which is how a
//! DELETE and a re-INSERT of the same key by two transactions serialise
//! on the key's lock instead of failing with a duplicate key.

use super::rowop::{self, Cause, LockCtx, Op, RowWrite, TreeOps};
use super::trx::Trx;
use super::{inline, Table, TableState};
use crate::row::{codec, Value};
use crate::txn::lock::{LockKey, LockKind, LockMode};
use crate::txn::record::{clustered_value, RecHeader, UndoKind, UndoRec};
use crate::{Error, Result};

/// What an UPDATE did to a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowUpdate {
    /// No row has that key (or it is deleted).
    NotFound,
    /// The row matched but the new values equal the old ones.
    Unchanged,
    Changed,
}

/// A live row holding a unique key a new row wants.
#[derive(Clone, Debug)]
pub(crate) struct Conflict {
    /// The unique index (position in `TableSchema::indexes`), or `None`
    /// for the clustered key.
    pub index: Option<usize>,
    /// The clustered key of the row that holds it.
    pub key: Vec<u8>,
}

/// What a unique check found.
enum Unique<'a> {
    /// No conflict: the unique-check guard (if the table has unique
    /// secondary indexes), to hold until the row is written.
    Clear(Option<parking_lot::MutexGuard<'a, ()>>),
    /// Waited for a lock: look again.
    Waited,
    Duplicate(Conflict),
}

impl Table {
    /// The lock key of a clustered record.
    pub(crate) fn row_lock_key(&self, pk: &[u8]) -> LockKey {
        LockKey::record(self.clustered.index_id(), pk)
    }

    /// The latest version of the row under `pk`, delete-marked or not.
    pub(crate) fn latest(&self, pk: &[u8]) -> Result<Option<(RecHeader, Vec<u8>)>> {
        let mut buf = Vec::new();
        if !self.clustered.get(pk, &mut buf)? {
            return Ok(None);
        }
        let (h, row) = self.split_record(pk, &buf)?;
        Ok(Some((h, row.to_vec())))
    }

    pub(crate) fn split_record<'v>(&self, pk: &[u8], v: &'v [u8]) -> Result<(RecHeader, &'v [u8])> {
        RecHeader::split(v).ok_or_else(|| {
            Error::corruption(self.clustered.root(), format!("bad record header under key {pk:02x?} of {}", self.name))
        })
    }

    /// Runs a row write for `trx`. `Ok(None)` if the write found the
    /// clustered record changed (the caller re-reads it and starts over);
    /// `LockWait` if an insert-intention lock must be waited for (the
    /// caller releases its guards, waits with [`Trx::lock`], starts over).
    fn write_for(&self, trx: &mut Trx, plan: Vec<TreeOps<'_>>) -> Result<Option<RowWrite>> {
        let sys = trx.sys.clone();
        let id = trx.id();
        let res = rowop::write_row(
            self.clustered.pool(),
            &plan,
            Some(LockCtx { sys: &sys.locks, trx: id, locks: &mut trx.locks }),
            Some(&sys.ibuf),
        );
        if !matches!(res, Ok(RowWrite::Done)) {
            self.free_unused_chains(&plan);
        }
        match res? {
            RowWrite::Duplicate { tree: 0 } | RowWrite::Missing { tree: 0 } => Ok(None),
            other => Ok(Some(other)),
        }
    }

    /// Ends a statement: a deadlock victim is rolled back whole here, after
    /// the statement let go of the table (rollback changes its rows).
    pub(crate) fn end_statement<T>(trx: &mut Trx, r: Result<T>) -> Result<T> {
        if matches!(r, Err(Error::Deadlock)) {
            if let Err(e) = trx.rollback() {
                tracing::error!("rollback of a deadlock victim failed: {e}");
            }
        }
        r
    }

    /// Inserts a full row in `trx`. NULL or 0 in an AUTO_INCREMENT column
    /// generates the next value, which is returned.
    pub fn insert_tx(&self, trx: &mut Trx, row: Vec<Value>) -> Result<Option<u64>> {
        crate::txn::admission::enter();
        self.check_writable()?;
        let r = self.insert_tx_inner(trx, row);
        if r.is_ok() {
            self.count_modification();
            self.row_counters().inserted.inc();
        }
        Self::end_statement(trx, r)
    }

    fn insert_tx_inner(&self, trx: &mut Trx, row: Vec<Value>) -> Result<Option<u64>> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let (row, generated, pk, value) = self.begin_insert(trx, schema, row)?;
        match self.insert_locked(trx, &st, &row, &pk, &value, LockMode::S)? {
            None => Ok(generated),
            Some(c) => Err(self.conflict_error(schema, &c, &row)),
        }
    }

    /// The error a plain INSERT reports for `c`.
    pub(crate) fn conflict_error(&self, schema: &crate::row::TableSchema, c: &Conflict, row: &[Value]) -> Error {
        match c.index {
            None => self.dup_primary(schema, row),
            Some(ix) => {
                let def = &schema.indexes[ix];
                Error::DuplicateKey { index: def.name.clone(), key: Self::describe_key(&def.columns, row) }
            }
        }
    }

    /// Inserts a row whose clustered key `trx` has X-locked; `Some` (and
    /// nothing written) if a live row already holds one of its unique
    /// keys: that row is locked (X by the primary key; `dup_lock` through
    /// a unique secondary: S for INSERT, X for REPLACE and ON DUPLICATE KEY
    /// UPDATE, which change it next, as InnoDB's `trx->duplicates`).
    /// The first steps of every insert: the row completed (AUTO_INCREMENT,
    /// row id: `prepare_row`), its primary key and encoded value, the
    /// transaction started and the new key X-locked. Returns (row,
    /// generated AUTO_INCREMENT value, key, value).
    pub(crate) fn begin_insert(
        &self,
        trx: &mut Trx,
        schema: &crate::row::TableSchema,
        row: Vec<Value>,
    ) -> Result<NewRow> {
        let (row, generated) = self.prepare_row(schema, row)?;
        let pk = Self::pk_key(schema, &row);
        let mut value = Vec::with_capacity(64);
        codec::encode_row(schema, &row, &mut value);
        trx.start_rw()?;
        trx.lock(self.row_lock_key(&pk), LockMode::X, LockKind::Record)?;
        Ok((row, generated, pk, value))
    }

    pub(crate) fn insert_locked(
        &self,
        trx: &mut Trx,
        st: &TableState,
        row: &[Value],
        pk: &[u8],
        value: &[u8],
        dup_lock: LockMode,
    ) -> Result<Option<Conflict>> {
        let schema = &st.def.schema;
        loop {
            let cur = self.latest(pk)?;
            if let Some((h, _)) = &cur {
                if !h.deleted {
                    return Ok(Some(Conflict { index: None, key: pk.to_vec() }));
                }
            }
            let uniq = match self.check_unique_locked(trx, st, row, pk, dup_lock)? {
                Unique::Clear(g) => g,
                Unique::Waited => continue, // waited for a lock: look again
                Unique::Duplicate(c) => return Ok(Some(c)),
            };
            let (kind, prev) = match &cur {
                None => (UndoKind::Insert, None),
                Some((h, old)) => (UndoKind::Revive, Some((*h, old.as_slice()))),
            };
            let space = st.def.space_id;
            let roll = trx.append_undo(&UndoRec::encode(kind, space, pk, prev))?;
            let rec = clustered_value(RecHeader::new(trx.id(), roll, false), value);
            let val = self.clustered.prepare_value(pk, &rec)?;
            let cop = if cur.is_none() {
                Op::Insert { key: pk.to_vec(), val }
            } else {
                Op::Replace { key: pk.to_vec(), val }
            };
            let mut plan = vec![TreeOps::new(&self.clustered, vec![cop])];
            for (ix, sec) in st.secondary.iter().enumerate() {
                let (k, prefix) = Self::sec_key(schema, ix, row, pk);
                plan.push(TreeOps::secondary(
                    &sec.tree,
                    vec![Op::Ensure { key: k, val: inline(&prefix.to_le_bytes()) }],
                    schema.indexes[ix].unique,
                    Cause::Change,
                ));
            }
            match self.write_for(trx, plan)? {
                Some(RowWrite::Done) => {
                    trx.log_row(space, None, Some(value));
                    return Ok(None);
                }
                None => continue, // purge removed the delete-marked record meanwhile
                Some(RowWrite::LockWait(k)) => {
                    drop(uniq);
                    trx.lock(k, LockMode::X, LockKind::InsertIntention)?;
                }
                Some(other) => return Err(self.inconsistent(st, other)),
            }
        }
    }

    /// Checks unique secondary indexes for `row` (primary key `pk`). An
    /// entry whose row is live and still carries the value is a duplicate;
    /// entries of deleted or changed rows are not. A row being changed by
    /// another transaction is waited for (its lock). Returns the table's
    /// unique-check guard, to hold until the row is written (so two
    /// inserters cannot both pass), or [`Unique::Waited`] after a lock wait.
    fn check_unique_locked<'a>(
        &'a self,
        trx: &mut Trx,
        st: &TableState,
        row: &[Value],
        pk: &[u8],
        lock: LockMode,
    ) -> Result<Unique<'a>> {
        let schema = &st.def.schema;
        if !schema.indexes.iter().any(|i| i.unique) {
            return Ok(Unique::Clear(None));
        }
        let guard = self.unique_lock.lock();
        for (ix, def) in schema.indexes.iter().enumerate() {
            if !def.unique || def.columns.iter().any(|&c| row[c].is_null()) {
                continue;
            }
            let (k, _) = Self::sec_key(schema, ix, row, &[]);
            for other in self.sec_entries_with_prefix(&st.secondary[ix].tree, &k)? {
                if other == pk {
                    continue;
                }
                let lk = self.row_lock_key(&other);
                let id = trx.id();
                if !trx.sys.locks.try_lock(id, &mut trx.locks, &lk, lock, LockKind::Record) {
                    drop(guard);
                    trx.lock(lk, lock, LockKind::Record)?;
                    return Ok(Unique::Waited);
                }
                if let Some((h, bytes)) = self.latest(&other)? {
                    if !h.deleted {
                        let r = self.decode(schema, &other, &bytes)?;
                        if Self::sec_key(schema, ix, &r, &[]).0 == k {
                            return Ok(Unique::Duplicate(Conflict { index: Some(ix), key: other }));
                        }
                    }
                }
            }
        }
        Ok(Unique::Clear(Some(guard)))
    }

    /// Primary keys of the entries of a secondary index whose index-column
    /// part is `prefix`.
    fn sec_entries_with_prefix(&self, tree: &crate::btree::BTree, prefix: &[u8]) -> Result<Vec<Vec<u8>>> {
        let upper = super::prefix_successor(prefix);
        let upper_b = upper.as_deref().map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
        let mut c = tree.range(std::ops::Bound::Included(prefix), upper_b, crate::btree::Direction::Forward);
        let mut out = Vec::new();
        while let Some((found, v)) = c.next()? {
            if v.len() == 2 && u16::from_le_bytes([v[0], v[1]]) as usize == prefix.len() {
                out.push(found[prefix.len()..].to_vec());
            }
        }
        Ok(out)
    }

    /// Updates the row with primary key `pk` in `trx`: `f` computes the new
    /// version from the latest one (read under the row's X lock, as
    /// InnoDB's UPDATE reads). The primary key may change.
    pub fn update_tx(
        &self,
        trx: &mut Trx,
        pk: &[Value],
        f: impl Fn(&[Value]) -> Result<Vec<Value>>,
    ) -> Result<RowUpdate> {
        crate::txn::admission::enter();
        self.check_writable()?;
        let r = self.update_tx_inner(trx, pk, f);
        if r.is_ok() {
            self.count_modification();
        }
        if matches!(r, Ok(RowUpdate::Changed)) {
            self.row_counters().updated.inc();
        }
        Self::end_statement(trx, r)
    }

    fn update_tx_inner(
        &self,
        trx: &mut Trx,
        pk: &[Value],
        f: impl Fn(&[Value]) -> Result<Vec<Value>>,
    ) -> Result<RowUpdate> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let key = Self::pk_from_values(schema, pk)?;
        trx.start_rw()?;
        trx.lock(self.row_lock_key(&key), LockMode::X, LockKind::Record)?;
        loop {
            let Some((h, old_bytes)) = self.latest(&key)? else { return Ok(RowUpdate::NotFound) };
            if h.deleted {
                return Ok(RowUpdate::NotFound);
            }
            let old = self.decode(schema, &key, &old_bytes)?;
            let mut new_row = f(&old)?;
            if new_row.len() != schema.columns.len() || schema.has_row_id() {
                Self::keep_row_id(schema, &old, &mut new_row)?;
            }
            let new_row =
                new_row.into_iter().zip(&schema.columns).map(|(v, c)| c.coerce(v)).collect::<Result<Vec<_>>>()?;
            let mut value = Vec::with_capacity(old_bytes.len());
            codec::encode_row(schema, &new_row, &mut value);
            if value == old_bytes {
                return Ok(RowUpdate::Unchanged);
            }
            let new_pk = Self::pk_key(schema, &new_row);
            if new_pk != key {
                // A new primary key: delete-mark the old row, insert the new.
                trx.lock(self.row_lock_key(&new_pk), LockMode::X, LockKind::Record)?;
                if self.latest(&new_pk)?.is_some_and(|(h, _)| !h.deleted) {
                    return Err(self.dup_primary(schema, &new_row));
                }
                self.delete_mark_locked(trx, &st, &key, h, &old_bytes)?;
                if let Some(c) = self.insert_locked(trx, &st, &new_row, &new_pk, &value, LockMode::S)? {
                    return Err(self.conflict_error(schema, &c, &new_row));
                }
                trx.log_merge_key_change();
                return Ok(RowUpdate::Changed);
            }
            let uniq = match self.check_unique_locked(trx, &st, &new_row, &key, LockMode::S)? {
                Unique::Clear(g) => g,
                Unique::Waited => continue,
                Unique::Duplicate(c) => return Err(self.conflict_error(schema, &c, &new_row)),
            };
            let mut sec_ops = Vec::new();
            for (ix, sec) in st.secondary.iter().enumerate() {
                let (ok, _) = Self::sec_key(schema, ix, &old, &key);
                let (nk, prefix) = Self::sec_key(schema, ix, &new_row, &key);
                if ok != nk {
                    sec_ops.push(TreeOps::secondary(
                        &sec.tree,
                        vec![Op::Ensure { key: nk, val: inline(&prefix.to_le_bytes()) }],
                        schema.indexes[ix].unique,
                        Cause::Change,
                    ));
                }
            }
            let kind = if sec_ops.is_empty() { UndoKind::UpdateNoIndexChange } else { UndoKind::Update };
            let undo = UndoRec::encode(kind, st.def.space_id, &key, Some((h, &old_bytes)));
            let roll = trx.append_undo(&undo)?;
            let rec = clustered_value(RecHeader::new(trx.id(), roll, false), &value);
            let val = self.clustered.prepare_value(&key, &rec)?;
            let mut plan = vec![TreeOps::new(&self.clustered, vec![Op::Replace { key: key.clone(), val }])];
            plan.extend(sec_ops);
            return match self.write_for(trx, plan)? {
                Some(RowWrite::Done) => {
                    trx.log_row(st.def.space_id, Some(&old_bytes), Some(&value));
                    Ok(RowUpdate::Changed)
                }
                Some(RowWrite::LockWait(k)) => {
                    drop(uniq);
                    trx.lock(k, LockMode::X, LockKind::InsertIntention)?;
                    continue;
                }
                None => Err(self.inconsistent(&st, RowWrite::Missing { tree: 0 })),
                Some(other) => Err(self.inconsistent(&st, other)),
            };
        }
    }

    /// Deletes the row with primary key `pk` in `trx`; `Ok(false)` if there
    /// is none.
    pub fn delete_tx(&self, trx: &mut Trx, pk: &[Value]) -> Result<bool> {
        crate::txn::admission::enter();
        self.check_writable()?;
        let r = self.delete_tx_inner(trx, pk);
        if r.is_ok() {
            self.count_modification();
        }
        if matches!(r, Ok(true)) {
            self.row_counters().deleted.inc();
        }
        Self::end_statement(trx, r)
    }

    fn delete_tx_inner(&self, trx: &mut Trx, pk: &[Value]) -> Result<bool> {
        let st = self.state.read();
        let key = Self::pk_from_values(&st.def.schema, pk)?;
        trx.start_rw()?;
        trx.lock(self.row_lock_key(&key), LockMode::X, LockKind::Record)?;
        let Some((h, old)) = self.latest(&key)? else { return Ok(false) };
        if h.deleted {
            return Ok(false);
        }
        self.delete_mark_locked(trx, &st, &key, h, &old)?;
        Ok(true)
    }

    /// Delete-marks the X-locked live row `key` whose latest version is
    /// (`h`, `row`).
    fn delete_mark_locked(&self, trx: &mut Trx, st: &TableState, key: &[u8], h: RecHeader, row: &[u8]) -> Result<()> {
        let undo = UndoRec::encode(UndoKind::DeleteMark, st.def.space_id, key, Some((h, row)));
        let roll = trx.append_undo(&undo)?;
        let rec = clustered_value(RecHeader::new(trx.id(), roll, true), row);
        let val = self.clustered.prepare_value(key, &rec)?;
        let plan = vec![TreeOps::new(&self.clustered, vec![Op::Replace { key: key.to_vec(), val }])];
        match self.write_for(trx, plan)? {
            Some(RowWrite::Done) => {
                trx.log_row(st.def.space_id, Some(row), None);
                Ok(())
            }
            None => Err(self.inconsistent(st, RowWrite::Missing { tree: 0 })),
            Some(other) => Err(self.inconsistent(st, other)),
        }
    }
}

/// A row about to be inserted: (row, generated AUTO_INCREMENT value,
/// primary key, encoded value); see [`Table::begin_insert`].
pub(crate) type NewRow = (Vec<Value>, Option<u64>, Vec<u8>, Vec<u8>);
