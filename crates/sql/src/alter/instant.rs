//! Whether an ALTER TABLE is an instant ADD COLUMN (InnoDB's
//! `ALGORITHM=INSTANT`, MySQL 8.0.12+), and carrying it out: the new
//! columns are appended by one catalog write (`Engine::add_columns_instant`)
//! and no row is rewritten; rows written before read each new column as
//! its *instant default*, the value the copy would have stored (its
//! DEFAULT, else NULL, else the implicit default of a NOT NULL column),
//! fixed at the ADD whatever the default becomes later. ALTER COLUMN SET
//! / DROP DEFAULT is instant too (as in MySQL and MariaDB): the catalog
//! alone holds a default.
//!
//! Instant when every operation is a SET / DROP DEFAULT or an ADD COLUMN
//! at the end (no position,
//! or AFTER the last column) and each new column is plain: no key
//! (PRIMARY KEY / UNIQUE), not AUTO_INCREMENT, not generated, no CHECK,
//! no `DEFAULT CURRENT_TIMESTAMP`, not a TIMESTAMP with a non-NULL default
//! (its value would depend on the session's time zone); and the table is
//! not temporary and not clustered on a hidden row id (which rows store
//! last). `ALGORITHM=DEFAULT` (or none) then picks instant, else the copy;
//! `ALGORITHM=INSTANT` refuses what cannot be instant with MySQL's 1845;
//! `ALGORITHM=COPY` copies. MySQL 8.0.29 and MariaDB also add instantly
//! at any position and drop instantly; quire copies those (and refuses
//! them with 1845 under ALGORITHM=INSTANT).
//!
//! Affected rows: 0, `Records: 0  Duplicates: 0  Warnings: 0`, as MariaDB
//! and MySQL report an instant ADD.

use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use sqlparser::ast;

use crate::error::SqlError;

/// MySQL's 1845 for `ALGORITHM=INSTANT` on an operation that cannot be.
pub fn not_supported() -> SqlError {
    SqlError::new(1845, "0A000", "ALGORITHM=INSTANT is not supported for this operation. Try ALGORITHM=COPY/INPLACE.")
}

/// Whether the operations alone allow an instant ALTER: only ADD COLUMNs
/// not FIRST, ALTER COLUMN SET / DROP DEFAULT, ALGORITHM and LOCK, and at
/// least one of the first two.
pub fn operations_allow(at: &ast::AlterTable) -> bool {
    use ast::AlterTableOperation as Op;
    let mut adds = 0;
    for op in &at.operations {
        match op {
            Op::AddColumn { column_def, column_position, .. } => {
                let plain = column_def.options.iter().all(|o| {
                    !matches!(
                        o.option,
                        ast::ColumnOption::Generated { .. }
                            | ast::ColumnOption::Check(_)
                            | ast::ColumnOption::Unique(_)
                            | ast::ColumnOption::PrimaryKey(_)
                            | ast::ColumnOption::ForeignKey(_)
                            | ast::ColumnOption::OnUpdate(_)
                    )
                });
                if !plain || matches!(column_position, Some(ast::MySQLColumnPosition::First)) {
                    return false;
                }
                adds += 1;
            }
            Op::AlterColumn {
                op: ast::AlterColumnOperation::SetDefault { .. } | ast::AlterColumnOperation::DropDefault,
                ..
            } => adds += 1,
            Op::Algorithm { .. } | Op::Lock { .. } => {}
            _ => return false,
        }
    }
    adds > 0
}

/// The table's new columns, if the new definition `new` (as the draft
/// finished it) is `old` with at most DEFAULTs changed and plain columns
/// appended, each appended one with its instant default; `None` when it
/// is not (the copy then does the ALTER).
pub fn columns(old: &TableSchema, new: &TableSchema) -> Option<Vec<Column>> {
    if new.primary_key != old.primary_key || new.indexes != old.indexes || new.cluster != old.cluster {
        return None;
    }
    let n = old.columns.len();
    if new.columns.len() < n || (new.columns.len() > n && old.has_row_id()) {
        return None;
    }
    let mut out = Vec::with_capacity(new.columns.len());
    for (a, b) in new.columns.iter().zip(&old.columns) {
        // The old column as it is, its DEFAULT aside (and its instant
        // default, which the draft's copy may lack, kept).
        let mut a = a.clone();
        a.instant_default = b.instant_default.clone();
        let mut same = a.clone();
        same.default = b.default.clone();
        if same != *b {
            return None;
        }
        out.push(a);
    }
    for c in &new.columns[n..] {
        if c.auto_increment || c.default_now || c.on_update_now {
            return None;
        }
        let v = match &c.default {
            Some(v) => v.clone(),
            None if c.nullable => Value::Null,
            None => crate::store::implicit_default(c),
        };
        if matches!(c.ty, ColumnType::Timestamp { .. }) && !v.is_null() {
            return None;
        }
        let mut c = c.clone();
        c.instant_default = Some(v);
        out.push(c);
    }
    Some(out)
}
