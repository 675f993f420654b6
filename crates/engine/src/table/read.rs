//! Reads inside a transaction.
//!
//! **Consistent reads** (plain SELECT) take no lock: each record's latest
//! version is checked against the transaction's read view, and older
//! versions are rebuilt from undo records (following roll pointers) until
//! one the view sees is found, or the row did not exist for the view.
//! Through a secondary index, the entry leads to the clustered record, and
//! the version the view sees is returned only if it still carries the
//! entry's values (so a row reached through a stale entry is skipped: the
//! version the view sees is reached through its own entry).
//!
//! Under READ UNCOMMITTED a consistent read takes no view: it returns each
//! record's newest version (an uncommitted change included, a delete-marked
//! record as absent), as InnoDB does.
//!
//! **Locking reads** (FOR UPDATE / FOR SHARE, and the reads of UPDATE and
//! DELETE) read the latest version under a lock. A range scan under
//! REPEATABLE READ takes a next-key lock on every entry it visits and a
//! gap lock on the first entry past the range (or the supremum), so no
//! row can be inserted into the scanned range until the transaction ends
//! (no phantoms). After each lock is granted the scan re-reads the tree
//! from its position: an entry inserted just before the lock was granted
//! is then seen and locked too (`rowop.rs` explains why that is enough).
//! Under READ COMMITTED only the records are locked.

use std::borrow::Cow;
use std::ops::Bound;
use std::sync::Arc;

use super::trx::Trx;
use super::{bref, IndexRef, RowCursor, Table, UseGuard};
use crate::btree::{BTree, Direction};
use crate::buffer::BufferPool;
use crate::row::{codec, Value};
use crate::txn::lock::{LockKey, LockKind, LockMode};
use crate::txn::record::{RecHeader, UndoKind, UndoRec};
use crate::txn::undo;
use crate::txn::view::ReadView;
use crate::{Error, Result, SYSTEM_SPACE};

/// The version of a clustered record a view sees: its row bytes, or `None`
/// if the row does not exist for the view. `rec` is the record's value;
/// the newest version is borrowed from it, an older one rebuilt from undo.
pub(crate) fn visible_version<'r>(pool: &BufferPool, view: &ReadView, rec: &'r [u8]) -> Result<Option<Cow<'r, [u8]>>> {
    let bad = |what: &str| Error::corruption(crate::PageId::new(SYSTEM_SPACE, 0), what.to_string());
    let (mut h, row) = RecHeader::split(rec).ok_or_else(|| bad("bad record header"))?;
    if view.sees(h.trx) {
        return Ok((!h.deleted).then_some(Cow::Borrowed(row)));
    }
    let mut budget = 1 << 20;
    loop {
        budget -= 1;
        if h.roll == 0 || budget == 0 {
            return Ok(None);
        }
        let bytes = undo::read(pool, h.roll)?;
        let u = UndoRec::decode(&bytes).ok_or_else(|| bad("undecodable undo record on a version chain"))?;
        let Some((ph, prow)) = u.prev else { return Ok(None) }; // inserted after the view
        debug_assert_ne!(u.kind, UndoKind::Insert);
        if view.sees(ph.trx) {
            return Ok((!ph.deleted).then_some(Cow::Owned(prow)));
        }
        h = ph;
    }
}

impl Table {
    /// The row with primary key `pk` as `trx`'s read view sees it.
    pub fn get_tx(&self, trx: &mut Trx, pk: &[Value]) -> Result<Option<Vec<Value>>> {
        self.get_tx_columns(trx, pk, None)
    }

    /// [`Table::get_tx`] decoding only the columns `need` marks (the
    /// others read as NULL; see [`codec::decode_row_into`]).
    pub fn get_tx_columns(&self, trx: &mut Trx, pk: &[Value], need: Option<&[bool]>) -> Result<Option<Vec<Value>>> {
        crate::txn::admission::enter();
        let st = self.state.read();
        let schema = &st.def.schema;
        let k = Self::pk_from_values(schema, pk)?;
        let mut buf = Vec::new();
        if !self.clustered.get(&k, &mut buf)? {
            return Ok(None);
        }
        crate::wait::note_rows_read(1); // a record was found (a miss reads none)
        let row = if trx.reads_uncommitted() {
            let (h, row) = self.split_record(&k, &buf)?;
            if h.deleted {
                return Ok(None);
            }
            Cow::Borrowed(row)
        } else {
            let (view, _h) = trx.read_view();
            match visible_version(self.clustered.pool(), &view, &buf)? {
                Some(row) => row,
                None => return Ok(None),
            }
        };
        let mut out = Vec::with_capacity(schema.columns.len());
        if !codec::decode_row_into(schema, &row, need, &mut out) {
            return Err(Error::corruption(
                self.clustered.root(),
                format!("undecodable row under key {k:02x?} of {}", self.name),
            ));
        }
        self.row_counters().read.inc();
        Ok(Some(out))
    }

