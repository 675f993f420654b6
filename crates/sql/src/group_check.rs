//! ONLY_FULL_GROUP_BY: whether every expression of a grouped block that is
//! evaluated once per group (select list, HAVING, ORDER BY) has one value
//! per group, and whether a DISTINCT block's ORDER BY sorts by what the
//! select list shows. Both planners call [`check`] once when a block is
//! bound (`query::compile_select`, `rel::select`).
//!
//! The rules are MySQL 8.0's (`sql/aggregate_check.cc`), not MariaDB's:
//! MariaDB only accepts columns that appear in GROUP BY, while MySQL
//! accepts any column *functionally dependent* on them, and applications
//! written for MySQL group by a key and select the row's other columns
//! (`SELECT id, name, COUNT(*) FROM users JOIN posts ... GROUP BY id`).
//! A column is determined by the GROUP BY columns when (closure, repeated
//! until nothing changes):
//!
//! 1. it is a GROUP BY column, or a column compared with `=` to a constant
//!    (a literal, a `?`, an outer reference) in WHERE or an inner join's
//!    ON;
//! 2. it is compared with `=` to a determined column there;
//! 3. its table's PRIMARY KEY or a UNIQUE key of NOT NULL columns is
//!    determined (then every column of that table is);
//! 4. it is a column of a derived table or view whose defining expression
//!    is determined by the columns determined inside it (their own
//!    closure), or the derived block is grouped by determined expressions
//!    (one row per group: all its columns are determined).
//!
//! WITH ROLLUP stops at step 1's GROUP BY columns (the rolled-up NULLs
//! break every other dependency, as MySQL). Not recognised (the query is
//! refused where MySQL would accept it): equalities in an outer join's ON,
//! generated columns. An expression equal to a GROUP BY expression (`a +
//! 1` with `GROUP BY a + 1`) is accepted as a whole; a `?` is taken as
//! equal to any other `?` (the plan is cached per normalised text, whose
//! literals are markers), so `a + 1` with `GROUP BY a + 2` passes.
//!
//! The verdict is computed whatever `sql_mode` is and kept with the plan
//! (plans are cached across sessions and mode changes); a statement run
//! with ONLY_FULL_GROUP_BY fails with it (`Session::execute`). The
//! DISTINCT check (3065 / 3066) is under ONLY_FULL_GROUP_BY too: MySQL 8.0
//! runs both checks only in that mode (`Query_block::apply_local_transforms`:
//! `(is_distinct() || is_grouped()) && MODE_ONLY_FULL_GROUP_BY`), its
//! default mode having it, and MariaDB accepts such a query in any mode.
//! Window functions' arguments are not checked.

use std::sync::Arc;

use crate::error::SqlError;
use crate::expr::{walk, Agg, BinOp, Expr, Walk};
use crate::plan::TableRef;
use crate::rel::QueryPlan;

/// What a block's FROM and WHERE say about which columns determine which.
#[derive(Debug, Default)]
pub struct Fd {
    pub sources: Vec<FdSource>,
    /// Slot pairs equal on every row (WHERE and inner join ON `a = b`).
    pub eqs: Vec<(usize, usize)>,
    /// Slots equal to a constant on every row.
    pub consts: Vec<usize>,
}

/// One FROM item's slots and what determines them.
#[derive(Debug)]
pub struct FdSource {
    pub offset: usize,
    pub width: usize,
    pub kind: FdKind,
    /// Each slot's name in messages: `db.table.column` (`alias.column`
    /// for a derived table).
    pub names: Vec<String>,
}

#[derive(Debug)]
pub enum FdKind {
    /// A base table: its unique keys of NOT NULL columns, as block slots.
    Keys(Vec<Vec<usize>>),
    /// A derived table, CTE or view.
    Derived(Arc<QueryPlan>),
    /// Nothing known (a recursive CTE's working table).
    Opaque,
}

impl Fd {
    /// A base table's source at `offset`, named `qual` in messages.
    pub fn table(&mut self, t: &TableRef, offset: usize, qual: &str) {
        // A hidden row id is no key SQL can name (and has no slot).
        let mut keys = Vec::new();
        if !t.schema.has_row_id() {
            keys.push(t.schema.primary_key.iter().map(|c| offset + c).collect::<Vec<_>>());
        }
        for ix in t.schema.indexes.iter().filter(|ix| ix.unique) {
            if ix.columns.iter().all(|&c| t.schema.columns.get(c).is_some_and(|c| !c.nullable)) {
                keys.push(ix.columns.iter().map(|c| offset + c).collect());
            }
        }
        let names = t.columns.iter().map(|c| format!("{}.{qual}.{c}", t.db)).collect();
        self.sources.push(FdSource { offset, width: t.columns.len(), kind: FdKind::Keys(keys), names });
    }

