//! Running a [`QueryPlan`]: nested loops over each block's join tree
//! (index lookups keyed by the row so far, hash tables built once per
//! block execution and, past `join_buffer_size`, joined in chunks from a
//! temporary file (`spill.rs`), rescans), NULL-extension for LEFT joins,
//! then the
//! block's grouping, projection, DISTINCT, ORDER BY and LIMIT
//! (`query::finish`); set operations combine their sides' rows by key.
//! A statement's own rows go to its [`RowSink`] ([`Exec::run_into`]):
//! as the loops produce them when nothing needs them all first.
//!
//! The transaction is held in a `RefCell` and borrowed only while a read
//! is opened (a cursor owns what it needs), so the loop of an inner table
//! can read while the outer table's cursor is open.
//!
//! Subqueries run through the block's environment ([`RowEnv`]): their
//! captures are evaluated on the row, and their rows kept per statement
//! by (subquery, captured values), so an uncorrelated subquery runs once
//! and a correlated one once per distinct outer value.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Bound;
use std::rc::Rc;

use quire_engine::btree::Direction;
use quire_engine::row::{Collation, Value};
use quire_engine::table::{IndexRef, Trx};
use quire_engine::txn::lock::LockMode;

use super::spill;

mod keyset;
use super::{Block, JoinKind, Node, QueryPlan, RecursivePlan, SetOpKind, SetOpPlan, Source, SourceKind, Subquery};
use crate::error::{Result, SqlError};
use crate::explain::profile::{key, Profile, Tag, TimedSink};
use crate::expr::{compare, eval, to_decimal, truth, BinOp, Env, Expr, SubExpr, SubKind};
use crate::filesort::SortLimits;
use crate::finish::{AggEnv, Finish, Finisher};
use crate::plan::{Access, MetaType};
use crate::query::{
    as_slice, eval_bound, group_key, key_kind_matches, limit_value, no_match, sanitize_bound, sort_rows, Ctx,
    SessionEnv,
};
use crate::sink::{Collect, RowSink, Window};

type Rows = Rc<Vec<Vec<Value>>>;

/// A subquery's id and the exact key of its captured values.
type SubKey = (usize, Vec<u8>);

/// Bytes of correlated subquery results a statement keeps when the
/// session cannot say (MariaDB's default `tmp_table_size`).
const SUBQUERY_CACHE_DEFAULT: usize = 16 * 1024 * 1024;

/// One execution of a statement's query.
pub struct Exec<'a> {
    params: &'a [Value],
    session: &'a dyn SessionEnv,
    trx: RefCell<Option<&'a mut Trx>>,
    /// How reads without FOR UPDATE / FOR SHARE lock (SERIALIZABLE).
    plain_lock: Option<LockMode>,
    /// Rows of subqueries by (id, captured values).
    subqueries: RefCell<HashMap<SubKey, Rc<SubRows>>>,
    /// Bytes held by the correlated results in `subqueries`, and the
    /// most they may hold (read from the session on first use).
    cached_bytes: std::cell::Cell<usize>,
    cache_budget: std::cell::OnceCell<usize>,
    /// Materialised derived tables and CTEs, by plan.
    derived: RefCell<HashMap<usize, Rows>>,
    /// information_schema rows by (source, hint), made once per statement.
    system: RefCell<HashMap<(usize, crate::infoschema::Hint), Rows>>,
    /// The rows of the last round of each running recursive CTE.
    working: RefCell<HashMap<usize, Rows>>,
    /// The keys of IN lists with `?` markers ([`Env::in_keys`]).
    in_keys: crate::inset::Memo,
    /// The block or set operation (its address; 0: none) whose LIMIT
    /// [`Exec::run_counted`] applies itself, after counting its rows.
    uncut: std::cell::Cell<usize>,
    /// EXPLAIN ANALYZE's counters: `Some` only then; each operator looks
    /// once when it opens, never per row.
    profile: Option<&'a Profile>,
}

impl<'a> Exec<'a> {
    pub fn new(
        params: &'a [Value],
        session: &'a dyn SessionEnv,
        trx: Option<&'a mut Trx>,
        plain_lock: Option<LockMode>,
    ) -> Self {
        Self {
            params,
            session,
            trx: RefCell::new(trx),
            plain_lock,
            subqueries: RefCell::new(HashMap::new()),
            cached_bytes: std::cell::Cell::new(0),
            cache_budget: std::cell::OnceCell::new(),
            derived: RefCell::new(HashMap::new()),
            system: RefCell::new(HashMap::new()),
            working: RefCell::new(HashMap::new()),
            in_keys: Default::default(),
            uncut: std::cell::Cell::new(0),
            profile: None,
        }
    }

    /// Counts rows and times per operator into `p` (EXPLAIN ANALYZE).
    pub fn profiled(mut self, p: &'a Profile) -> Self {
        self.profile = Some(p);
        self
    }

    /// The rows of `plan`, `outer` being the values it captures.
    pub fn run(&self, plan: &QueryPlan, outer: &[Value]) -> Result<Vec<Vec<Value>>> {
        crate::depth::check()?;
        let probe = match plan {
            QueryPlan::Select(_) => None,
            QueryPlan::SetOp(s) => self.profile.map(|p| p.open(key(&**s), Tag::Result)),
            QueryPlan::Recursive(r) => self.profile.map(|p| p.open(key(&**r), Tag::Result)),
        };
        let rows = match plan {
            QueryPlan::Select(b) => self.block(b, outer),
            QueryPlan::SetOp(s) => self.set_op(s, outer),
            QueryPlan::Recursive(r) => self.recursive(r, outer),
        }?;
        if let Some(mut probe) = probe {
            // Materialised: every row is there when the first is.
            for _ in &rows {
                probe.emit(|| ());
            }
            probe.close();
        }
        Ok(rows)
    }

    /// An environment for expressions outside a block (UPDATE / DELETE):
    /// subqueries run through this execution.
    pub fn row_env(&self) -> RowEnv<'_, 'a> {
        self.env(&[])
    }

