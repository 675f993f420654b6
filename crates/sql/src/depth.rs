//! Depth guards: no statement, however deep, may exhaust a connection
//! thread's stack (a stack overflow aborts the whole server).
//!
//! Expressions get deep in two ways, bounded differently:
//!
//! 1. **Nesting the parser recurses for** — parentheses, function calls,
//!    NOT, unary minus, CASE, subqueries. sqlparser counts it and refuses
//!    more than [`PARSER_RECURSION_LIMIT`] levels; quire answers that with
//!    1436 (ER_STACK_OVERRUN_NEED_MORE, "Thread stack overrun"), as MySQL
//!    does when an expression is too deep for its stack.
//! 2. **Chains the parser builds in a loop** — `a + b + c + ...`,
//!    `x IS NULL IS NULL ...`, `s1 UNION s2 UNION ...`: a left-deep tree as
//!    deep as the text is long (100 000 terms in 200 kB). Right after
//!    parsing, [`fold`] turns every long run of binary operators into one
//!    flat node (a marker tuple, see [`chain_parts`]) that `expr::compile`
//!    makes an `Expr::Chain`, evaluated in a loop; so `1+1+...+1` with
//!    100 000 terms answers 100000 (MariaDB's small thread stack gives
//!    1436 there; MySQL 8.0 evaluates it). A long chain of other postfix
//!    operators, or of UNIONs, is refused with 1436.
//!
//! Invariants, which the recursive code of the SQL layer relies on:
//!
//! 1. After [`parse_sql`] returns `Ok`, no expression has a run of more
//!    than [`FOLD_AT`] binary operators along its left spine, and no path
//!    through a statement nests more than [`MAX_EXPR_DEPTH`] expressions
//!    or set operations: recursive Drop, Clone and Display of the AST
//!    (sqlparser's; its Display also grows its stack with `stacker`)
//!    stay within a small stack.
//! 2. Parsing and folding run on a stack grown in proportion to the text
//!    ([`PARSE_STACK_BYTES_PER_BYTE`]): whatever the parser built, however
//!    deep, is dropped there when the statement is refused (a syntax
//!    error after a long chain drops the partial chain inside the parser,
//!    recursively; a refused statement is dropped as it is).
//! 3. [`check`] is called at every recursive step of compile and eval: it
//!    answers 1436 when less than [`RED_ZONE`] bytes of stack remain, so
//!    even a depth the limits above let through cannot overflow.

use std::ops::ControlFlow;

use sqlparser::ast::{self, BinaryOperator, Expr as E, SetExpr, VisitMut, VisitorMut};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};

use crate::error::{Result, SqlError};

/// Nesting levels sqlparser may recurse (its default, 50, refuses
/// ordinary generated SQL; MariaDB parses 10 000 nested parentheses).
pub const PARSER_RECURSION_LIMIT: usize = 1000;

/// A left-deep run of more binary operators than this is folded into one
/// flat chain node. Shorter runs stay ordinary nested nodes, so the
/// planner still sees `a = 1 AND b = 2` as it always did.
pub const FOLD_AT: usize = 32;

/// Expression nodes one path of a statement may nest once long binary
/// runs are folded (parentheses, functions, `IS NULL`, `IN (...)`,
/// `BETWEEN`, `COLLATE`, short binary runs, ...), and set operations one
/// query may chain.
pub const MAX_EXPR_DEPTH: usize = 2000;

/// Stack that must remain before compile or eval recurses one level more:
/// the deepest non-recursive work below one level (a function call, a
/// comparison building collation weights) fits in it with room to spare.
pub const RED_ZONE: usize = 256 * 1024;

/// Stack reserved for parsing per byte of text, beyond the thread's own:
/// sqlparser drops a partial chain recursively when a statement fails to
/// parse after it, at most one level per two bytes (`1+`), and one level
/// of that drop takes well under 64 bytes.
pub const PARSE_STACK_BYTES_PER_BYTE: usize = 64;

