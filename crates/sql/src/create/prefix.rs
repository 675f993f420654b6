//! Prefix indexes: `KEY (a(10))`, `UNIQUE (a(10))`, `CREATE INDEX i ON
//! t (a(10))`, `ALTER TABLE ... ADD KEY (a(10))`.
//!
//! A key part `col(n)` keys the first n characters of a CHAR / VARCHAR /
//! TEXT value, or the first n bytes of a BINARY / VARBINARY / BLOB one
//! (`IndexDef::prefix`, encoded by the engine's `key::encode_prefix`). As
//! MySQL:
//! - TEXT and BLOB columns need one (1170 without, `ddl::check_key_types`);
//! - a prefix of another type, or longer than the column, is 1089; one
//!   equal to a CHAR / VARCHAR / BINARY / VARBINARY length keys the whole
//!   column (and is shown without a length); a length of 0 is 1391;
//! - UNIQUE refuses two rows with the same prefix (1062);
//! - a lookup through a prefix index finds every row sharing the prefix,
//!   and the statement's WHERE re-checks each (the planner's invariant:
//!   an access path is a superset of the answer); such an index never
//!   gives ORDER BY its order beyond the cut column, nor an IN list its
//!   points (`plan.rs`), and never serves a FOREIGN KEY.
//!
//! Not built (1235): a prefix in a PRIMARY KEY (InnoDB allows it).

use quire_engine::row::{Column, ColumnType, IndexDef};
use sqlparser::ast;

use crate::error::{Result, SqlError};

/// 1089, MySQL's message for every bad prefix.
fn bad_prefix() -> SqlError {
    SqlError::new(
        1089,
        "HY000",
        "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the \
         storage engine doesn't support unique prefix keys",
    )
}

/// A key part's column name and its prefix length, if it has one.
pub fn part(e: &ast::Expr) -> Result<(String, Option<u32>)> {
    match e {
        ast::Expr::Identifier(i) => Ok((i.value.clone(), None)),
        ast::Expr::Function(f) => {
            let name = f.name.to_string().trim_matches('`').to_string();
            let ast::FunctionArguments::List(list) = &f.args else {
                return Err(SqlError::syntax(format!("key part {e}")));
            };
            let len = match list.args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))] => match &v.value {
                    ast::Value::Number(n, _) => n.parse::<u32>().ok(),
                    _ => None,
                },
                _ => None,
            };
            let len = len.ok_or_else(|| SqlError::syntax(format!("key part {e}")))?;
            Ok((name, Some(len)))
        }
        other => Ok((other.to_string().trim_matches('`').to_string(), None)),
    }
}

/// The prefix length a key part keeps for `col`: 0 for the whole column.
pub fn length_for(col: &Column, len: u32) -> Result<u32> {
    if len == 0 {
        return Err(SqlError::new(1391, "HY000", format!("Key part '{}' length cannot be 0", col.name)));
    }
    let max = match col.ty {
        ColumnType::Char { len } | ColumnType::Varchar { len } => len,
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => len,
        ColumnType::Text => quire_engine::row::TEXT_MAX_BYTES as u32,
        ColumnType::Blob { max_bytes } => max_bytes,
        _ => return Err(bad_prefix()),
    };
    match len.cmp(&max) {
        std::cmp::Ordering::Greater => Err(bad_prefix()),
        std::cmp::Ordering::Equal if !matches!(col.ty, ColumnType::Text | ColumnType::Blob { .. }) => Ok(0),
        _ => Ok(len),
    }
}

/// 1235 for MySQL's multi-valued key part `(CAST(j->'$.a' AS t ARRAY))`.
fn multi_valued_refused(e: &ast::Expr) -> Result<()> {
    match e {
        ast::Expr::Nested(x) => multi_valued_refused(x),
        ast::Expr::Cast { data_type: ast::DataType::Array(_), .. } => {
            Err(SqlError::unsupported("multi-valued indexes (CAST(.. AS .. ARRAY) key parts)"))
        }
        _ => Ok(()),
    }
}

/// The columns and prefix lengths of an index's key parts (`columns`:
/// the table's visible columns): 1072 for an unknown column.
pub fn key_parts(parts: &[ast::IndexColumn], columns: &[Column]) -> Result<(Vec<usize>, Vec<u32>)> {
    let mut cols = Vec::with_capacity(parts.len());
    let mut prefix = Vec::with_capacity(parts.len());
    for ic in parts {
        multi_valued_refused(&ic.column.expr)?;
        let (name, len) = part(&ic.column.expr)?;
        let c = columns
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| SqlError::new(1072, "42000", format!("Key column '{name}' doesn't exist in table")))?;
        prefix.push(match len {
            Some(n) => length_for(&columns[c], n)?,
            None => 0,
        });
        cols.push(c);
    }
    if prefix.iter().all(|&n| n == 0) {
        prefix.clear();
    }
    Ok((cols, prefix))
}

/// A PRIMARY KEY's columns: no prefixes (1235).
pub fn primary_parts(parts: &[ast::IndexColumn], columns: &[Column]) -> Result<Vec<usize>> {
    let (cols, prefix) = key_parts(parts, columns)?;
    if !prefix.is_empty() {
        return Err(SqlError::unsupported("a prefix in a PRIMARY KEY"));
    }
    Ok(cols)
}

/// An index's key parts as SHOW CREATE TABLE prints them: `` `a`(10) ``.
pub fn parts_sql(ix: &IndexDef, names: &dyn Fn(usize) -> String) -> String {
    ix.columns
        .iter()
        .enumerate()
        .map(|(i, &c)| match ix.prefix_of(i) {
            Some(n) => format!("`{}`({n})", names(c)),
            None => format!("`{}`", names(c)),
        })
        .collect::<Vec<_>>()
        .join(",")
}
