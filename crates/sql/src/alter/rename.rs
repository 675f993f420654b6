//! RENAME TABLE a TO b [, c TO d ...] and ALTER TABLE ... RENAME TO.
//! Each rename is one atomic engine step (`Engine::rename_table`, an
//! intent record in the catalog); a statement renaming several tables is
//! checked whole first (names, databases, clashes, taking the earlier
//! renames into account), and if a later step still fails the earlier
//! ones are renamed back, so the statement is all or nothing as MariaDB's.
//! Across databases within the server, as MySQL. A table another table's
//! FOREIGN KEY references is refused (1235): its children would have to
//! change with it.

use std::collections::HashSet;

use sqlparser::ast;

use crate::admin::{check_access, split_name};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// RENAME TABLE of the session's temporary tables, in order (`tr TO ts`
/// after `ta TO tr` renames the renamed one); all or nothing: a failing
/// step renames the earlier ones back. `None` when the first pair names
/// no temporary table (the base-table path); 1235 when temporary and base
/// tables mix in one statement.
fn rename_temporary(s: &mut Session, pairs: &[ast::RenameTable]) -> Result<Option<Output>> {
    let mut done: Vec<((String, String), (String, String))> = Vec::new();
    let mut step = |s: &mut Session, p: &ast::RenameTable| -> Result<bool> {
        let (from, to) = (split_name(s, &p.old_name)?, split_name(s, &p.new_name)?);
        let renamed = s.temps.rename((&from.0, &from.1), (&to.0, &to.1))?;
        if renamed {
            done.push((from, to));
        }
        Ok(renamed)
    };
    let mut result = Ok(());
    for (k, p) in pairs.iter().enumerate() {
        match step(s, p) {
            Ok(true) => {}
            Ok(false) if k == 0 => return Ok(None),
            Ok(false) => {
                result = Err(SqlError::unsupported("RENAME TABLE of temporary and base tables in one statement"));
                break;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if let Err(e) = result {
        for (from, to) in done.iter().rev() {
            let _ = s.temps.rename((&to.0, &to.1), (&from.0, &from.1));
        }
        return Err(e);
    }
    Ok(Some(Output::ok()))
}

/// One rename: (database, table) from, (database, table) to.
type Step = ((String, String), (String, String));

/// `RENAME TABLE` statement.
pub fn rename_tables(s: &mut Session, pairs: &[ast::RenameTable]) -> Result<Output> {
    if !s.temps.is_empty() {
        if let Some(out) = rename_temporary(s, pairs)? {
            return Ok(out);
        }
    }
    let mut steps = Vec::new();
    let mut gone: HashSet<String> = HashSet::new();
    let mut made: HashSet<String> = HashSet::new();
    for p in pairs {
        let from = split_name(s, &p.old_name)?;
        let to = split_name(s, &p.new_name)?;
        let (f, t) = (format!("{}/{}", from.0, from.1), format!("{}/{}", to.0, to.1));
        let exists = |n: &str| made.contains(n) || (!gone.contains(n) && s.engine().table(n).is_ok());
        if !exists(&f) {
            check_access(s, &from.0)?;
            return Err(SqlError::no_such_table(&from.0, &from.1));
        }
        check(s, &from, &to)?;
        if exists(&t) {
            return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", to.1)));
        }
        made.remove(&f);
        gone.insert(f.clone());
        gone.remove(&t);
        made.insert(t.clone());
        steps.push((from, to));
    }
    let mut done: Vec<&Step> = Vec::new();
    for step in &steps {
        if let Err(e) = rename_now(s, &step.0, &step.1) {
            for (from, to) in done.iter().rev() {
                let _ = rename_now(s, to, from);
            }
            return Err(e);
        }
        done.push(step);
    }
    Ok(Output::ok())
}

/// ALTER TABLE ... RENAME TO: one rename, checked and done.
pub fn rename_one(s: &mut Session, from: (&str, &str), to: (&str, &str)) -> Result<()> {
    let from = (from.0.to_string(), from.1.to_string());
    let to = (to.0.to_string(), to.1.to_string());
    if from == to {
        return Ok(());
    }
    check(s, &from, &to)?;
    if s.engine().table(&format!("{}/{}", to.0, to.1)).is_ok() {
        return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", to.1)));
    }
    rename_now(s, &from, &to)
}

/// Access, the target's name and database, and foreign keys.
fn check(s: &Session, from: &(String, String), to: &(String, String)) -> Result<()> {
    check_access(s, &from.0)?;
    crate::catalog::check_table_name(&to.1)?;
    if !s.shared.catalog.database_exists(&to.0) {
        // MariaDB's answer (InnoDB cannot move the file).
        return Err(SqlError::new(
            1025,
            "HY000",
            format!(
                "Error on rename of './{}/{}' to './{}/{}' (errno: 168 \"Unknown (generic) error from engine\")",
                from.0, from.1, to.0, to.1
            ),
        ));
    }
    check_access(s, &to.0)?;
    crate::trigger::ddl::check_rename(s, from, to)?;
    let full = format!("{}/{}", from.0, from.1);
    if let Some(fk) = s.shared.foreign_keys.referencing(&full).first() {
        return Err(SqlError::unsupported(format!(
            "renaming a table referenced by a foreign key ('{}' of '{}')",
            fk.def.name,
            fk.child.replace('/', ".")
        )));
    }
    Ok(())
}

fn rename_now(s: &Session, from: &(String, String), to: &(String, String)) -> Result<()> {
    s.engine().rename_table(&format!("{}/{}", from.0, from.1), &format!("{}/{}", to.0, to.1))?;
    crate::statistics::forget(&s.shared, &from.0, &from.1);
    s.shared.foreign_keys.rebuild(s.engine());
    crate::trigger::ddl::table_renamed(s, from, to)
}
