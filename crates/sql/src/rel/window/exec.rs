//! Computing a block's window functions over its grouped rows (see the
//! parent module): keys and arguments evaluated once per row, rows
//! sorted per spec and split into partitions, each function computed over
//! a partition in one pass, frame aggregates sliding.

use quire_engine::row::{Decimal, Value};

use super::bind::{n_value, offset_value};
use super::{Bound, Func, Units, WinFn, Windows};
use crate::error::{Result, SqlError};
use crate::expr::{self, eval, to_decimal, AggFn, Env};
use crate::finish::{AggEnv, GroupedRow};
use crate::query::{cmp_keys, sort_key, AggState, SortKey};

/// A row's first ORDER BY key along the window's order, for RANGE frames
/// with offsets: NULL sorts before every number ascending, after every
/// number descending, and a descending key is negated so that "preceding"
/// is always "smaller".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Along {
    Low,
    At(Decimal),
    High,
}

impl Along {
    fn of(v: &Value, desc: bool) -> Along {
        match to_decimal(v) {
            None if desc => Along::High,
            None => Along::Low,
            Some(d) if desc => Along::At(Decimal::new(-d.coef, d.scale)),
            Some(d) => Along::At(d),
        }
    }
}

/// What the functions of one spec see of one partition.
struct Partition<'a> {
    /// The rows' indices in window order.
    rows: &'a [usize],
    /// Per position: where its peer group (equal order keys) starts and
    /// ends (exclusive).
    peer_start: Vec<usize>,
    peer_end: Vec<usize>,
    /// Per position: the first order key along the window's order.
    along: Vec<Along>,
}

impl<'a> Partition<'a> {
    fn new(rows: &'a [usize], order_keys: &[Vec<SortKey>], first: &[Value], desc: bool) -> Self {
        let len = rows.len();
        let mut peer_start = vec![0; len];
        let mut peer_end = vec![len; len];
        let mut start = 0;
        for i in 1..=len {
            if i == len || order_keys[rows[i]] != order_keys[rows[start]] {
                for p in start..i {
                    peer_start[p] = start;
                    peer_end[p] = i;
                }
                start = i;
            }
        }
        let along = rows.iter().map(|&r| Along::of(&first[r], desc)).collect();
        Partition { rows, peer_start, peer_end, along }
    }

    /// Where a frame bound `delta` away from position i along the order
    /// starts (RANGE): the first row at or past it. A row whose key is
    /// NULL has its peers as the frame.
    fn range_start(&self, i: usize, delta: Decimal, preceding: bool) -> Result<usize> {
        match self.target(i, delta, preceding)? {
            None => Ok(self.peer_start[i]),
            Some(t) => Ok(self.along.partition_point(|a| *a < Along::At(t))),
        }
    }

    /// Where such a frame ends (exclusive): after the last row at or
    /// before the bound.
    fn range_end(&self, i: usize, delta: Decimal, preceding: bool) -> Result<usize> {
        match self.target(i, delta, preceding)? {
            None => Ok(self.peer_end[i]),
            Some(t) => Ok(self.along.partition_point(|a| *a <= Along::At(t))),
        }
    }

    fn target(&self, i: usize, delta: Decimal, preceding: bool) -> Result<Option<Decimal>> {
        let Along::At(v) = self.along[i] else { return Ok(None) };
        let t = if preceding { v.checked_sub(delta) } else { v.checked_add(delta) };
        t.map(Some).ok_or_else(|| SqlError::new(1690, "22003", "DECIMAL value is out of range"))
    }
}

/// The constants of a function, evaluated once per execution.
struct Consts {
    n: usize,
    start: Option<Decimal>,
    end: Option<Decimal>,
}

fn consts(f: &WinFn, env: &dyn Env) -> Result<Consts> {
    let n = match &f.n {
        Some(x) => n_value(f.func, &eval(x, &[], env)?, &f.name)?,
        None => 1,
    };
    let offset = |b: &Bound| -> Result<Option<Decimal>> {
        match b {
            Bound::Preceding(x) | Bound::Following(x) if f.func.framed() => {
                offset_value(&eval(x, &[], env)?, f.frame.units, &f.window).map(Some)
            }
            _ => Ok(None),
        }
    };
    Ok(Consts { n, start: offset(&f.frame.start)?, end: offset(&f.frame.end)? })
}

