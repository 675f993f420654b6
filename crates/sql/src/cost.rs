//! The cost model both planners use to rank access paths and join
//! orders, from the tables' statistics (`statistics/`).
//!
//! A path's cost is the rows it reads per lookup, twice over for a
//! secondary index (each entry leads to a clustered-index read), plus one
//! for the descent. Rows per lookup:
//! - a point read of the primary key, or equality on every column of a
//!   unique index: 1, without consulting anything;
//! - equality on the first k columns of an index: `n_rows / n_diff_pfx<k>`;
//! - a further range on the next column, or a range on the first: MySQL's
//!   fixed filtering guesses (`COND_FILTER_INEQUALITY` 1/3 for one bound,
//!   `COND_FILTER_BETWEEN` 1/9 for two). Plans are cached per normalised
//!   text with the literals as parameters, so a range's values are not
//!   known when the plan is made; the B+tree's range estimate
//!   (`Table::estimate_rows_in_range`) serves EXPLAIN's `rows` instead;
//! - IN lists: one equality lookup per value;
//! - a scan: `n_rows`.
//!
//! A table without statistics (they could not be computed) keeps the
//! fixed ranking: the first index that applies, primary key first.

use quire_engine::table::{IndexRef, TableStats};

use crate::expr::Expr;
use crate::plan::{Access, TableRef};

/// MySQL's `COND_FILTER_EQUALITY`: the share of rows an equality keeps.
pub const FILTER_EQUALITY: f64 = 0.1;
/// `COND_FILTER_INEQUALITY`: a comparison with one bound.
pub const FILTER_INEQUALITY: f64 = 1.0 / 3.0;
/// `COND_FILTER_BETWEEN`: a range bounded on both sides.
pub const FILTER_BETWEEN: f64 = 1.0 / 9.0;
/// Rows assumed of a source without statistics (a derived table, a table
/// whose statistics could not be computed).
pub const UNKNOWN_ROWS: f64 = 1000.0;

// Semi- and anti-joins (`rel/join/semicost.rs`): weights of the
// executor's operations, in row reads of a table scan (one row read,
// decoded and passed on by the general engine: ~0.3 us of server CPU on
// the reference machine), measured as server CPU time per statement on
// `scripts/semijoin-bench.sh`'s tables (docs/BENCHMARKS.md, "IN /
// EXISTS as semi-joins"): a secondary-index lookup of one row ~1.2 us
// (2 + 2 x 1 row), a key set's insert ~0.6 us and probe ~0.05 us, a
// subquery's run ~1.35 us beyond its reads, a kept result ~0.3 us.

/// Opening one index lookup (cursor, descent) beyond the rows it reads.
pub const SEMI_LOOKUP: f64 = 2.0;
/// Adding an inner row's key to a semi-join's key set.
pub const SEMI_KEY_BUILD: f64 = 2.0;
/// Looking an outer row's key up in a key set.
pub const SEMI_KEY_PROBE: f64 = 0.2;
/// Bytes a key of a key set is counted for (`exec/keyset.rs`).
pub const SEMI_KEY_BYTES: f64 = 64.0;
/// Keys a key set may hold: MariaDB's default `tmp_table_size` (plans
/// are cached across sessions, so not the session's own).
pub const SEMI_KEYS_BUDGET: f64 = 16.0 * 1024.0 * 1024.0;
/// Adding an inner row to a hash join's table, and probing it.
pub const HASH_ROW_BUILD: f64 = 2.0;
pub const HASH_ROW_PROBE: f64 = 1.5;
/// Bytes an inner row of a hash table is counted for (`rel/spill.rs`).
pub const HASH_ROW_BYTES: f64 = 170.0;
/// `join_buffer_size`'s default.
pub const JOIN_BUFFER_DEFAULT: f64 = 262_144.0;
/// An outer row written to and read back from a chunked hash join's
/// file, per chunk after the first.
pub const CHUNK_PASS: f64 = 1.5;
/// Running a subquery once, beyond its reads (its block's setup).
pub const SUBQUERY_RUN: f64 = 4.5;
/// An outer row whose subquery result is kept: its captured values,
/// their key and the lookup (and an IN's probe of the result).
pub const SUBQUERY_KEPT: f64 = 1.0;

