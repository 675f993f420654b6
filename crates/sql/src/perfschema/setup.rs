//! `UPDATE performance_schema.setup_instruments SET ENABLED = ..., TIMED =
//! ... [WHERE ...]`: switching instruments on and off at runtime.
//!
//! The WHERE clause is evaluated by the query engine over the table's own
//! rows (`SELECT NAME FROM <the same table reference> WHERE ...`), so
//! every condition a SELECT accepts (LIKE, IN, functions) works; the
//! instruments whose names it returns are switched. As MySQL: only
//! ENABLED and TIMED may be assigned (1683 otherwise), to 'YES' or 'NO'
//! (any case) or their ENUM positions 1 / 2 (1265 otherwise, the column
//! being an ENUM); the affected rows are those whose values changed.

use sqlparser::ast;

use quire_engine::row::Value;
use quire_engine::wait::{self, Instrument};

use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

use super::Table;

/// Whether `u` updates setup_instruments (with `db` the current database).
pub fn targets(u: &ast::Update, db: Option<&str>) -> bool {
    if !u.table.joins.is_empty() || u.from.is_some() {
        return false;
    }
    let ast::TableFactor::Table { name, .. } = &u.table.relation else { return false };
    let ident = |p: &ast::ObjectNamePart| p.as_ident().map(|i| i.value.clone()).unwrap_or_default();
    let (d, t) = match name.0.as_slice() {
        [t] => (db.unwrap_or("").to_string(), ident(t)),
        [d, t] => (ident(d), ident(t)),
        _ => return false,
    };
    super::is_db(&d) && super::lookup(&t) == Some(Table::SetupInstruments)
}

/// A new value for ENABLED or TIMED.
fn switch(column: &str, v: &Value) -> Result<bool> {
    let word = match v {
        Value::Int(1) | Value::UInt(1) => return Ok(true),
        Value::Int(2) | Value::UInt(2) => return Ok(false),
        Value::Str(s) => s.to_ascii_uppercase(),
        _ => String::new(),
    };
    match word.as_str() {
        "YES" => Ok(true),
        "NO" => Ok(false),
        _ => Err(SqlError::new(1265, "01000", format!("Data truncated for column '{column}' at row 1"))),
    }
}

fn usage() -> SqlError {
    SqlError::new(1683, "HY000", "Invalid performance_schema usage.")
}

/// Runs the UPDATE `u` (see the module note).
pub fn update(s: &mut Session, u: &ast::Update) -> Result<Output> {
    if !s.shared.catalog.user(&s.user).is_some_and(|u| u.grants.contains("*")) {
        return Err(SqlError::new(
            1142,
            "42000",
            format!("UPDATE command denied to user '{}'@'%' for table 'setup_instruments'", s.user),
        ));
    }
    let (mut enabled, mut timed) = (None, None);
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(name) = &a.target else { return Err(usage()) };
        let column = name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.to_ascii_uppercase()).unwrap_or_default();
        let v = s.eval_constant(&a.value.to_string())?;
        match column.as_str() {
            "ENABLED" => enabled = Some(switch("ENABLED", &v)?),
            "TIMED" => timed = Some(switch("TIMED", &v)?),
            _ => return Err(usage()),
        }
    }
    let names = matching(s, u)?;
    let mut changed = 0u64;
    for info in wait::ALL.iter().filter(|i| names.iter().any(|n| n == i.name)) {
        let i: Instrument = info.instrument;
        let mut moved = false;
        if let Some(on) = enabled.filter(|&on| on != wait::enabled(i)) {
            if !wait::is_on() {
                continue;
            }
            wait::set_enabled(i, on);
            moved = true;
        }
        if let Some(on) = timed.filter(|&on| on != wait::timed(i)) {
            wait::set_timed(i, on);
            moved = true;
        }
        changed += u64::from(moved);
    }
    let info = format!("Rows matched: {}  Changed: {changed}  Warnings: 0", names.len());
    Ok(Output::Ok { affected: changed, last_insert_id: 0, info })
}

/// The NAMEs of the rows `u`'s WHERE / ORDER BY / LIMIT choose.
fn matching(s: &mut Session, u: &ast::Update) -> Result<Vec<String>> {
    let mut sql = format!("SELECT NAME FROM {}", u.table);
    if let Some(w) = &u.selection {
        sql.push_str(&format!(" WHERE {w}"));
    }
    if !u.order_by.is_empty() {
        let keys: Vec<String> = u.order_by.iter().map(|o| o.to_string()).collect();
        sql.push_str(&format!(" ORDER BY {}", keys.join(", ")));
    }
    if let Some(l) = &u.limit {
        sql.push_str(&format!(" LIMIT {l}"));
    }
    let rows = s.system_query(&sql)?;
    Ok(rows
        .into_iter()
        .filter_map(|r| match r.into_iter().next() {
            Some(Value::Str(n)) => Some(n),
            _ => None,
        })
        .collect())
}
