//! How a semi- or anti-join member runs, chosen by estimated cost: its
//! inner table read through an index keyed by each outer row (FirstMatch
//! over an index nested loop), through a hash table built once (the set
//! of its distinct keys when they decide its terms, `exec/keyset.rs`;
//! else its rows, in chunks past `join_buffer_size`), or not joined at
//! all: the term it came from evaluated as a subquery, whose result is
//! kept per distinct captured value (`Tree::Semi::sub`). The last wins
//! when the outer rows carry few distinct correlation values and one
//! run of the subquery is cheap, e.g. an index lookup, while its whole
//! inner table is large.
//!
//! Costs are in row reads of a table scan (`cost.rs`), with the
//! per-operation weights of `cost.rs`'s semi-join section, measured on
//! the executor. Distinct correlation values come from the statistics
//! (distinct values of an index prefix made of the captured columns;
//! else the table's rows), never more than the outer rows.

use super::{access_exprs, slots, slots_of, Planner, SlotSet, Unit};
use crate::cost;
use crate::expr::{BinOp, Expr};
use crate::plan::Access;
use crate::rel::bind::Tree;
use crate::rel::{Block, JoinKind, Node, QueryPlan, SourceKind};

/// How a semi- or anti-join member runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    /// Its tables planned as a group keyed by the outer row.
    Lookup,
    /// One inner table read once into a hash table.
    Hash,
    /// Its term evaluated as a subquery.
    Subquery,
}

impl Planner<'_, '_> {
    /// The cheapest way to run semi-join member `u` after `card` outer
    /// rows with `avail` bound, and its cost.
    pub(super) fn semi_choice(&self, u: &Unit, avail: &SlotSet, card: f64) -> (f64, Strategy) {
        let Tree::Semi { inner, on, sub, .. } = &u.tree else { return (f64::INFINITY, Strategy::Lookup) };
        let joined = match **inner {
            Tree::Leaf(i) => self.semi_leaf(i, on, avail, card),
            _ => (card * cost::UNKNOWN_ROWS, Strategy::Lookup),
        };
        // `optimizer_switch`: FirstMatch is `firstmatch`'s, the key set
        // and hash table `materialization`'s; a term whose strategy is
        // off runs as its subquery (a semi-join pulled up from a
        // subquery's own, which has no term, keeps it).
        let allowed = match joined.1 {
            Strategy::Lookup => self.switch.firstmatch,
            Strategy::Hash => self.switch.materialization,
            Strategy::Subquery => true,
        };
        match sub.as_deref().map(|t| self.subquery_cost(t, card)) {
            Some(c) if c < joined.0 || !allowed => (c, Strategy::Subquery),
            _ => joined,
        }
    }

    /// A semi-join of one inner table `i` on terms `on`: an index keyed
    /// by the outer row, or a hash table on its equalities with it.
    pub(super) fn semi_leaf(&self, i: usize, on: &[Expr], avail: &SlotSet, card: f64) -> (f64, Strategy) {
        let SourceKind::Table(t) = &self.sources[i].kind else {
            return (card * cost::UNKNOWN_ROWS, Strategy::Lookup);
        };
        let per_row = |a: &Access| match a.index() {
            Some(quire_engine::table::IndexRef::Secondary(_)) => 2.0,
            _ => 1.0,
        };
        let (offset, width) = (self.sources[i].offset, self.sources[i].width);
        let own = |e: &Expr| {
            let s = slots_of(e);
            s.iter().all(|&k| k >= offset && k < offset + width)
        };
        // The share of its rows the inner table's own terms keep.
        let local: f64 = on.iter().filter(|x| own(x)).map(cost::filter_factor).product();
        let a = self.access_for(i, on, avail);
        // FirstMatch stops at the first row that passes (a semi-join
        // passes the outer row then, an anti-join rejects it): of the
        // rows per key, about one in `local` passes.
        let reads = cost::rows_per_lookup(t, &a).min((1.0 / local).ceil());
        let lookup = card * (cost::SEMI_LOOKUP + reads * per_row(&a));
        let pairs = self.hash_pairs(i, on, avail);
        if pairs.is_empty() {
            return (lookup, Strategy::Lookup);
        }
        let plain = self.access_for(i, on, &self.empty());
        let read = cost::rows_per_lookup(t, &plain);
        let kept = if matches!(plain, Access::Full) { read * local } else { read }.max(1.0);
        let plain_cols = pairs.iter().all(|(a, b)| matches!((a, b), (Expr::Col(_), Expr::Col(_))));
        let decided = plain_cols
            && on.iter().filter(|x| !own(x)).all(|x| match x {
                Expr::Bin(BinOp::Eq, l, r) => pairs.iter().any(|(a, b)| {
                    (cost::same_expr(l, a) && cost::same_expr(r, b)) || (cost::same_expr(l, b) && cost::same_expr(r, a))
                }),
                _ => false,
            });
        let build = cost::SEMI_LOOKUP + read * per_row(&plain);
        let hash = if decided && kept * cost::SEMI_KEY_BYTES <= cost::SEMI_KEYS_BUDGET {
            build + kept * cost::SEMI_KEY_BUILD + card * cost::SEMI_KEY_PROBE
        } else {
            // Rows in chunks of `join_buffer_size` (its default: plans
            // are cached across sessions): the outer rows are written
            // once and read back for every chunk after the first.
            let chunks = (kept * cost::HASH_ROW_BYTES / cost::JOIN_BUFFER_DEFAULT).ceil().max(1.0);
            build + kept * cost::HASH_ROW_BUILD + card * cost::HASH_ROW_PROBE + card * (chunks - 1.0) * cost::CHUNK_PASS
        };
        let mut keyed = Vec::new();
        access_exprs(&a, &mut |e| slots(e, &mut keyed));
        let hash_first = if !self.switch.firstmatch {
            true
        } else if !self.switch.materialization {
            false
        } else {
            keyed.is_empty() || hash < lookup
        };
        if hash_first {
            (hash, Strategy::Hash)
        } else {
            (lookup, Strategy::Lookup)
        }
    }

