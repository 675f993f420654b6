//! The parts of a SELECT block applied to the rows its FROM and WHERE
//! find, in MySQL's order: grouping and aggregates (WITH ROLLUP: and the
//! super-aggregate rows), HAVING, window functions, the select list,
//! DISTINCT, ORDER BY, OFFSET / LIMIT ([`Finish`]).
//!
//! A [`Finisher`] takes the rows one at a time, as the scan or the join
//! loops produce them, and keeps only what the clauses need:
//! - a block that aggregates keeps one group per grouping key (its first
//!   row and its aggregates' running states), never the rows it read, so
//!   `SELECT COUNT(*) FROM big` runs in constant memory;
//! - a block without aggregates or window functions evaluates its select
//!   list on each row at once: without ORDER BY the row goes out to the
//!   [`Window`] straight away (DISTINCT dropping the rows whose values went
//!   out before) and LIMIT stops the scan; with ORDER BY the rows go to a
//!   [`Sorter`] (`filesort`), which keeps only the best OFFSET + n rows
//!   under LIMIT n and spills beyond `sort_buffer_size` to sorted runs on
//!   disk;
//! - window functions need the whole partition, so a block that has them
//!   keeps its rows (its groups, when it also aggregates).
//!
//! Invariants:
//! 1. The rows that leave are those `finish` produced before it streamed:
//!    groups in the order their first rows came (ROLLUP: sorted by their
//!    keys), DISTINCT keeping the first of equal rows, ORDER BY stable
//!    (rows of equal keys in the order they came), top-N keeping the
//!    rows a stable sort would put first.
//! 2. A [`Finisher`] never asks for another row after `push` said no.

use std::collections::{HashMap, HashSet};

use quire_engine::row::{Collation, Value};

use crate::error::Result;
use crate::expr::{eval, truth, Agg, Env, Expr};
use crate::filesort::{entry_bytes, SortLimits, SortStats, Sorter};
use crate::query::{group_key, sort_key, AggState, Ctx, SortKey};
use crate::sink::Window;

/// The clauses of a block that follow FROM and WHERE.
pub struct Finish<'p> {
    pub aggs: &'p [Agg],
    pub agg_colls: &'p [Collation],
    pub group_by: &'p [Expr],
    pub group_colls: &'p [Collation],
    /// GROUP BY ... WITH ROLLUP (see [`Groups::rows`]).
    pub rollup: bool,
    pub having: Option<&'p Expr>,
    /// The window functions of the select list and ORDER BY.
    pub windows: Option<&'p crate::rel::window::Windows>,
    pub items: &'p [Expr],
    pub distinct: bool,
    pub item_colls: &'p [Collation],
    /// Empty when the rows already come in order.
    pub order: &'p [(Expr, bool)],
    pub order_colls: &'p [Collation],
    /// Width of a base row (the all-NULL row of an empty aggregate).
    pub width: usize,
}

impl Finish<'_> {
    fn aggregated(&self) -> bool {
        !self.aggs.is_empty() || !self.group_by.is_empty()
    }

    fn windowed(&self) -> bool {
        self.windows.is_some_and(|w| !w.fns.is_empty())
    }
}

/// An environment whose aggregate (and window function) results can be
/// set per row.
pub trait AggEnv: Env {
    fn set_aggs(&mut self, aggs: Vec<Value>);
    /// Takes back what [`AggEnv::set_aggs`] set.
    fn take_aggs(&mut self) -> Vec<Value>;
    /// The values of the block's window functions on the next row
    /// evaluated ([`Env::window`]); environments of blocks without
    /// window functions keep none.
    fn set_windows(&mut self, _values: Vec<Value>) {}
}

impl AggEnv for Ctx<'_> {
    fn set_aggs(&mut self, aggs: Vec<Value>) {
        self.aggs = aggs;
    }
    fn take_aggs(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.aggs)
    }
}

/// Rows a [`Finisher`] made on its way (EXPLAIN ANALYZE).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Groups aggregation made (with ROLLUP's super-aggregate rows).
    pub groups: u64,
    /// Rows after grouping and HAVING (a windowed block's rows).
    pub grouped: u64,
}

/// A row after grouping and HAVING: its (representative) row and its
/// aggregates' values (none when the block does not aggregate).
pub type GroupedRow = (Vec<Value>, Vec<Value>);

