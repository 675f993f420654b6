//! Semi-joins and anti-joins: `EXISTS (SELECT ...)`, `x IN (SELECT ...)`,
//! `NOT EXISTS (SELECT ...)` and `x NOT IN (SELECT ...)` that are AND
//! terms of WHERE or of an ON clause take the subquery's tables into the
//! block's join tree (MySQL's semi-join "pull-out" of the subquery into
//! its parent), so the join planner (`join.rs`) orders them among the
//! block's tables by cost and reads them through an index keyed by the
//! outer row, or through a hash table built once on the equality.
//!
//! A converted term becomes a [`Tree::Semi`] member of the join group its
//! term belonged to (WHERE: the block's top group; an ON clause: the
//! group that ON filters). Execution (`exec.rs`) produces each row of the
//! tables before it at most once: a semi-join at the first row of its
//! inner tables that satisfies its terms (MySQL's FirstMatch), an
//! anti-join only when none does.
//!
//! Converted (everything else keeps the subquery's evaluation per row, or
//! once with a hash set for an uncorrelated one):
//! - the subquery is one SELECT block with a FROM clause and without
//!   GROUP BY, aggregates, HAVING, window functions, LIMIT, a locking
//!   clause or a recursive CTE's working table, and none of its WHERE /
//!   ON terms or (for IN) select items holds a subquery it did not itself
//!   convert;
//! - it reads a column of the block (a correlated EXISTS, or any IN whose
//!   left side is a column expression): an EXISTS that reads nothing of
//!   the block runs once anyway;
//! - `NOT IN` only when every left operand is a NOT NULL column of the
//!   block outside the inner side of an outer join, and every select item
//!   a NOT NULL column of the subquery's tables outside the inner side of
//!   one of its outer joins: with a NULL on either side `x NOT IN (...)`
//!   is NULL, not true, where an anti-join on `=` would select the row.
//!
//! Invariants:
//! 1. The subquery's slots are appended after the block's (`offset +=
//!    width`), its sources after the block's; its `Expr::Col(i)` become
//!    `Expr::Col(i + width)` and its captures (`Expr::Outer(k)`) the
//!    block's expressions they captured.
//! 2. Nothing outside a semi-join's own terms reads its inner slots, so
//!    the rows it lets through carry whatever its inner side last read.

use quire_engine::row::{Collation, Column, ColumnType};

use super::bind::{Level, Tree};
use super::{Block, JoinKind, QueryPlan, Source, SourceKind};
use crate::error::Result;
use crate::expr::{self, any_expr, map_expr, BinOp, Expr, SubExpr, SubKind};
use crate::plan::{and_terms, Access, MetaType};

/// What a subquery's SELECT block keeps, before its terms are placed, so
/// that the block around it can take its tables in.
#[derive(Clone, Debug)]
pub struct Pullable {
    /// The FROM clause as bound (its own semi-joins already in it).
    tree: Tree,
    /// WHERE's AND terms, collations applied.
    terms: Vec<Expr>,
    slot_meta: Vec<MetaType>,
    slot_types: Vec<Option<ColumnType>>,
    slot_colls: Vec<Collation>,
    slot_defs: Vec<Option<Column>>,
}

/// Whether a bound block may be pulled into the block around it; if so,
/// what it keeps for that. `level` is the block's own.
pub(super) fn keep(b: &Block, tree: Tree, terms: Vec<Expr>, level: &Level) -> Option<Box<Pullable>> {
    let simple = b.aggs.is_empty()
        && b.group_by.is_empty()
        && b.having.is_none()
        && !b.rollup
        && b.windows.fns.is_empty()
        && b.limit.is_none()
        && b.offset.is_none()
        && b.lock.is_none()
        && b.sources.iter().all(|s| matches!(s.kind, SourceKind::Table(_) | SourceKind::Derived(_)));
    if !simple || terms.iter().any(holds_subquery) || tree_holds_subquery(&tree) {
        return None;
    }
    Some(Box::new(Pullable {
        tree,
        terms,
        slot_meta: level.slot_meta.clone(),
        slot_types: level.slot_types.clone(),
        slot_colls: level.slot_colls.clone(),
        slot_defs: level.slot_defs.clone(),
    }))
}