    /// The latest committed-or-own version of the row with primary key
    /// `pk`, locked in `mode` (SELECT ... FOR UPDATE / FOR SHARE). Under
    /// REPEATABLE READ a missing key locks the gap it would go in.
    pub fn get_locking(&self, trx: &mut Trx, pk: &[Value], mode: LockMode) -> Result<Option<Vec<Value>>> {
        crate::txn::admission::enter();
        let r = self.get_locking_inner(trx, pk, mode);
        if let Ok(Some(_)) = &r {
            self.row_counters().read.inc();
            crate::wait::note_rows_read(1);
        }
        Self::end_statement(trx, r)
    }

    fn get_locking_inner(&self, trx: &mut Trx, pk: &[Value], mode: LockMode) -> Result<Option<Vec<Value>>> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let k = Self::pk_from_values(schema, pk)?;
        trx.ensure_id()?;
        match trx.lock(self.row_lock_key(&k), mode, LockKind::Record) {
            Err(Error::LockSkipped) => return Ok(None), // SKIP LOCKED
            r => r?,
        }
        match self.latest(&k)? {
            Some((h, row)) if !h.deleted => self.decode(schema, &k, &row).map(Some),
            Some(_) => Ok(None),
            None => {
                if trx.gap_locks() {
                    // Lock the gap the key would go in, so it stays absent.
                    drop(st);
                    let pkv: Vec<Value> = pk.to_vec();
                    self.scan_locking_inner(
                        trx,
                        IndexRef::Primary,
                        Bound::Included(&pkv),
                        Bound::Included(&pkv),
                        mode,
                        &mut |_| true,
                    )?;
                }
                Ok(None)
            }
        }
    }

    /// A consistent-read range scan (see [`Table::scan`] for the bounds).
    /// Under READ UNCOMMITTED the cursor has no view and returns newest
    /// versions.
    pub fn scan_tx(
        &self,
        trx: &mut Trx,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        dir: Direction,
    ) -> Result<RowCursor> {
        crate::txn::admission::enter();
        let view = (!trx.reads_uncommitted()).then(|| trx.read_view());
        let mut c = self.scan_with(index, lower, upper, dir)?;
        c.view = view;
        c.read_by = Some((self.txn.clone(), self.system));
        Ok(c)
    }

    /// A locking range scan: the rows of `index` between the bounds, in key
    /// order, each locked in `mode`, with next-key locks under REPEATABLE
    /// READ (see the module note). At most `limit` rows.
    pub fn scan_locking(
        &self,
        trx: &mut Trx,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        mode: LockMode,
        limit: Option<usize>,
    ) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        self.scan_locking_each(trx, index, lower, upper, mode, &mut |row| {
            out.push(row);
            limit.is_none_or(|l| out.len() < l)
        })?;
        Ok(out)
    }

    /// [`Table::scan_locking`] that hands each row to `visit` as soon as it
    /// is locked and read, in key order, and stops when `visit` returns
    /// false: rows past that point are neither read nor locked (a LIMIT
    /// locks what it returns, with the rows its filter skipped on the way,
    /// as InnoDB does).
    pub fn scan_locking_each(
        &self,
        trx: &mut Trx,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        mode: LockMode,
        visit: &mut dyn FnMut(Vec<Value>) -> bool,
    ) -> Result<()> {
        crate::txn::admission::enter();
        let visit = &mut |row: Vec<Value>| {
            crate::wait::note_rows_read(1);
            visit(row)
        };
        let r = self.scan_locking_inner(trx, index, lower, upper, mode, visit);
        Self::end_statement(trx, r)
    }

    fn scan_locking_inner(
        &self,
        trx: &mut Trx,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        mode: LockMode,
        visit: &mut dyn FnMut(Vec<Value>) -> bool,
    ) -> Result<()> {
        trx.ensure_id()?;
        let st = self.state.read();
        let schema = &st.def.schema;
        let Some((lo, hi)) = self.encode_bounds(schema, index, lower, upper)? else { return Ok(()) };
        let (tree, users) = match index {
            IndexRef::Primary => (self.clustered.clone(), None),
            IndexRef::Secondary(i) => (st.secondary[i].tree.clone(), Some(st.secondary[i].users.clone())),
        };
        let _uses = users.as_ref().map(UseGuard::new);
        drop(st);
        let gap = trx.gap_locks();
        let past = |k: &[u8]| match &hi {
            Bound::Unbounded => false,
            Bound::Included(h) => k > h.as_slice(),
            Bound::Excluded(h) => k >= h.as_slice(),
        };
        let mut pos = lo;
        loop {
            let found = first_from(&tree, &pos)?;
            let beyond = found.as_ref().is_none_or(|(k, _)| past(k));
            let lk = match &found {
                Some((k, _)) => LockKey { index: tree.index_id(), key: Some(k.clone()) },
                None => LockKey::supremum(tree.index_id()),
            };
            if beyond {
                if gap {
                    match trx.lock(lk, mode, LockKind::Gap) {
                        Err(Error::LockSkipped) => break, // gaps wait for nothing; kept for safety
                        r => r?,
                    }
                    if first_from(&tree, &pos)?.map(|(k, _)| k) != found.map(|(k, _)| k) {
                        continue; // something arrived in the gap before the lock
                    }
                }
                break;
            }
            let (k, v) = found.expect("not beyond");
            match trx.lock(lk, mode, if gap { LockKind::NextKey } else { LockKind::Record }) {
                Err(Error::LockSkipped) => {
                    // SKIP LOCKED: another transaction holds this entry.
                    pos = Bound::Excluded(k);
                    continue;
                }
                r => r?,
            }
            if gap && first_from(&tree, &pos)?.map(|(k, _)| k).as_deref() != Some(k.as_slice()) {
                continue;
            }
            pos = Bound::Excluded(k.clone());
            let row = match index {
                IndexRef::Primary => match self.latest(&k)? {
                    Some((h, row)) if !h.deleted => Some(row),
                    _ => None,
                },
                IndexRef::Secondary(ix) => {
                    let (sec, pk) = split_entry(&k, &v).ok_or_else(|| {
                        Error::corruption(tree.root(), format!("bad secondary index entry in {}", self.name))
                    })?;
                    match trx.lock(self.row_lock_key(pk), mode, LockKind::Record) {
                        Err(Error::LockSkipped) => continue, // SKIP LOCKED; `pos` is past it
                        r => r?,
                    }
                    let schema = self.schema();
                    match self.latest(pk)? {
                        Some((h, row)) if !h.deleted => {
                            let r = self.decode(&schema, pk, &row)?;
                            (Table::sec_key(&schema, ix, &r, &[]).0 == sec).then_some(row)
                        }
                        _ => None,
                    }
                }
            };
            if let Some(row) = row {
                let schema = self.schema();
                self.row_counters().read.inc();
                if !visit(self.decode(&schema, &k, &row)?) {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// The first entry of `tree` at or after `pos`.
fn first_from(tree: &BTree, pos: &Bound<Vec<u8>>) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut c = tree.range(bref(pos), Bound::Unbounded, Direction::Forward);
    Ok(c.next()?.map(|(k, v)| (k.to_vec(), v.to_vec())))
}

/// (index-column part, primary key) of a secondary entry.
pub(crate) fn split_entry<'k>(k: &'k [u8], v: &[u8]) -> Option<(&'k [u8], &'k [u8])> {
    if v.len() != 2 {
        return None;
    }
    let prefix = u16::from_le_bytes([v[0], v[1]]) as usize;
    (prefix <= k.len()).then(|| k.split_at(prefix))
}

impl RowCursor {
    /// Decodes only the columns `need` marks (the others read as NULL),
    /// plus those a secondary index scan needs to recognise stale entries.
    pub fn only_columns(&mut self, need: &[bool]) {
        let mut need = need.to_vec();
        need.resize(self.schema.columns.len(), true);
        if let IndexRef::Secondary(ix) = self.index {
            let keyed = self.schema.indexes[ix].columns.iter().chain(&self.schema.primary_key);
            for &c in keyed {
                need[c] = true;
            }
        }
        self.need = Some(need);
    }

    /// Reads the next row the cursor's view sees (or, without a view, the
    /// latest committed-or-not version: DDL's internal scans) into `out`,
    /// reusing its storage; `false` at the end.
    pub(crate) fn next_visible(&mut self, out: &mut Vec<Value>) -> Result<bool> {
        let Some(cursor) = self.cursor.as_mut() else { return Ok(false) };
        let need = self.need.as_deref();
        loop {
            let Some((k, v)) = cursor.next()? else { return Ok(false) };
            let corrupt = |what: &str| Error::corruption(self.clustered.root(), format!("{what} in {}", self.name));
            let pool = self.clustered.pool();
            let version = |rec, view: &Option<(ReadView, Arc<crate::txn::view::ViewHandle>)>| match view {
                Some((view, _)) => visible_version(pool, view, rec),
                None => Ok(RecHeader::split(rec).and_then(|(h, r)| (!h.deleted).then_some(Cow::Borrowed(r)))),
            };
            match self.index {
                IndexRef::Primary => {
                    let Some(row) = version(v, &self.view)? else { continue };
                    if !codec::decode_row_into(&self.schema, &row, need, out) {
                        return Err(corrupt("undecodable row"));
                    }
                    self.returned += 1;
                    return Ok(true);
                }
                IndexRef::Secondary(ix) => {
                    let (sec, pk) = split_entry(k, v).ok_or_else(|| corrupt("bad secondary index entry"))?;
                    if !self.clustered.get(pk, &mut self.buf)? {
                        continue; // purged meanwhile
                    }
                    let Some(row) = version(&self.buf, &self.view)? else { continue };
                    if !codec::decode_row_into(&self.schema, &row, need, out) {
                        return Err(corrupt("undecodable row"));
                    }
                    let (again, _) = Table::sec_key(&self.schema, ix, out, &[]);
                    if again != sec {
                        continue; // a stale entry: this version is reached through its own
                    }
                    self.returned += 1;
                    return Ok(true);
                }
            }
        }
    }
}