/// Runs a block's [`Finish`] over its rows as they come (see the module
/// note).
pub struct Finisher<'f> {
    f: &'f Finish<'f>,
    input: Input,
    out: Output,
}

/// What a [`Finisher`] keeps of the rows it is given.
enum Input {
    /// Aggregating: the groups (boxed: the other variants are small).
    Groups(Box<Groups>),
    /// Window functions without aggregation: every row.
    Rows(Vec<Vec<Value>>),
    /// Neither: each row is evaluated at once and handed to the output.
    Direct,
}

impl<'f> Finisher<'f> {
    /// `limit` and `offset` are the block's; the rows that leave are
    /// handed to the [`Window`] given to [`Finisher::push`] and
    /// [`Finisher::finish`], which must have been made with the same.
    /// `sort`: where ORDER BY may spill ([`SortLimits::of`]).
    pub fn new(f: &'f Finish<'f>, offset: usize, limit: Option<usize>, sort: SortLimits) -> Self {
        let input = if f.aggregated() {
            Input::Groups(Box::new(Groups::new(f, sort.clone())))
        } else if f.windowed() {
            Input::Rows(Vec::new())
        } else {
            Input::Direct
        };
        Self { f, input, out: Output::new(f, offset, limit, sort) }
    }

    /// Takes the next row that passed WHERE. `Ok(false)`: no further row
    /// can change the result; stop reading.
    pub fn push(&mut self, row: &[Value], env: &dyn Env, window: &mut Window<'_>) -> Result<bool> {
        match &mut self.input {
            Input::Groups(g) => {
                g.add(self.f, row, env)?;
                Ok(true)
            }
            Input::Rows(rows) => {
                rows.push(row.to_vec());
                Ok(true)
            }
            Input::Direct => {
                // HAVING without grouping filters rows, as MySQL's.
                if let Some(h) = self.f.having {
                    if truth(&eval(h, row, env)?) != Some(true) {
                        return Ok(true);
                    }
                }
                self.out.offer(self.f, row, env, window)
            }
        }
    }

    /// After the last row: sends what was kept; what its sort did.
    pub fn finish<E: AggEnv>(self, env: &mut E, window: &mut Window<'_>) -> Result<SortStats> {
        self.finish_counted(env, window).map(|(sorted, _)| sorted)
    }

    /// [`Finisher::finish`], also telling how many rows grouping made
    /// and how many passed HAVING (EXPLAIN ANALYZE); counted once per
    /// block, not per row.
    pub fn finish_counted<E: AggEnv>(self, env: &mut E, window: &mut Window<'_>) -> Result<(SortStats, Counts)> {
        let f = self.f;
        let mut out = self.out;
        let mut counts = Counts::default();
        let windowed = f.windows.is_some_and(|w| !w.fns.is_empty());
        let (mut disk_tables, mut disk_files) = (0, 0);
        let rows: Vec<GroupedRow> = match self.input {
            Input::Direct => return Ok((out.flush(&*env, window)?, counts)),
            Input::Groups(g) if !windowed => {
                // Each group goes out as it is finished: the groups are
                // not all held a second time.
                let spilled = g.spill.is_some();
                let mut grouped = 0;
                let (made, spill_stats) = g.each(f, env, &mut |env, rep| {
                    grouped += 1;
                    out.offer(f, &rep, &*env, window)
                })?;
                counts.groups = made as u64;
                counts.grouped = grouped;
                let mut stats = out.flush(&*env, window)?;
                stats.disk_tables += u64::from(spilled);
                stats.files += spill_stats.files;
                return Ok((stats, counts));
            }
            Input::Groups(g) => {
                disk_tables += u64::from(g.spill.is_some());
                let mut rows = Vec::new();
                let (made, spill_stats) = g.each(f, env, &mut |env, rep| {
                    rows.push((rep, env.take_aggs()));
                    Ok(true)
                })?;
                disk_files += spill_stats.files;
                counts.groups = made as u64;
                rows
            }
            Input::Rows(rows) => rows.into_iter().map(|r| (r, Vec::new())).collect(),
        };
        counts.grouped = rows.len() as u64;
        let aggregated = f.aggregated();
        let mut rows = rows;
        let mut windows = Vec::new();
        if let Some(w) = f.windows.filter(|w| !w.fns.is_empty()) {
            let (values, order) = crate::rel::window::compute(w, &rows, aggregated, env)?;
            // The rows leave in the windows' order.
            let mut slots: Vec<Option<(GroupedRow, Vec<Value>)>> = rows.into_iter().zip(values).map(Some).collect();
            (rows, windows) = order.iter().filter_map(|&i| slots[i].take()).unzip();
        }
        let mut windows = windows.into_iter();
        for (row, aggs) in rows {
            if aggregated {
                env.set_aggs(aggs);
            }
            if let Some(w) = windows.next() {
                env.set_windows(w);
            }
            if !out.offer(f, &row, &*env, window)? {
                break;
            }
        }
        let mut stats = out.flush(&*env, window)?;
        stats.disk_tables += disk_tables;
        stats.files += disk_files;
        Ok((stats, counts))
    }
}

