//! Merging derived tables, CTE references and views into the block that
//! reads them (MySQL 8.0's `derived_merge`), instead of materialising them.
//!
//! A derived block that may be merged (`mergeable`: one SELECT with FROM,
//! no aggregates, GROUP BY, HAVING, DISTINCT, LIMIT / OFFSET, window
//! functions, locking clause, subqueries in its select list or
//! non-deterministic functions there, and no correlated subquery) keeps,
//! beside its planned form, its sources, join tree and WHERE terms as
//! they were before `join::plan` placed them ([`Mergeable`]). When the
//! enclosing block is bound, [`merge_into`] replaces each such source by
//! them, just before the enclosing block's own terms are placed:
//!
//! 1. the derived block's slots are appended to the outer block's (its
//!    sources' offsets and every slot it reads shifted by the outer
//!    width); the derived source's own slots stay, unread;
//! 2. the derived source's leaf in the join tree becomes the derived
//!    block's join tree;
//! 3. its WHERE terms become ON terms of the innermost LEFT join whose
//!    right side holds it (MySQL: the join condition of the nest), or
//!    WHERE terms of the outer block when no outer join can NULL it;
//! 4. every outer expression reading one of its columns reads the select
//!    list's expression instead (`Expr::Col(virtual)` -> the item);
//! 5. its ORDER BY becomes the outer block's when the outer block reads
//!    only it and has no ORDER BY, GROUP BY, aggregates, DISTINCT or
//!    HAVING (MySQL's documented rule); otherwise it is dropped.
//!
//! Then `join::plan` orders and keys the merged tables as any join's.
//!
//! Invariants:
//! 1. A derived source is merged only where the result cannot change: on
//!    the NULL-able side of an outer join only when each of its select
//!    items is NULL whenever its columns are (a constant or `COALESCE`
//!    would not be NULL on a NULL-extended row: such a source is
//!    materialised); never when a subquery of the outer block captures
//!    one of its columns (its captures would need rewriting, and a
//!    subquery's captures are shared through its `Arc`), nor when a
//!    JSON_TABLE's document reads one (the same holds for it). A block
//!    holding a JSON_TABLE is never merged itself.
//! 2. The tables of a view keep the privileges they were resolved with
//!    (the view's DEFINER's or the reader's): the `TableRef`s move as
//!    they are.
//! 3. The merged block never has more than 61 tables (MySQL materialises
//!    a derived table that would take it past that).

use quire_engine::row::{Collation, ColumnType};

use super::bind::{Level, Tree};
use super::{JoinKind, QueryPlan, Source, SourceKind};
use crate::error::Result;
use crate::expr::{map_expr, walk, Agg, Expr, SubExpr, SubKind, Walk};
use crate::plan::{Access, MetaType};

/// A derived block's parts before its join was planned, for merging.
#[derive(Debug)]
pub struct Mergeable {
    /// Its sources, unplanned (full scans, no terms).
    pub(super) sources: Vec<Source>,
    pub(super) tree: Tree,
    /// WHERE's AND terms, bound.
    pub(super) terms: Vec<Expr>,
    pub(super) slot_meta: Vec<MetaType>,
    pub(super) slot_types: Vec<Option<ColumnType>>,
    pub(super) slot_colls: Vec<Collation>,
    pub(super) slot_defs: Vec<Option<quire_engine::row::Column>>,
}

/// Functions whose value changes per call: a select item calling one is
/// evaluated once per row when materialised, so it is not merged.
const VOLATILE: &[&str] =
    &["rand", "uuid", "uuid_short", "sysdate", "sleep", "get_lock", "release_lock", "connection_id"];

/// Whether `e` reads a subquery with captures (a correlated one).
fn correlated(e: &Expr) -> bool {
    !walk(e, &mut |x| match x {
        Expr::Subquery(s) if !s.query.captures.is_empty() => Walk::Stop,
        _ => Walk::Descend,
    })
}

/// Whether `e` holds a subquery or a volatile function.
fn opaque_item(e: &Expr) -> bool {
    !walk(e, &mut |x| match x {
        Expr::Subquery(_) => Walk::Stop,
        Expr::Func(name, _) if VOLATILE.iter().any(|v| name.eq_ignore_ascii_case(v)) => Walk::Stop,
        _ => Walk::Descend,
    })
}

