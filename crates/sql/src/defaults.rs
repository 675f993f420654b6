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
//! UPDATE's DEFAULT is the column's literal default or NULL for a
//! nullable column without one. Not done (1235): a CURRENT_TIMESTAMP
//! default, an AUTO_INCREMENT column and a NOT NULL column without a
//! default in UPDATE, and the `DEFAULT(col)` function.

use quire_engine::row::{Column, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Expr;

/// Whether `e` is the bare keyword DEFAULT (a backquoted `default` is a
/// column name).
pub fn is_default(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"))
}

/// `UPDATE ... SET col = DEFAULT`: the value it assigns.
pub fn update_value(col: &Column) -> Result<Expr> {
    match &col.default {
        Some(d) => Ok(Expr::Lit(d.clone())),
        None if col.default_now || col.auto_increment || !col.nullable => Err(SqlError::unsupported(format!(
            "UPDATE ... SET {} = DEFAULT for a column without a literal default",
            col.name
        ))),
        None => Ok(Expr::Lit(Value::Null)),
    }
}