/// Converts the convertible subquery terms of WHERE (`terms`) and of the
/// ON clauses of `tree` into semi- and anti-joins (see the module's
/// notes); the block's slots grow by the subqueries' (`level`).
pub(super) fn pull_up(
    level: &mut Level,
    sources: &mut Vec<Source>,
    tree: &mut Option<Tree>,
    terms: &mut Vec<Expr>,
) -> Result<()> {
    let Some(t) = tree.as_mut() else { return Ok(()) };
    let mut nullable = vec![false; level.slot_colls.len()];
    outer_joined(t, sources, false, &mut nullable);
    let mut kept = Vec::new();
    for term in std::mem::take(terms) {
        match convert(level, sources, term, &nullable)? {
            Ok(semi) => attach(t, semi),
            Err(term) => kept.push(term),
        }
    }
    *terms = kept;
    in_on_clauses(level, sources, t, &nullable)
}

/// Joins `semi` to the inner-join group `t` is the top of.
fn attach(t: &mut Tree, semi: Tree) {
    let prev = std::mem::replace(t, Tree::Leaf(usize::MAX));
    *t = Tree::Join {
        kind: JoinKind::Inner,
        left: Box::new(prev),
        right: Box::new(semi),
        on: Vec::new(),
        straight: false,
    };
}

/// Converts the subquery terms of the ON clauses in `t`: an inner join's
/// join its group; a LEFT join's its right side's group (which the ON
/// clause filters before the outer join NULL-extends).
fn in_on_clauses(level: &mut Level, sources: &mut Vec<Source>, t: &mut Tree, nullable: &[bool]) -> Result<()> {
    let Tree::Join { kind, left, right, on, .. } = t else { return Ok(()) };
    in_on_clauses(level, sources, left, nullable)?;
    in_on_clauses(level, sources, right, nullable)?;
    if !on.iter().any(|x| and_terms(x).into_iter().any(|x| candidate(x).is_some())) {
        return Ok(());
    }
    let terms: Vec<Expr> = std::mem::take(on).iter().flat_map(|x| and_terms(x).into_iter().cloned()).collect();
    let mut semis = Vec::new();
    for term in terms {
        match convert(level, sources, term, nullable)? {
            Ok(semi) => semis.push(semi),
            Err(term) => on.push(term),
        }
    }
    if *kind == JoinKind::Left {
        semis.into_iter().for_each(|semi| attach(right, semi));
    } else {
        semis.into_iter().for_each(|semi| attach(t, semi));
    }
    Ok(())
}

/// The subquery of a term that may become a semi-join, and whether it
/// would be an anti-join.
fn candidate(term: &Expr) -> Option<(&SubExpr, bool)> {
    let (s, flip) = match term {
        Expr::Subquery(s) => (&**s, false),
        Expr::Not(x) => match &**x {
            Expr::Subquery(s) => (&**s, true),
            _ => return None,
        },
        _ => return None,
    };
    matches!(s.kind, SubKind::Exists | SubKind::In(_)).then_some((s, s.negated != flip))
}

/// `term` as a semi- or anti-join member, or `Err(term)` when it is not
/// converted (see the module's notes).
fn convert(
    level: &mut Level,
    sources: &mut Vec<Source>,
    term: Expr,
    nullable: &[bool],
) -> Result<std::result::Result<Tree, Expr>> {
    let Some((s, anti)) = candidate(&term) else { return Ok(Err(term)) };
    let QueryPlan::Select(b) = &s.query.plan else { return Ok(Err(term)) };
    let Some(p) = &b.pullable else { return Ok(Err(term)) };
    let reads_block = |e: &Expr| {
        let mut v = Vec::new();
        super::join::slots(e, &mut v);
        !v.is_empty()
    };
    let lhs: &[Expr] = match &s.kind {
        SubKind::In(lhs) => lhs,
        _ => &[],
    };
    if !s.query.captures.iter().chain(lhs).any(reads_block) {
        return Ok(Err(term));
    }
    if !lhs.is_empty() && b.items.iter().any(holds_subquery) {
        return Ok(Err(term));
    }
    if anti && !lhs.is_empty() {
        let outer_ok = lhs.iter().all(|x| match x {
            Expr::Col(i) => not_null(level.slot_defs.get(*i)) && !nullable.get(*i).copied().unwrap_or(true),
            _ => false,
        });
        let mut inner_nullable = vec![false; p.slot_colls.len()];
        outer_joined(&p.tree, &b.sources, false, &mut inner_nullable);
        let inner_ok = b.items.iter().all(|x| match x {
            Expr::Col(j) => not_null(p.slot_defs.get(*j)) && !inner_nullable.get(*j).copied().unwrap_or(true),
            _ => false,
        });
        if !outer_ok || !inner_ok {
            return Ok(Err(term));
        }
    }
    // Copied, not taken apart: the term stays whole for the planner to
    // evaluate as a subquery when that is cheaper (`Tree::Semi::sub`).
    let width = level.slot_colls.len();
    let first = sources.len();
    for src in &b.sources {
        let mut src = src.clone();
        src.offset += width;
        src.access = Access::Full;
        src.filter.clear();
        src.hash_keys.clear();
        src.hash_colls.clear();
        src.local.clear();
        sources.push(src);
    }
    level.slot_meta.extend(p.slot_meta.iter().cloned());
    level.slot_types.extend(p.slot_types.iter().cloned());
    level.slot_colls.extend(p.slot_colls.iter().cloned());
    level.slot_defs.extend(p.slot_defs.iter().cloned());
    let captures = &s.query.captures;
    let map = |e: Expr| remap(e, width, captures);
    let tree = remap_tree(p.tree.clone(), width, first, captures)?;
    let mut on: Vec<Expr> = p.terms.iter().cloned().map(map).collect::<Result<_>>()?;
    for (l, item) in lhs.iter().zip(&b.items) {
        let eq = Expr::Bin(BinOp::Eq, Box::new(l.clone()), Box::new(map(item.clone())?));
        on.push(expr::with_collations(eq, &level.slot_colls));
    }
    Ok(Ok(Tree::Semi { anti, inner: Box::new(tree), on, sub: Some(Box::new(term)) }))
}

