//! ORDER BY of a single-table UPDATE / DELETE (`UPDATE t SET ... ORDER BY
//! b DESC LIMIT 2`, `DELETE FROM t ORDER BY ts LIMIT 100`).
//!
//! The rows the access path finds and WHERE accepts are read and locked
//! (X) first, all of them, as MySQL's filesort of an UPDATE does; they are
//! then sorted by the ORDER BY keys (stable: ties keep the access path's
//! order) and only the first LIMIT rows are changed. A statement without
//! ORDER BY never comes here: the plain path stops its scan at LIMIT.
//!
//! MariaDB's names: a column the table lacks is 1054 in 'ORDER BY', and a
//! position (`ORDER BY 1`) is an unknown column too (there is no select
//! list to point into).

use quire_engine::row::{Collation, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::{self, eval, Env, Expr};

/// The compiled ORDER BY of an UPDATE / DELETE.
pub struct RowOrder {
    /// Each key and whether it sorts descending.
    keys: Vec<(Expr, bool)>,
    /// Each key's collation.
    colls: Vec<Collation>,
}

/// Compiles `list` with `compile` (the statement's expression compiler,
/// which numbers parameters in text order); `colls` are the table's
/// column collations.
pub fn compile(
    list: &[ast::OrderByExpr],
    colls: &[Collation],
    mut compile: impl FnMut(&ast::Expr) -> Result<Expr>,
) -> Result<Option<RowOrder>> {
    if list.is_empty() {
        return Ok(None);
    }
    let mut keys = Vec::with_capacity(list.len());
    for o in list {
        if let ast::Expr::Value(v) = &o.expr {
            if let ast::Value::Number(n, _) = &v.value {
                return Err(SqlError::unknown_column(n, "ORDER BY"));
            }
        }
        let x = expr::with_collations(compile(&o.expr)?, colls);
        keys.push((x, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
    }
    let colls = keys.iter().map(|(x, _)| expr::key_collation(x, colls)).collect();
    Ok(Some(RowOrder { keys, colls }))
}

impl RowOrder {
    /// `rows` in ORDER BY order, the first `limit` of them.
    pub fn sort(&self, rows: Vec<Vec<Value>>, limit: Option<usize>, env: &dyn Env) -> Result<Vec<Vec<Value>>> {
        let mut keyed = Vec::with_capacity(rows.len());
        for r in rows {
            let k = self.keys.iter().map(|(e, _)| eval(e, &r, env)).collect::<Result<Vec<_>>>()?;
            keyed.push((r, k));
        }
        let sorted = crate::query::sort_rows(keyed, &self.keys, &self.colls);
        Ok(sorted.into_iter().map(|(r, _)| r).take(limit.unwrap_or(usize::MAX)).collect())
    }
}