/// The frame of position i, as a range of positions (empty when its end
/// comes before its start).
fn frame_of(f: &WinFn, c: &Consts, p: &Partition<'_>, i: usize) -> Result<(usize, usize)> {
    let len = p.rows.len();
    let rows = f.frame.units == Units::Rows;
    let off = |d: Option<Decimal>| d.and_then(|d| expr::to_i128(&Value::Decimal(d))).unwrap_or(0).max(0) as usize;
    let zero = Decimal::ZERO;
    let start = match &f.frame.start {
        Bound::UnboundedPreceding => 0,
        Bound::CurrentRow if rows => i,
        Bound::CurrentRow => p.peer_start[i],
        Bound::Preceding(_) if rows => i.saturating_sub(off(c.start)),
        Bound::Preceding(_) => p.range_start(i, c.start.unwrap_or(zero), true)?,
        Bound::Following(_) if rows => i.saturating_add(off(c.start)).min(len),
        Bound::Following(_) => p.range_start(i, c.start.unwrap_or(zero), false)?,
        Bound::UnboundedFollowing => len,
    };
    let end = match &f.frame.end {
        Bound::UnboundedFollowing => len,
        Bound::CurrentRow if rows => i + 1,
        Bound::CurrentRow => p.peer_end[i],
        Bound::Preceding(_) if rows => (i + 1).saturating_sub(off(c.end)),
        Bound::Preceding(_) => p.range_end(i, c.end.unwrap_or(zero), true)?,
        Bound::Following(_) if rows => i.saturating_add(off(c.end)).saturating_add(1).min(len),
        Bound::Following(_) => p.range_end(i, c.end.unwrap_or(zero), false)?,
        Bound::UnboundedPreceding => 0,
    };
    Ok((start, end.max(start)))
}

/// A DOUBLE result (PERCENT_RANK, CUME_DIST). (MySQL 8.0 prints it with
/// its shortest digits, `0.5`; MariaDB prints ten decimals, `0.5000000000`.)
fn double(x: f64) -> Value {
    Value::Double(quire_engine::row::float::normalize(x))
}

