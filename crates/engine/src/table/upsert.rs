//! Inserts that meet duplicates (INSERT IGNORE, REPLACE, INSERT ... ON
//! DUPLICATE KEY UPDATE): instead of failing, the insert hands back the
//! live row that holds the key, locked, so the SQL layer can skip it,
//! delete it, or update it in the same transaction.
//!
//! Invariants:
//! 1. A [`Duplicate`] wrote nothing: the transaction holds the X lock of
//!    the new row's clustered key (as every insert takes it first) and a
//!    lock on the conflicting row (X when the clustered key conflicted;
//!    through a unique secondary key the caller's mode: S for IGNORE, X
//!    for REPLACE / ON DUPLICATE KEY UPDATE, as InnoDB), so
//!    the conflicting row cannot change until the transaction ends.
//! 2. The AUTO_INCREMENT counter only moves forward: a caller that
//!    reserves values ([`Table::reserve_auto_increment`]) hands them out
//!    itself and gives the row an explicit value.

use std::sync::atomic::Ordering;

use super::dml::Conflict;
use super::trx::Trx;
use super::Table;
use crate::row::Value;
use crate::txn::lock::LockMode;
use crate::{Error, Result};

/// What [`Table::insert_or_duplicate_tx`] did.
#[derive(Debug)]
pub enum Inserted {
    /// The row went in; the AUTO_INCREMENT value generated, if any.
    Row(Option<u64>),
    /// Nothing was written: a live row holds one of the row's unique keys.
    Duplicate(Duplicate),
}

/// A live row holding a unique key of a row being inserted.
#[derive(Debug)]
pub struct Duplicate {
    /// The index that conflicted: its position in `TableSchema::indexes`,
    /// or `None` for the clustered key.
    pub index: Option<usize>,
    /// The row that holds the key, its latest version (one value per
    /// schema column, a hidden row id included).
    pub existing: Vec<Value>,
    /// The new row as it was prepared (AUTO_INCREMENT filled in), without
    /// a hidden row id: what a retry inserts.
    pub row: Vec<Value>,
    /// The AUTO_INCREMENT value the attempt generated, if any.
    pub generated: Option<u64>,
    /// What a plain INSERT reports (1062's index and key).
    pub index_name: String,
    pub key_text: String,
}

impl Duplicate {
    /// The error a plain INSERT would have raised.
    pub fn to_error(&self) -> Error {
        Error::DuplicateKey { index: self.index_name.clone(), key: self.key_text.clone() }
    }
}

impl Table {
    /// [`Table::insert_tx`], except that a duplicate key is not an error:
    /// the conflicting row comes back, locked (invariant 1); `dup_lock`:
    /// the lock taken on a row found through a unique secondary key (X
    /// when the caller will change it: REPLACE, ON DUPLICATE KEY UPDATE).
    pub fn insert_or_duplicate_tx(&self, trx: &mut Trx, row: Vec<Value>, dup_lock: LockMode) -> Result<Inserted> {
        crate::txn::admission::enter();
        self.check_writable()?;
        let r = self.insert_or_duplicate_inner(trx, row, dup_lock);
        if matches!(r, Ok(Inserted::Row(_))) {
            self.count_modification();
            self.row_counters().inserted.inc();
        }
        Self::end_statement(trx, r)
    }

    fn insert_or_duplicate_inner(&self, trx: &mut Trx, row: Vec<Value>, dup_lock: LockMode) -> Result<Inserted> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let (row, generated, pk, value) = self.begin_insert(trx, schema, row)?;
        let Some(c) = self.insert_locked(trx, &st, &row, &pk, &value, dup_lock)? else {
            return Ok(Inserted::Row(generated));
        };
        let Some((_, bytes)) = self.latest(&c.key)? else {
            return Err(Error::corruption(
                self.clustered.root(),
                "a conflicting row vanished under its lock".to_string(),
            ));
        };
        let existing = self.decode(schema, &c.key, &bytes)?;
        let (index_name, key_text) = match self.conflict_error(schema, &c, &row) {
            Error::DuplicateKey { index, key } => (index, key),
            other => return Err(other),
        };
        let Conflict { index, .. } = c;
        let mut row = row;
        if schema.has_row_id() {
            row.truncate(schema.visible_columns().len());
        }
        Ok(Inserted::Duplicate(Duplicate { index, existing, row, generated, index_name, key_text }))
    }

    /// Reserves `n` consecutive AUTO_INCREMENT values (`n` >= 1) and
    /// returns the first, as InnoDB hands a statement an interval.
    pub fn reserve_auto_increment(&self, n: u64) -> u64 {
        self.auto_inc.fetch_add(n.max(1), Ordering::AcqRel)
    }
}
