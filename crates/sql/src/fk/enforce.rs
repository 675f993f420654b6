//! The checks and cascades of INSERT / UPDATE / DELETE, as InnoDB's
//! `row_ins_check_foreign_constraints` / `row_upd_check_references_constraints`.
//!
//! - A child row whose key columns are all non-NULL needs a parent row
//!   with that key: the parent's index is read with an S lock (a record
//!   lock on the row found, or the gap where it would be under REPEATABLE
//!   READ), held to the end of the transaction, so nobody can remove the
//!   parent meanwhile. None: 1452.
//! - A parent row deleted, or its referenced columns changed: the child
//!   rows holding the old key are read through the child's index with an
//!   X lock; RESTRICT / NO ACTION with any: 1451; CASCADE deletes them or
//!   gives them the new key, SET NULL sets their key columns to NULL, each
//!   change being itself a parent change for the children of that table
//!   (recursively, at most [`MAX_CASCADE_DEPTH`] levels, InnoDB's
//!   `FK_MAX_CASCADE_DEL`; deeper is MariaDB's error 1296 "Got error 193").
//!
//! REQUIRES: called inside a statement of `trx` (its failure undoes the
//! statement: `Session::in_trx`).

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::row::{FkAction, TableSchema, Value};
use quire_engine::table::Trx;
use quire_engine::txn::lock::LockMode;
use quire_engine::Table;

use super::define::{constraint_sql, index_leading};
use super::{split, Checks, Fk, TableFks};
use crate::error::{Result, SqlError};

/// InnoDB's `FK_MAX_CASCADE_DEL`.
pub const MAX_CASCADE_DEPTH: usize = 15;

fn message(fk: &Fk, child: &TableSchema) -> String {
    let (db, name) = split(&fk.child);
    format!("(`{db}`.`{name}`, {})", constraint_sql(&fk.def, db, child, false, true))
}

/// A child row without its parent.
pub const NO_PARENT: u16 = 1452;

fn no_parent(fk: &Fk, child: &TableSchema) -> SqlError {
    SqlError::new(
        NO_PARENT,
        "23000",
        format!("Cannot add or update a child row: a foreign key constraint fails {}", message(fk, child)),
    )
}

fn has_children(fk: &Fk, child: &TableSchema) -> SqlError {
    SqlError::new(
        1451,
        "23000",
        format!("Cannot delete or update a parent row: a foreign key constraint fails {}", message(fk, child)),
    )
}

fn too_deep(fk: &Fk, child: &TableSchema) -> SqlError {
    let m = message(fk, child);
    SqlError::new(1296, "HY000", format!("Got error 193 '{}' from InnoDB", &m[1..m.len() - 1]))
}

/// The key columns' values of `row`, or `None` when one is NULL (a NULL
/// key references nothing).
fn key_of(row: &[Value], cols: &[usize]) -> Option<Vec<Value>> {
    let k: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
    (!k.iter().any(Value::is_null)).then_some(k)
}

fn open(c: &Checks, name: &str) -> Result<Arc<Table>> {
    c.engine.table(name).map_err(SqlError::from)
}

/// A new or changed child row of table `schema`: each key it holds (whose
/// columns changed from `old`, when given) must find its parent.
pub fn child_written(
    c: &Checks,
    trx: &mut Trx,
    fks: &TableFks,
    schema: &TableSchema,
    old: Option<&[Value]>,
    new: &[Value],
) -> Result<()> {
    for fk in &fks.as_child {
        if old.is_some_and(|o| fk.def.columns.iter().all(|&i| o[i] == new[i])) {
            continue;
        }
        let Some(key) = key_of(new, &fk.def.columns) else { continue };
        let Ok(parent) = c.engine.table(&fk.def.parent) else { return Err(no_parent(fk, schema)) };
        let ps = parent.schema();
        let pcols: Option<Vec<usize>> = fk.def.parent_columns.iter().map(|n| ps.column_index(n)).collect();
        let Some(ix) = pcols.and_then(|p| index_leading(&ps, &p)) else { return Err(no_parent(fk, schema)) };
        let found = parent.scan_locking(trx, ix, Bound::Included(&key), Bound::Included(&key), LockMode::S, Some(1))?;
        if found.is_empty() {
            return Err(no_parent(fk, schema));
        }
    }
    Ok(())
}