/// The values of window function `fi` on the rows of partition `p`,
/// written to `out[row][fi]`; `args[row]` are its arguments' values.
fn partition_values(
    fi: usize,
    f: &WinFn,
    c: &Consts,
    p: &Partition<'_>,
    args: &[Vec<Value>],
    out: &mut [Vec<Value>],
) -> Result<()> {
    let len = p.rows.len();
    let value_at = |pos: usize| args[p.rows[pos]].first().cloned().unwrap_or(Value::Null);
    let int = |n: usize| Value::Int(n.min(i64::MAX as usize) as i64);
    match f.func {
        Func::RowNumber => {
            for (i, &r) in p.rows.iter().enumerate() {
                out[r][fi] = int(i + 1);
            }
        }
        Func::Rank => {
            for (i, &r) in p.rows.iter().enumerate() {
                out[r][fi] = int(p.peer_start[i] + 1);
            }
        }
        Func::DenseRank => {
            let mut rank = 0;
            for (i, &r) in p.rows.iter().enumerate() {
                if p.peer_start[i] == i {
                    rank += 1;
                }
                out[r][fi] = int(rank);
            }
        }
        Func::PercentRank => {
            for (i, &r) in p.rows.iter().enumerate() {
                let x = if len > 1 { p.peer_start[i] as f64 / (len - 1) as f64 } else { 0.0 };
                out[r][fi] = double(x);
            }
        }
        Func::CumeDist => {
            for (i, &r) in p.rows.iter().enumerate() {
                out[r][fi] = double(p.peer_end[i] as f64 / len as f64);
            }
        }
        Func::Ntile => {
            // n rows in b buckets: the first n % b buckets hold one row more.
            let b = c.n.max(1);
            let (size, extra) = (len / b, len % b);
            for (i, &r) in p.rows.iter().enumerate() {
                let bucket = if size == 0 {
                    i + 1
                } else if i < extra * (size + 1) {
                    i / (size + 1) + 1
                } else {
                    (i - extra * (size + 1)) / size + extra + 1
                };
                out[r][fi] = int(bucket);
            }
        }
        Func::Lag | Func::Lead => {
            for (i, &r) in p.rows.iter().enumerate() {
                let at = if f.func == Func::Lag { i.checked_sub(c.n) } else { i.checked_add(c.n).filter(|&j| j < len) };
                out[r][fi] = match at {
                    Some(j) => value_at(j),
                    None => args[r].get(1).cloned().unwrap_or(Value::Null),
                };
            }
        }
        Func::FirstValue | Func::LastValue | Func::NthValue => {
            for (i, &r) in p.rows.iter().enumerate() {
                let (s, e) = frame_of(f, c, p, i)?;
                let at = match f.func {
                    Func::FirstValue => Some(s),
                    Func::LastValue => e.checked_sub(1),
                    _ => s.checked_add(c.n - 1),
                };
                out[r][fi] = match at {
                    Some(j) if j >= s && j < e => value_at(j),
                    _ => Value::Null,
                };
            }
        }
        Func::Agg(_) => {
            let a = f.agg.as_ref().ok_or_else(|| SqlError::internal("a window aggregate without its aggregate"))?;
            let removable = AggState::removable(a);
            // COUNT(*) counts rows: each row adds a 1.
            let value_of = |pos: usize| if a.func == AggFn::CountStar { Value::Int(1) } else { value_at(pos) };
            let mut st = AggState::new(a);
            let (mut cs, mut ce) = (0, 0);
            for (i, &r) in p.rows.iter().enumerate() {
                let (s, e) = frame_of(f, c, p, i)?;
                let slides = s >= cs && e >= ce && s <= ce && (removable || s == cs);
                if slides {
                    for j in ce..e {
                        st.add_value(a, f.coll, value_of(j))?;
                    }
                    for j in cs..s {
                        st.remove_value(a, &value_of(j))?;
                    }
                } else {
                    st = AggState::new(a);
                    for j in s..e {
                        st.add_value(a, f.coll, value_of(j))?;
                    }
                }
                (cs, ce) = (s, e);
                out[r][fi] = st.result(a).0;
            }
        }
    }
    Ok(())
}

