//! One row of EXPLAIN for one table: its access type, keys, key length,
//! ref, estimated rows, filtered share and Extra notes, described from the
//! plan's `Access` and the WHERE terms placed on the table.

use std::ops::Bound;

use quire_engine::row::{Column, ColumnType, Value};
use quire_engine::table::IndexRef;

use crate::cost;
use crate::expr::{Env, Expr};
use crate::plan::{Access, TableRef};

/// A row of EXPLAIN's traditional format.
#[derive(Debug, Default)]
pub struct Line {
    /// `None` for a UNION RESULT row.
    pub id: Option<u64>,
    pub select_type: String,
    pub table: Option<String>,
    pub kind: Option<&'static str>,
    pub possible_keys: Option<String>,
    pub key: Option<String>,
    pub key_len: Option<String>,
    pub reference: Option<String>,
    pub rows: Option<u64>,
    pub filtered: Option<f64>,
    pub extra: Vec<String>,
}

impl Line {
    pub fn values(self) -> Vec<Value> {
        let s = |v: Option<String>| v.map_or(Value::Null, Value::Str);
        vec![
            self.id.map_or(Value::Null, Value::UInt),
            Value::Str(self.select_type),
            s(self.table),
            Value::Null, // partitions: quire has none
            s(self.kind.map(str::to_string)),
            s(self.possible_keys),
            s(self.key),
            s(self.key_len),
            s(self.reference),
            self.rows.map_or(Value::Null, Value::UInt),
            self.filtered.map_or(Value::Null, |f| {
                Value::Decimal(quire_engine::row::Decimal { coef: (f * 100.0).round() as i128, scale: 2 })
            }),
            if self.extra.is_empty() { Value::Null } else { Value::Str(self.extra.join("; ")) },
        ]
    }
}

/// MySQL's key length of one key part (`KEY_PART_INFO::store_length`):
/// the column's storage size for its type, 2 more for a VARCHAR's length,
/// 1 more when it may be NULL. Strings count 4 bytes per character
/// (utf8mb4).
pub fn key_part_len(c: &Column) -> u32 {
    let decimal = |digits: u32| (digits / 9) * 4 + [0, 1, 1, 2, 2, 3, 3, 4, 4, 4][(digits % 9) as usize];
    let fsp_bytes = |fsp: u8| (fsp as u32).div_ceil(2);
    let base = match c.ty {
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => 1,
        ColumnType::SmallInt { .. } => 2,
        ColumnType::MediumInt { .. } => 3,
        ColumnType::Int { .. } => 4,
        ColumnType::BigInt { .. } => 8,
        ColumnType::Decimal { precision, scale, .. } => {
            decimal(precision as u32 - scale as u32) + decimal(scale as u32)
        }
        ColumnType::Date => 3,
        ColumnType::DateTime { fsp } => 5 + fsp_bytes(fsp),
        ColumnType::Timestamp { fsp } => 4 + fsp_bytes(fsp),
        ColumnType::Char { len } => len * 4,
        ColumnType::Varchar { len } => len * 4 + 2,
        _ => 0,
    };
    base + c.nullable as u32
}

/// What a table's line needs beyond the table and its access.
pub struct Context<'a> {
    /// Slot of the table's first column in the row the terms read.
    pub offset: usize,
    /// The WHERE / ON terms evaluated at this table.
    pub terms: Vec<&'a Expr>,
    /// Whether a term's expression is computable before the table is read.
    pub avail: &'a dyn Fn(&Expr) -> bool,
    /// `db.table.column` of a slot of another table (for `ref`).
    pub column_name: &'a dyn Fn(usize) -> Option<String>,
    /// Evaluates constant bounds (the statement's parameters) for range
    /// estimates.
    pub env: &'a dyn Env,
    /// A full scan read in index order (ORDER BY on the key).
    pub index_order: bool,
}

/// The name EXPLAIN gives an index.
fn index_name(t: &TableRef, index: IndexRef) -> String {
    quire_engine::table::stats::index_name(&t.schema, index).to_string()
}

/// Reads a column of another table (slot outside `t`'s).
fn reads_other(e: &Expr, t: &TableRef, offset: usize) -> bool {
    let mut slots = Vec::new();
    crate::rel::slots_of(e, &mut slots);
    slots.iter().any(|&s| s < offset || s >= offset + t.columns.len())
}

