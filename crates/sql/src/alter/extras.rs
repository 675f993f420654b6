//! ALTER TABLE operations that change only what the SQL layer keeps with
//! a table (`TableExtras`), with no copy of the rows:
//!
//! - `ADD [CONSTRAINT n] CHECK (expr) [[NOT] ENFORCED]`: validated as
//!   CREATE TABLE validates a constraint (`create::check`), then the
//!   existing rows are read (`SELECT 1 ... WHERE NOT (expr) LIMIT 1`, in
//!   the statement's own transaction): a row making an enforced
//!   constraint FALSE fails the statement with 3819, as MySQL 8.0
//!   (MariaDB answers 4025); NULL passes.
//! - `DROP CHECK n` (MySQL 8.0.19's spelling, rewritten by `session::parse`)
//!   and `DROP CONSTRAINT n` (both servers): the CHECK constraint named n;
//!   1091 when there is none; a FOREIGN KEY or index by that name is
//!   1235 here (DROP FOREIGN KEY / DROP INDEX say it plainly).
//! - `AUTO_INCREMENT = n`: stored as the table's start, and the counter
//!   becomes max(largest stored value + 1, n) at once
//!   (`Engine::set_extras`): as MySQL and MariaDB's InnoDB, never below
//!   the values in use, and lowered to max + 1 when n is below it.
//!
//! Affected rows follow MariaDB, which copies the table to add a CHECK:
//! the table's row count (`Records: n`), 0 for the other operations.
//!
//! The catalog entry is written once, durably, after every operation
//! was applied to a copy of the extras, so a failing operation changes
//! nothing. Not done: rows another session inserts between the check of
//! the existing rows and the catalog write are not checked against a new
//! constraint (MySQL holds a metadata lock over both).

use quire_engine::row::TableExtras;
use sqlparser::ast;

use crate::admin::{check_access, open_error, split_name};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::sink::{Collect, Outcome};
use crate::Output;

/// Whether every operation of the statement is one of this module's.
pub fn handles(at: &ast::AlterTable) -> bool {
    use ast::AlterTableOperation as Op;
    !at.operations.is_empty()
        && at.operations.iter().all(|op| {
            matches!(
                op,
                Op::AddConstraint { constraint: ast::TableConstraint::Check(_), .. }
                    | Op::DropConstraint { .. }
                    | Op::AutoIncrement { .. }
            )
        })
}

pub fn run(s: &mut Session, at: &ast::AlterTable) -> Result<Output> {
    use ast::AlterTableOperation as Op;
    let (db, table) = split_name(s, &at.name)?;
    check_access(s, &db)?;
    let full = s.table_key(&db, &table);
    let t = s.engine().table(&full).map_err(|e| open_error(e, &db, &table))?;
    let schema = t.schema();
    let mut extras: TableExtras = t.extras();
    let fks = t.foreign_keys();
    drop(t);
    let mut reset_auto_inc = false;
    let mut added = Vec::new();
    let mut added_any = false;
    for op in &at.operations {
        match op {
            Op::AddConstraint { constraint: ast::TableConstraint::Check(c), .. } => {
                added_any = true;
                let def = crate::create::check::define_added(&table, c, &schema, &extras.checks)?;
                if def.enforced {
                    added.push(def.clone());
                }
                extras.checks.push(def);
            }
            Op::DropConstraint { name, if_exists, .. } => {
                let before = extras.checks.len();
                extras.checks.retain(|c| !c.name.eq_ignore_ascii_case(&name.value));
                if extras.checks.len() == before {
                    if fks.iter().any(|f| f.name.eq_ignore_ascii_case(&name.value)) {
                        return Err(SqlError::unsupported("DROP CONSTRAINT of a FOREIGN KEY (use DROP FOREIGN KEY)"));
                    }
                    let text = format!("Can't DROP CONSTRAINT `{}`; check that it exists", name.value);
                    if *if_exists {
                        s.note(1091, text);
                        continue;
                    }
                    return Err(SqlError::new(1091, "42000", text));
                }
            }
            Op::AutoIncrement { value, .. } => {
                let n = match &value.value {
                    ast::Value::Number(n, _) => n.parse::<u64>().ok(),
                    _ => None,
                };
                let n = n.ok_or_else(|| SqlError::syntax(format!("AUTO_INCREMENT = {value}")))?;
                extras.auto_increment_start = n;
                reset_auto_inc = true;
            }
            other => return Err(SqlError::unsupported(format!("ALTER TABLE {other}"))),
        }
    }
    for c in &added {
        let sql = format!("SELECT 1 FROM `{db}`.`{table}` WHERE NOT ({}) LIMIT 1", c.expr);
        let q = s.compile_one(&sql)?;
        let found = s.execute(&q, &[], &mut Collect::default());
        s.commit()?;
        if matches!(found?, Outcome::Rows(n) if n > 0) {
            return Err(SqlError::new(
                crate::create::check::VIOLATED,
                "HY000",
                format!("Check constraint '{}' is violated.", c.name),
            ));
        }
    }
    // MariaDB copies the table to add a CHECK: it reports the rows copied.
    let copied = if added_any { count_rows(s, &db, &table)? } else { 0 };
    s.engine().set_extras(&full, extras, reset_auto_inc)?;
    let info = format!("Records: {copied}  Duplicates: 0  Warnings: {}", s.statement_warnings());
    Ok(Output::Ok { affected: copied, last_insert_id: 0, info })
}