    /// The term `t` evaluated as a subquery on `card` outer rows: one run
    /// per distinct captured value, a kept result for the other rows.
    fn subquery_cost(&self, t: &Expr, card: f64) -> f64 {
        let s = match t {
            Expr::Subquery(s) => s,
            Expr::Not(x) => match &**x {
                Expr::Subquery(s) => s,
                _ => return f64::INFINITY,
            },
            _ => return f64::INFINITY,
        };
        let QueryPlan::Select(b) = &s.query.plan else { return f64::INFINITY };
        let runs = self.distinct_values(&s.query.captures, card);
        runs * (cost::SUBQUERY_RUN + block_cost(b)) + card * cost::SUBQUERY_KEPT
    }

    /// Estimated distinct values of `exprs` over `card` rows: per table,
    /// the distinct values of an index prefix made of its captured
    /// columns (in any order), else the product of each column's as the
    /// first column of an index, else its rows; at most `card`.
    fn distinct_values(&self, exprs: &[Expr], card: f64) -> f64 {
        if exprs.is_empty() {
            return 1.0;
        }
        let mut by_source: Vec<(usize, Vec<usize>)> = Vec::new();
        for e in exprs {
            let Expr::Col(k) = e else { return card };
            let Some(i) = self.sources.iter().position(|s| *k >= s.offset && *k < s.offset + s.width) else {
                return card;
            };
            let col = k - self.sources[i].offset;
            match by_source.iter_mut().find(|(s, _)| *s == i) {
                Some((_, cols)) if !cols.contains(&col) => cols.push(col),
                Some(_) => {}
                None => by_source.push((i, vec![col])),
            }
        }
        let mut n = 1.0;
        for (i, cols) in by_source {
            let SourceKind::Table(t) = &self.sources[i].kind else { return card };
            n *= table_distinct(t, &cols);
        }
        n.clamp(1.0, card.max(1.0))
    }
}

/// Distinct values of columns `cols` of `t` (see `distinct_values`).
fn table_distinct(t: &crate::plan::TableRef, cols: &[usize]) -> f64 {
    use quire_engine::table::IndexRef;
    let rows = cost::table_rows(t);
    let st = cost::stats(t);
    let indexes = std::iter::once(IndexRef::Primary).chain((0..t.schema.indexes.len()).map(IndexRef::Secondary));
    let key_cols = |ix: IndexRef| -> Vec<usize> {
        match ix {
            IndexRef::Primary => t.schema.primary_key.clone(),
            IndexRef::Secondary(i) => t.schema.indexes[i].columns.clone(),
        }
    };
    let prefix = |want: &[usize]| -> Option<f64> {
        indexes.clone().find_map(|ix| {
            let k = key_cols(ix);
            let n = want.len();
            (k.len() >= n && k[..n].iter().all(|c| want.contains(c)))
                .then(|| rows / cost::rows_per_key(t, st.as_deref(), ix, n))
        })
    };
    if let Some(d) = prefix(cols) {
        return d.max(1.0);
    }
    cols.iter().map(|&c| prefix(&[c]).unwrap_or(rows)).product::<f64>().clamp(1.0, rows)
}

/// Estimated cost of one run of block `b` (its join tree, before
/// grouping and sorting, which a simple subquery has none of).
fn block_cost(b: &Block) -> f64 {
    fn node(b: &Block, n: &Node) -> (f64, f64) {
        match n {
            Node::Leaf(i) => match &b.sources[*i].kind {
                SourceKind::Table(t) => {
                    let a = &b.sources[*i].access;
                    let rows = cost::rows_per_lookup(t, a);
                    let per_row =
                        if matches!(a.index(), Some(quire_engine::table::IndexRef::Secondary(_))) { 2.0 } else { 1.0 };
                    (cost::SEMI_LOOKUP + rows * per_row, rows)
                }
                _ => (cost::UNKNOWN_ROWS, cost::UNKNOWN_ROWS),
            },
            Node::Filter { input, .. } => node(b, input),
            Node::Join { kind, left, right, .. } => {
                let (cl, rl) = node(b, left);
                let (cr, rr) = node(b, right);
                let rows = match kind {
                    JoinKind::Semi | JoinKind::Anti => rl * super::SEMI_FILTER,
                    _ => rl * rr,
                };
                (cl + rl * cr, rows.max(1.0))
            }
        }
    }
    b.tree.as_ref().map_or(1.0, |t| node(b, t).0)
}