/// A copy of an unplanned source.
fn copy_source(s: &Source) -> Source {
    Source {
        kind: match &s.kind {
            SourceKind::Table(t) => SourceKind::Table(t.clone()),
            SourceKind::Derived(p) => SourceKind::Derived(p.clone()),
            SourceKind::Working(id) => SourceKind::Working(*id),
            SourceKind::System(v) => SourceKind::System(*v),
            SourceKind::JsonTable(f) => SourceKind::JsonTable(f.clone()),
        },
        name: s.name.clone(),
        offset: s.offset,
        width: s.width,
        access: Access::Full,
        filter: Vec::new(),
        hash_keys: Vec::new(),
        hash_colls: Vec::new(),
        local: Vec::new(),
    }
}

/// What a block whose join is about to be planned would keep for merging,
/// if its shape allows it (`None` otherwise). `block` holds what was bound
/// so far (its `sources`, `tree` and `filter` are not yet set).
#[allow(clippy::too_many_arguments)]
pub(super) fn keep(
    sources: &[Source],
    tree: Option<&Tree>,
    terms: &[Expr],
    items: &[Expr],
    aggs: &[Agg],
    group_by: &[Expr],
    having: Option<&Expr>,
    windows: &super::window::Windows,
    distinct: bool,
    limit: bool,
    lock: bool,
    level: &Level,
) -> Option<Box<Mergeable>> {
    let tree = tree?;
    if sources.is_empty()
        || !aggs.is_empty()
        || !group_by.is_empty()
        || having.is_some()
        || !windows.fns.is_empty()
        || distinct
        || limit
        || lock
        || items.iter().any(opaque_item)
        || terms.iter().any(correlated)
        || on_terms(tree).iter().any(|x| correlated(x))
        || sources.iter().any(|s| matches!(s.kind, SourceKind::Working(_) | SourceKind::JsonTable(_)))
    {
        return None;
    }
    Some(Box::new(Mergeable {
        sources: sources.iter().map(copy_source).collect(),
        tree: tree.clone(),
        terms: terms.to_vec(),
        slot_meta: level.slot_meta.clone(),
        slot_types: level.slot_types.clone(),
        slot_colls: level.slot_colls.clone(),
        slot_defs: level.slot_defs.clone(),
    }))
}

/// The ON terms anywhere in `t`.
fn on_terms(t: &Tree) -> Vec<&Expr> {
    let mut out = Vec::new();
    fn rec<'a>(t: &'a Tree, out: &mut Vec<&'a Expr>) {
        match t {
            Tree::Leaf(_) => {}
            Tree::Join { left, right, on, .. } => {
                out.extend(on.iter());
                rec(left, out);
                rec(right, out);
            }
            // A semi-join's own terms, and the subquery term it may run
            // as instead (with the captures that make it correlated).
            Tree::Semi { inner, on, sub, .. } => {
                out.extend(on.iter());
                out.extend(sub.as_deref());
                rec(inner, out);
            }
        }
    }
    rec(t, &mut out);
    out
}

/// The outer block's parts that may read a derived source's columns.
pub(super) struct Outer<'a> {
    pub(super) sources: Vec<Source>,
    pub(super) tree: Option<Tree>,
    pub(super) terms: Vec<Expr>,
    pub(super) items: &'a mut Vec<Expr>,
    pub(super) aggs: &'a mut Vec<Agg>,
    pub(super) group_by: &'a mut Vec<Expr>,
    pub(super) having: &'a mut Option<Expr>,
    pub(super) order: &'a mut Vec<(Expr, bool)>,
    pub(super) order_colls: &'a mut Vec<Collation>,
    pub(super) windows: &'a mut super::window::Windows,
    pub(super) distinct: bool,
}

/// Whether `e` is NULL whenever every slot in `lo..hi` is: a column there,
/// or an arithmetic operator, comparison (not `<=>`), NOT or minus over one.
fn null_if_null(e: &Expr, lo: usize, hi: usize) -> bool {
    use crate::expr::BinOp;
    match e {
        Expr::Col(i) => (lo..hi).contains(i),
        Expr::Bin(BinOp::And | BinOp::Or | BinOp::NullSafeEq, ..) => false,
        Expr::Bin(_, l, r) => null_if_null(l, lo, hi) || null_if_null(r, lo, hi),
        Expr::Not(x) | Expr::Neg(x) | Expr::Collate(_, x) => null_if_null(x, lo, hi),
        _ => false,
    }
}