    /// Records the equalities among the AND terms of `cond` (WHERE or an
    /// inner join's ON).
    pub fn add_cond(&mut self, cond: &Expr) {
        match strip(cond) {
            Expr::Bin(BinOp::And, l, r) => {
                self.add_cond(l);
                self.add_cond(r);
            }
            Expr::Chain(first, steps) if steps.iter().all(|s| s.op == BinOp::And) => {
                self.add_cond(first);
                for s in steps {
                    self.add_cond(&s.rhs);
                }
            }
            Expr::Bin(BinOp::Eq, l, r) => match (strip(l), strip(r)) {
                (Expr::Col(a), Expr::Col(b)) => self.eqs.push((*a, *b)),
                (Expr::Col(a), x) | (x, Expr::Col(a)) if constant(x) => self.consts.push(*a),
                _ => {}
            },
            _ => {}
        }
    }

    fn width(&self) -> usize {
        self.sources.iter().map(|s| s.offset + s.width).max().unwrap_or(0)
    }

    fn name(&self, slot: usize) -> String {
        self.sources
            .iter()
            .find(|s| (s.offset..s.offset + s.width).contains(&slot))
            .and_then(|s| s.names.get(slot - s.offset).cloned())
            .unwrap_or_else(|| format!("#{slot}"))
    }

    /// The slots determined by `det` (closure of rules 1-4 of the module
    /// note).
    fn closure(&self, mut det: Vec<bool>) -> Vec<bool> {
        det.resize(det.len().max(self.width()), false);
        for &c in &self.consts {
            det[c] = true;
        }
        loop {
            let mut changed = false;
            let mut set = |det: &mut Vec<bool>, s: usize| {
                if !det[s] {
                    det[s] = true;
                    changed = true;
                }
            };
            for &(a, b) in &self.eqs {
                if det[a] {
                    set(&mut det, b);
                }
                if det[b] {
                    set(&mut det, a);
                }
            }
            for s in &self.sources {
                let slots = s.offset..s.offset + s.width;
                if slots.clone().all(|i| det[i]) {
                    continue;
                }
                match &s.kind {
                    FdKind::Keys(keys) => {
                        if keys.iter().any(|k| !k.is_empty() && k.iter().all(|&i| det[i])) {
                            for i in slots {
                                set(&mut det, i);
                            }
                        }
                    }
                    FdKind::Derived(plan) => {
                        let inner: Vec<bool> = det[slots.clone()].to_vec();
                        for (j, d) in derived_determined(plan, &inner).into_iter().enumerate() {
                            if d {
                                set(&mut det, s.offset + j);
                            }
                        }
                    }
                    FdKind::Opaque => {}
                }
            }
            if !changed {
                return det;
            }
        }
    }
}

/// Which columns of a derived table are determined, given those of
/// `outer` (one flag per column).
fn derived_determined(plan: &QueryPlan, outer: &[bool]) -> Vec<bool> {
    let QueryPlan::Select(b) = plan else { return outer.to_vec() };
    if b.rollup {
        return outer.to_vec();
    }
    let mut start = vec![false; b.width];
    for (j, _) in outer.iter().enumerate().filter(|(_, d)| **d) {
        if let Some(Expr::Col(k)) = b.items.get(j).map(strip) {
            if let Some(s) = start.get_mut(*k) {
                *s = true;
            }
        }
    }
    let det = b.fd.closure(start);
    let grouped = !b.group_by.is_empty() || !b.aggs.is_empty();
    if grouped && b.group_by.iter().all(|g| determined_expr(g, &det)) {
        return vec![true; outer.len()];
    }
    outer.iter().zip(&b.items).map(|(d, x)| *d || (!holds_agg(x) && determined_expr(x, &det))).collect()
}

/// Whether every column `x` reads is determined.
fn determined_expr(x: &Expr, det: &[bool]) -> bool {
    let mut ok = true;
    walk(x, &mut |e| match e {
        Expr::Col(s) => {
            ok &= det.get(*s).copied().unwrap_or(false);
            if ok {
                Walk::Descend
            } else {
                Walk::Stop
            }
        }
        _ => Walk::Descend,
    });
    ok
}

fn holds_agg(x: &Expr) -> bool {
    let mut found = false;
    walk(x, &mut |e| {
        if matches!(e, Expr::Agg(_)) {
            found = true;
            Walk::Stop
        } else {
            Walk::Descend
        }
    });
    found
}