/// The most stack a parse is given (texts over 16 MiB get no more: a
/// chain of millions of operators in them could still fail to drop).
const MAX_PARSE_STACK: usize = 1 << 30;

/// Texts shorter than this are parsed on the thread's own stack: their
/// deepest possible chain drops within [`RED_ZONE`].
const GROW_PARSE_STACK_FROM: usize = 4096;

/// The first element of a folded chain tuple (a `?` placeholder whose
/// name no SQL text can produce).
const CHAIN_MARKER: &str = "\u{1}chain";

/// 1436 ER_STACK_OVERRUN_NEED_MORE.
pub fn stack_overrun(detail: impl std::fmt::Display) -> SqlError {
    SqlError::new(
        1436,
        "HY000",
        format!("Thread stack overrun: {detail}. The statement is nested too deeply; simplify it"),
    )
}

/// Answers 1436 when too little stack remains to recurse one level more.
#[inline]
pub fn check() -> Result<()> {
    match stacker::remaining_stack() {
        Some(left) if left < RED_ZONE => {
            Err(stack_overrun(format!("{left} bytes of stack left, and {RED_ZONE} bytes needed")))
        }
        _ => Ok(()),
    }
}

/// Parses `text` (MySQL dialect) with quire's recursion limit, on a stack
/// big enough for the text, and folds long chains (invariants 1–3).
pub fn parse_sql(text: &str) -> Result<Vec<ast::Statement>> {
    let run = || {
        let dialect = MySqlDialect {};
        let parser = Parser::new(&dialect).with_recursion_limit(PARSER_RECURSION_LIMIT);
        let tokens = crate::bit_literal::rewrite(text, crate::temporal::compound_unit_tokens(text));
        let parsed = match tokens {
            Some(tokens) => parser.with_tokens(tokens).parse_statements(),
            None => parser.try_with_sql(text).and_then(|mut p| p.parse_statements()),
        };
        let mut stmts = parsed.map_err(parser_error)?;
        fold(&mut stmts)?;
        Ok(stmts)
    };
    if text.len() < GROW_PARSE_STACK_FROM {
        return run();
    }
    let need = text.len().saturating_mul(PARSE_STACK_BYTES_PER_BYTE).min(MAX_PARSE_STACK);
    stacker::maybe_grow(RED_ZONE + need, RED_ZONE + need, run)
}

/// [`parse_sql`] of tokens already made (and rewritten) by a caller
/// (`select_into`): the same parser settings and folding.
pub fn parse_tokens(tokens: Vec<sqlparser::tokenizer::Token>, text_len: usize) -> Result<Vec<ast::Statement>> {
    let run = move || {
        let dialect = MySqlDialect {};
        let parser = Parser::new(&dialect).with_recursion_limit(PARSER_RECURSION_LIMIT);
        let mut stmts = parser.with_tokens(tokens).parse_statements().map_err(parser_error)?;
        fold(&mut stmts)?;
        Ok(stmts)
    };
    if text_len < GROW_PARSE_STACK_FROM {
        return run();
    }
    let need = text_len.saturating_mul(PARSE_STACK_BYTES_PER_BYTE).min(MAX_PARSE_STACK);
    stacker::maybe_grow(RED_ZONE + need, RED_ZONE + need, run)
}

fn parser_error(e: ParserError) -> SqlError {
    match e {
        ParserError::RecursionLimitExceeded => {
            stack_overrun(format!("expression nested more than {PARSER_RECURSION_LIMIT} levels deep"))
        }
        other => SqlError::syntax(other),
    }
}