/// Leaves of `t` on the right side of some LEFT join (NULL-able).
fn nullable_leaves(t: &Tree, under: bool, out: &mut Vec<usize>) {
    match t {
        Tree::Leaf(i) => {
            if under {
                out.push(*i);
            }
        }
        Tree::Join { kind, left, right, .. } => {
            nullable_leaves(left, under, out);
            nullable_leaves(right, under || *kind == JoinKind::Left, out);
        }
        Tree::Semi { inner, .. } => nullable_leaves(inner, under, out),
    }
}

/// `e` with every slot it reads moved by `by` (a subquery's left-hand
/// side too; REQUIRES: no subquery of `e` has captures).
fn shift(e: &Expr, by: usize) -> Result<Expr> {
    substitute(e.clone(), &|k| Some(Expr::Col(k + by)))
}

/// `e` with `Expr::Col(k)` replaced by `f(k)` where it gives one (a
/// subquery's left-hand side too, not its captures).
fn substitute(e: Expr, f: &dyn Fn(usize) -> Option<Expr>) -> Result<Expr> {
    map_expr(e, &mut |x| match x {
        Expr::Col(k) => f(*k).map(Ok),
        Expr::Subquery(s) => {
            let kind = match &s.kind {
                SubKind::In(lhs) => match lhs.iter().map(|l| substitute(l.clone(), f)).collect::<Result<Vec<_>>>() {
                    Ok(l) => SubKind::In(l),
                    Err(e) => return Some(Err(e)),
                },
                SubKind::Quantified { lhs, op, all } => match substitute((**lhs).clone(), f) {
                    Ok(l) => SubKind::Quantified { lhs: Box::new(l), op: *op, all: *all },
                    Err(e) => return Some(Err(e)),
                },
                k => k.clone(),
            };
            Some(Ok(Expr::Subquery(Box::new(SubExpr { kind, negated: s.negated, query: s.query.clone() }))))
        }
        _ => None,
    })
}

/// Whether a subquery of `e` captures a slot in `lo..hi`.
fn captures_any(e: &Expr, lo: usize, hi: usize) -> bool {
    !walk(e, &mut |x| match x {
        Expr::Subquery(s) => {
            let mut slots = Vec::new();
            s.query.captures.iter().for_each(|c| super::slots_of(c, &mut slots));
            if slots.iter().any(|k| (lo..hi).contains(k)) {
                Walk::Stop
            } else {
                Walk::Descend
            }
        }
        _ => Walk::Descend,
    })
}

/// ORDER BY keys: (expression, descending).
type OrderKeys = Vec<(Expr, bool)>;

/// How one source of the outer block comes out of the merge.
enum Fate {
    /// Kept, at this index of the new sources.
    Keep(usize),
    /// Replaced by a derived block's tree (leaves already renumbered) and
    /// WHERE terms (slots already shifted).
    Merged { tree: Tree, terms: Vec<Expr> },
}

