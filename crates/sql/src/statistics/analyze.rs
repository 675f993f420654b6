//! ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t2 ...]: new statistics
//! for each table (`statistics::recalc`), answered as MariaDB answers it,
//! one or two rows (Table, Op, Msg_type, Msg_text) per table:
//! - done: `status | OK`;
//! - missing: `Error | Table 'd.t' doesn't exist`, then
//!   `status | Operation failed`; a view: `Error | 'd.v' is not of type
//!   'BASE TABLE'`, then the same.
//!
//! Every ANALYZE empties the plan cache, so the next statements are
//! planned on the new statistics. MySQL's `UPDATE HISTOGRAM` / `DROP
//! HISTOGRAM` and MariaDB's `PERSISTENT FOR` (column statistics) are
//! refused with 1235.

use quire_engine::row::Value;
use quire_engine::Error as EngineError;

use crate::check::{table_list, TableNames};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// `tokens` as `admin::tokens` gives them. `None` if this is not ANALYZE
/// TABLE.
pub fn parse(t: &[String]) -> Result<Option<TableNames>> {
    let w = |i: usize, s: &str| t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(s));
    if !w(0, "ANALYZE") {
        return Ok(None);
    }
    let mut i = 1;
    if w(i, "NO_WRITE_TO_BINLOG") || w(i, "LOCAL") {
        i += 1;
    }
    if !(w(i, "TABLE") || w(i, "TABLES")) {
        // ANALYZE SELECT ... (MariaDB) and the like are not this statement.
        return Ok(None);
    }
    let (tables, i) = table_list(t, i + 1)?;
    if i < t.len() {
        if w(i, "UPDATE") || w(i, "DROP") || w(i, "PERSISTENT") {
            return Err(SqlError::unsupported("column statistics (histograms) in ANALYZE TABLE"));
        }
        return Err(SqlError::syntax(format!("near '{}'", t[i..].join(" "))));
    }
    Ok(Some(tables))
}

/// Runs ANALYZE TABLE on each named table.
pub fn run(s: &Session, tables: &[(Option<String>, String)]) -> Result<Output> {
    let mut rows = Vec::new();
    let mut analyzed = false;
    for (db, t) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => s.db.clone().ok_or_else(SqlError::no_database)?,
        };
        let label = format!("{db}.{t}");
        let mut row = |kind: &str, text: String| {
            rows.push(vec![
                Value::Str(label.clone()),
                Value::Str("analyze".into()),
                Value::Str(kind.into()),
                Value::Str(text),
            ])
        };
        if let Err(e) = crate::admin::check_access(s, &db) {
            row("Error", e.message);
            row("status", "Operation failed".into());
            continue;
        }
        if s.temps.get(&db, t).is_some() {
            // Statistics are kept by name: a temporary table's would
            // overwrite the base table's (not built).
            row("note", "The storage engine for the table doesn't support analyze".into());
            row("status", "Operation failed".into());
            continue;
        }
        match s.engine().table(&format!("{db}/{t}")) {
            Err(EngineError::NoSuchTable(_)) => {
                let msg = if s.shared.catalog.view(&db, t).is_some() {
                    format!("'{db}.{t}' is not of type 'BASE TABLE'")
                } else {
                    SqlError::no_such_table(&db, t).message
                };
                row("Error", msg);
                row("status", "Operation failed".into());
            }
            Err(e) => {
                row("Error", SqlError::from(e).message);
                row("status", "Operation failed".into());
            }
            Ok(table) => match super::recalc(&s.shared, &db, t, &table) {
                Ok(_) => {
                    analyzed = true;
                    row("status", "OK".into());
                }
                Err(e) => {
                    tracing::error!("ANALYZE TABLE {label}: {}", e.message);
                    row("Error", e.message);
                    row("status", "Operation failed".into());
                }
            },
        }
    }
    if analyzed {
        s.shared.bump_epoch();
    }
    Ok(Output::Rows { columns: crate::check::columns().into_iter().collect(), rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn analyze_table_lists_parse_and_histograms_are_refused() {
        let t = toks(&["ANALYZE", "LOCAL", "TABLE", "t", ",", "\u{1}d", ".", "u"]);
        assert_eq!(parse(&t).unwrap(), Some(vec![(None, "t".into()), (Some("d".into()), "u".into())]));
        assert_eq!(parse(&toks(&["analyze", "tables", "t"])).unwrap(), Some(vec![(None, "t".into())]));
        assert_eq!(parse(&toks(&["ANALYZE", "SELECT", "1"])).unwrap(), None);
        assert_eq!(parse(&toks(&["ANALYZE", "TABLE", "t", "UPDATE", "HISTOGRAM", "ON", "a"])).unwrap_err().code, 1235);
        assert!(parse(&toks(&["ANALYZE", "TABLE", "t", "BOGUS"])).is_err());
    }
}