fn not_null(def: Option<&Option<Column>>) -> bool {
    matches!(def, Some(Some(c)) if !c.nullable)
}

/// Marks in `out` the slots of `t` on the inner side of an outer join
/// (NULL-extended there); `inside`: `t` itself is.
fn outer_joined(t: &Tree, sources: &[Source], inside: bool, out: &mut [bool]) {
    match t {
        Tree::Leaf(i) => {
            if let (true, Some(s)) = (inside, sources.get(*i)) {
                for k in s.offset..s.offset + s.width {
                    if let Some(x) = out.get_mut(k) {
                        *x = true;
                    }
                }
            }
        }
        Tree::Join { kind, left, right, .. } => {
            outer_joined(left, sources, inside, out);
            outer_joined(right, sources, inside || *kind == JoinKind::Left, out);
        }
        Tree::Semi { inner, .. } => outer_joined(inner, sources, inside, out),
    }
}

/// An expression of the subquery as one of the block around it
/// (invariant 1).
fn remap(e: Expr, width: usize, captures: &[Expr]) -> Result<Expr> {
    map_expr(e, &mut |x| match x {
        Expr::Col(i) => Some(Ok(Expr::Col(i + width))),
        Expr::Outer(k) => Some(Ok(captures.get(*k).cloned().unwrap_or(Expr::Lit(quire_engine::row::Value::Null)))),
        _ => None,
    })
}

fn remap_tree(t: Tree, width: usize, first: usize, captures: &[Expr]) -> Result<Tree> {
    Ok(match t {
        Tree::Leaf(i) => Tree::Leaf(i + first),
        Tree::Join { kind, left, right, on, straight } => Tree::Join {
            kind,
            left: Box::new(remap_tree(*left, width, first, captures)?),
            right: Box::new(remap_tree(*right, width, first, captures)?),
            on: on.into_iter().map(|x| remap(x, width, captures)).collect::<Result<_>>()?,
            straight,
        },
        // Its term reads the subquery's slots through captures that
        // `remap` does not reach: it stays a semi-join.
        Tree::Semi { anti, inner, on, .. } => Tree::Semi {
            anti,
            inner: Box::new(remap_tree(*inner, width, first, captures)?),
            on: on.into_iter().map(|x| remap(x, width, captures)).collect::<Result<_>>()?,
            sub: None,
        },
    })
}

fn holds_subquery(e: &Expr) -> bool {
    any_expr(e, &|x| matches!(x, Expr::Subquery(_)))
}

fn tree_holds_subquery(t: &Tree) -> bool {
    match t {
        Tree::Leaf(_) => false,
        Tree::Join { left, right, on, .. } => {
            on.iter().any(holds_subquery) || tree_holds_subquery(left) || tree_holds_subquery(right)
        }
        Tree::Semi { inner, on, .. } => on.iter().any(holds_subquery) || tree_holds_subquery(inner),
    }
}
