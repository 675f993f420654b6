//! `@var := expr` inside any expression (MySQL's and MariaDB's
//! assignment operator, as in `SELECT @n := @n + 1 AS rownum, t.* FROM
//! t, (SELECT @n := 0) AS init`): evaluating it sets the user variable
//! and yields the value. MySQL 8.0 warns 1287 that this is deprecated;
//! MariaDB does not, and quire follows MariaDB.
//!
//! It compiles to an `Expr::Func` whose name starts as a stored
//! function's does (`stored::func::is_stored`), so that the planner
//! never folds it, merges it or evaluates it ahead of its row: the places
//! that leave stored functions alone leave it alone too.

use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::Expr;

/// What follows the stored functions' mark in an assignment's name.
const ASSIGN: &str = "\u{1}=";

/// `left := right`: `left` must be a user variable.
pub fn compile(left: &ast::Expr, value: Expr) -> Result<Expr> {
    let var = match left {
        ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.starts_with('@') => {
            i.value.trim_start_matches('@').to_ascii_lowercase()
        }
        _ => return Err(SqlError::syntax(format!("near ':=' after '{left}'"))),
    };
    if var.is_empty() || left.to_string().starts_with("@@") {
        return Err(SqlError::syntax(format!("near ':=' after '{left}'")));
    }
    Ok(Expr::Func(format!("{ASSIGN}{var}"), vec![value]))
}

/// The user variable an `Expr::Func` name assigns, if it is an assignment.
pub fn var_of(name: &str) -> Option<&str> {
    name.strip_prefix(ASSIGN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_user_variables_are_assigned() {
        let e = |s: &str| ast::Expr::Identifier(ast::Ident::new(s));
        let Expr::Func(name, _) = compile(&e("@Rank"), Expr::Lit(quire_engine::row::Value::Int(1))).unwrap() else {
            panic!("an assignment compiles to a function")
        };
        assert_eq!(var_of(&name), Some("rank"));
        assert!(crate::stored::func::is_stored(&name), "never folded, as a stored function");
        assert_eq!(compile(&e("a"), Expr::Lit(quire_engine::row::Value::Null)).unwrap_err().code, 1064);
        assert_eq!(compile(&e("@@x"), Expr::Lit(quire_engine::row::Value::Null)).unwrap_err().code, 1064);
        assert_eq!(var_of("upper"), None);
    }
}