/// A block as the check sees it (before its expressions are wrapped in
/// collations or rewritten for ROLLUP).
pub struct Grouped<'a> {
    pub fd: &'a Fd,
    pub items: &'a [Expr],
    pub aggs: &'a [Agg],
    pub group_by: &'a [Expr],
    pub rollup: bool,
    pub having: Option<&'a Expr>,
    pub order: &'a [(Expr, bool)],
    pub distinct: bool,
}

/// The error ONLY_FULL_GROUP_BY raises for the block, if any: MySQL
/// checks the select list, ORDER BY, then HAVING, then DISTINCT's ORDER BY.
pub fn check(g: &Grouped<'_>) -> Option<SqlError> {
    let aggregated = !g.group_by.is_empty() || !g.aggs.is_empty();
    if aggregated {
        let mut det: Option<Vec<bool>> = None;
        let explicit = !g.group_by.is_empty();
        let places: Vec<(&str, usize, &Expr, bool)> = g
            .items
            .iter()
            .enumerate()
            .map(|(i, x)| ("SELECT list", i + 1, x, true))
            // An aggregated query without GROUP BY has one row: MySQL
            // drops its ORDER BY before checking.
            .chain(
                g.order.iter().enumerate().filter(|_| explicit).map(|(i, (x, _))| ("ORDER BY clause", i + 1, x, false)),
            )
            .chain(g.having.map(|h| ("HAVING clause", 1, h, false)))
            .collect();
        for (place, n, x, in_select) in places {
            if let Some(slot) = nonaggregated(g, x, in_select, &mut det) {
                let name = g.fd.name(slot);
                return Some(if explicit {
                    SqlError::new(
                        1055,
                        "42000",
                        format!("Expression #{n} of {place} is not in GROUP BY clause and contains nonaggregated column '{name}' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by"),
                    )
                } else {
                    SqlError::new(
                        1140,
                        "42000",
                        format!("In aggregated query without GROUP BY, expression #{n} of {place} contains nonaggregated column '{name}'; this is incompatible with sql_mode=only_full_group_by"),
                    )
                });
            }
        }
    }
    if g.distinct {
        return distinct_order(g);
    }
    None
}

/// The first column of `x` not determined by the GROUP BY expressions
/// (`det`, computed on first need), outside aggregates and outside parts
/// equal to a GROUP BY expression.
fn nonaggregated(g: &Grouped<'_>, x: &Expr, in_select: bool, det: &mut Option<Vec<bool>>) -> Option<usize> {
    if !in_select && g.items.iter().any(|i| same(g.aggs, i, x)) {
        return None; // checked as a select item
    }
    let mut bad = None;
    walk(x, &mut |e| {
        if g.group_by.iter().any(|k| same(g.aggs, k, e)) {
            return Walk::Skip;
        }
        match e {
            Expr::Agg(_) | Expr::Window(_) => Walk::Skip,
            Expr::Col(s) => {
                let det = det.get_or_insert_with(|| determined(g));
                if det.get(*s).copied().unwrap_or(false) {
                    Walk::Descend
                } else {
                    bad = Some(*s);
                    Walk::Stop
                }
            }
            _ => Walk::Descend,
        }
    });
    bad
}

/// The slots the GROUP BY columns determine.
fn determined(g: &Grouped<'_>) -> Vec<bool> {
    let mut det = vec![false; g.fd.width()];
    for k in g.group_by {
        if let Expr::Col(s) = strip(k) {
            if let Some(d) = det.get_mut(*s) {
                *d = true;
            }
        }
    }
    if g.rollup {
        det
    } else {
        g.fd.closure(det)
    }
}

/// 3065 / 3066: with DISTINCT, an ORDER BY expression that is not a select
/// item may read only what the select list shows.
fn distinct_order(g: &Grouped<'_>) -> Option<SqlError> {
    for (n, (x, _)) in g.order.iter().enumerate() {
        let n = n + 1;
        let mut err = None;
        walk(x, &mut |e| {
            if g.items.iter().any(|i| same(g.aggs, i, e)) {
                return Walk::Skip;
            }
            match e {
                Expr::Agg(_) => {
                    err = Some(SqlError::new(
                        3066,
                        "HY000",
                        format!("Expression #{n} of ORDER BY clause is not in SELECT list, contains aggregate function; this is incompatible with DISTINCT"),
                    ));
                    Walk::Stop
                }
                Expr::Col(s) => {
                    let name = g.fd.name(*s);
                    err = Some(SqlError::new(
                        3065,
                        "HY000",
                        format!("Expression #{n} of ORDER BY clause is not in SELECT list, references column '{name}' which is not in SELECT list; this is incompatible with DISTINCT"),
                    ));
                    Walk::Stop
                }
                _ => Walk::Descend,
            }
        });
        if err.is_some() {
            return err;
        }
    }
    None
}