/// The select list, DISTINCT, ORDER BY and LIMIT over rows whose
/// aggregates and window values are in the environment.
struct Output {
    /// DISTINCT: the values of the rows offered so far.
    seen: Option<HashSet<Vec<u8>>>,
    /// ORDER BY: the rows kept for sorting.
    sort: Option<Sorter>,
}

impl Output {
    fn new(f: &Finish<'_>, offset: usize, limit: Option<usize>, sort: SortLimits) -> Self {
        let sort = (!f.order.is_empty()).then(|| {
            let desc = f.order.iter().map(|(_, d)| *d).collect();
            Sorter::new(desc, limit.map(|l| l.saturating_add(offset)), sort)
        });
        Self { seen: f.distinct.then(HashSet::new), sort }
    }

    /// Evaluates the select list (and ORDER BY keys) on `row` and sends it
    /// or keeps it for sorting. `Ok(false)`: the window is full.
    fn offer(&mut self, f: &Finish<'_>, row: &[Value], env: &dyn Env, window: &mut Window<'_>) -> Result<bool> {
        let Some(sort) = &mut self.sort else {
            if let Some(seen) = &mut self.seen {
                let vals = f.items.iter().map(|x| eval(x, row, env)).collect::<Result<Vec<_>>>()?;
                if !seen.insert(group_key(&vals, f.item_colls)) {
                    return Ok(true);
                }
                return window.row(|| Ok(vals));
            }
            return window.row(|| f.items.iter().map(|x| eval(x, row, env)).collect());
        };
        if sort.closed() {
            return Ok(false);
        }
        let mut keys = Vec::with_capacity(f.order.len());
        for ((x, _), &coll) in f.order.iter().zip(f.order_colls) {
            keys.push(match x {
                // A column's key straight from the row (no copy of it).
                Expr::Col(c) if *c < row.len() => sort_key(&row[*c], coll),
                x => sort_key(&eval(x, row, env)?, coll),
            });
        }
        // Without DISTINCT a row that cannot make the top N need not be
        // evaluated further (with it, its values must still be seen).
        if self.seen.is_none() && sort.beyond(&keys) {
            return Ok(true);
        }
        let vals = f.items.iter().map(|x| eval(x, row, env)).collect::<Result<Vec<_>>>()?;
        if let Some(seen) = &mut self.seen {
            if !seen.insert(group_key(&vals, f.item_colls)) {
                return Ok(true);
            }
        }
        sort.keep(keys, vals)?;
        Ok(true)
    }

    /// Sends the kept rows in order; what the sort did.
    fn flush(self, env: &dyn Env, window: &mut Window<'_>) -> Result<SortStats> {
        match self.sort {
            Some(sort) => sort.drain(&mut |vals| window.row(|| Ok(vals)), &|| env.check_interrupt()),
            None => Ok(SortStats::default()),
        }
    }
}

/// One group being aggregated: its first row (`None` for the group of an
/// empty input), its grouping values, how many of them it shares (fewer
/// than all: a super-aggregate row of ROLLUP), and its aggregates'
/// running states.
struct Group {
    rep: Option<Vec<Value>>,
    keys: Vec<Value>,
    level: usize,
    states: Vec<AggState>,
}

