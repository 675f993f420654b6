//! Select-list aliases inside HAVING. MySQL lets HAVING name a select
//! item's alias anywhere in its expression (`HAVING cnt > 1` after
//! `COUNT(*) AS cnt`), not only as the whole condition; the planners
//! resolve a bare name themselves (`query::resolve_alias`,
//! `rel::select`'s `named`), and this rewrites the names inside a larger
//! HAVING into the aliased expressions before it is compiled.
//!
//! A name is an alias's when no column of the block has that name, or
//! (MySQL's order for HAVING in the general engine) when `alias_first`.
//! Names inside a subquery of the HAVING are left to it. An alias of an
//! expression holding a window function is left alone: using it is
//! refused where it is compiled (3594).

use std::ops::ControlFlow;

use sqlparser::ast::{self, VisitMut, VisitorMut};

/// `having` with the aliases it names replaced by their expressions;
/// `None` when it names none (or is itself just a name, which the
/// planners resolve).
pub fn expand(
    having: &ast::Expr,
    items: &[ast::SelectItem],
    is_column: &dyn Fn(&str) -> bool,
    alias_first: bool,
) -> Option<ast::Expr> {
    if matches!(having, ast::Expr::Identifier(_)) {
        return None;
    }
    let aliases: Vec<(&str, &ast::Expr)> = items
        .iter()
        .filter_map(|i| match i {
            ast::SelectItem::ExprWithAlias { expr, alias } if !holds_window(expr) => Some((alias.value.as_str(), expr)),
            _ => None,
        })
        .collect();
    if aliases.is_empty() {
        return None;
    }
    let mut out = having.clone();
    let mut v = Expander { aliases: &aliases, is_column, alias_first, depth: 0, changed: false };
    let _ = out.visit(&mut v);
    v.changed.then_some(out)
}

struct Expander<'a> {
    aliases: &'a [(&'a str, &'a ast::Expr)],
    is_column: &'a dyn Fn(&str) -> bool,
    alias_first: bool,
    /// Subqueries entered.
    depth: usize,
    changed: bool,
}

impl VisitorMut for Expander<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut ast::Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut ast::Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        if let ast::Expr::Identifier(i) = e {
            if self.alias_first || !(self.is_column)(&i.value) {
                if let Some((_, x)) = self.aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(&i.value)) {
                    *e = ast::Expr::Nested(Box::new((*x).clone()));
                    self.changed = true;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

fn holds_window(e: &ast::Expr) -> bool {
    let mut found = false;
    let _ = ast::visit_expressions(e, |x| {
        if matches!(x, ast::Expr::Function(f) if f.over.is_some()) {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(sql: &str) -> ast::Select {
        let mut stmts = crate::depth::parse_sql(sql).unwrap();
        let ast::Statement::Query(q) = stmts.remove(0) else { panic!() };
        let ast::SetExpr::Select(s) = *q.body else { panic!() };
        *s
    }

    #[test]
    fn aliases_inside_having_become_their_expressions() {
        let s = select(
            "SELECT a, COUNT(*) AS cnt, a + 1 AS b FROM t GROUP BY a HAVING cnt > 1 AND b < (SELECT cnt FROM u)",
        );
        let h = s.having.as_ref().unwrap();
        let no_columns = |_: &str| false;
        let x = expand(h, &s.projection, &no_columns, false).unwrap();
        assert_eq!(x.to_string(), "(COUNT(*)) > 1 AND (a + 1) < (SELECT cnt FROM u)");
        // A column of that name wins unless aliases come first.
        let b_is_column = |n: &str| n == "b";
        let x = expand(h, &s.projection, &b_is_column, false).unwrap();
        assert_eq!(x.to_string(), "(COUNT(*)) > 1 AND b < (SELECT cnt FROM u)");
        let x = expand(h, &s.projection, &b_is_column, true).unwrap();
        assert_eq!(x.to_string(), "(COUNT(*)) > 1 AND (a + 1) < (SELECT cnt FROM u)");
        // A bare name, or none of the aliases: left to the planners.
        let s = select("SELECT COUNT(*) AS cnt FROM t HAVING cnt");
        assert!(expand(s.having.as_ref().unwrap(), &s.projection, &no_columns, false).is_none());
        let s = select("SELECT COUNT(*) AS cnt FROM t HAVING COUNT(*) > 1");
        assert!(expand(s.having.as_ref().unwrap(), &s.projection, &no_columns, false).is_none());
    }
}