/// `x` without the collation wrappers `with_collations` adds.
fn strip(x: &Expr) -> &Expr {
    match x {
        Expr::Collate(_, inner) => strip(inner),
        x => x,
    }
}

/// Whether `x` has one value for the whole statement (no column of the
/// block, no subquery).
fn constant(x: &Expr) -> bool {
    let mut ok = true;
    walk(x, &mut |e| match e {
        Expr::Col(_) | Expr::Agg(_) | Expr::Window(_) | Expr::Subquery(_) => {
            ok = false;
            Walk::Stop
        }
        Expr::Func(name, _) if matches!(name.as_str(), "rand" | "uuid" | "sysdate") => {
            ok = false;
            Walk::Stop
        }
        _ => Walk::Descend,
    });
    ok
}

/// Whether two expressions of one block are the same expression (`?`
/// markers match any other, see the module note).
pub(crate) fn same(aggs: &[Agg], a: &Expr, b: &Expr) -> bool {
    let s = |x: &Expr, y: &Expr| same(aggs, x, y);
    let all = |xs: &[Expr], ys: &[Expr]| xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| s(x, y));
    let opt = |x: &Option<Box<Expr>>, y: &Option<Box<Expr>>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => s(x, y),
        _ => false,
    };
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => x == y,
        (Expr::Param(_), Expr::Param(_)) => true,
        (Expr::Col(x), Expr::Col(y)) | (Expr::Outer(x), Expr::Outer(y)) | (Expr::Window(x), Expr::Window(y)) => x == y,
        (Expr::Agg(x), Expr::Agg(y)) => {
            x == y
                || match (aggs.get(*x), aggs.get(*y)) {
                    (Some(p), Some(q)) => {
                        p.func == q.func
                            && p.distinct == q.distinct
                            && p.separator == q.separator
                            && match (&p.arg, &q.arg) {
                                (None, None) => true,
                                (Some(x), Some(y)) => s(x, y),
                                _ => false,
                            }
                            && all(&p.more, &q.more)
                            && p.order.len() == q.order.len()
                            && p.order.iter().zip(&q.order).all(|((x, d), (y, e))| d == e && s(x, y))
                    }
                    _ => false,
                }
        }
        (Expr::Bin(o, l, r), Expr::Bin(p, m, t)) => o == p && s(l, m) && s(r, t),
        (Expr::Chain(f, xs), Expr::Chain(g, ys)) => {
            s(f, g) && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| x.op == y.op && s(&x.rhs, &y.rhs))
        }
        (Expr::Not(x), Expr::Not(y)) | (Expr::Neg(x), Expr::Neg(y)) => s(x, y),
        (Expr::IsNull(x, n), Expr::IsNull(y, m)) => n == m && s(x, y),
        (Expr::Collate(c, x), Expr::Collate(d, y)) => c == d && s(x, y),
        (Expr::Between { expr, low, high, negated }, Expr::Between { expr: e2, low: l2, high: h2, negated: n2 }) => {
            negated == n2 && s(expr, e2) && s(low, l2) && s(high, h2)
        }
        (Expr::InList { expr, list, negated, .. }, Expr::InList { expr: e2, list: l2, negated: n2, .. }) => {
            negated == n2 && s(expr, e2) && all(list, l2)
        }
        (Expr::Like { expr, pattern, negated }, Expr::Like { expr: e2, pattern: p2, negated: n2 }) => {
            negated == n2 && s(expr, e2) && s(pattern, p2)
        }
        (Expr::Case { operand, whens, otherwise }, Expr::Case { operand: o2, whens: w2, otherwise: t2 }) => {
            opt(operand, o2)
                && opt(otherwise, t2)
                && whens.len() == w2.len()
                && whens.iter().zip(w2).all(|((a, b), (c, d))| s(a, c) && s(b, d))
        }
        (Expr::Func(f, xs), Expr::Func(g, ys)) => f == g && all(xs, ys),
        (Expr::SysVar { name, global }, Expr::SysVar { name: n2, global: g2 }) => name == n2 && global == g2,
        (Expr::Subquery(x), Expr::Subquery(y)) => Arc::ptr_eq(&x.query, &y.query),
        _ => false,
    }
}