/// The rows of `db`.`table`, read in the statement's own transaction.
fn count_rows(s: &mut Session, db: &str, table: &str) -> Result<u64> {
    let q = s.compile_one(&format!("SELECT COUNT(*) FROM `{db}`.`{table}`"))?;
    let mut rows = Collect::default();
    let o = s.execute(&q, &[], &mut rows);
    s.commit()?;
    match rows.into_output(o?) {
        Output::Rows { rows, .. } => Ok(rows.first().and_then(|r| r.first()).map_or(0, |v| match v {
            quire_engine::row::Value::Int(n) => *n as u64,
            quire_engine::row::Value::UInt(n) => *n,
            _ => 0,
        })),
        _ => Ok(0),
    }
}

/// `ALTER TABLE ... DROP CHECK n`, which sqlparser does not read, as
/// `DROP CONSTRAINT n` (the text outside quotes; `None` when it has no
/// such words or is no ALTER TABLE).
pub fn drop_check(sql: &str) -> Option<String> {
    // Every parsed statement passes here: look at its first word before
    // copying it.
    if !sql.trim_start().get(..5).is_some_and(|w| w.eq_ignore_ascii_case("ALTER")) {
        return None;
    }
    let upper = sql.to_ascii_uppercase();
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() + 6);
    let (mut i, mut quote, mut changed) = (0, None::<u8>, false);
    let bytes = sql.as_bytes();
    // Byte slices throughout: `i` may sit inside a multi-byte character.
    let upper = upper.as_bytes();
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if matches!(b, b'\'' | b'"' | b'`') => quote = Some(b),
            None if upper[i..].starts_with(b"DROP")
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
                && upper[i + 4..].trim_ascii_start().starts_with(b"CHECK")
                && upper[i + 4..].len() > upper[i + 4..].trim_ascii_start().len() =>
            {
                let rest = upper[i + 4..].trim_ascii_start();
                let after = &rest[5..];
                if after.first().is_some_and(|&c| c.is_ascii_whitespace() || c == b'`') {
                    let skip = upper[i..].len() - after.len();
                    out.extend_from_slice(b"DROP CONSTRAINT");
                    i += skip;
                    changed = true;
                    continue;
                }
            }
            None => {}
        }
        out.push(b);
        i += 1;
    }
    if changed {
        String::from_utf8(out).ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::drop_check;

    #[test]
    fn drop_check_becomes_drop_constraint_outside_quotes_only() {
        assert_eq!(drop_check("ALTER TABLE t DROP CHECK c").as_deref(), Some("ALTER TABLE t DROP CONSTRAINT c"));
        // Multi-byte characters before and after the words.
        assert_eq!(drop_check("ALTER TABLE t 😀 1 ADD INDEX c_1 (c)"), None);
        assert_eq!(drop_check("ALTER TABLE `é` DROP CHECK ü").as_deref(), Some("ALTER TABLE `é` DROP CONSTRAINT ü"));
        assert_eq!(drop_check("alter table t drop  check `c`").as_deref(), Some("alter table t DROP CONSTRAINT `c`"));
        assert_eq!(drop_check("ALTER TABLE t COMMENT 'DROP CHECK x'"), None);
        assert_eq!(drop_check("SELECT 'DROP CHECK c'"), None);
        assert_eq!(drop_check("ALTER TABLE t DROP CHECKS"), None);
    }
}