/// The groups of an aggregating block, by grouping key per level (one
/// level without ROLLUP; n + 1 with it, for n grouping keys).
///
/// Without ROLLUP the groups held in memory are bounded by
/// [`SortLimits::heap`] (`tmp_table_size`, `max_heap_table_size`): once
/// they hold that much, a row whose group is not in memory is not made a
/// group but spilled, keyed by its grouping key, to a [`Sorter`] (which
/// writes sorted runs to `tmpdir` beyond `sort_buffer_size`). At the end
/// the spilled rows come back sorted by key and are aggregated one group
/// at a time, after the groups in memory: no group is in both, since a
/// group in memory takes all its rows. (MySQL moves its temporary table
/// to disk instead; the answer is the same, and the order of the groups
/// without ORDER BY is not defined in either.)
struct Groups {
    index: Vec<HashMap<Vec<u8>, usize>>,
    groups: Vec<Group>,
    /// Estimated bytes the groups in memory hold.
    bytes: usize,
    limits: SortLimits,
    /// Rows of the groups not in memory, by grouping key.
    spill: Option<Sorter>,
}

/// A position of a ROLLUP row's sort key: a grouping value, or a rolled
/// up one (after every value, so a super-aggregate row follows the rows
/// it sums up).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum RollupKey {
    Value(SortKey),
    Rolled,
}

impl Groups {
    fn new(f: &Finish<'_>, limits: SortLimits) -> Self {
        let levels = if f.rollup { f.group_by.len() + 1 } else { 1 };
        Self { index: vec![HashMap::new(); levels], groups: Vec::new(), bytes: 0, limits, spill: None }
    }

