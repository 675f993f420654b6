//! The `DEFAULT` keyword as a value: `INSERT ... VALUES (DEFAULT, ...)`,
//! `INSERT ... SET c = DEFAULT` and `UPDATE ... SET c = DEFAULT`.
//!
//! An INSERT's DEFAULT leaves the column out of that row: the row is
//! built as if the column were not listed (`dml::new_row`), so the column
//! gets exactly what an omitted one gets — its literal default,
//! CURRENT_TIMESTAMP, the next AUTO_INCREMENT value, NULL, or for a NOT
//! NULL column without a default 1364 in strict mode and a warning with
//! the implicit default outside it (MariaDB's answers). A row with such a
//! keyword carries its own column list (`InsertPlan::row_targets`); rows
//! without one share the statement's.
//!
//! UPDATE's DEFAULT is what the column's default gives when the row is
//! written: its literal, the statement's time for a CURRENT_TIMESTAMP
//! default (to the column's fractional digits), NULL for a nullable
//! column without one, 0 for an AUTO_INCREMENT column (MariaDB stores
//! it); a NOT NULL column without one is MariaDB's error 1364 in every
//! `sql_mode`, raised when the statement is compiled (MariaDB raises it
//! before reading a row too). The time is the internal function
//! [`NOW_FSP`], evaluated by [`call`] (`expr::eval` asks it before the
//! session's functions).
//!
//! The `DEFAULT(col)` function gives the same value ([`function_value`]).
//! It needs the column's definition, which only
//! the general engine's names keep (`rel::bind`, `Level::slot_defs`):
//! queries with it are bound there (`rel::needs_general`), and so are
//! UPDATE / DELETE expressions holding it (`rel::bind::has_subquery`).
//! Elsewhere (INSERT VALUES, ON DUPLICATE KEY UPDATE, a derived table's
//! or view's column) it is 1235.

use quire_engine::row::{Column, ColumnType, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Expr;

/// `__quire_now_fsp(fsp)`: the current time to `fsp` digits.
pub const NOW_FSP: &str = "__quire_now_fsp";

/// Whether `e` is the bare keyword DEFAULT (a backquoted `default` is a
/// column name).
pub fn is_default(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"))
}

/// `UPDATE ... SET col = DEFAULT`: the value it assigns.
pub fn update_value(col: &Column) -> Result<Expr> {
    Ok(match &col.default {
        Some(d) => Expr::Lit(d.clone()),
        None if col.default_now => {
            let fsp = match col.ty {
                ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
                _ => 0,
            };
            Expr::Func(NOW_FSP.into(), vec![Expr::Lit(Value::Int(fsp.into()))])
        }
        None if col.nullable => Expr::Lit(Value::Null),
        None if col.auto_increment => Expr::Lit(crate::store::implicit_default(col)),
        None => {
            let m = format!("Field '{}' doesn't have a default value", col.name);
            return Err(SqlError::new(1364, "HY000", m));
        }
    })
}

/// Evaluates [`NOW_FSP`]; `None` for any other name.
pub fn call(name: &str, args: &[Value]) -> Option<Value> {
    if !name.starts_with("__quire_") {
        return None;
    }
    match (name, args) {
        (NOW_FSP, [Value::Int(fsp)]) => {
            let fsp = u8::try_from(*fsp).unwrap_or(6).min(6);
            Some(Value::DateTime(crate::timezone::local_now().with_fsp(fsp)))
        }
        _ => None,
    }
}

/// `DEFAULT(col)` of table column `col`: as `SET col = DEFAULT`.
pub fn function_value(col: &Column) -> Result<Expr> {
    update_value(col)
}

/// `DEFAULT(x)` where `x` is not a table's column: 1235.
pub fn function_refused() -> SqlError {
    SqlError::unsupported("DEFAULT() of a column that is not a table's")
}

/// Whether `e` calls `DEFAULT(...)`.
pub fn calls_function<V: ast::Visit>(e: &V) -> bool {
    use std::ops::ControlFlow;
    struct Find;
    impl ast::Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("default") => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    e.visit(&mut Find).is_break()
}
