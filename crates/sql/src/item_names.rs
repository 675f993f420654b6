//! Result column names as the query was written. MySQL and MariaDB name
//! an unaliased select-list expression by its text in the query
//! (`COUNT( * )`, `y+1`, `NOW() is not null`), not by a rendering of it; clients
//! that read a row by column name depend on that. sqlparser keeps no
//! source text and its spans cover only part of some expressions, so the
//! names are cut from the text here: each SELECT block's keyword has an
//! exact position (`Select::select_token`), and from there the list is
//! split at its top-level commas.
//!
//! The name becomes the item's alias (``y+1 AS `y+1` ``), which is also
//! MariaDB's semantics: ORDER BY / GROUP BY / HAVING / an outer query may
//! name the column `` `y+1` ``, and a view or CREATE TABLE ... SELECT
//! takes it as the column's name.
//!
//! Left as they are (named by `query::display_name`): columns
//! (`a`, `t.a`, `(a)`) and literals (named by their value, as MySQL),
//! and every block whose list the scan cannot cut with certainty
//! (comments in it, a count of items that differs from the parser's):
//! a wrong name is worse than a rendered one.

use std::ops::ControlFlow;

use sqlparser::ast::{self, SetExpr, VisitMut, VisitorMut};

/// Gives each unaliased expression of every SELECT block of `stmts`
/// (parsed from `text`) its text as its alias.
pub fn name_items(text: &str, stmts: &mut [ast::Statement]) {
    if !text.as_bytes().iter().any(|&b| b == b',' || b == b'(' || b == b' ') {
        return;
    }
    let mut v = Namer { text, lines: line_starts(text) };
    for s in stmts.iter_mut() {
        let _ = s.visit(&mut v);
    }
}

struct Namer<'a> {
    text: &'a str,
    /// Byte offset of each line's start.
    lines: Vec<usize>,
}

impl VisitorMut for Namer<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<()> {
        self.body(&mut q.body);
        ControlFlow::Continue(())
    }
}

impl Namer<'_> {
    /// The SELECT blocks of a query body (a nested `SetExpr::Query` is
    /// visited as a query of its own).
    fn body(&self, b: &mut SetExpr) {
        match b {
            SetExpr::Select(s) => self.select(s),
            SetExpr::SetOperation { left, right, .. } => {
                self.body(left);
                self.body(right);
            }
            _ => {}
        }
    }

    fn select(&self, s: &mut ast::Select) {
        let wanted = |i: &ast::SelectItem| matches!(i, ast::SelectItem::UnnamedExpr(e) if !named_by_itself(e));
        if !s.projection.iter().any(wanted) {
            return;
        }
        let start = s.select_token.0.span.start;
        let Some(at) = self.offset(start.line, start.column) else { return };
        let Some(items) = select_list(self.text, at) else { return };
        if items.len() != s.projection.len() {
            return;
        }
        for (item, text) in s.projection.iter_mut().zip(items) {
            if !wanted(item) {
                continue;
            }
            let ast::SelectItem::UnnamedExpr(e) =
                std::mem::replace(item, ast::SelectItem::Wildcard(Default::default()))
            else {
                unreachable!("wanted() matched an unnamed expression");
            };
            *item = ast::SelectItem::ExprWithAlias { expr: e, alias: ast::Ident::with_quote('`', text) };
        }
    }

    /// The byte offset of a 1-based (line, column-in-characters).
    fn offset(&self, line: u64, column: u64) -> Option<usize> {
        let start = *self.lines.get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        let col = usize::try_from(column).ok()?.checked_sub(1)?;
        let rest = self.text.get(start..)?;
        Some(start + rest.char_indices().nth(col).map_or(rest.len(), |(i, _)| i))
    }
}

/// Columns and literals keep the names MySQL gives them (the column's
/// name, the literal's value).
fn named_by_itself(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) | ast::Expr::Value(_) => true,
        ast::Expr::Nested(inner) => matches!(**inner, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)),
        _ => false,
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// Words that end a select list at its own level.
const ENDS: &[&str] = &[
    "FROM",
    "INTO",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "WINDOW",
    "FOR",
    "LOCK",
];
/// Words that may follow SELECT before the first item.
const MODIFIERS: &[&str] = &[
    "ALL",
    "DISTINCT",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_NO_CACHE",
    "SQL_CACHE",
    "SQL_CALC_FOUND_ROWS",
];