    fn env<'e>(&'e self, outer: &'e [Value]) -> RowEnv<'e, 'a> {
        RowEnv {
            ctx: Ctx { params: self.params, aggs: Vec::new(), session: self.session, in_keys: Default::default() },
            ex: self,
            outer,
            windows: Vec::new(),
        }
    }

    /// Runs a statement's query, handing its rows to `sink` (but not its
    /// columns); returns how many it sent. A block's rows go to the sink
    /// as its [`Finisher`] lets them out: as the loops produce them when
    /// nothing needs them all first, and the loops stop once LIMIT rows
    /// are sent. Set operations and recursive CTEs are collected first.
    pub fn run_into(&self, plan: &QueryPlan, sink: &mut dyn RowSink) -> Result<u64> {
        match plan {
            QueryPlan::Select(b) => self.block_into(b, &[], sink, false),
            _ => {
                let rows = self.run(plan, &[])?;
                let n = rows.len() as u64;
                for r in rows {
                    sink.row(r)?;
                }
                Ok(n)
            }
        }
    }

    /// SELECT SQL_CALC_FOUND_ROWS: [`Exec::run_into`], the rows the query
    /// yields without its outermost LIMIT counted for FOUND_ROWS()
    /// (`SessionEnv::found_rows_counted`): a block's window counts the
    /// rows past LIMIT it does not send; a set operation is collected
    /// whole and then cut.
    pub fn run_counted(&self, plan: &QueryPlan, sink: &mut dyn RowSink) -> Result<u64> {
        let (at, limit, offset) = match plan {
            QueryPlan::Select(b) => return self.block_into(b, &[], sink, true),
            QueryPlan::SetOp(s) => (&**s as *const SetOpPlan as usize, &s.limit, &s.offset),
            QueryPlan::Recursive(_) => return Err(SqlError::internal("a recursive CTE as a statement")),
        };
        self.uncut.set(at);
        let rows = self.run(plan, &[]);
        self.uncut.set(0);
        let rows = rows?;
        self.session.found_rows_counted(rows.len() as u64);
        let env = self.env(&[]);
        let limit = limit_value(limit, &env)?;
        let offset = limit_value(offset, &env)?.unwrap_or(0);
        let mut n = 0;
        for r in rows.into_iter().skip(offset).take(limit.unwrap_or(usize::MAX)) {
            sink.row(r)?;
            n += 1;
        }
        Ok(n)
    }

    /// LIMIT and OFFSET of the set operation at `at`, unless
    /// [`Exec::run_counted`] applies them.
    fn cut(
        &self,
        at: usize,
        limit: &Option<Expr>,
        offset: &Option<Expr>,
        env: &dyn Env,
    ) -> Result<(Option<usize>, usize)> {
        if self.uncut.get() == at {
            return Ok((None, 0));
        }
        Ok((limit_value(limit, env)?, limit_value(offset, env)?.unwrap_or(0)))
    }

    /// A block's rows into `sink`, `outer` being the values it captures;
    /// returns how many it sent. `count`: SQL_CALC_FOUND_ROWS (every row
    /// is offered to the window, which counts those past LIMIT).
    fn block_into(&self, b: &Block, outer: &[Value], sink: &mut dyn RowSink, count: bool) -> Result<u64> {
        if let Some(p) = self.profile {
            let mut timed = TimedSink { inner: sink, probe: p.open(key(b), Tag::Out) };
            let (sent, offered, counts) = self.block_run(b, outer, &mut timed, count)?;
            let (first, last) = (timed.probe.first(), timed.probe.elapsed());
            for (tag, rows) in [(Tag::Offered, offered), (Tag::Groups, counts.groups), (Tag::Grouped, counts.grouped)] {
                p.record(key(b), tag, rows, first, last);
            }
            timed.probe.close();
            return Ok(sent);
        }
        self.block_run(b, outer, sink, count).map(|(sent, _, _)| sent)
    }

    /// [`Exec::block_into`]'s work: the rows sent, the rows offered to
    /// LIMIT and what the finisher counted.
    fn block_run(
        &self,
        b: &Block,
        outer: &[Value],
        sink: &mut dyn RowSink,
        count: bool,
    ) -> Result<(u64, u64, crate::finish::Counts)> {
        let mut env = self.env(outer);
        let limit = limit_value(&b.limit, &env)?;
        let offset = limit_value(&b.offset, &env)?.unwrap_or(0);
        let mut window = Window::new(sink, offset, limit).counting(count);
        if window.closed() {
            return Ok((0, 0, Default::default()));
        }
        let spec = Finish {
            aggs: &b.aggs,
            agg_colls: &b.agg_colls,
            group_by: &b.group_by,
            group_colls: &b.group_colls,
            rollup: b.rollup,
            having: b.having.as_ref(),
            windows: Some(&b.windows),
            items: &b.items,
            distinct: b.distinct,
            item_colls: &b.item_colls,
            order: &b.order,
            order_colls: &b.order_colls,
            width: b.width,
        };
        let grouped = !b.aggs.is_empty() || !b.group_by.is_empty();
        let sorting = if b.order.is_empty() && !grouped { SortLimits::default() } else { SortLimits::of(&env) };
        let mut fin = Finisher::new(&spec, offset, if count { None } else { limit }, sorting);
        {
            let env = &env;
            match self.profile {
                None => {
                    let mut emit = |row: &mut Vec<Value>| -> Result<bool> {
                        if !passes(&b.filter, row, env)? {
                            return Ok(true);
                        }
                        fin.push(row, env, &mut window)
                    };
                    self.walk_block(b, env, &mut emit)?;
                }
                Some(p) => {
                    let mut probe = p.open(key(b), Tag::Where);
                    let mut emit = |row: &mut Vec<Value>| -> Result<bool> {
                        if !passes(&b.filter, row, env)? {
                            return Ok(true);
                        }
                        probe.emit(|| fin.push(row, env, &mut window))
                    };
                    self.walk_block(b, env, &mut emit)?;
                    probe.close();
                }
            }
        }
        let (sorted, counts) = fin.finish_counted(&mut env, &mut window)?;
        if !b.order.is_empty() || sorted.disk_tables > 0 {
            self.session.sorted(sorted);
        }
        if count {
            self.session.found_rows_counted(window.offered);
        }
        Ok((window.sent, window.offered, counts))
    }

    /// Produces the joined rows of `b` (before its WHERE) into `emit`.
    fn walk_block(&self, b: &Block, env: &dyn Env, emit: &mut Emit<'_>) -> Result<()> {
        let mut buf = vec![Value::Null; b.width];
        let lock = b.lock.or(self.plain_lock);
        let run =
            BlockRun { ex: self, b, lock, hashes: RefCell::new(HashMap::new()), keysets: RefCell::new(HashMap::new()) };
        match &b.tree {
            Some(tree) => {
                run.walk(tree, &mut buf, env, emit)?;
            }
            None => {
                emit(&mut buf)?;
            }
        }
        Ok(())
    }

    fn block(&self, b: &Block, outer: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut rows = Collect::default();
        self.block_into(b, outer, &mut rows, false)?;
        Ok(rows.rows)
    }

    fn set_op(&self, s: &SetOpPlan, outer: &[Value]) -> Result<Vec<Vec<Value>>> {
        let started = self.profile.map(|_| std::time::Instant::now());
        let coerce = |rows: Vec<Vec<Value>>| -> Vec<Vec<Value>> {
            rows.into_iter().map(|r| r.into_iter().zip(&s.columns).map(|(v, c)| coerce(v, c.ty)).collect()).collect()
        };
        let left = coerce(self.run(&s.left, outer)?);
        let right = coerce(self.run(&s.right, outer)?);
        let key = |r: &[Value]| group_key(r, &s.colls);
        let mut rows: Vec<Vec<Value>> = match (s.op, s.all) {
            (SetOpKind::Union, true) => left.into_iter().chain(right).collect(),
            (SetOpKind::Union, false) => {
                let mut seen = std::collections::HashSet::new();
                left.into_iter().chain(right).filter(|r| seen.insert(key(r))).collect()
            }
            (op, all) => {
                let mut counts: HashMap<Vec<u8>, usize> = HashMap::new();
                for r in &right {
                    *counts.entry(key(r)).or_default() += 1;
                }
                let mut seen = std::collections::HashSet::new();
                let mut out = Vec::new();
                for r in left {
                    let k = key(&r);
                    let n = counts.get_mut(&k);
                    let keep = match (op, all) {
                        (SetOpKind::Except, false) => n.is_none() && seen.insert(k),
                        (SetOpKind::Intersect, false) => n.is_some() && seen.insert(k),
                        (SetOpKind::Except, true) => match n {
                            Some(c) if *c > 0 => {
                                *c -= 1;
                                false
                            }
                            _ => true,
                        },
                        (SetOpKind::Intersect, true) => match n {
                            Some(c) if *c > 0 => {
                                *c -= 1;
                                true
                            }
                            _ => false,
                        },
                        (SetOpKind::Union, _) => unreachable!("handled above"),
                    };
                    if keep {
                        out.push(r);
                    }
                }
                out
            }
        };
        if let (Some(p), Some(t0)) = (self.profile, started) {
            // The combined rows, before ORDER BY and LIMIT.
            p.record(crate::explain::profile::key(s), Tag::Offered, rows.len() as u64, t0.elapsed(), t0.elapsed());
        }
        let env = self.env(outer);
        if !s.order.is_empty() {
            let keyed = rows
                .into_iter()
                .map(|r| {
                    let k = s.order.iter().map(|(x, _)| eval(x, &r, &env)).collect::<Result<Vec<_>>>()?;
                    Ok((r, k))
                })
                .collect::<Result<Vec<_>>>()?;
            rows = sort_rows(keyed, &s.order, &s.order_colls).into_iter().map(|(r, _)| r).collect();
        }
        let (limit, offset) = self.cut(s as *const SetOpPlan as usize, &s.limit, &s.offset, &env)?;
        Ok(rows.into_iter().skip(offset).take(limit.unwrap_or(usize::MAX)).collect())
    }

    /// A recursive CTE: the anchor's rows, then rounds of the step over the
    /// previous round's rows until one adds none (a round more than
    /// `cte_max_recursion_depth` is error 3636, as MySQL).
    fn recursive(&self, r: &RecursivePlan, outer: &[Value]) -> Result<Vec<Vec<Value>>> {
        let max = self.session.sysvar("cte_max_recursion_depth", false).ok();
        let max = max.and_then(|v| crate::expr::to_i128(&v)).unwrap_or(1000);
        let mut seen = std::collections::HashSet::new();
        let mut fresh = |rows: Vec<Vec<Value>>| -> Vec<Vec<Value>> {
            let rows =
                rows.into_iter().map(|row| row.into_iter().zip(&r.columns).map(|(v, c)| coerce(v, c.ty)).collect());
            if r.distinct {
                rows.filter(|row: &Vec<Value>| seen.insert(group_key(row, &r.colls))).collect()
            } else {
                rows.collect()
            }
        };
        let mut all = fresh(self.run(&r.anchor, outer)?);
        let mut round = all.clone();
        let mut n: i128 = 0;
        while !round.is_empty() {
            n += 1;
            if n > max {
                return Err(SqlError::new(
                    3636,
                    "HY000",
                    format!("Recursive query aborted after {n} iterations. Try increasing @@cte_max_recursion_depth to a larger value."),
                ));
            }
            self.session.check_interrupt()?;
            self.working.borrow_mut().insert(r.id, Rc::new(round));
            let next = self.run(&r.step, outer);
            self.working.borrow_mut().remove(&r.id);
            round = fresh(next?);
            all.extend(round.iter().cloned());
        }
        Ok(all)
    }

    /// The rows of the last round of recursive CTE `id`.
    fn working_rows(&self, id: usize) -> Result<Rows> {
        self.working
            .borrow()
            .get(&id)
            .cloned()
            .ok_or_else(|| SqlError::internal("a recursive reference outside its CTE"))
    }

    /// An information_schema source's rows for the constant terms placed
    /// on it (`infoschema::hint`), made once per statement and hint.
    /// The rows of a source that is not a base table: a derived table's,
    /// a recursive CTE's previous round, an information_schema table's.
    fn materialised_rows(&self, s: &Source, env: &dyn Env) -> Result<Rows> {
        match &s.kind {
            SourceKind::Derived(plan) => self.derived_rows(plan),
            SourceKind::System(v) => self.system_rows(s, *v, env),
            _ => self.working_rows(working_id(s)),
        }
    }

    fn system_rows(&self, s: &Source, v: crate::infoschema::View, env: &dyn Env) -> Result<Rows> {
        let hint = crate::infoschema::hint::of_terms(v, s.offset, s.filter.iter().chain(&s.local), env);
        let k = (s as *const Source as usize, hint);
        if let Some(r) = self.system.borrow().get(&k) {
            return Ok(r.clone());
        }
        let rows = Rc::new(self.session.system_rows(v, &k.1)?);
        self.system.borrow_mut().insert(k, rows.clone());
        Ok(rows)
    }

    /// A derived table's rows, materialised once per statement.
    fn derived_rows(&self, plan: &std::sync::Arc<QueryPlan>) -> Result<Rows> {
        let id = std::sync::Arc::as_ptr(plan) as usize;
        if let Some(r) = self.derived.borrow().get(&id) {
            return Ok(r.clone());
        }
        let rows = Rc::new(self.run(plan, &[])?);
        self.derived.borrow_mut().insert(id, rows.clone());
        Ok(rows)
    }

    /// The rows of a subquery for the captured values `caps`.
    fn subquery_rows(&self, q: &Subquery, caps: &[Value]) -> Result<Rc<SubRows>> {
        let k = (q.id, exact_key(caps));
        if let Some(r) = self.subqueries.borrow().get(&k) {
            return Ok(r.clone());
        }
        let rows = Rc::new(SubRows { rows: self.run(&q.plan, caps)?, probe: std::cell::OnceCell::new() });
        if caps.is_empty() {
            // Run once: kept whatever its size.
            self.subqueries.borrow_mut().insert(k, rows.clone());
            return Ok(rows);
        }
        let size = rows.rows.iter().map(|r| spill::row_bytes(&[], r)).sum::<usize>() + spill::row_bytes(&k.1, &[]);
        let held = self.cached_bytes.get() + size;
        if held <= *self.cache_budget.get_or_init(|| self.subquery_cache_budget()) {
            self.cached_bytes.set(held);
            self.subqueries.borrow_mut().insert(k, rows.clone());
        }
        Ok(rows)
    }

    /// What the results of correlated subqueries may hold: the smaller
    /// of `tmp_table_size` and `max_heap_table_size`, as MariaDB bounds
    /// its subquery cache (past it a result is computed again when its
    /// captured values come back).
    fn subquery_cache_budget(&self) -> usize {
        let var = |name| self.session.sysvar(name, false).ok().and_then(|v| crate::expr::to_i128(&v));
        match (var("tmp_table_size"), var("max_heap_table_size")) {
            (Some(a), Some(b)) => a.min(b).clamp(0, usize::MAX as i128) as usize,
            _ => SUBQUERY_CACHE_DEFAULT,
        }
    }

    fn subquery(&self, s: &SubExpr, row: &[Value], env: &dyn Env) -> Result<Value> {
        let caps = s.query.captures.iter().map(|c| eval(c, row, env)).collect::<Result<Vec<_>>>()?;
        let sub = self.subquery_rows(&s.query, &caps)?;
        let rows = &sub.rows;
        let v = match &s.kind {
            SubKind::Scalar => match rows.as_slice() {
                [] => Value::Null,
                [r] => r.first().cloned().unwrap_or(Value::Null),
                _ => return Err(SqlError::new(1242, "21000", "Subquery returns more than 1 row")),
            },
            SubKind::Exists => Value::Int(i64::from(rows.is_empty() == s.negated)),
            SubKind::In(lhs) => {
                let v = lhs.iter().map(|x| eval(x, row, env)).collect::<Result<Vec<_>>>()?;
                let found = match (v.as_slice(), sub.probe.get_or_init(|| Probe::of(rows))) {
                    ([x], Some(p)) => match p.find(x, env) {
                        Some(r) => r,
                        None => member(&v, rows, env)?,
                    },
                    _ => member(&v, rows, env)?,
                };
                match (found, s.negated) {
                    (None, _) => Value::Null,
                    (Some(b), neg) => Value::Int(i64::from(b != neg)),
                }
            }
            SubKind::Quantified { lhs, op, all } => {
                let v = eval(lhs, row, env)?;
                match quantified(&v, *op, *all, rows, env)? {
                    None => Value::Null,
                    Some(b) => Value::Int(i64::from(b)),
                }
            }
        };
        Ok(v)
    }

    /// Runs stored function `name` with this execution's transaction
    /// lent to it (`stored::func`), when it has one.
    fn stored_function(&self, name: &str, args: &[Value]) -> Result<Value> {
        let mut t = self.trx.try_borrow_mut().map_err(|_| SqlError::internal("the transaction is in use"))?;
        match t.as_deref_mut() {
            Some(trx) => self.session.stored_function_in(trx, name, args),
            None => self.session.stored_function(name, args),
        }
    }

    fn with_trx<T>(&self, f: impl FnOnce(&mut Trx) -> T) -> Result<T> {
        let mut t = self.trx.borrow_mut();
        let trx = t.as_deref_mut().ok_or_else(|| SqlError::internal("a table read without a transaction"))?;
        Ok(f(trx))
    }
}

