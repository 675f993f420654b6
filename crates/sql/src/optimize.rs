//! OPTIMIZE TABLE and REPAIR TABLE, answered as InnoDB answers them
//! (MariaDB 10.11), one row set of (Table, Op, Msg_type, Msg_text):
//!
//! - `OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, ...]`: InnoDB has
//!   no optimize of its own; it rebuilds the table (ALTER TABLE ... FORCE)
//!   and analyzes it, and says so: `note | Table does not support
//!   optimize, doing recreate + analyze instead`, then `status | OK`.
//!   quire does the same: a copy rebuild (`alter::run` with
//!   ALGORITHM=COPY, which compacts the table into a new space) and new
//!   statistics (`statistics::recalc`).
//! - `REPAIR [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, ...] [QUICK]
//!   [EXTENDED] [USE_FRM]`: InnoDB cannot repair and answers `note | The
//!   storage engine for the table doesn't support repair` (quire's
//!   damaged tables are handled by CHECK TABLE and innodb_force_recovery,
//!   docs/ARCHITECTURE.md).
//!
//! Either way a missing table is `Error | Table 'd.t' doesn't exist`, a
//! view `Error | 'd.v' is not of type 'BASE TABLE'`, each followed by
//! `status | Operation failed`. Neither is written to the binary log
//! (MySQL logs both unless NO_WRITE_TO_BINLOG; the rows are unchanged, so
//! a replica loses nothing).

use quire_engine::Error as EngineError;
use sqlparser::ast;

use crate::check::{database_of, maintenance_tables, not_a_table, TableNames, TableReport};
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// Which statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Optimize,
    Repair,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Optimize => "optimize",
            Op::Repair => "repair",
        }
    }
}

/// `tokens` as `admin::tokens` gives them. `None` if this is neither
/// statement.
pub fn parse(t: &[String]) -> Result<Option<(Op, TableNames)>> {
    let (op, found) = match maintenance_tables(t, "OPTIMIZE")? {
        Some(f) => (Op::Optimize, f),
        None => match maintenance_tables(t, "REPAIR")? {
            Some(f) => (Op::Repair, f),
            None => return Ok(None),
        },
    };
    let (tables, mut i) = found;
    let w = |i: usize, s: &str| t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(s));
    while op == Op::Repair && (w(i, "QUICK") || w(i, "EXTENDED") || w(i, "USE_FRM")) {
        i += 1;
    }
    if i < t.len() {
        return Err(SqlError::syntax(format!("near '{}'", t[i..].join(" "))));
    }
    Ok(Some((op, tables)))
}

/// Runs the statement on each named table.
pub fn run(s: &mut Session, op: Op, tables: &[(Option<String>, String)]) -> Result<Output> {
    let mut rows = Vec::new();
    for (db, t) in tables {
        let db = database_of(s, db)?;
        let mut r = TableReport::new(&mut rows, op.name(), &db, t);
        let access = crate::admin::check_access(s, &db).and_then(|()| {
            if crate::catalog::is_dictionary(&db, t) {
                return Err(crate::catalog::dictionary_denied(t));
            }
            Ok(())
        });
        if let Err(e) = access {
            r.failed(e.message);
            continue;
        }
        let table = match s.engine().table(&s.table_key(&db, t)) {
            Err(EngineError::NoSuchTable(_)) => {
                r.failed(not_a_table(s, &db, t));
                continue;
            }
            Err(e) => {
                r.failed(SqlError::from(e).message);
                continue;
            }
            Ok(table) => table,
        };
        if op == Op::Repair {
            r.row("note", "The storage engine for the table doesn't support repair".into());
            continue;
        }
        drop(table);
        r.row("note", "Table does not support optimize, doing recreate + analyze instead".into());
        match recreate_and_analyze(s, &db, t) {
            Ok(()) => r.row("status", "OK".into()),
            Err(e) => {
                r.row("error", e.message);
                r.row("status", "Operation failed".into());
            }
        }
    }
    Ok(Output::Rows { columns: crate::check::columns().into_iter().collect(), rows })
}

/// OPTIMIZE of one table: a copy rebuild, then new statistics (a
/// temporary table's statistics are not kept: `statistics/analyze.rs`).
fn recreate_and_analyze(s: &mut Session, db: &str, table: &str) -> Result<()> {
    let q = |x: &str| x.replace('`', "``");
    let stmt = crate::session::parse(&format!("ALTER TABLE `{}`.`{}` ALGORITHM=COPY", q(db), q(table)))?;
    let Some(ast::Statement::AlterTable(at)) = stmt.into_iter().next() else {
        return Err(SqlError::internal("OPTIMIZE: the rebuild statement did not parse"));
    };
    crate::admin::alter_table(s, &at)?;
    if s.temps.get(db, table).is_none() {
        let t = s.engine().table(&format!("{db}/{table}"))?;
        crate::statistics::recalc(&s.shared, db, table, &t)?;
    }
    s.shared.bump_epoch();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn optimize_and_repair_lists_parse_with_their_options() {
        let t = toks(&["OPTIMIZE", "NO_WRITE_TO_BINLOG", "TABLE", "t", ",", "\u{1}d", ".", "u"]);
        assert_eq!(parse(&t).unwrap(), Some((Op::Optimize, vec![(None, "t".into()), (Some("d".into()), "u".into())])));
        let t = toks(&["repair", "local", "tables", "t", "QUICK", "EXTENDED", "USE_FRM"]);
        assert_eq!(parse(&t).unwrap(), Some((Op::Repair, vec![(None, "t".into())])));
        assert_eq!(parse(&toks(&["OPTIMIZE", "TABLE", "t", "QUICK"])).unwrap_err().code, 1064);
        assert_eq!(parse(&toks(&["SELECT", "1"])).unwrap(), None);
    }
}