/// Folds long binary chains of every statement (see the module note);
/// 1436 if a statement has a long chain that cannot be folded.
pub fn fold(stmts: &mut [ast::Statement]) -> Result<()> {
    let mut f = Folder { skip_root: false, depth: 0, refused: None };
    for s in stmts.iter_mut() {
        if s.visit(&mut f).is_break() {
            break;
        }
    }
    match f.refused {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `(first, [(op, rhs)])` of a folded chain: the value is
/// `first op1 rhs1 op2 rhs2 ...`, evaluated left to right.
pub fn chain_parts(e: &E) -> Option<(&E, Vec<(&BinaryOperator, &E)>)> {
    let E::Tuple(items) = e else { return None };
    let [marker, first, steps @ ..] = items.as_slice() else { return None };
    if !is_marker(marker) {
        return None;
    }
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        match s {
            E::BinaryOp { op, right, .. } => out.push((op, &**right)),
            _ => return None,
        }
    }
    Some((first, out))
}

/// A query's text with its folded chains written back flat (`a + b +
/// c`): what parses to the same query again (a view's stored definition).
pub fn unfolded_sql(q: &ast::Query) -> String {
    let mut q = q.clone();
    // Expressions are visited after their children: inner chains are text
    // by the time an outer one is written.
    let _ = ast::visit_expressions_mut(&mut q, |e: &mut E| {
        if let Some((first, steps)) = chain_parts(e) {
            let mut s = first.to_string();
            for (op, rhs) in steps {
                s.push_str(&format!(" {op} {rhs}"));
            }
            *e = E::Identifier(ast::Ident::new(s));
        }
        ControlFlow::<()>::Continue(())
    });
    q.to_string()
}

fn is_marker(e: &E) -> bool {
    matches!(e, E::Value(v) if matches!(&v.value, ast::Value::Placeholder(p) if p == CHAIN_MARKER))
}

/// An expression as text for a result column name: sqlparser's Display,
/// with a folded chain written back as `a + b + c`, cut to 255 characters
/// as MySQL names expression columns.
pub fn display(e: &E) -> String {
    const MAX_NAME_CHARS: usize = 255;
    let (mut e, mut parens) = (e, 0);
    while let E::Nested(inner) = e {
        (e, parens) = (inner, parens + 1);
    }
    let mut s = match chain_parts(e) {
        Some((first, steps)) => {
            let mut s = "(".repeat(parens);
            s.push_str(&first.to_string());
            for (op, rhs) in steps {
                if s.len() > 4 * MAX_NAME_CHARS {
                    break;
                }
                s.push_str(&format!(" {op} {rhs}"));
            }
            s + &")".repeat(parens)
        }
        None => format!("{}{e}{}", "(".repeat(parens), ")".repeat(parens)),
    };
    if let Some((i, _)) = s.char_indices().nth(MAX_NAME_CHARS) {
        s.truncate(i);
    }
    s
}

fn null() -> E {
    E::Value(ast::Value::Null.with_empty_span())
}

/// The operand a loop-built node was built around (its left operand):
/// the link along which chains grow without bound.
fn left_link(e: &mut E) -> Option<&mut Box<E>> {
    Some(match e {
        E::BinaryOp { left, .. } | E::AnyOp { left, .. } | E::AllOp { left, .. } => left,
        E::IsNull(x)
        | E::IsNotNull(x)
        | E::IsTrue(x)
        | E::IsNotTrue(x)
        | E::IsFalse(x)
        | E::IsNotFalse(x)
        | E::IsUnknown(x)
        | E::IsNotUnknown(x)
        | E::IsDistinctFrom(x, _)
        | E::IsNotDistinctFrom(x, _)
        | E::Nested(x) => x,
        E::InList { expr, .. }
        | E::InSubquery { expr, .. }
        | E::InUnnest { expr, .. }
        | E::Between { expr, .. }
        | E::Like { expr, .. }
        | E::ILike { expr, .. }
        | E::SimilarTo { expr, .. }
        | E::RLike { expr, .. }
        | E::Collate { expr, .. }
        | E::Cast { expr, .. }
        | E::IsNormalized { expr, .. }
        | E::IsJson { expr, .. }
        | E::UnaryOp { expr, .. } => expr,
        E::AtTimeZone { timestamp, .. } => timestamp,
        E::JsonAccess { value, .. } => value,
        E::CompoundFieldAccess { root, .. } => root,
        E::MemberOf(m) => &mut m.value,
        _ => return None,
    })
}

/// The length of `e`'s left spine and its longest run of binary nodes.
fn spine(e: &mut E) -> (usize, usize) {
    let (mut len, mut run, mut longest) = (0, 0, 0);
    let mut cur = e;
    loop {
        run = if matches!(cur, E::BinaryOp { .. }) { run + 1 } else { 0 };
        longest = longest.max(run);
        match left_link(cur) {
            Some(next) => {
                len += 1;
                cur = next;
            }
            None => return (len, longest),
        }
    }
}

/// Walks a statement, folding long chains in place (pre-order: a chain is
/// taken out before the visitor would recurse down it), and refuses the
/// statement as soon as the visit goes deeper than [`MAX_EXPR_DEPTH`].
struct Folder {
    /// The next `pre_visit_expr` is the node being visited on purpose by
    /// `visit_children`: leave it alone.
    skip_root: bool,
    /// Expressions open on the visit's path.
    depth: usize,
    refused: Option<SqlError>,
}

impl Folder {
    /// Visits what hangs below `e` (its own left link is already cut).
    fn visit_children(&mut self, e: &mut E) -> ControlFlow<()> {
        self.skip_root = true;
        let r = e.visit(self);
        self.skip_root = false;
        r
    }

    fn refuse(&mut self, detail: String) -> ControlFlow<()> {
        self.refused.get_or_insert_with(|| stack_overrun(detail));
        ControlFlow::Break(())
    }

    /// Takes a long spine apart iteratively and builds it again with its
    /// long binary runs folded. On a refusal the parts are put back as
    /// they were (the caller drops them on the parse stack).
    fn fold_spine(&mut self, root: E) -> (E, ControlFlow<()>) {
        // Peel: nodes[0] is the root, the last one the leaf's parent; each
        // node's left link is cut (NULL).
        let mut nodes = Vec::new();
        let mut cur = root;
        while let Some(link) = left_link(&mut cur) {
            let next = std::mem::replace(&mut **link, null());
            nodes.push(cur);
            cur = next;
        }
        let mut flow = self.visit_children(&mut cur);
        for n in nodes.iter_mut() {
            if flow.is_break() {
                break;
            }
            flow = self.visit_children(n);
        }
        let mut acc = cur;
        let mut run: Vec<E> = Vec::new();
        for mut node in nodes.into_iter().rev() {
            if matches!(node, E::BinaryOp { .. }) && flow.is_continue() {
                run.push(node);
                continue;
            }
            acc = flush_run(acc, &mut run);
            if let Some(link) = left_link(&mut node) {
                **link = acc;
            }
            acc = node;
        }
        (flush_run(acc, &mut run), flow)
    }
}

/// Puts `acc` below a run of binary nodes (bottom-up order): folded into
/// one chain tuple when the run is long, as ordinary nodes otherwise.
fn flush_run(mut acc: E, run: &mut Vec<E>) -> E {
    if run.len() <= FOLD_AT {
        for mut node in run.drain(..) {
            if let Some(link) = left_link(&mut node) {
                **link = acc;
            }
            acc = node;
        }
        return acc;
    }
    let mut items = Vec::with_capacity(run.len() + 2);
    items.push(E::Value(ast::Value::Placeholder(CHAIN_MARKER.into()).with_empty_span()));
    items.push(acc);
    items.append(run);
    E::Tuple(items)
}

impl VisitorMut for Folder {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut E) -> ControlFlow<()> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return self.refuse(format!("expression nested more than {MAX_EXPR_DEPTH} levels deep"));
        }
        if std::mem::take(&mut self.skip_root) {
            return ControlFlow::Continue(());
        }
        let (len, longest_run) = spine(e);
        if longest_run > FOLD_AT {
            let root = std::mem::replace(e, null());
            let (folded, flow) = self.fold_spine(root);
            *e = folded;
            flow?;
        } else if self.depth + len > MAX_EXPR_DEPTH {
            // Refused before the visit goes down it: dropped as it is, on
            // the parse stack (invariant 2).
            return self.refuse(format!("expression nested more than {MAX_EXPR_DEPTH} levels deep"));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _e: &mut E) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<()> {
        self.skip_root = false;
        let mut n = 0;
        let mut cur = &*q.body;
        while let SetExpr::SetOperation { left, .. } = cur {
            n += 1;
            cur = left;
        }
        if n > MAX_EXPR_DEPTH {
            return self.refuse(format!("more than {MAX_EXPR_DEPTH} set operations in one query"));
        }
        drop_dual(&mut q.body);
        ControlFlow::Continue(())
    }
}