/// A key equal only for identical values (subquery results depend on
/// the exact captured values: `'a'` and `'A'` may select different rows).
fn exact_key(vals: &[Value]) -> Vec<u8> {
    let mut k = Vec::new();
    for v in vals {
        match v {
            Value::Str(s) => {
                k.push(b's');
                k.extend_from_slice(&(s.len() as u64).to_le_bytes());
                k.extend_from_slice(s.as_bytes());
            }
            // Integers by their bytes: most correlation values are, and
            // this key is made for every outer row.
            Value::Int(i) => {
                k.push(b'i');
                k.extend_from_slice(&i.to_le_bytes());
            }
            Value::UInt(u) => {
                k.push(b'u');
                k.extend_from_slice(&u.to_le_bytes());
            }
            Value::Null => k.push(b'n'),
            other => {
                let t = format!("{other:?}");
                k.push(b'v');
                k.extend_from_slice(&(t.len() as u64).to_le_bytes());
                k.extend_from_slice(t.as_bytes());
            }
        }
    }
    k
}

/// A table source's access path with its keys evaluated.
enum Keys {
    /// Nothing can match (a NULL key).
    None,
    Full,
    Point(Vec<Value>),
    Points(IndexRef, Vec<Value>),
    Range(IndexRef, Bound<Vec<Value>>, Bound<Vec<Value>>),
}

