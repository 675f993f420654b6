//! `ALTER TABLE t {DISABLE | ENABLE} KEYS`, which every mariadb-dump /
//! mysqldump file wraps around a table's rows and sqlparser does not
//! parse.
//!
//! InnoDB has no way to suspend index maintenance: MariaDB checks the
//! table (1146 for a missing table or a view, LOCK TABLES' 1100 / 1099)
//! and answers OK with Note 1031 "Storage engine InnoDB of the table
//! `d`.`t` doesn't have this option". quire answers the same. Combined
//! with other operations (`DISABLE KEYS, ADD ...`) it is refused with
//! 1235.

use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::table_lock::TableUse;
use crate::Output;

/// `ALTER TABLE [db.]t DISABLE | ENABLE KEYS`, from `admin::tokens`:
/// the (database if given, table). `None` if this is not that statement.
pub fn parse(t: &[String]) -> Result<Option<(Option<String>, String)>> {
    let w = |i: usize, s: &str| t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(s));
    if !(w(0, "ALTER") && w(1, "TABLE")) {
        return Ok(None);
    }
    let n = t.len();
    if !(n >= 5 && w(n - 1, "KEYS") && (w(n - 2, "DISABLE") || w(n - 2, "ENABLE"))) {
        return Ok(None);
    }
    let name = |x: &String| x.trim_start_matches('\u{1}').to_string();
    match &t[2..n - 2] {
        [table] => Ok(Some((None, name(table)))),
        [db, dot, table] if dot == "." => Ok(Some((Some(name(db)), name(table)))),
        _ if t.iter().any(|x| x == ",") => {
            Err(SqlError::unsupported("DISABLE / ENABLE KEYS with other ALTER TABLE operations"))
        }
        _ => Ok(None),
    }
}

/// Checks the table as MariaDB does, then notes that InnoDB has no such
/// option.
pub fn run(s: &Session, db: &Option<String>, table: &str) -> Result<Output> {
    let db = match db {
        Some(d) => d.clone(),
        None => s.db.clone().ok_or_else(SqlError::no_database)?,
    };
    crate::admin::check_access(s, &db)?;
    if s.temps.get(&db, table).is_none() {
        s.engine().table(&format!("{db}/{table}")).map_err(|e| crate::admin::open_error(e, &db, table))?;
        let write = TableUse {
            db: db.clone(),
            table: table.to_string(),
            name: table.to_string(),
            write: true,
            via_view: false,
        };
        s.admit_uses(&[write], true)?;
    }
    s.note(1031, format!("Storage engine InnoDB of the table `{db}`.`{table}` doesn't have this option"));
    Ok(Output::ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn disable_and_enable_keys_parse_alone_and_are_refused_with_other_operations() {
        assert_eq!(parse(&toks(&["ALTER", "TABLE", "\u{1}t", "DISABLE", "KEYS"])).unwrap(), Some((None, "t".into())));
        assert_eq!(
            parse(&toks(&["alter", "table", "d", ".", "t", "enable", "keys"])).unwrap(),
            Some((Some("d".into()), "t".into()))
        );
        assert_eq!(parse(&toks(&["ALTER", "TABLE", "t", "ADD", "KEY", "k", "(", "a", ")"])).unwrap(), None);
        let combined = toks(&["ALTER", "TABLE", "t", "ADD", "COLUMN", "c", "INT", ",", "DISABLE", "KEYS"]);
        assert_eq!(parse(&combined).unwrap_err().code, 1235);
    }
}
