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

use quire_engine::Error as EngineError;

use crate::check::{database_of, maintenance_tables, not_a_table, TableNames, TableReport};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// `tokens` as `admin::tokens` gives them. `None` if this is not ANALYZE
/// TABLE.
pub fn parse(t: &[String]) -> Result<Option<TableNames>> {
    let Some((tables, i)) = maintenance_tables(t, "ANALYZE")? else {
        return Ok(None);
    };
    if i < t.len() {
        let w = |s: &str| !t[i].starts_with('\u{1}') && t[i].eq_ignore_ascii_case(s);
        if w("UPDATE") || w("DROP") || w("PERSISTENT") {
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
        let db = database_of(s, db)?;
        let mut r = TableReport::new(&mut rows, "analyze", &db, t);
        if let Err(e) = crate::admin::check_access(s, &db) {
            r.failed(e.message);
            continue;
        }
        if s.temps.get(&db, t).is_some() {
            // Statistics are kept by name: a temporary table's would
            // overwrite the base table's (not built).
            r.row("note", "The storage engine for the table doesn't support analyze".into());
            r.row("status", "Operation failed".into());
            continue;
        }
        match s.engine().table(&format!("{db}/{t}")) {
            Err(EngineError::NoSuchTable(_)) => r.failed(not_a_table(s, &db, t)),
            Err(e) => r.failed(SqlError::from(e).message),
            Ok(table) => match super::recalc(&s.shared, &db, t, &table) {
                Ok(_) => {
                    analyzed = true;
                    r.row("status", "OK".into());
                }
                Err(e) => {
                    tracing::error!("ANALYZE TABLE {}: {}", r.label, e.message);
                    r.failed(e.message);
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