/// Evaluates a source's access keys on `bound` (the row so far). A key of
/// another kind than its column falls back to a scan (the filter decides).
fn resolve(s: &Source, bound: &[Value], env: &dyn Env) -> Result<Keys> {
    let SourceKind::Table(t) = &s.kind else { return Ok(Keys::Full) };
    Ok(match &s.access {
        Access::Point(keys) => {
            let pk: Vec<Value> = keys.iter().map(|e| eval(e, bound, env)).collect::<Result<_>>()?;
            if pk.iter().any(Value::is_null) {
                Keys::None
            } else if !pk.iter().zip(&t.schema.primary_key).all(|(v, &c)| key_kind_matches(&t.schema.columns[c], v)) {
                Keys::Full
            } else {
                Keys::Point(pk)
            }
        }
        Access::Points { index, keys } => {
            let mut vals: Vec<Value> = keys.iter().map(|e| eval(e, bound, env)).collect::<Result<_>>()?;
            vals.retain(|v| !v.is_null());
            let col = t.index_columns(*index).first().map(|&c| &t.schema.columns[c]);
            if col.is_some_and(|col| vals.iter().any(|v| !key_kind_matches(col, v))) {
                return Ok(Keys::Full);
            }
            // Equal under the index's collation means the same range.
            let coll = col.map_or(Collation::Utf8mb4GeneralCi, |c| c.collation);
            vals.sort_by(|a, b| compare(a, b, coll).unwrap_or(Ordering::Equal));
            vals.dedup_by(|a, b| compare(a, b, coll) == Some(Ordering::Equal));
            Keys::Points(*index, vals)
        }
        Access::Range { index, lo, hi } => {
            let (lo, hi) = (eval_bound(lo, bound, env)?, eval_bound(hi, bound, env)?);
            let (lo, hi) = (sanitize_bound(t, *index, lo, true), sanitize_bound(t, *index, hi, false));
            let nullb = |b: &Bound<Vec<Value>>| matches!(b, Bound::Included(v) | Bound::Excluded(v) if v.iter().any(Value::is_null));
            if nullb(&lo) || nullb(&hi) {
                Keys::None
            } else {
                Keys::Range(*index, lo, hi)
            }
        }
        Access::Full => Keys::Full,
    })
}