    /// Adds a row to its group at every level (or spills it: see
    /// [`Groups`]).
    fn add(&mut self, f: &Finish<'_>, row: &[Value], env: &dyn Env) -> Result<()> {
        let n = f.group_by.len();
        let keys = f.group_by.iter().map(|g| eval(g, row, env)).collect::<Result<Vec<_>>>()?;
        let spills = !f.rollup && self.bytes > self.limits.heap;
        for (li, index) in self.index.iter_mut().enumerate() {
            let level = n - li;
            let k = group_key(&keys[..level], &f.group_colls[..level]);
            let gi = match index.get(&k) {
                Some(&i) => i,
                None if spills => {
                    let limits = &self.limits;
                    let sorter = self.spill.get_or_insert_with(|| Sorter::new(vec![false], None, limits.clone()));
                    return sorter.keep(vec![SortKey::Str(k)], row.to_vec());
                }
                None => {
                    let states = f.aggs.iter().map(AggState::new).collect();
                    // The key twice (index and group), the row, the states.
                    self.bytes += 2 * k.len() + entry_bytes(&[], row) + entry_bytes(&[], &keys) + 64 * f.aggs.len();
                    self.groups.push(Group { rep: Some(row.to_vec()), keys: keys.clone(), level, states });
                    index.insert(k, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            for ((st, a), &coll) in self.groups[gi].states.iter_mut().zip(f.aggs).zip(f.agg_colls) {
                st.add(a, coll, row, env)?;
            }
        }
        Ok(())
    }

    /// The groups HAVING accepts, each with its aggregates' values.
    ///
    /// WITH ROLLUP the groups come out sorted by their keys with each
    /// super-aggregate row after the rows it sums up (as MySQL sends
    /// them), and each group's aggregate values are followed by its n
    /// grouping values (NULL where rolled up) and its n GROUPING() flags:
    /// the binder points rolled-up expressions and GROUPING() there
    /// (`rel::rollup`). A grouping key that is a column is also NULL in a
    /// super-aggregate row's representative row.
    /// Hands `emit` each group's representative row that HAVING accepts,
    /// its aggregates' values set in `env`, until `emit` says stop;
    /// returns how many groups there were.
    fn each<E: AggEnv>(
        self,
        f: &Finish<'_>,
        env: &mut E,
        emit: &mut dyn FnMut(&mut E, Vec<Value>) -> Result<bool>,
    ) -> Result<(usize, SortStats)> {
        let n = f.group_by.len();
        let mut groups = self.groups;
        if groups.is_empty() && n == 0 {
            groups.push(Group {
                rep: None,
                keys: Vec::new(),
                level: 0,
                states: f.aggs.iter().map(AggState::new).collect(),
            });
        }
        if f.rollup {
            let sort_key_of = |g: &Group| -> Vec<RollupKey> {
                (0..n)
                    .map(|p| match &g.rep {
                        Some(_) if p < g.level => RollupKey::Value(sort_key(&g.keys[p], f.group_colls[p])),
                        _ => RollupKey::Rolled,
                    })
                    .collect()
            };
            let mut keyed: Vec<(Vec<RollupKey>, Group)> = groups.into_iter().map(|g| (sort_key_of(&g), g)).collect();
            keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
            groups = keyed.into_iter().map(|(_, g)| g).collect();
        }
        let mut sent = Sent { rows: 0, going: true };
        let mut made = groups.len();
        for g in groups {
            env.check_interrupt()?;
            if !sent.group(f, g, env, emit)? {
                return Ok((made, SortStats::default()));
            }
        }
        let Some(spill) = self.spill else { return Ok((made, SortStats::default())) };
        // The spilled rows, by grouping key: one group at a time.
        let mut current: Option<(Vec<u8>, Group)> = None;
        let mut failed = None;
        let mut seen = 0u64;
        let spilled = spill.drain(
            &mut |row| {
                let mut step = || -> Result<bool> {
                    seen += 1;
                    if seen.is_multiple_of(4096) {
                        env.check_interrupt()?;
                    }
                    let keys = f.group_by.iter().map(|g| eval(g, &row, &*env)).collect::<Result<Vec<_>>>()?;
                    let k = group_key(&keys, f.group_colls);
                    if current.as_ref().is_none_or(|(ck, _)| *ck != k) {
                        if let Some((_, done)) = current.take() {
                            made += 1;
                            if !sent.group(f, done, env, emit)? {
                                return Ok(false);
                            }
                        }
                        let states = f.aggs.iter().map(AggState::new).collect();
                        let level = f.group_by.len();
                        current = Some((k, Group { rep: Some(row.clone()), keys, level, states }));
                    }
                    let (_, g) = current.as_mut().expect("set above");
                    for ((st, a), &coll) in g.states.iter_mut().zip(f.aggs).zip(f.agg_colls) {
                        st.add(a, coll, &row, &*env)?;
                    }
                    Ok(true)
                };
                step().or_else(|e| {
                    failed = Some(e);
                    Ok(false)
                })
            },
            &|| Ok(()),
        )?;
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some((_, last)) = current {
            made += 1;
            if sent.going {
                sent.group(f, last, env, emit)?;
            }
        }
        // Its rows are not an ORDER BY's: only its files are counted.
        Ok((made, SortStats { files: spilled.files, ..SortStats::default() }))
    }
}

/// The groups [`Groups::each`] has handed on.
struct Sent {
    /// Groups emitted (for GROUP_CONCAT's "Row N was cut" warning).
    rows: usize,
    /// `emit` has not said stop.
    going: bool,
}

impl Sent {
    /// Finishes group `g`: its aggregates' values into `env`, HAVING,
    /// then `emit`. `Ok(false)`: stop.
    fn group<E: AggEnv>(
        &mut self,
        f: &Finish<'_>,
        g: Group,
        env: &mut E,
        emit: &mut dyn FnMut(&mut E, Vec<Value>) -> Result<bool>,
    ) -> Result<bool> {
        let n = f.group_by.len();
        let results: Vec<(Value, bool)> = g.states.iter().zip(f.aggs).map(|(s, a)| s.result(a)).collect();
        let cut = results.iter().filter(|(_, c)| *c).count();
        let mut vals: Vec<Value> = results.into_iter().map(|(v, _)| v).collect();
        let mut rep = g.rep.unwrap_or_else(|| vec![Value::Null; f.width]);
        if f.rollup {
            let key = |p: usize| g.keys.get(p).cloned().unwrap_or(Value::Null);
            vals.extend((0..n).map(|p| if p < g.level { key(p) } else { Value::Null }));
            vals.extend((0..n).map(|p| Value::Int(i64::from(p >= g.level))));
            for g_expr in &f.group_by[g.level..] {
                if let Expr::Col(slot) = g_expr {
                    if let Some(v) = rep.get_mut(*slot) {
                        *v = Value::Null;
                    }
                }
            }
        }
        env.set_aggs(vals);
        for _ in 0..cut {
            let row = self.rows + 1;
            env.warn(crate::diag::Condition::new(
                crate::diag::Level::Warning,
                1260,
                format!("Row {row} was cut by GROUP_CONCAT()"),
            ))?;
        }
        if let Some(h) = f.having {
            if truth(&eval(h, &rep, &*env)?) != Some(true) {
                return Ok(true);
            }
        }
        self.rows += 1;
        self.going = emit(env, rep)?;
        Ok(self.going)
    }
}
