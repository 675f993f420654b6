//! CHECK TABLE t [, t2 ...] [QUICK | FAST | MEDIUM | EXTENDED | CHANGED]...
//!
//! Parsed here (sqlparser has no CHECK statement); the audit itself is the
//! engine's (`Table::check`). Every option runs the full check: quire has
//! one level, and it is the thorough one. The result set is MySQL's: one
//! or more rows (Table, Op, Msg_type, Msg_text) per table, as MariaDB
//! gives them:
//! - sound: `status | OK`;
//! - damaged: a `Warning` row per problem (file, page, index, entry), then
//!   `error | Corrupt`;
//! - a table marked corrupt when the server started: `Error | <1877
//!   message>`, then `error | Corrupt`;
//! - missing or not accessible: `Error | <message>`, then
//!   `status | Operation failed`.

use quire_engine::Error as EngineError;

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::plan::ColMeta;
use crate::session::{text_columns, Session};
use crate::Output;

/// The options MySQL accepts after the table list.
const OPTIONS: &[&str] = &["QUICK", "FAST", "MEDIUM", "EXTENDED", "CHANGED"];

/// The tables named: (database if given, table).
pub type TableNames = Vec<(Option<String>, String)>;

/// `tokens` as `admin::tokens` gives them (quoted names start with \u{1}).
/// Returns the (database, table) names, or `None` if this is not CHECK
/// TABLE.
pub fn parse(t: &[String]) -> Result<Option<TableNames>> {
    let w = |i: usize, s: &str| t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(s));
    if !(w(0, "CHECK") && (w(1, "TABLE") || w(1, "TABLES"))) {
        return Ok(None);
    }
    let (tables, mut i) = table_list(t, 2)?;
    while i < t.len() {
        if OPTIONS.iter().any(|o| w(i, o)) {
            i += 1;
        } else if w(i, "FOR") && w(i + 1, "UPGRADE") {
            i += 2;
        } else {
            return Err(SqlError::syntax(format!("near '{}'", t[i..].join(" "))));
        }
    }
    Ok(Some(tables))
}

/// A list of table names `t [, db.t2 ...]` starting at token `i`: the
/// names and the index of the token after the list (CHECK TABLE, ANALYZE
/// TABLE).
pub(crate) fn table_list(t: &[String], mut i: usize) -> Result<(TableNames, usize)> {
    let name = |i: usize| -> Result<String> {
        let x = t.get(i).ok_or_else(|| SqlError::syntax("a table name was expected"))?;
        if x.len() == 1 && !x.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            return Err(SqlError::syntax(format!("near '{x}'")));
        }
        Ok(x.trim_start_matches('\u{1}').to_string())
    };
    let mut tables = Vec::new();
    loop {
        let first = name(i)?;
        i += 1;
        if t.get(i).map(String::as_str) == Some(".") {
            tables.push((Some(first), name(i + 1)?));
            i += 2;
        } else {
            tables.push((None, first));
        }
        if t.get(i).map(String::as_str) == Some(",") {
            i += 1;
            continue;
        }
        break;
    }
    Ok((tables, i))
}

/// `VERB [NO_WRITE_TO_BINLOG | LOCAL] {TABLE | TABLES} t [, ...]`, the
/// head of ANALYZE, OPTIMIZE and REPAIR TABLE: the names and the index of
/// the token after them; `None` if the tokens are not that statement
/// (`ANALYZE SELECT ...` is not ANALYZE TABLE).
pub(crate) fn maintenance_tables(t: &[String], verb: &str) -> Result<Option<(TableNames, usize)>> {
    let w = |i: usize, s: &str| t.get(i).is_some_and(|x| !x.starts_with('\u{1}') && x.eq_ignore_ascii_case(s));
    if !w(0, verb) {
        return Ok(None);
    }
    let mut i = 1;
    if w(i, "NO_WRITE_TO_BINLOG") || w(i, "LOCAL") {
        i += 1;
    }
    if !(w(i, "TABLE") || w(i, "TABLES")) {
        return Ok(None);
    }
    table_list(t, i + 1).map(Some)
}