/// The child rows of `fk` holding `key`, X-locked, with the child's table
/// and schema.
fn children(c: &Checks, trx: &mut Trx, fk: &Fk, key: &[Value]) -> Result<(Arc<Table>, TableSchema, Vec<Vec<Value>>)> {
    let t = open(c, &fk.child)?;
    let s = t.schema();
    let Some(ix) = index_leading(&s, &fk.def.columns) else {
        return Err(SqlError::internal(format!("no index for foreign key {}", fk.def.name)));
    };
    let rows = t.scan_locking(trx, ix, Bound::Included(key), Bound::Included(key), LockMode::X, None)?;
    Ok((t, s, rows))
}

/// A row of parent table `fks` is being deleted: its children follow
/// their ON DELETE action. `depth` is 0 for the statement's own row.
pub fn parent_deleting(
    c: &Checks,
    trx: &mut Trx,
    fks: &TableFks,
    parent: &TableSchema,
    old: &[Value],
    depth: usize,
) -> Result<()> {
    for fk in &fks.as_parent {
        let pcols: Option<Vec<usize>> = fk.def.parent_columns.iter().map(|n| parent.column_index(n)).collect();
        let Some(key) = pcols.and_then(|p| key_of(old, &p)) else { continue };
        let (t, s, mut rows) = children(c, trx, fk, &key)?;
        if fk.child == fk.def.parent {
            // A row referencing itself is not its own child (InnoDB's).
            let pk = |r: &[Value]| s.primary_key.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
            let me = pk(old);
            rows.retain(|r| pk(r) != me);
        }
        if rows.is_empty() {
            continue;
        }
        match fk.def.on_delete {
            FkAction::Restrict | FkAction::NoAction => return Err(has_children(fk, &s)),
            _ if depth >= MAX_CASCADE_DEPTH => return Err(too_deep(fk, &s)),
            FkAction::Cascade => {
                let next = c.registry.of(&fk.child);
                for row in rows {
                    if let Some(n) = &next {
                        parent_deleting(c, trx, n, &s, &row, depth + 1)?;
                    }
                    let pk: Vec<Value> = s.primary_key.iter().map(|&i| row[i].clone()).collect();
                    t.delete_tx(trx, &pk)?;
                }
            }
            FkAction::SetNull => {
                let new_vals = vec![Value::Null; fk.def.columns.len()];
                set_child_key(c, trx, fk, &t, &s, rows, &new_vals, depth)?;
            }
        }
    }
    Ok(())
}

/// A row of parent table `fks` changed from `old` to `new`: the children
/// of each key whose referenced columns changed follow ON UPDATE.
pub fn parent_updated(
    c: &Checks,
    trx: &mut Trx,
    fks: &TableFks,
    parent: &TableSchema,
    old: &[Value],
    new: &[Value],
    depth: usize,
) -> Result<()> {
    for fk in &fks.as_parent {
        let Some(pcols) = fk.def.parent_columns.iter().map(|n| parent.column_index(n)).collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        if pcols.iter().all(|&i| old[i] == new[i]) {
            continue;
        }
        let Some(key) = key_of(old, &pcols) else { continue };
        let (t, s, rows) = children(c, trx, fk, &key)?;
        if rows.is_empty() {
            continue;
        }
        match fk.def.on_update {
            FkAction::Restrict | FkAction::NoAction => return Err(has_children(fk, &s)),
            _ if depth >= MAX_CASCADE_DEPTH => return Err(too_deep(fk, &s)),
            FkAction::Cascade => {
                let vals: Vec<Value> = pcols.iter().map(|&i| new[i].clone()).collect();
                set_child_key(c, trx, fk, &t, &s, rows, &vals, depth)?;
            }
            FkAction::SetNull => {
                let vals = vec![Value::Null; fk.def.columns.len()];
                set_child_key(c, trx, fk, &t, &s, rows, &vals, depth)?;
            }
        }
    }
    Ok(())
}

/// Gives the child rows `rows` the key `vals` (CASCADE's new key or SET
/// NULL's NULLs); each change is a parent change for that table's own
/// children.
#[allow(clippy::too_many_arguments)]
fn set_child_key(
    c: &Checks,
    trx: &mut Trx,
    fk: &Fk,
    t: &Table,
    s: &TableSchema,
    rows: Vec<Vec<Value>>,
    vals: &[Value],
    depth: usize,
) -> Result<()> {
    let next = c.registry.of(&fk.child);
    for old in rows {
        let mut new = old.clone();
        for (&i, v) in fk.def.columns.iter().zip(vals) {
            new[i] = v.clone();
        }
        let pk: Vec<Value> = s.primary_key.iter().map(|&i| old[i].clone()).collect();
        t.update_tx(trx, &pk, |_| Ok(new.clone()))?;
        if let Some(n) = &next {
            parent_updated(c, trx, n, s, &old, &new, depth + 1)?;
        }
    }
    Ok(())
}