/// The line of table `t` read through `access`.
pub fn table_line(t: &TableRef, name: &str, access: &Access, cx: &Context<'_>) -> Line {
    let mut line = Line { table: Some(name.to_string()), ..Default::default() };
    let mut keys: Vec<String> = Vec::new();
    for a in crate::plan::candidate_accesses(t, cx.offset, &cx.terms, cx.avail) {
        let n = index_name(t, a.index().unwrap_or(IndexRef::Primary));
        if !keys.contains(&n) {
            keys.push(n);
        }
    }
    line.possible_keys = (!keys.is_empty()).then(|| keys.join(","));
    let n_rows = cost::table_rows(t).round() as u64;
    let (eq, sides) = cost::range_shape(access);
    let key_exprs: Vec<&Expr> = match access {
        Access::Point(k) => k.iter().collect(),
        Access::Range { lo: Bound::Included(v) | Bound::Excluded(v), .. } => v.iter().take(eq).collect(),
        _ => Vec::new(),
    };
    let joined = key_exprs.iter().any(|e| reads_other(e, t, cx.offset));
    let used_parts = match access {
        Access::Point(k) => k.len(),
        Access::Points { .. } => 1,
        Access::Range { .. } => eq + (sides > 0) as usize,
        Access::Full => 0,
    };
    let kind = match access {
        Access::Point(_) if joined => "eq_ref",
        Access::Point(_) => "const",
        Access::Range { index, .. } if sides == 0 && eq > 0 => {
            if cost::unique_prefix(t, *index, eq) {
                if joined {
                    "eq_ref"
                } else {
                    "const"
                }
            } else {
                "ref"
            }
        }
        Access::Range { .. } | Access::Points { .. } => "range",
        Access::Full if cx.index_order => "index",
        Access::Full => "ALL",
    };
    line.kind = Some(kind);
    let index = access.index().or(cx.index_order.then_some(IndexRef::Primary));
    if let Some(ix) = index {
        line.key = Some(index_name(t, ix));
        let cols = t.index_columns(ix);
        let parts = if used_parts == 0 { cols.len() } else { used_parts.min(cols.len()) };
        let len: u32 = cols[..parts].iter().map(|&c| key_part_len(&t.schema.columns[c])).sum();
        line.key_len = Some(len.to_string());
    }
    if matches!(kind, "const" | "eq_ref" | "ref") {
        let refs: Vec<String> = key_exprs
            .iter()
            .map(|e| match e {
                Expr::Col(s) if reads_other(e, t, cx.offset) => (cx.column_name)(*s).unwrap_or_else(|| "func".into()),
                e if reads_other(e, t, cx.offset) => "func".into(),
                _ => "const".into(),
            })
            .collect();
        line.reference = Some(refs.join(","));
    }
    line.rows = Some(match access {
        Access::Point(_) => 1,
        Access::Full => n_rows,
        a => range_rows(t, a, cx).unwrap_or_else(|| cost::rows_per_lookup(t, a).round() as u64),
    });
    // Terms the key does not answer filter the rows read.
    let key_cols: Vec<usize> = index.map_or(Vec::new(), |ix| {
        t.index_columns(ix)[..used_parts.min(t.index_columns(ix).len())].iter().map(|&c| cx.offset + c).collect()
    });
    let mut filtered = 1.0;
    let mut checks = false;
    for term in &cx.terms {
        let mut slots = Vec::new();
        crate::rel::slots_of(term, &mut slots);
        let own: Vec<usize> =
            slots.iter().copied().filter(|&s| s >= cx.offset && s < cx.offset + t.columns.len()).collect();
        if own.iter().all(|s| key_cols.contains(s)) && !own.is_empty() && !matches!(kind, "range") {
            continue;
        }
        checks = true;
        if slots.iter().all(|s| own.contains(s)) {
            filtered *= cost::filter_factor(term);
        }
    }
    line.filtered = Some(filtered * 100.0);
    if checks {
        line.extra.push("Using where".into());
    }
    line
}

/// Rows of a range estimated by descending the index to its ends, when
/// its bounds are constants (parameters included).
pub(super) fn range_rows(t: &TableRef, a: &Access, cx: &Context<'_>) -> Option<u64> {
    let constant = |e: &Expr| crate::plan::is_constant(e);
    match a {
        Access::Range { index, lo, hi } => {
            let all_const = |b: &Bound<Vec<Expr>>| match b {
                Bound::Included(v) | Bound::Excluded(v) => v.iter().all(constant),
                Bound::Unbounded => true,
            };
            if !(all_const(lo) && all_const(hi)) {
                return None;
            }
            let lo = crate::query::eval_bound(lo, &[], cx.env).ok()?;
            let hi = crate::query::eval_bound(hi, &[], cx.env).ok()?;
            let lo = crate::query::sanitize_bound(t, *index, lo, true);
            let hi = crate::query::sanitize_bound(t, *index, hi, false);
            let r = t.table.estimate_rows_in_range(*index, crate::query::as_slice(&lo), crate::query::as_slice(&hi));
            r.ok().flatten()
        }
        Access::Points { index, keys } if keys.iter().all(constant) => {
            let mut sum = 0;
            for k in keys {
                let v = vec![crate::expr::eval(k, &[], cx.env).ok()?];
                let b = crate::query::sanitize_bound(t, *index, Bound::Included(v.clone()), true);
                let e = crate::query::sanitize_bound(t, *index, Bound::Included(v), false);
                sum += t
                    .table
                    .estimate_rows_in_range(*index, crate::query::as_slice(&b), crate::query::as_slice(&e))
                    .ok()
                    .flatten()?;
            }
            Some(sum)
        }
        _ => None,
    }
}