/// Merges the outer block's mergeable derived sources into it (see the
/// module note); `level` is the outer block's, extended with the merged
/// slots. Returns the sources, tree and WHERE terms to plan.
pub(super) fn merge_into(o: Outer<'_>, level: &mut Level) -> Result<(Vec<Source>, Option<Tree>, Vec<Expr>)> {
    let Outer { sources, tree, mut terms, items, aggs, group_by, having, order, order_colls, windows, distinct } = o;
    let Some(tree) = tree else { return Ok((sources, None, terms)) };
    let candidate = |s: &Source| match &s.kind {
        SourceKind::Derived(p) => matches!(&**p, QueryPlan::Select(b) if b.merge.is_some()),
        _ => false,
    };
    if !sources.iter().any(candidate) {
        return Ok((sources, Some(tree), terms));
    }
    let mut nullable = Vec::new();
    nullable_leaves(&tree, false, &mut nullable);
    // Every outer expression that may read a derived source's columns.
    let mut outer_exprs: Vec<&Expr> = Vec::new();
    outer_exprs.extend(terms.iter());
    outer_exprs.extend(on_terms(&tree));
    outer_exprs.extend(items.iter());
    outer_exprs.extend(group_by.iter());
    outer_exprs.extend(having.iter());
    outer_exprs.extend(order.iter().map(|(x, _)| x));
    outer_exprs.extend(windows.exprs());
    for a in aggs.iter() {
        outer_exprs.extend(a.arg.iter().chain(&a.more).chain(a.order.iter().map(|(x, _)| x)));
    }
    // Slots a table function's document reads: its expression lives in
    // the shared plan and is not rewritten, so what it reads stays
    // materialised.
    let mut lateral = Vec::new();
    for s in &sources {
        if let SourceKind::JsonTable(f) = &s.kind {
            lateral.extend(f.reads());
        }
    }
    let mut tables = sources.len();
    let mut merge: Vec<bool> = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter().enumerate() {
        let ok = match &s.kind {
            SourceKind::Derived(p) => match &**p {
                QueryPlan::Select(b) => b.merge.as_ref().is_some_and(|m| {
                    let (lo, hi) = (s.offset, s.offset + s.width);
                    let strict =
                        !nullable.contains(&i) || b.items.iter().all(|x| null_if_null(x, 0, m.slot_meta.len()));
                    let fits = tables - 1 + m.sources.len() <= super::select::MAX_JOIN_TABLES;
                    let read_by_function = lateral.iter().any(|k| (lo..hi).contains(k));
                    let ok =
                        strict && fits && !read_by_function && !outer_exprs.iter().any(|x| captures_any(x, lo, hi));
                    if ok {
                        tables = tables - 1 + m.sources.len();
                    }
                    ok
                }),
                _ => false,
            },
            _ => false,
        };
        merge.push(ok);
    }
    if !merge.iter().any(|&m| m) {
        return Ok((sources, Some(tree), terms));
    }
    let only_source = sources.len() == 1;
    let mut new_sources: Vec<Source> = Vec::new();
    let mut fates: Vec<Fate> = Vec::new();
    // Virtual slot -> the select item it stands for.
    let mut replace: Vec<Option<Expr>> = vec![None; level.slot_meta.len()];
    let mut new_order: Option<(OrderKeys, Vec<Collation>)> = None;
    for (s, m) in sources.into_iter().zip(merge) {
        let derived = match (&s.kind, m) {
            (SourceKind::Derived(p), true) => p.clone(),
            _ => {
                fates.push(Fate::Keep(new_sources.len()));
                new_sources.push(s);
                continue;
            }
        };
        let QueryPlan::Select(b) = &*derived else { unreachable!("checked mergeable") };
        let Some(m) = b.merge.as_deref() else { unreachable!("checked mergeable") };
        let base = level.slot_meta.len();
        level.slot_meta.extend(m.slot_meta.iter().copied());
        level.slot_types.extend(m.slot_types.iter().copied());
        level.slot_colls.extend(m.slot_colls.iter().copied());
        level.slot_defs.extend(m.slot_defs.iter().cloned());
        replace.resize(level.slot_meta.len(), None);
        let first = new_sources.len();
        for src in &m.sources {
            let mut c = copy_source(src);
            c.offset += base;
            new_sources.push(c);
        }
        for (j, x) in b.items.iter().enumerate() {
            replace[s.offset + j] = Some(shift(x, base)?);
        }
        if !b.order.is_empty()
            && only_source
            && order.is_empty()
            && group_by.is_empty()
            && aggs.is_empty()
            && !distinct
            && having.is_none()
        {
            let keys = b.order.iter().map(|(x, d)| Ok((shift(x, base)?, *d))).collect::<Result<Vec<_>>>()?;
            new_order = Some((keys, b.order_colls.clone()));
        }
        let tree = renumber(m.tree.clone(), first, base)?;
        let terms = m.terms.iter().map(|x| shift(x, base)).collect::<Result<_>>()?;
        fates.push(Fate::Merged { tree, terms });
    }
    let sub = |x: Expr| substitute(x, &|k| replace.get(k).cloned().flatten());
    let mut pending = Vec::new();
    let tree = place(tree, &mut fates, &mut pending, &sub)?;
    terms = terms.into_iter().map(sub).collect::<Result<_>>()?;
    terms.extend(pending);
    for x in items.iter_mut() {
        *x = sub(std::mem::replace(x, Expr::Lit(quire_engine::row::Value::Null)))?;
    }
    for x in group_by.iter_mut() {
        *x = sub(std::mem::replace(x, Expr::Lit(quire_engine::row::Value::Null)))?;
    }
    if let Some(h) = having.take() {
        *having = Some(sub(h)?);
    }
    for (x, _) in order.iter_mut() {
        *x = sub(std::mem::replace(x, Expr::Lit(quire_engine::row::Value::Null)))?;
    }
    windows.map_exprs(&mut |x| sub(x))?;
    for a in aggs.iter_mut() {
        if let Some(x) = a.arg.take() {
            a.arg = Some(sub(x)?);
        }
        for x in a.more.iter_mut().chain(a.order.iter_mut().map(|(x, _)| x)) {
            *x = sub(std::mem::replace(x, Expr::Lit(quire_engine::row::Value::Null)))?;
        }
    }
    if let Some((keys, colls)) = new_order {
        *order = keys;
        *order_colls = colls;
    }
    Ok((new_sources, Some(tree), terms))
}

