//! `sql_auto_is_null`: with it ON, the first SELECT after a statement that
//! generated an AUTO_INCREMENT value finds that row with `WHERE col IS
//! NULL` (how ODBC programs read back the row they inserted), as MySQL and
//! MariaDB do it (`remove_eq_conds` in MariaDB's `sql_select.cc`).
//!
//! What is rewritten: in a SELECT block reading one table, a WHERE that
//! is `col IS NULL` (in parentheses or not, `col` qualified or not), `col`
//! that table's NOT NULL AUTO_INCREMENT column, becomes `col = <the
//! value>`. An IS NULL inside a larger condition (`v > 0 AND col IS NULL`)
//! is left alone, as MariaDB 10.11 leaves it (checked by hand). The session owns
//! the value ("armed"): set by each statement that generates one, taken
//! (disarmed) by the first rewrite, as MariaDB's
//! `substitute_null_with_insert_id`.
//!
//! REQUIRES: a statement compiled while armed is not put in the plan
//! cache (the rewrite holds one statement's value): the session's
//! `query_inner` bypasses the cache then.

use sqlparser::ast;

use crate::query::Resolver;

/// Rewrites `q`'s WHERE as the module note says; true if it did.
pub(crate) fn rewrite(q: &mut ast::Query, r: &dyn Resolver, id: u64) -> bool {
    let ast::SetExpr::Select(s) = q.body.as_mut() else { return false };
    let [from] = s.from.as_slice() else { return false };
    let ast::TableFactor::Table { name, alias, .. } = &from.relation else { return false };
    if !from.joins.is_empty() {
        return false;
    }
    let Ok(t) = r.resolve(name, alias.as_ref().map(|a| a.name.value.clone())) else { return false };
    let Some(col) = t.schema.columns.iter().find(|c| c.auto_increment && !c.nullable).map(|c| c.name.clone()) else {
        return false;
    };
    let qualifier = alias.as_ref().map_or_else(|| t.name.clone(), |a| a.name.value.clone());
    s.selection.as_mut().is_some_and(|w| substitute(w, &col, &qualifier, id))
}

/// Replaces `e` if it is `col IS NULL`.
fn substitute(e: &mut ast::Expr, col: &str, qualifier: &str, id: u64) -> bool {
    match e {
        ast::Expr::Nested(inner) => substitute(inner, col, qualifier, id),
        ast::Expr::IsNull(x) if names_column(x, col, qualifier) => {
            let column = std::mem::replace(x.as_mut(), ast::Expr::Value(ast::Value::Null.with_empty_span()));
            *e = ast::Expr::BinaryOp {
                left: Box::new(column),
                op: ast::BinaryOperator::Eq,
                right: Box::new(ast::Expr::Value(ast::Value::Number(id.to_string(), false).with_empty_span())),
            };
            true
        }
        _ => false,
    }
}

fn names_column(x: &ast::Expr, col: &str, qualifier: &str) -> bool {
    match x {
        ast::Expr::Identifier(i) => i.value.eq_ignore_ascii_case(col),
        ast::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [t, c] => t.value.eq_ignore_ascii_case(qualifier) && c.value.eq_ignore_ascii_case(col),
            [_, t, c] => t.value.eq_ignore_ascii_case(qualifier) && c.value.eq_ignore_ascii_case(col),
            _ => false,
        },
        ast::Expr::Nested(inner) => names_column(inner, col, qualifier),
        _ => false,
    }
}