fn working_id(s: &Source) -> usize {
    match s.kind {
        SourceKind::Working(id) => id,
        _ => usize::MAX,
    }
}

/// A subquery's rows, and (built on first use) a hash probe for IN.
struct SubRows {
    rows: Vec<Vec<Value>>,
    probe: std::cell::OnceCell<Option<Probe>>,
}

/// The values of a one-column subquery as a hash set, when they are all
/// numbers or all strings (then `x IN (...)` of a value of the same kind
/// is a lookup; anything else compares row by row).
struct Probe {
    strings: bool,
    keys: std::collections::HashSet<Vec<u8>>,
    has_null: bool,
}

impl Probe {
    /// Worth building past a few rows.
    const MIN_ROWS: usize = 8;

    fn of(rows: &[Vec<Value>]) -> Option<Probe> {
        if rows.len() < Self::MIN_ROWS || rows.iter().any(|r| r.len() != 1) {
            return None;
        }
        let number = |v: &Value| matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_));
        let vals = || rows.iter().map(|r| &r[0]).filter(|v| !v.is_null());
        let strings = if vals().all(|v| matches!(v, Value::Str(_))) {
            true
        } else if vals().all(number) {
            false
        } else {
            return None;
        };
        let keys = vals().map(|v| group_key(std::slice::from_ref(v), &[Collation::Utf8mb4GeneralCi])).collect();
        Some(Probe { strings, keys, has_null: rows.iter().any(|r| r[0].is_null()) })
    }

    /// `x IN (...)`, or `None` when `x` must be compared row by row (a
    /// value of another kind, another collation in force).
    fn find(&self, x: &Value, env: &dyn Env) -> Option<Option<bool>> {
        if x.is_null() {
            return Some(if self.keys.is_empty() && !self.has_null { Some(false) } else { None });
        }
        let kind_ok = match x {
            Value::Str(_) => self.strings && env.collation() == Collation::Utf8mb4GeneralCi,
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => !self.strings,
            _ => false,
        };
        if !kind_ok {
            return None;
        }
        let hit = self.keys.contains(&group_key(std::slice::from_ref(x), &[Collation::Utf8mb4GeneralCi]));
        Some(crate::inset::in_result(hit, self.has_null))
    }
}

/// `v IN rows` (a row of values) with SQL's three-valued logic: true when
/// a row equals it, else unknown when some comparison was, else false.
fn member(v: &[Value], rows: &[Vec<Value>], env: &dyn Env) -> Result<Option<bool>> {
    if rows.is_empty() {
        return Ok(Some(false));
    }
    let mut unknown = false;
    for r in rows {
        let mut row_eq = Some(true);
        for (a, b) in v.iter().zip(r) {
            let c =
                eval(&Expr::Bin(BinOp::Eq, Box::new(Expr::Lit(a.clone())), Box::new(Expr::Lit(b.clone()))), &[], env)?;
            match truth(&c) {
                Some(false) => {
                    row_eq = Some(false);
                    break;
                }
                None => row_eq = None,
                Some(true) => {}
            }
        }
        match row_eq {
            Some(true) => return Ok(Some(true)),
            None => unknown = true,
            Some(false) => {}
        }
    }
    Ok(if unknown { None } else { Some(false) })
}

/// `v op ANY|ALL rows` (IN is `= ANY`) with SQL's three-valued logic.
fn quantified(v: &Value, op: BinOp, all: bool, rows: &[Vec<Value>], env: &dyn Env) -> Result<Option<bool>> {
    if rows.is_empty() {
        return Ok(Some(all));
    }
    if v.is_null() {
        return Ok(None);
    }
    let mut unknown = false;
    for r in rows {
        let x = r.first().cloned().unwrap_or(Value::Null);
        let c = eval(&Expr::Bin(op, Box::new(Expr::Lit(v.clone())), Box::new(Expr::Lit(x))), &[], env)?;
        match truth(&c) {
            Some(b) if b != all => return Ok(Some(b)),
            Some(_) => {}
            None => unknown = true,
        }
    }
    Ok(if unknown { None } else { Some(all) })
}

/// A set operation's value in its result column's type (`1 UNION 2.5`
/// gives 1.0).
fn coerce(v: Value, ty: MetaType) -> Value {
    match (ty, &v) {
        (_, Value::Null) => v,
        (MetaType::Decimal { scale, .. }, Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) => {
            match to_decimal(&v).and_then(|d| d.rescale(scale)) {
                Some(d) => Value::Decimal(d),
                None => v,
            }
        }
        (MetaType::Str { .. } | MetaType::Text, Value::Str(_)) => v,
        (MetaType::Str { .. } | MetaType::Text, _) => Value::Str(v.to_string()),
        _ => v,
    }
}