/// The texts of the select list whose SELECT keyword starts at byte `at`
/// of `text`, each trimmed. `None` when the list holds a comment or the
/// text is not as expected.
fn select_list(text: &str, at: usize) -> Option<Vec<&str>> {
    let b = text.as_bytes();
    if !text.get(at..at + 6)?.eq_ignore_ascii_case("SELECT") {
        return None;
    }
    let word_at = |i: usize| -> &str {
        let end = b[i..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).map_or(b.len(), |n| i + n);
        &text[i..end]
    };
    let mut i = at + 6;
    // Modifiers before the first item.
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let w = word_at(i);
        if w.is_empty() || !MODIFIERS.iter().any(|m| m.eq_ignore_ascii_case(w)) {
            break;
        }
        i += w.len();
    }
    let mut items = Vec::new();
    let (mut depth, mut item_start) = (0i32, i);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                // To the closing quote; a doubled one (and for strings a
                // backslash) escapes.
                i += 1;
                loop {
                    match b.get(i) {
                        None => return None,
                        Some(&q) if q == c && b.get(i + 1) == Some(&c) => i += 2,
                        Some(&q) if q == c => break,
                        Some(b'\\') if c != b'`' => i += 2,
                        Some(_) => i += 1,
                    }
                }
            }
            b'#' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                items.push(text[item_start..i].trim());
                item_start = i + 1;
            }
            b';' if depth == 0 => break,
            c if c.is_ascii_alphabetic() && depth == 0 && (i == 0 || !is_word_byte(b[i - 1])) => {
                let w = word_at(i);
                if ENDS.iter().any(|e| e.eq_ignore_ascii_case(w)) {
                    break;
                }
                i += w.len();
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    items.push(text[item_start..i.min(b.len())].trim());
    Some(items)
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'@' | b'.' | b'`')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(sql: &str) -> Vec<String> {
        let mut stmts = crate::depth::parse_sql(sql).unwrap();
        name_items(sql, &mut stmts);
        let ast::Statement::Query(q) = &stmts[0] else { panic!() };
        let SetExpr::Select(s) = &*q.body else { panic!() };
        s.projection
            .iter()
            .map(|i| match i {
                ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                ast::SelectItem::UnnamedExpr(e) => format!("<{e}>"),
                other => format!("<{other}>"),
            })
            .collect()
    }

    #[test]
    fn expressions_are_named_by_their_text_columns_and_literals_are_not() {
        assert_eq!(
            names(
                "select COUNT( * ), y  +  1, a, t.b, (c), 'x', NOW() is not null, CAST(y AS char), \
                   EXTRACT(YEAR FROM d), f(1, ')'), `we,ird` + 1 from t where a = 1"
            ),
            [
                "COUNT( * )",
                "y  +  1",
                "<a>",
                "<t.b>",
                "<(c)>",
                "<'x'>",
                "NOW() is not null",
                "CAST(y AS char)",
                "EXTRACT(YEAR FROM d)",
                "f(1, ')')",
                "`we,ird` + 1"
            ]
        );
        assert_eq!(names("SELECT DISTINCT SQL_NO_CACHE a+1, b*2 AS x FROM t"), ["a+1", "x"]);
        assert_eq!(names("SELECT 1+1;"), ["1+1"]);
        assert_eq!(names("SELECT\n  a +\n  1 ,\n  -b\nFROM t"), ["a +\n  1", "-b"]);
    }

    #[test]
    fn nested_blocks_and_set_operations_are_named_where_they_stand() {
        let sql = "SELECT x+1, (SELECT MAX(k)+0 FROM u) FROM (SELECT a*2 AS x FROM t) d UNION SELECT 2*3, 4";
        let mut stmts = crate::depth::parse_sql(sql).unwrap();
        name_items(sql, &mut stmts);
        let text = stmts[0].to_string();
        assert!(text.contains("x + 1 AS `x+1`"), "{text}");
        assert!(text.contains("MAX(k) + 0 AS `MAX(k)+0`"), "{text}");
        assert!(text.contains("(SELECT MAX(k) + 0 AS `MAX(k)+0` FROM u) AS `(SELECT MAX(k)+0 FROM u)`"), "{text}");
        assert!(text.contains("2 * 3 AS `2*3`"), "{text}");
    }

    #[test]
    fn lists_the_scan_cannot_cut_surely_are_left_alone() {
        assert_eq!(names("SELECT a+1 /* c */, b FROM t"), ["<a + 1>", "<b>"]);
        assert_eq!(names("SELECT a+1 -- c\n FROM t"), ["<a + 1>"]);
    }
}