/// The rows a table maintenance statement (CHECK, ANALYZE, OPTIMIZE,
/// REPAIR) answers for one table: (Table, Op, Msg_type, Msg_text).
pub(crate) struct TableReport<'a> {
    rows: &'a mut Vec<Vec<Value>>,
    /// `db.t`, as the Table column shows it.
    pub label: String,
    op: &'static str,
}

impl<'a> TableReport<'a> {
    pub fn new(rows: &'a mut Vec<Vec<Value>>, op: &'static str, db: &str, t: &str) -> Self {
        TableReport { rows, label: format!("{db}.{t}"), op }
    }

    pub fn row(&mut self, kind: &str, text: String) {
        self.rows.push(vec![
            Value::Str(self.label.clone()),
            Value::Str(self.op.into()),
            Value::Str(kind.into()),
            Value::Str(text),
        ]);
    }

    /// `Error | message`, then `status | Operation failed`.
    pub fn failed(&mut self, message: String) {
        self.row("Error", message);
        self.row("status", "Operation failed".into());
    }
}

/// The database of a name in a maintenance statement's list.
pub(crate) fn database_of(s: &Session, db: &Option<String>) -> Result<String> {
    match db {
        Some(d) => Ok(d.clone()),
        None => s.db.clone().ok_or_else(SqlError::no_database),
    }
}

/// The message for a named table the engine does not have: a view is
/// "not of type 'BASE TABLE'" (ANALYZE, OPTIMIZE, REPAIR; MariaDB's).
pub(crate) fn not_a_table(s: &Session, db: &str, t: &str) -> String {
    if s.shared.catalog.view(db, t).is_some() {
        format!("'{db}.{t}' is not of type 'BASE TABLE'")
    } else {
        SqlError::no_such_table(db, t).message
    }
}

pub fn columns() -> Vec<ColMeta> {
    text_columns(&["Table", "Op", "Msg_type", "Msg_text"])
}

/// Runs CHECK TABLE on each named table.
pub fn run(s: &Session, tables: &[(Option<String>, String)]) -> Result<Output> {
    let mut named = Vec::new();
    for (db, t) in tables {
        let db = database_of(s, db)?;
        if named.iter().any(|(d, n): &(String, String)| d == &db && n == t) {
            return Err(SqlError::new(1066, "42000", format!("Not unique table/alias: '{t}'")));
        }
        named.push((db, t.clone()));
    }
    let mut rows = Vec::new();
    for (db, t) in &named {
        let mut r = TableReport::new(&mut rows, "check", db, t);
        let label = r.label.clone();
        let mut row = |kind: &str, text: String| r.row(kind, text);
        if let Err(e) = crate::admin::check_access(s, db) {
            row("Error", e.message);
            row("status", "Operation failed".into());
            continue;
        }
        match s.engine().table(&s.table_key(db, t)) {
            Err(EngineError::NoSuchTable(_)) => {
                row("Error", SqlError::no_such_table(db, t).message);
                row("status", "Operation failed".into());
            }
            Err(e) => {
                tracing::error!("CHECK TABLE {label}: {e}");
                row("Error", SqlError::from(e).message);
                row("error", "Corrupt".into());
            }
            Ok(table) => match table.check() {
                Ok(report) if report.is_ok() => row("status", "OK".into()),
                Ok(report) => {
                    for p in report.problems {
                        tracing::error!("CHECK TABLE {label}: {p}");
                        row("Warning", p);
                    }
                    row("error", "Corrupt".into());
                }
                Err(e) => {
                    tracing::error!("CHECK TABLE {label}: {e}");
                    row("Error", SqlError::from(e).message);
                    row("error", "Corrupt".into());
                }
            },
        }
    }
    Ok(Output::Rows { columns: columns(), rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn check_table_lists_and_options_parse() {
        let t = toks(&["CHECK", "TABLE", "t", ",", "\u{1}d", ".", "u", "QUICK", "extended", "FOR", "UPGRADE"]);
        assert_eq!(parse(&t).unwrap(), Some(vec![(None, "t".into()), (Some("d".into()), "u".into())]));
        assert!(parse(&toks(&["CHECK", "TABLE", "t", "BOGUS"])).is_err());
        assert!(parse(&toks(&["CHECK", "TABLE"])).is_err());
        assert_eq!(parse(&toks(&["SELECT", "1"])).unwrap(), None);
    }
}