/// Whether two compiled expressions are the same (plan time only).
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// The shape of a range: columns bound by equality, and whether the next
/// one is bounded by a range (0, 1 or 2 sides).
pub fn range_shape(a: &Access) -> (usize, u8) {
    use std::ops::Bound;
    let Access::Range { lo, hi, .. } = a else {
        return match a {
            Access::Point(k) => (k.len(), 0),
            Access::Points { .. } => (1, 0),
            _ => (0, 0),
        };
    };
    let vals = |b: &Bound<Vec<Expr>>| match b {
        Bound::Included(v) | Bound::Excluded(v) => v.clone(),
        Bound::Unbounded => Vec::new(),
    };
    let (l, h) = (vals(lo), vals(hi));
    let both_incl = matches!(lo, Bound::Included(_)) && matches!(hi, Bound::Included(_));
    let mut eq = l.iter().zip(&h).take_while(|(a, b)| same_expr(a, b)).count();
    if eq == l.len() && eq == h.len() && !both_incl {
        eq = eq.saturating_sub(1); // (a = 1 AND b > 2) written as a half-open pair
    }
    let sides = (l.len() > eq) as u8 + (h.len() > eq) as u8;
    (eq, sides)
}

/// Statistics of `t`, when it has them.
pub fn stats(t: &TableRef) -> Option<std::sync::Arc<TableStats>> {
    t.table.stats()
}

/// Estimated rows of `t`.
pub fn table_rows(t: &TableRef) -> f64 {
    stats(t).map_or(UNKNOWN_ROWS, |s| s.n_rows.max(1) as f64)
}

fn index_name(t: &TableRef, index: IndexRef) -> &str {
    quire_engine::table::stats::index_name(&t.schema, index)
}

/// Whether equality on `k` columns of `index` finds at most one row.
pub fn unique_prefix(t: &TableRef, index: IndexRef, k: usize) -> bool {
    match index {
        IndexRef::Primary => k >= t.schema.primary_key.len(),
        IndexRef::Secondary(i) => t.schema.indexes[i].unique && k >= t.schema.indexes[i].columns.len(),
    }
}

/// Estimated rows per distinct value of the first `k` columns of `index`.
pub fn rows_per_key(t: &TableRef, st: Option<&TableStats>, index: IndexRef, k: usize) -> f64 {
    if unique_prefix(t, index, k) {
        return 1.0;
    }
    let Some(st) = st else { return (UNKNOWN_ROWS * FILTER_EQUALITY.powi(k as i32)).max(1.0) };
    st.rows_per_key(index_name(t, index), k).unwrap_or((st.n_rows.max(1) as f64 * FILTER_EQUALITY).max(1.0))
}

/// Estimated rows one lookup through `a` reads.
pub fn rows_per_lookup(t: &TableRef, a: &Access) -> f64 {
    let st = stats(t);
    let st = st.as_deref();
    let n_rows = st.map_or(UNKNOWN_ROWS, |s| s.n_rows.max(1) as f64);
    let range = |sides: u8| match sides {
        0 => 1.0,
        1 => FILTER_INEQUALITY,
        _ => FILTER_BETWEEN,
    };
    match a {
        Access::Point(_) => 1.0,
        Access::Points { index, keys } => keys.len() as f64 * rows_per_key(t, st, *index, 1),
        Access::Range { index, .. } => {
            let (eq, sides) = range_shape(a);
            let base = if eq == 0 { n_rows } else { rows_per_key(t, st, *index, eq) };
            (base * range(sides)).max(1.0)
        }
        Access::Full => n_rows,
    }
}

/// The cost of one lookup through `a` (see the module's notes).
pub fn lookup_cost(t: &TableRef, a: &Access) -> f64 {
    let rows = rows_per_lookup(t, a);
    let per_row = match a.index() {
        Some(IndexRef::Secondary(_)) => 2.0,
        _ => 1.0,
    };
    1.0 + rows * per_row
}

/// The cheapest of `candidates` (in the fixed ranking's order, which
/// breaks ties); the first when `t` has no statistics.
pub fn cheapest(t: &TableRef, candidates: Vec<Access>) -> Access {
    if candidates.len() > 1 && stats(t).is_some() {
        let mut best: Option<(f64, Access)> = None;
        for a in candidates {
            let c = lookup_cost(t, &a);
            if best.as_ref().is_none_or(|(b, _)| c < *b) {
                best = Some((c, a));
            }
        }
        return best.map_or(Access::Full, |(_, a)| a);
    }
    candidates.into_iter().next().unwrap_or(Access::Full)
}

/// The share of rows a WHERE term keeps, MySQL's guesses by its shape.
pub fn filter_factor(t: &Expr) -> f64 {
    use crate::expr::BinOp;
    match t {
        Expr::Bin(BinOp::Eq, ..) => FILTER_EQUALITY,
        Expr::Bin(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, ..) => FILTER_INEQUALITY,
        Expr::Between { negated: false, .. } => FILTER_BETWEEN,
        Expr::InList { list, negated: false, .. } => (list.len() as f64 * FILTER_EQUALITY).min(0.5),
        _ => 1.0,
    }
}