/// The window functions' values on each of `rows` (the block's rows after
/// grouping and HAVING, with their aggregates' values when `aggregated`),
/// in `rows`' order: `values[row][i]` is `Expr::Window(i)`'s. And the
/// order the rows leave in: the last sorting window's (each window sorts
/// the order the one before left, as MySQL's do), or as they came.
pub fn compute<E: AggEnv>(
    w: &Windows,
    rows: &[GroupedRow],
    aggregated: bool,
    env: &mut E,
) -> Result<(Vec<Vec<Value>>, Vec<usize>)> {
    let n = rows.len();
    let consts: Vec<Consts> = w.fns.iter().map(|f| consts(f, &*env)).collect::<Result<_>>()?;
    // Every key and argument, evaluated once per row: [spec or fn][row].
    fn per_row<T>(count: usize, n: usize) -> Vec<Vec<T>> {
        (0..count).map(|_| Vec::with_capacity(n)).collect()
    }
    let mut part_keys: Vec<Vec<Vec<SortKey>>> = per_row(w.specs.len(), n);
    let mut order_keys: Vec<Vec<Vec<SortKey>>> = per_row(w.specs.len(), n);
    let mut first_order: Vec<Vec<Value>> = per_row(w.specs.len(), n);
    let mut args: Vec<Vec<Vec<Value>>> = per_row(w.fns.len(), n);
    for (row, aggs) in rows {
        env.check_interrupt()?;
        if aggregated {
            env.set_aggs(aggs.clone());
        }
        for (si, s) in w.specs.iter().enumerate() {
            let mut pk = Vec::with_capacity(s.partition.len());
            for (x, &coll) in s.partition.iter().zip(&s.partition_colls) {
                pk.push(sort_key(&eval(x, row, &*env)?, coll));
            }
            part_keys[si].push(pk);
            let vals = s.order.iter().map(|(x, _)| eval(x, row, &*env)).collect::<Result<Vec<_>>>()?;
            order_keys[si].push(vals.iter().zip(&s.order_colls).map(|(v, &coll)| sort_key(v, coll)).collect());
            first_order[si].push(vals.into_iter().next().unwrap_or(Value::Null));
        }
        for (fi, f) in w.fns.iter().enumerate() {
            args[fi].push(f.args.iter().map(|x| eval(x, row, &*env)).collect::<Result<_>>()?);
        }
    }
    let mut out = vec![vec![Value::Null; w.fns.len()]; n];
    let mut idx: Vec<usize> = (0..n).collect();
    for (si, s) in w.specs.iter().enumerate() {
        let desc: Vec<bool> = s.order.iter().map(|(_, d)| *d).collect();
        let (pk, ok) = (&part_keys[si], &order_keys[si]);
        if !s.partition.is_empty() || !s.order.is_empty() {
            idx.sort_by(|&a, &b| pk[a].cmp(&pk[b]).then_with(|| cmp_keys(&ok[a], &ok[b], &desc)));
        }
        let mine: Vec<usize> = (0..w.fns.len()).filter(|&fi| w.fns[fi].spec == si).collect();
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && pk[idx[end]] == pk[idx[start]] {
                end += 1;
            }
            env.check_interrupt()?;
            let p = Partition::new(&idx[start..end], ok, &first_order[si], desc.first().copied().unwrap_or(false));
            for &fi in &mine {
                partition_values(fi, &w.fns[fi], &consts[fi], &p, &args[fi], &mut out)?;
            }
            start = end;
        }
    }
    Ok((out, idx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::Collation;

    fn part(keys: &[Option<i64>]) -> (Vec<usize>, Vec<Vec<SortKey>>, Vec<Value>) {
        let vals: Vec<Value> = keys.iter().map(|k| k.map_or(Value::Null, Value::Int)).collect();
        let sk = vals.iter().map(|v| vec![sort_key(v, Collation::Utf8mb4GeneralCi)]).collect();
        ((0..keys.len()).collect(), sk, vals)
    }

    #[test]
    fn range_offsets_skip_nulls_and_null_rows_frame_their_peers() {
        // Ascending: NULL, 1, 1, 2, 4.
        let (rows, sk, first) = part(&[None, Some(1), Some(1), Some(2), Some(4)]);
        let p = Partition::new(&rows, &sk, &first, false);
        assert_eq!((p.peer_start[2], p.peer_end[2]), (1, 3));
        let one = Decimal::from_i64(1);
        // 1 PRECEDING of the key 2 starts at the first 1; of NULL, at NULL.
        assert_eq!(p.range_start(3, one, true).unwrap(), 1);
        assert_eq!(p.range_start(0, one, true).unwrap(), 0);
        // 1 FOLLOWING of the key 2 ends before 4; of NULL, after its peers.
        assert_eq!(p.range_end(3, one, false).unwrap(), 4);
        assert_eq!(p.range_end(0, one, false).unwrap(), 1);
        // UNBOUNDED PRECEDING AND 1 PRECEDING of 1 holds the NULL row only.
        assert_eq!(p.range_end(1, one, true).unwrap(), 1);
    }

    #[test]
    fn descending_range_offsets_count_preceding_as_larger_keys() {
        // Descending: 4, 2, 1, NULL.
        let (rows, sk, first) = part(&[Some(4), Some(2), Some(1), None]);
        let p = Partition::new(&rows, &sk, &first, true);
        let two = Decimal::from_i64(2);
        // 2 PRECEDING of 2 reaches back to 4; 2 FOLLOWING ends before NULL.
        assert_eq!(p.range_start(1, two, true).unwrap(), 0);
        assert_eq!(p.range_end(1, two, false).unwrap(), 3);
    }

    #[test]
    fn doubles_keep_their_shortest_digits() {
        assert_eq!(double(1.0 / 3.0).to_string(), "0.3333333333333333");
        assert_eq!(double(0.5).to_string(), "0.5");
        assert_eq!(double(0.0).to_string(), "0");
    }
}