/// `FROM DUAL` (the unquoted word, alone) is no FROM at all, as MySQL
/// reads it: in every SELECT of a query's body (nested queries are
/// visited on their own).
fn drop_dual(body: &mut SetExpr) {
    match body {
        SetExpr::Select(s) => {
            if let [only] = s.from.as_slice() {
                if only.joins.is_empty() && is_dual(&only.relation) {
                    s.from.clear();
                }
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            drop_dual(left);
            drop_dual(right);
        }
        _ => {}
    }
}

fn is_dual(t: &ast::TableFactor) -> bool {
    let ast::TableFactor::Table { name, alias: None, args: None, .. } = t else { return false };
    match name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(id)] => id.quote_style.is_none() && id.value.eq_ignore_ascii_case("dual"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_binary_runs_fold_into_one_flat_chain() {
        let text = format!("SELECT 1{}", " + 2".repeat(100));
        let stmts = parse_sql(&text).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else { panic!("not a query") };
        let SetExpr::Select(s) = &*q.body else { panic!("not a select") };
        let ast::SelectItem::UnnamedExpr(e) = &s.projection[0] else { panic!("not an expression") };
        let (first, steps) = chain_parts(e).expect("folded");
        assert_eq!(first.to_string(), "1");
        assert_eq!(steps.len(), 100);
        assert!(steps.iter().all(|(op, r)| **op == BinaryOperator::Plus && r.to_string() == "2"));
        assert_eq!(display(e).len(), 255);
        assert!(display(e).starts_with("1 + 2 + 2"));
    }

    #[test]
    fn short_runs_stay_ordinary_nodes() {
        let stmts = parse_sql("SELECT a FROM t WHERE a = 1 AND b = 2").unwrap();
        assert_eq!(stmts[0].to_string(), "SELECT a FROM t WHERE a = 1 AND b = 2");
    }

    #[test]
    fn a_long_postfix_chain_is_refused_with_1436() {
        let text = format!("SELECT 1{}", " IS NULL".repeat(100_000));
        assert_eq!(parse_sql(&text).unwrap_err().code, 1436);
        let text = format!("SELECT 1{}", " IS NULL".repeat(MAX_EXPR_DEPTH - 10));
        assert!(parse_sql(&text).is_ok());
    }

    #[test]
    fn nesting_beyond_the_parser_limit_is_1436() {
        let d = PARSER_RECURSION_LIMIT + 10;
        let text = format!("SELECT {}1{}", "(".repeat(d), ")".repeat(d));
        assert_eq!(parse_sql(&text).unwrap_err().code, 1436);
    }

    #[test]
    fn a_syntax_error_after_a_huge_chain_is_a_clean_1064() {
        let text = format!("SELECT 1{} FROM", "+1".repeat(200_000));
        assert_eq!(parse_sql(&text).unwrap_err().code, 1064);
    }
}