fn passes(terms: &[Expr], row: &[Value], env: &dyn Env) -> Result<bool> {
    for t in terms {
        if truth(&eval(t, row, env)?) != Some(true) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A hash table over a source's rows: key → rows.
type Hash = HashMap<Vec<u8>, Vec<Vec<Value>>>;

/// `join_buffer_size` when the session cannot say (MySQL's default).
const JOIN_BUFFER_DEFAULT: usize = 262_144;

/// A hash join's build side.
enum Built {
    /// Within `join_buffer_size`: one table.
    Whole(Rc<Hash>),
    /// Beyond it: chunks in a temporary file, joined one at a time.
    Chunked(Chunks),
}

/// The chunks of a hash join's build side (see `spill.rs`).
struct Chunks {
    file: spill::RowFile,
    /// Chunk `c` is bytes `bounds[c] .. bounds[c + 1]` of the file.
    bounds: Vec<u64>,
    tmpdir: String,
    /// The table of the chunk being joined.
    current: RefCell<Rc<Hash>>,
    /// Rows written to the chunks (EXPLAIN ANALYZE).
    rows: u64,
}

impl Chunks {
    fn new(env: &dyn Env, width: usize) -> Result<Self> {
        let tmpdir = SortLimits::of(env).tmpdir;
        let file = spill::RowFile::new(&tmpdir, true, width)?;
        Ok(Self { file, bounds: vec![0], tmpdir, current: RefCell::new(Rc::new(Hash::new())), rows: 0 })
    }

    /// Writes `rows` as the next chunk.
    fn cut(&mut self, rows: impl Iterator<Item = (Vec<u8>, Vec<Value>)>) -> Result<()> {
        for (key, row) in rows {
            self.rows += 1;
            self.file.push(&key, &row)?;
        }
        self.bounds.push(self.file.flush()?);
        Ok(())
    }

    /// Chunk `c` as a hash table.
    fn load(&self, c: usize, width: usize) -> Result<Hash> {
        let mut table = Hash::new();
        let mut rows = self.file.read(self.bounds[c], self.bounds[c + 1]);
        while let Some((key, row)) = rows.next()? {
            debug_assert_eq!(row.len(), width);
            table.entry(key).or_default().push(row);
        }
        Ok(table)
    }
}

/// A join node of the tree, as its rows are produced.
struct JoinNode<'n> {
    kind: JoinKind,
    left: &'n Node,
    right: &'n Node,
    right_slots: &'n [(usize, usize)],
}

/// State of one execution of a block.
struct BlockRun<'r, 'a> {
    ex: &'r Exec<'a>,
    b: &'r Block,
    lock: Option<LockMode>,
    /// Hash tables of sources joined by hashing, built on first use.
    hashes: RefCell<HashMap<usize, Rc<Built>>>,
    /// Distinct keys of semi- and anti-joins' inner sources (`keyset.rs`).
    keysets: RefCell<HashMap<usize, Rc<keyset::KeySet>>>,
}

type Emit<'k> = dyn FnMut(&mut Vec<Value>) -> Result<bool> + 'k;

impl BlockRun<'_, '_> {
    /// Produces the rows of `node` into `buf`, calling `k` on each;
    /// `Ok(false)` once `k` asked to stop.
    fn walk(&self, node: &Node, buf: &mut Vec<Value>, env: &dyn Env, k: &mut Emit<'_>) -> Result<bool> {
        crate::depth::check()?;
        if let Some(p) = self.ex.profile {
            let mut probe = p.open(key(node), Tag::Node);
            let go = self.walk_node(node, buf, env, &mut |row| probe.emit(|| k(row)))?;
            probe.close();
            return Ok(go);
        }
        self.walk_node(node, buf, env, k)
    }

    /// [`BlockRun::walk`] without measuring `node` itself.
    fn walk_node(&self, node: &Node, buf: &mut Vec<Value>, env: &dyn Env, k: &mut Emit<'_>) -> Result<bool> {
        match node {
            Node::Leaf(i) => self.source(*i, buf, env, k),
            Node::Filter { input, terms } => {
                self.walk(input, buf, env, &mut |row| if passes(terms, row, env)? { k(row) } else { Ok(true) })
            }
            Node::Join { kind, left, right, right_slots } => {
                let j = JoinNode { kind: *kind, left, right, right_slots };
                match self.hashed_first(right) {
                    Some(i) => self.hash_join(&j, i, buf, env, k),
                    None => self.walk(left, buf, env, &mut |row| self.join_row(&j, row, env, k)),
                }
            }
        }
    }

    /// One row of a join's left side joined with its right side (a LEFT
    /// join's row that matched nothing NULL-extended).
    fn join_row(&self, j: &JoinNode<'_>, row: &mut Vec<Value>, env: &dyn Env, k: &mut Emit<'_>) -> Result<bool> {
        match j.kind {
            JoinKind::Inner => return self.walk(j.right, row, env, k),
            JoinKind::Semi | JoinKind::Anti => {
                let found = self.first_match(j, row, env)?;
                return if found == (j.kind == JoinKind::Semi) { k(row) } else { Ok(true) };
            }
            JoinKind::Left => {}
        }
        let mut matched = false;
        let go = self.walk(j.right, row, env, &mut |row| {
            matched = true;
            k(row)
        })?;
        if !go {
            return Ok(false);
        }
        if matched {
            return Ok(true);
        }
        for &(a, z) in j.right_slots {
            row[a..z].fill(Value::Null);
        }
        k(row)
    }

    /// Whether a semi- or anti-join's right side has a row for the left
    /// row in `row`: its walk stops at the first (FirstMatch). The right
    /// slots keep what it read; nothing above the join reads them.
    fn first_match(&self, j: &JoinNode<'_>, row: &mut Vec<Value>, env: &dyn Env) -> Result<bool> {
        let mut found = false;
        self.walk(j.right, row, env, &mut |_| {
            found = true;
            Ok(false)
        })?;
        Ok(found)
    }

    /// The rows of source `i` for the slots bound in `buf`.
    fn source(&self, i: usize, buf: &mut Vec<Value>, env: &dyn Env, k: &mut Emit<'_>) -> Result<bool> {
        let s = &self.b.sources[i];
        if !s.hash_keys.is_empty() {
            return self.probe(i, buf, env, k);
        }
        let mut place = |row: &[Value], buf: &mut Vec<Value>| -> Result<bool> {
            env.check_interrupt()?;
            buf[s.offset..s.offset + s.width].clone_from_slice(&row[..s.width]);
            if passes(&s.filter, buf, env)? {
                k(buf)
            } else {
                Ok(true)
            }
        };
        match &s.kind {
            SourceKind::Derived(_) | SourceKind::Working(_) | SourceKind::System(_) => {
                let rows = self.ex.materialised_rows(s, env)?;
                let Some(p) = self.ex.profile else {
                    for r in rows.iter() {
                        if !place(r, buf)? {
                            return Ok(false);
                        }
                    }
                    return Ok(true);
                };
                let mut probe = p.open(key(s), Tag::Read);
                let mut go = true;
                for r in rows.iter() {
                    if !probe.emit(|| place(r, buf))? {
                        go = false;
                        break;
                    }
                }
                probe.close();
                Ok(go)
            }
            SourceKind::Table(_) => {
                let keys = resolve(s, buf, env)?;
                self.read_table_profiled(s, keys, &mut |row| place(&row, buf))
            }
            SourceKind::JsonTable(f) => {
                let doc = eval(&f.doc, buf, env)?;
                let Some(p) = self.ex.profile else {
                    return f.rows.each(&doc, f.width, &s.name, env, &mut |r| place(r, buf));
                };
                let mut probe = p.open(key(s), Tag::Read);
                let go = f.rows.each(&doc, f.width, &s.name, env, &mut |r| probe.emit(|| place(r, buf)))?;
                probe.close();
                Ok(go)
            }
        }
    }

    /// Source `i`'s hash table (or chunks), built on first use.
    fn built(&self, i: usize, buf: &mut Vec<Value>, env: &dyn Env) -> Result<Rc<Built>> {
        if let Some(t) = self.hashes.borrow().get(&i) {
            return Ok(t.clone());
        }
        let t0 = self.ex.profile.map(|_| std::time::Instant::now());
        let s = &self.b.sources[i];
        let t = Rc::new(self.build(s, buf, env)?);
        if let (Some(p), Some(t0)) = (self.ex.profile, t0) {
            // The rows the hash table holds (its local terms passed).
            let n = match &*t {
                Built::Whole(h) => h.values().map(Vec::len).sum::<usize>() as u64,
                Built::Chunked(c) => c.rows,
            };
            p.record(key(s), Tag::Groups, n, t0.elapsed(), t0.elapsed());
        }
        self.hashes.borrow_mut().insert(i, t.clone());
        Ok(t)
    }

    /// The source joined first in `right` (the one the rows of a join's
    /// left side are probed against) when it is joined by hashing.
    fn hashed_first(&self, right: &Node) -> Option<usize> {
        let mut n = right;
        let i = loop {
            match n {
                Node::Leaf(i) => break *i,
                Node::Join { left, .. } => n = left,
                Node::Filter { input, .. } => n = input,
            }
        };
        (!self.b.sources[i].hash_keys.is_empty()).then_some(i)
    }

    /// A join whose right side starts with source `i`, joined by hashing.
    /// Its table is built at the left side's first row (an empty left
    /// side reads nothing). When it did not fit in `join_buffer_size`
    /// (see `spill.rs`) the join runs per chunk: on the first pass the
    /// left rows are written to a file as they are joined with the first
    /// chunk; each later chunk is loaded and the left rows read back (so
    /// the left side runs once, and need not be deterministic). A LEFT
    /// join keeps one bit per left row for "matched in some chunk" and
    /// NULL-extends the others in the last pass.
    fn hash_join(
        &self,
        j: &JoinNode<'_>,
        i: usize,
        buf: &mut Vec<Value>,
        env: &dyn Env,
        k: &mut Emit<'_>,
    ) -> Result<bool> {
        if self.keys_decide(j, i) {
            if let Some(go) = self.key_join(j, i, buf, env, k)? {
                return Ok(go);
            }
        }
        let width = self.b.sources[i].width;
        let mut chunked: Option<(Rc<Built>, spill::RowFile)> = None;
        let mut matched: Vec<u64> = Vec::new();
        let mut n = 0usize;
        let go = self.walk(j.left, buf, env, &mut |row| {
            if n == 0 {
                let built = self.built(i, row, env)?;
                if let Built::Chunked(c) = &*built {
                    *c.current.borrow_mut() = Rc::new(c.load(0, width)?);
                    let outer = spill::RowFile::new(&c.tmpdir, false, row.len())?;
                    self.ex.session.created_tmp_files(1);
                    chunked = Some((built.clone(), outer));
                }
            }
            n += 1;
            match &mut chunked {
                Some((_, outer)) => {
                    outer.push(&[], row)?;
                    self.chunk_step(j, row, n - 1, &mut matched, false, env, k)
                }
                None => self.join_row(j, row, env, k),
            }
        })?;
        let Some((built, mut outer)) = chunked else { return Ok(go) };
        let Built::Chunked(chunks) = &*built else { unreachable!("only chunked builds are kept") };
        let passes = chunks.bounds.len() - 1;
        debug_assert!(passes >= 2, "a build that fits is not chunked");
        let end = outer.flush()?;
        let mut go = go;
        for c in 1..passes {
            if !go {
                break;
            }
            *chunks.current.borrow_mut() = Rc::new(chunks.load(c, width)?);
            let last = c + 1 == passes;
            let mut rows = outer.read(0, end);
            let mut n = 0usize;
            while let Some((_, row)) = rows.next()? {
                env.check_interrupt()?;
                *buf = row;
                n += 1;
                if !self.chunk_step(j, buf, n - 1, &mut matched, last, env, k)? {
                    go = false;
                    break;
                }
            }
        }
        *chunks.current.borrow_mut() = Rc::new(Hash::new());
        Ok(go)
    }

    /// One left row of a chunked join against the current chunk; `n` is
    /// its number in the left side's rows.
    #[allow(clippy::too_many_arguments)]
    fn chunk_step(
        &self,
        j: &JoinNode<'_>,
        row: &mut Vec<Value>,
        n: usize,
        matched: &mut Vec<u64>,
        last: bool,
        env: &dyn Env,
        k: &mut Emit<'_>,
    ) -> Result<bool> {
        if j.kind == JoinKind::Inner {
            return self.walk(j.right, row, env, k);
        }
        let (word, bit) = (n / 64, 1u64 << (n % 64));
        if matched.len() <= word {
            matched.resize(word + 1, 0);
        }
        // A semi-join's row leaves at its first match in some chunk; an
        // anti-join's in the last pass when no chunk had one.
        if matches!(j.kind, JoinKind::Semi | JoinKind::Anti) {
            if matched[word] & bit == 0 && self.first_match(j, row, env)? {
                matched[word] |= bit;
                if j.kind == JoinKind::Semi {
                    return k(row);
                }
            }
            return if j.kind == JoinKind::Anti && last && matched[word] & bit == 0 { k(row) } else { Ok(true) };
        }
        let mut hit = false;
        let go = self.walk(j.right, row, env, &mut |r| {
            hit = true;
            k(r)
        })?;
        if !go {
            return Ok(false);
        }
        if hit {
            matched[word] |= bit;
        }
        if !last || matched[word] & bit != 0 {
            return Ok(true);
        }
        for &(a, z) in j.right_slots {
            row[a..z].fill(Value::Null);
        }
        k(row)
    }

    /// Joins source `i` through its hash table (the current chunk's
    /// when it is joined in chunks).
    fn probe(&self, i: usize, buf: &mut Vec<Value>, env: &dyn Env, k: &mut Emit<'_>) -> Result<bool> {
        let s = &self.b.sources[i];
        let table = match &*self.built(i, buf, env)? {
            Built::Whole(t) => t.clone(),
            Built::Chunked(c) => c.current.borrow().clone(),
        };
        let key: Vec<Value> = s.hash_keys.iter().map(|(_, other)| eval(other, buf, env)).collect::<Result<_>>()?;
        if key.iter().any(Value::is_null) {
            return Ok(true);
        }
        let Some(rows) = table.get(&group_key(&key, &s.hash_colls)) else { return Ok(true) };
        for r in rows {
            env.check_interrupt()?;
            buf[s.offset..s.offset + s.width].clone_from_slice(r);
            if passes(&s.filter, buf, env)? && !k(buf)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Reads a source once into a hash table on its join keys; when its
    /// rows pass the session's `join_buffer_size` (read now, so a cached
    /// plan follows the variable), into chunks of at most that many bytes
    /// in a temporary file (`spill.rs`).
    fn build(&self, s: &Source, buf: &mut Vec<Value>, env: &dyn Env) -> Result<Built> {
        let limit = env.sysvar("join_buffer_size", false).ok().and_then(|v| crate::expr::to_i128(&v));
        let limit = limit.map_or(JOIN_BUFFER_DEFAULT, |b| b.clamp(0, usize::MAX as i128) as usize);
        let mut held: Vec<(Vec<u8>, Vec<Value>)> = Vec::new();
        let mut bytes = 0usize;
        let mut spilled: Option<Chunks> = None;
        let mut add = |row: &[Value], buf: &mut Vec<Value>| -> Result<bool> {
            env.check_interrupt()?;
            buf[s.offset..s.offset + s.width].clone_from_slice(&row[..s.width]);
            if !passes(&s.local, buf, env)? {
                return Ok(true);
            }
            let key: Vec<Value> = s.hash_keys.iter().map(|(mine, _)| eval(mine, buf, env)).collect::<Result<_>>()?;
            if key.iter().any(Value::is_null) {
                return Ok(true);
            }
            let key = group_key(&key, &s.hash_colls);
            let row = row[..s.width].to_vec();
            let size = spill::row_bytes(&key, &row);
            if bytes + size > limit && !held.is_empty() {
                let chunks = match &mut spilled {
                    Some(c) => c,
                    None => {
                        let c = Chunks::new(env, s.width)?;
                        self.ex.session.created_tmp_files(1);
                        spilled.insert(c)
                    }
                };
                chunks.cut(held.drain(..))?;
                bytes = 0;
            }
            bytes += size;
            held.push((key, row));
            Ok(true)
        };
        match &s.kind {
            SourceKind::Derived(_) | SourceKind::Working(_) | SourceKind::System(_) => {
                let rows = self.ex.materialised_rows(s, env)?;
                match self.ex.profile {
                    None => {
                        for r in rows.iter() {
                            add(r, buf)?;
                        }
                    }
                    Some(p) => {
                        let mut probe = p.open(key(s), Tag::Read);
                        for r in rows.iter() {
                            probe.emit(|| add(r, buf))?;
                        }
                        probe.close();
                    }
                }
            }
            SourceKind::Table(_) => {
                let keys = resolve(s, buf, env)?;
                self.read_table_profiled(s, keys, &mut |row| add(&row, buf))?;
            }
            SourceKind::JsonTable(_) => return Err(SqlError::internal("a table function read by hashing")),
        }
        if let Some(mut chunks) = spilled {
            chunks.cut(held.drain(..))?;
            return Ok(Built::Chunked(chunks));
        }
        let mut table = Hash::new();
        for (key, row) in held {
            table.entry(key).or_default().push(row);
        }
        Ok(Built::Whole(Rc::new(table)))
    }

    /// [`Self::read_table`], each row timed under the source's read probe
    /// while EXPLAIN ANALYZE profiles the statement.
    pub(super) fn read_table_profiled(
        &self,
        s: &Source,
        keys: Keys,
        f: &mut dyn FnMut(Vec<Value>) -> Result<bool>,
    ) -> Result<bool> {
        match self.ex.profile {
            None => self.read_table(s, keys, f),
            Some(p) => {
                let mut probe = p.open(key(s), Tag::Read);
                let go = self.read_table(s, keys, &mut |row| probe.emit(|| f(row)))?;
                probe.close();
                Ok(go)
            }
        }
    }

    /// Reads the rows of a table source its resolved access finds; `f`
    /// on each until it returns false.
    fn read_table(&self, s: &Source, keys: Keys, f: &mut dyn FnMut(Vec<Value>) -> Result<bool>) -> Result<bool> {
        let SourceKind::Table(t) = &s.kind else { return Err(SqlError::internal("not a table")) };
        match keys {
            Keys::None => Ok(true),
            Keys::Full => self.scan(t, IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, f),
            Keys::Point(pk) => {
                let got = self.ex.with_trx(|trx| match self.lock {
                    Some(m) => t.table.get_locking(trx, &pk, m),
                    None => t.table.get_tx(trx, &pk),
                })?;
                match got {
                    Ok(Some(row)) => f(row),
                    Ok(None) => Ok(true),
                    Err(e) if no_match(&e) => Ok(true),
                    Err(e) => Err(e.into()),
                }
            }
            Keys::Points(index, vals) => {
                for v in vals {
                    let k = [v];
                    if !self.scan(t, index, Bound::Included(&k), Bound::Included(&k), f)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Keys::Range(index, lo, hi) => self.scan(t, index, as_slice(&lo), as_slice(&hi), f),
        }
    }

    /// One range of an index; `Ok(false)` once `f` asked to stop. The
    /// transaction is borrowed only to open the read.
    fn scan(
        &self,
        t: &crate::plan::TableRef,
        index: IndexRef,
        lo: Bound<&[Value]>,
        hi: Bound<&[Value]>,
        f: &mut dyn FnMut(Vec<Value>) -> Result<bool>,
    ) -> Result<bool> {
        if let Some(m) = self.lock {
            let rows = match self.ex.with_trx(|trx| t.table.scan_locking(trx, index, lo, hi, m, None))? {
                Ok(rows) => rows,
                Err(e) if no_match(&e) => return Ok(true),
                Err(e) => return Err(e.into()),
            };
            for row in rows {
                if !f(row)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let mut c = match self.ex.with_trx(|trx| t.table.scan_tx(trx, index, lo, hi, Direction::Forward))? {
            Ok(c) => c,
            Err(e) if no_match(&e) => return Ok(true),
            Err(e) => return Err(e.into()),
        };
        while let Some(row) = c.next()? {
            if !f(row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The environment of a block's expressions: parameters, the session,
/// aggregate results, captured outer values, subqueries.
pub struct RowEnv<'e, 'a> {
    ctx: Ctx<'e>,
    ex: &'e Exec<'a>,
    outer: &'e [Value],
    /// The window functions' values on the row being projected.
    windows: Vec<Value>,
}

impl Env for RowEnv<'_, '_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.ctx.param(i)
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.ctx.agg(i)
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.ctx.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        if crate::stored::func::is_stored(name) && crate::assign::var_of(name).is_none() {
            return self.ex.stored_function(name, args);
        }
        self.ctx.func(name, args)
    }
    fn warn(&self, c: crate::diag::Condition) -> Result<()> {
        self.ctx.warn(c)
    }
    fn mode(&self) -> crate::diag::Mode {
        self.ctx.mode()
    }
    fn check_interrupt(&self) -> Result<()> {
        self.ctx.check_interrupt()
    }
    fn outer(&self, k: usize) -> Result<Value> {
        self.outer.get(k).cloned().ok_or_else(|| SqlError::internal("outer reference out of range"))
    }
    fn window(&self, i: usize) -> Result<Value> {
        self.windows.get(i).cloned().ok_or_else(|| SqlError::internal("window function out of range"))
    }
    fn subquery(&self, s: &SubExpr, row: &[Value]) -> Result<Value> {
        self.ex.subquery(s, row, self)
    }
    fn in_keys(
        &self,
        set: &std::sync::Arc<crate::inset::InSet>,
        build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        self.ex.in_keys.get(set, build)
    }
}

impl AggEnv for RowEnv<'_, '_> {
    fn set_aggs(&mut self, aggs: Vec<Value>) {
        self.ctx.aggs = aggs;
    }
    fn take_aggs(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.ctx.aggs)
    }
    fn set_windows(&mut self, values: Vec<Value>) {
        self.windows = values;
    }
}