/// A derived block's tree with its leaves moved to `first..` and its ON
/// terms' slots by `base`.
fn renumber(t: Tree, first: usize, base: usize) -> Result<Tree> {
    Ok(match t {
        Tree::Leaf(i) => Tree::Leaf(i + first),
        Tree::Join { kind, left, right, on, straight } => Tree::Join {
            kind,
            left: Box::new(renumber(*left, first, base)?),
            right: Box::new(renumber(*right, first, base)?),
            on: on.iter().map(|x| shift(x, base)).collect::<Result<_>>()?,
            straight,
        },
        // `keep` refused a correlated `sub`, so shifting is sound.
        Tree::Semi { anti, inner, on, sub } => Tree::Semi {
            anti,
            inner: Box::new(renumber(*inner, first, base)?),
            on: on.iter().map(|x| shift(x, base)).collect::<Result<_>>()?,
            sub: sub.map(|x| shift(&x, base).map(Box::new)).transpose()?,
        },
    })
}

/// The outer tree with merged leaves replaced by their trees and ON terms
/// substituted; merged WHERE terms go to the innermost LEFT join whose
/// right side holds them, else to `pending` (the outer WHERE).
fn place(t: Tree, fates: &mut [Fate], pending: &mut Vec<Expr>, sub: &dyn Fn(Expr) -> Result<Expr>) -> Result<Tree> {
    Ok(match t {
        Tree::Leaf(i) => match std::mem::replace(&mut fates[i], Fate::Keep(usize::MAX)) {
            Fate::Keep(n) => Tree::Leaf(n),
            Fate::Merged { tree, terms } => {
                pending.extend(terms);
                tree
            }
        },
        Tree::Join { kind, left, right, on, straight } => {
            let left = place(*left, fates, pending, sub)?;
            let mut on: Vec<Expr> = on.into_iter().map(sub).collect::<Result<_>>()?;
            let right = if kind == JoinKind::Left {
                let mut mine = Vec::new();
                let r = place(*right, fates, &mut mine, sub)?;
                on.extend(mine);
                r
            } else {
                place(*right, fates, pending, sub)?
            };
            Tree::Join { kind, left: Box::new(left), right: Box::new(right), on, straight }
        }
        // A merged block inside a semi-join's inner side: its WHERE
        // restricts the inner rows, so it joins the semi-join's terms.
        Tree::Semi { anti, inner, on, sub: term } => {
            let mut on: Vec<Expr> = on.into_iter().map(sub).collect::<Result<_>>()?;
            let mut mine = Vec::new();
            let inner = place(*inner, fates, &mut mine, sub)?;
            on.extend(mine);
            let term = term.map(|x| sub(*x).map(Box::new)).transpose()?;
            Tree::Semi { anti, inner: Box::new(inner), on, sub: term }
        }
    })
}

/// Whether a planned block has a shape a reading block could merge:
/// CREATE VIEW ALGORITHM=MERGE's test, MariaDB's (which, unlike MySQL,
/// merges views with subqueries in the select list; quire materialises
/// those, as MySQL does, with the same rows).
pub(super) fn shape_mergeable(b: &super::Block) -> bool {
    !b.sources.is_empty()
        && b.aggs.is_empty()
        && b.group_by.is_empty()
        && b.having.is_none()
        && b.windows.fns.is_empty()
        && !b.distinct
        && b.limit.is_none()
        && b.offset.is_none()
        && b.lock.is_none()
}
