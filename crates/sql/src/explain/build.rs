//! Builds the iterator tree ([`Op`]) of a compiled statement: the
//! single-table planner's plans, the general engine's query plans, and
//! single-table UPDATE / DELETE. With a [`Profile`] (EXPLAIN ANALYZE) each
//! operator's line carries the counters execution kept for the plan part
//! it stands for (`profile::Tag` names which).
//!
//! A block reads, bottom up: its join tree (table accesses, filters of
//! the terms placed on a table, nested-loop and hash joins), the WHERE
//! terms left over, grouping, HAVING, window functions, DISTINCT, ORDER
//! BY and LIMIT, as quire's execution applies them (`rel::exec`,
//! `finish`). Estimates come from the cost model (`cost.rs`): `rows` per
//! loop, `cost` in row reads (see docs/ARCHITECTURE.md "EXPLAIN").

use std::collections::HashSet;
use std::ops::Bound;

use quire_engine::btree::Direction;
use quire_engine::table::IndexRef;

use super::profile::{key, Profile, Tag};
use super::show::{conjunction, expr, Names, Numbers};
use super::tree::{Child, Op, Step};
use super::walk::subqueries;
use crate::cost;
use crate::expr::{Env, Expr, SubExpr};
use crate::plan::{and_terms, Access, TableRef};
use crate::query::SelectPlan;
use crate::rel::{Block, JoinKind, Node, QueryPlan, SetOpKind, Source, SourceKind};

/// The share of left rows a semi- or anti-join is shown to keep.
const SEMI_FILTER: f64 = 0.5;

/// Builds trees; one per statement.
pub struct Builder<'e> {
    pub env: &'e dyn Env,
    pub profile: Option<&'e Profile>,
    pub numbers: &'e Numbers,
    /// Derived tables already printed (a CTE read twice is printed once).
    seen: HashSet<usize>,
}

/// An estimate: (cost, rows).
type Est = (f64, f64);

impl<'e> Builder<'e> {
    pub fn new(env: &'e dyn Env, profile: Option<&'e Profile>, numbers: &'e Numbers) -> Self {
        Builder { env, profile, numbers, seen: HashSet::new() }
    }

    fn actual(&self, part: usize, tag: Tag) -> Option<super::profile::Counter> {
        self.profile.and_then(|p| p.get(part, tag))
    }

    fn step(&self, text: impl Into<String>, est: Option<Est>, part: usize, tag: Tag) -> Step {
        Step { text: text.into(), est, actual: self.actual(part, tag) }
    }

    /// A single-table SELECT of `query.rs`'s planner.
    pub fn select(&mut self, p: &SelectPlan) -> Op {
        let _ = self.numbers.fresh();
        let no_windows: [String; 0] = [];
        let Some(t) = &p.table else {
            return Op::new(Step { est: Some((0.0, 1.0)), ..Step::new("Rows fetched before execution") });
        };
        let name = t.alias.clone().unwrap_or_else(|| t.name.clone());
        let slot = |s: usize| format!("{name}.{}", t.columns.get(s).map_or("?", |c| c.as_str()));
        let names = Names {
            slot: &slot,
            outer: &[],
            aggs: &p.aggs,
            windows: &no_windows,
            env: self.env,
            numbers: self.numbers,
        };
        let terms = p.filter.as_ref().map(and_terms).unwrap_or_default();
        let (mut op, mut est) = self.table(t, &name, &p.access, p.index_order, 0, &terms, &names, 0, Tag::Read);
        let residual = residual(t, &p.access, 0, &terms);
        if !residual.is_empty() {
            let rows = est.1 * residual.iter().map(|t| cost::filter_factor(t)).product::<f64>();
            est = (est.0, rows);
            op = Op::over(
                Step { est: Some(est), ..Step::new(format!("Filter: {}", conjunction(&residual, &names))) },
                op,
            );
        }
        let fin = Finishing {
            part: 0,
            aggs: !p.aggs.is_empty(),
            group_by: &p.group_by,
            rollup: false,
            having: p.having.as_ref(),
            windows: &no_windows,
            distinct: p.distinct,
            order: if p.index_order.is_some() { &[] } else { &p.order },
            limit: &p.limit,
            offset: &p.offset,
            calc_found_rows: p.calc_found_rows,
        };
        self.finishing(op, &fin, &names)
    }

    /// A single-table UPDATE or DELETE: `Update t` / `Delete from t` over
    /// the rows it finds.
    pub fn write(&mut self, head: &str, t: &TableRef, access: &Access, filter: Option<&Expr>) -> Op {
        let _ = self.numbers.fresh();
        let name = t.alias.clone().unwrap_or_else(|| t.name.clone());
        let slot = |s: usize| format!("{name}.{}", t.columns.get(s).map_or("?", |c| c.as_str()));
        let names = Names { slot: &slot, outer: &[], aggs: &[], windows: &[], env: self.env, numbers: self.numbers };
        let terms = filter.map(and_terms).unwrap_or_default();
        let (mut op, est) = self.table(t, &name, access, None, 0, &terms, &names, 0, Tag::Read);
        let residual = residual(t, access, 0, &terms);
        if !residual.is_empty() {
            let rows = est.1 * residual.iter().map(|t| cost::filter_factor(t)).product::<f64>();
            let step =
                Step { est: Some((est.0, rows)), ..Step::new(format!("Filter: {}", conjunction(&residual, &names))) };
            op = Op::over(step, op);
        }
        self.attach_condition_subqueries(&mut op, &terms, &[]);
        Op::over(Step::new(format!("{head} {name} (immediate)")), op)
    }

    /// A query of the general engine; `outer`: the text of the values it
    /// captures.
    pub fn query(&mut self, p: &QueryPlan, outer: &[String]) -> Op {
        self.plan(p, outer, None)
    }

    fn plan(&mut self, p: &QueryPlan, outer: &[String], number: Option<u64>) -> Op {
        match p {
            QueryPlan::Select(b) => {
                let n = number.unwrap_or_else(|| self.numbers.fresh());
                self.block(b, outer, n)
            }
            QueryPlan::SetOp(s) => {
                let part = key(&**s);
                let left = self.plan(&s.left, outer, number);
                let right = self.plan(&s.right, outer, None);
                let stream = |b: &Builder<'_>, side: &QueryPlan, op: Op| match side {
                    QueryPlan::Select(blk) => Op::over(b.step("Stream results", None, key(&**blk), Tag::Out), op),
                    _ => op,
                };
                let mut op = if s.op == SetOpKind::Union && s.all {
                    let l = stream(self, &s.left, left);
                    let r = stream(self, &s.right, right);
                    let mut op = Op::new(self.step("Append", None, part, Tag::Offered));
                    op.children = vec![Child { heading: None, op: l }, Child { heading: None, op: r }];
                    op
                } else {
                    let (kind, what) = match (s.op, s.all) {
                        (SetOpKind::Union, _) => ("union", "Union materialize with deduplication"),
                        (SetOpKind::Except, false) => ("except", "Except materialize with deduplication"),
                        (SetOpKind::Except, true) => ("except", "Except all materialize"),
                        (SetOpKind::Intersect, false) => ("intersect", "Intersect materialize with deduplication"),
                        (SetOpKind::Intersect, true) => ("intersect", "Intersect all materialize"),
                    };
                    let mut op = Op {
                        steps: vec![
                            self.step(format!("Table scan on <{kind} temporary>"), None, part, Tag::Offered),
                            self.step(what, None, part, Tag::Offered),
                        ],
                        ..Default::default()
                    };
                    op.children = vec![Child { heading: None, op: left }, Child { heading: None, op: right }];
                    op
                };
                let cols: Vec<String> = s.columns.iter().map(|c| c.name.clone()).collect();
                let slot = |i: usize| cols.get(i).cloned().unwrap_or_else(|| "?".into());
                let names = Names { slot: &slot, outer, aggs: &[], windows: &[], env: self.env, numbers: self.numbers };
                let under_limit = s.limit.is_some() || s.offset.is_some();
                if !s.order.is_empty() {
                    let tag = if under_limit { Tag::Offered } else { Tag::Result };
                    op = Op::over(self.step(sort_text(&s.order, false, None, &names), None, part, tag), op);
                }
                if under_limit {
                    op = Op::over(
                        self.step(limit_text(&s.limit, &s.offset, false, self.env), None, part, Tag::Result),
                        op,
                    );
                }
                op
            }
            QueryPlan::Recursive(r) => {
                let part = key(&**r);
                let anchor = self.plan(&r.anchor, outer, number);
                let step = self.plan(&r.step, outer, None);
                let mut op = Op::new(self.step("Materialize recursive CTE", None, part, Tag::Result));
                op.children = vec![
                    Child { heading: None, op: anchor },
                    Child { heading: Some("Repeat until convergence".into()), op: step },
                ];
                op
            }
        }
    }

    fn block(&mut self, b: &Block, outer: &[String], _number: u64) -> Op {
        let part = key(b);
        let slot_name = |slot: usize| -> String {
            let Some(s) = b.sources.iter().find(|s| slot >= s.offset && slot < s.offset + s.width) else {
                return "?".into();
            };
            match &s.kind {
                SourceKind::Table(t) => format!("{}.{}", s.name, t.columns.get(slot - s.offset).map_or("?", |c| c)),
                SourceKind::Derived(p) => {
                    format!("{}.{}", s.name, p.columns().get(slot - s.offset).map_or("?", |c| c.name.as_str()))
                }
                SourceKind::Working(_) => format!("{}.{}", s.name, slot - s.offset),
                SourceKind::JsonTable(f) => format!(
                    "{}.{}",
                    s.name,
                    f.rows.all_columns().iter().find(|c| c.out == slot - s.offset).map_or("?", |c| c.def.name.as_str())
                ),
                SourceKind::System(v) => format!(
                    "{}.{}",
                    s.name,
                    crate::infoschema::shape::columns(*v)
                        .get(slot - s.offset)
                        .map_or("?".to_string(), |c| c.name.clone())
                ),
            }
        };
        let windows: Vec<String> =
            b.windows.fns.iter().map(|f| format!("{}() OVER {}", f.name.to_ascii_lowercase(), f.window)).collect();
        let names =
            Names { slot: &slot_name, outer, aggs: &b.aggs, windows: &windows, env: self.env, numbers: self.numbers };
        let (mut op, mut est) = match &b.tree {
            Some(t) => self.node(b, t, &names),
            None => {
                (Op::new(self.step("Rows fetched before execution", Some((0.0, 1.0)), part, Tag::Where)), (0.0, 1.0))
            }
        };
        if !b.filter.is_empty() && b.tree.is_some() {
            let terms: Vec<&Expr> = b.filter.iter().collect();
            est = (est.0, est.1 * terms.iter().map(|t| cost::filter_factor(t)).product::<f64>());
            op = Op::over(
                self.step(format!("Filter: {}", conjunction(&terms, &names)), Some(est), part, Tag::Where),
                op,
            );
            self.attach_condition_subqueries_with(&mut op, &terms, outer, &names);
        }
        let fin = Finishing {
            part,
            aggs: !b.aggs.is_empty(),
            group_by: &b.group_by,
            rollup: b.rollup,
            having: b.having.as_ref(),
            windows: &windows,
            distinct: b.distinct,
            order: &b.order,
            limit: &b.limit,
            offset: &b.offset,
            calc_found_rows: false,
        };
        let mut op = self.finishing(op, &fin, &names);
        if let Some(h) = &b.having {
            self.attach_condition_subqueries_with(&mut op, &[h], outer, &names);
        }
        // Subqueries of the select list, GROUP BY and ORDER BY.
        let mut found = Vec::new();
        for e in b.items.iter().chain(&b.group_by).chain(b.order.iter().map(|(e, _)| e)) {
            subqueries(e, &mut found);
        }
        let trailing = self.subquery_children(found, "projection", &names);
        op.trailing.extend(trailing);
        op
    }

    /// The children for subqueries met in a block's expressions.
    fn subquery_children(&mut self, subs: Vec<&SubExpr>, place: &str, names: &Names<'_>) -> Vec<Child> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for s in subs {
            if seen.contains(&s.query.id) {
                continue;
            }
            seen.push(s.query.id);
            let no = names.numbers.subquery(s.query.id);
            let outer: Vec<String> = s.query.captures.iter().map(|c| expr(c, names)).collect();
            let how = if s.query.captures.is_empty() { "run only once" } else { "dependent" };
            let op = self.plan(&s.query.plan, &outer, Some(no));
            out.push(Child { heading: Some(format!("Select #{no} (subquery in {place}; {how})")), op });
        }
        out
    }

    fn attach_condition_subqueries_with(&mut self, op: &mut Op, terms: &[&Expr], _outer: &[String], names: &Names<'_>) {
        let mut found = Vec::new();
        for t in terms {
            subqueries(t, &mut found);
        }
        let children = self.subquery_children(found, "condition", names);
        op.children.extend(children);
    }

    /// Single-table statements: subqueries of WHERE (UPDATE / DELETE).
    fn attach_condition_subqueries(&mut self, op: &mut Op, terms: &[&Expr], outer: &[String]) {
        let mut found = Vec::new();
        for t in terms {
            subqueries(t, &mut found);
        }
        if found.is_empty() {
            return;
        }
        let slot = |_: usize| "?".to_string();
        let names = Names { slot: &slot, outer, aggs: &[], windows: &[], env: self.env, numbers: self.numbers };
        let children = self.subquery_children(found, "condition", &names);
        op.children.extend(children);
    }

    /// The operators a block applies after FROM and WHERE, over `input`.
    fn finishing(&mut self, input: Op, f: &Finishing<'_>, names: &Names<'_>) -> Op {
        let part = f.part;
        let limited = f.limit.is_some() || f.offset.is_some();
        // Finishing operators, bottom up: (op text lines, counter tag).
        let mut layers: Vec<(Vec<String>, Tag)> = Vec::new();
        let agg_list = || names.aggs.iter().map(|a| super::show::agg(a, names)).collect::<Vec<_>>().join(", ");
        if !f.group_by.is_empty() {
            if f.rollup {
                layers.push((vec![format!("Group aggregate with rollup: {}", agg_list())], Tag::Groups));
            } else {
                layers.push((
                    vec!["Table scan on <temporary>".into(), "Aggregate using temporary table".into()],
                    Tag::Groups,
                ));
            }
        } else if f.aggs {
            layers.push((vec![format!("Aggregate: {}", agg_list())], Tag::Groups));
        }
        if let Some(h) = f.having {
            layers.push((vec![format!("Filter: {}", expr(h, names))], Tag::Grouped));
        }
        if !f.windows.is_empty() {
            layers.push((vec![format!("Window aggregate with buffering: {}", f.windows.join(", "))], Tag::Grouped));
        }
        if f.distinct && f.order.is_empty() {
            layers.push((
                vec!["Table scan on <temporary>".into(), "Temporary table with deduplication".into()],
                Tag::Offered,
            ));
        }
        if !f.order.is_empty() {
            let n = crate::query::limit_value(f.limit, self.env)
                .ok()
                .flatten()
                .map(|l| l.saturating_add(crate::query::limit_value(f.offset, self.env).ok().flatten().unwrap_or(0)));
            layers.push((vec![sort_text(f.order, f.distinct, n.filter(|_| !f.calc_found_rows), names)], Tag::Offered));
        }
        // The last finishing step hands its rows to LIMIT: what it offered.
        if let Some(last) = layers.last_mut() {
            last.1 = Tag::Offered;
        }
        let mut op = input;
        for (lines, tag) in layers {
            let steps = lines.into_iter().map(|l| self.step(l, None, part, tag)).collect();
            op = Op { steps, children: vec![Child { heading: None, op }], trailing: Vec::new() }.lift_trailing();
        }
        if limited {
            let step = self.step(limit_text(f.limit, f.offset, f.calc_found_rows, self.env), None, part, Tag::Out);
            op = Op::over(step, op).lift_trailing();
        }
        op
    }

    /// A join tree node: its operator and estimate per loop (a semi- or
    /// anti-join keeps half its left rows, as the planner assumes).
    fn node(&mut self, b: &Block, n: &Node, names: &Names<'_>) -> (Op, Est) {
        match n {
            Node::Leaf(i) => self.source(&b.sources[*i], n, names),
            Node::Filter { input, terms } => {
                let (op, est) = self.node(b, input, names);
                let refs: Vec<&Expr> = terms.iter().collect();
                let est = (est.0, est.1 * refs.iter().map(|t| cost::filter_factor(t)).product::<f64>());
                let mut op = Op::over(
                    self.step(format!("Filter: {}", conjunction(&refs, names)), Some(est), key(n), Tag::Node),
                    op,
                );
                self.attach_condition_subqueries_with(&mut op, &refs, &[], names);
                (op, est)
            }
            Node::Join { kind, left, right, .. } => {
                let (l, le) = self.node(b, left, names);
                let hashed = match &**right {
                    Node::Leaf(i) if !b.sources[*i].hash_keys.is_empty() => Some(&b.sources[*i]),
                    _ => None,
                };
                if let Some(s) = hashed.filter(|_| *kind != JoinKind::Left) {
                    let (r, re) = self.hash_side(s, names);
                    let conds: Vec<String> = s
                        .hash_keys
                        .iter()
                        .map(|(mine, other)| format!("({} = {})", expr(other, names), expr(mine, names)))
                        .collect();
                    let extra: Vec<&Expr> = s.filter.iter().filter(|t| !is_hash_eq(t, s)).collect();
                    let name = match kind {
                        JoinKind::Semi => "Hash semijoin",
                        JoinKind::Anti => "Hash antijoin",
                        _ => "Inner hash join",
                    };
                    let mut text = format!("{name} {}", conds.join(", "));
                    if !extra.is_empty() {
                        text += &format!(
                            ", extra conditions: {}",
                            extra.iter().map(|t| expr(t, names)).collect::<Vec<_>>().join(" and ")
                        );
                    }
                    let rows = match kind {
                        JoinKind::Semi | JoinKind::Anti => le.1 * SEMI_FILTER,
                        _ => le.1 * re.1 * cost::FILTER_EQUALITY.powi(s.hash_keys.len() as i32),
                    };
                    let est = (le.0 + re.0 + le.1, rows.max(0.0));
                    let mut op = Op::new(self.step(text, Some(est), key(n), Tag::Node));
                    op.children = vec![Child { heading: None, op: l }, Child { heading: Some("Hash".into()), op: r }];
                    return (op, est);
                }
                let (r, re) = self.node(b, right, names);
                let (text, rows) = match kind {
                    JoinKind::Inner => ("Nested loop inner join", le.1 * re.1),
                    JoinKind::Left => ("Nested loop left join", le.1 * re.1.max(1.0)),
                    JoinKind::Semi => ("Nested loop semijoin", le.1 * SEMI_FILTER),
                    JoinKind::Anti => ("Nested loop antijoin", le.1 * SEMI_FILTER),
                };
                let est = (le.0 + le.1 * re.0, rows);
                let mut op = Op::new(self.step(text, Some(est), key(n), Tag::Node));
                op.children = vec![Child { heading: None, op: l }, Child { heading: None, op: r }];
                (op, est)
            }
        }
    }

    /// A source read through a hash table: its read (once) and the terms
    /// over it alone, applied while the table is built.
    fn hash_side(&mut self, s: &Source, names: &Names<'_>) -> (Op, Est) {
        let (mut op, mut est) = self.source_read(s, names);
        if !s.local.is_empty() {
            let refs: Vec<&Expr> = s.local.iter().collect();
            est = (est.0, est.1 * refs.iter().map(|t| cost::filter_factor(t)).product::<f64>());
            op = Op::over(
                self.step(format!("Filter: {}", conjunction(&refs, names)), Some(est), key(s), Tag::Groups),
                op,
            );
        }
        (op, est)
    }

    /// A source with the terms placed on it.
    fn source(&mut self, s: &Source, n: &Node, names: &Names<'_>) -> (Op, Est) {
        let (op, est) = self.source_read(s, names);
        let terms: Vec<&Expr> = s.filter.iter().collect();
        let residual = match &s.kind {
            SourceKind::Table(t) => residual(t, &s.access, s.offset, &terms),
            _ => terms.clone(),
        };
        if residual.is_empty() {
            // No filter of its own: the node's output is the read's.
            return (op, est);
        }
        let est = (est.0, est.1 * residual.iter().map(|t| cost::filter_factor(t)).product::<f64>());
        let mut op =
            Op::over(self.step(format!("Filter: {}", conjunction(&residual, names)), Some(est), key(n), Tag::Node), op);
        self.attach_condition_subqueries_with(&mut op, &terms, &[], names);
        (op, est)
    }

    /// How a source's rows are read, without its filter.
    fn source_read(&mut self, s: &Source, names: &Names<'_>) -> (Op, Est) {
        match &s.kind {
            SourceKind::Table(t) => {
                let terms: Vec<&Expr> = s.filter.iter().collect();
                self.table(t, &s.name, &s.access, None, s.offset, &terms, names, key(s), Tag::Read)
            }
            SourceKind::Derived(p) => {
                let scan = self.step(format!("Table scan on {}", s.name), None, key(s), Tag::Read);
                let first = self.seen.insert(std::sync::Arc::as_ptr(p) as usize);
                let out = match &**p {
                    QueryPlan::Select(b) => (key(&**b), Tag::Out),
                    QueryPlan::SetOp(x) => (key(&**x), Tag::Result),
                    QueryPlan::Recursive(x) => (key(&**x), Tag::Result),
                };
                let op = if first {
                    let inner = self.plan(p, &[], None);
                    let label = match &**p {
                        QueryPlan::Recursive(_) => format!("Materialize recursive CTE {}", s.name),
                        _ => "Materialize".to_string(),
                    };
                    let inner = match (&**p, inner) {
                        // The recursive plan's own line is the Materialize line.
                        (QueryPlan::Recursive(_), mut op) => {
                            op.steps = vec![self.step(label, None, out.0, out.1)];
                            op
                        }
                        (_, op) => Op::over(self.step(label, None, out.0, out.1), op),
                    };
                    Op::over(scan, inner)
                } else {
                    Op::over(scan, Op::new(self.step("Materialize (query plan printed elsewhere)", None, out.0, out.1)))
                };
                (op, (0.0, cost::UNKNOWN_ROWS))
            }
            SourceKind::Working(_) | SourceKind::System(_) => (
                Op::new(self.step(format!("Table scan on {}", s.name), None, key(s), Tag::Read)),
                (0.0, cost::UNKNOWN_ROWS),
            ),
            // MySQL: a scan of the table the function's rows are written
            // to; quire makes them as they are read, so both lines measure
            // the same rows.
            SourceKind::JsonTable(_) => {
                let scan = self.step(format!("Table scan on {}", s.name), None, key(s), Tag::Read);
                let made = self.step("Materialize table function", None, key(s), Tag::Read);
                (Op::over(scan, Op::new(made)), (0.0, cost::UNKNOWN_ROWS))
            }
        }
    }

    /// The access operator of a table, with its estimate per lookup.
    #[allow(clippy::too_many_arguments)]
    fn table(
        &self,
        t: &TableRef,
        name: &str,
        access: &Access,
        order: Option<Direction>,
        offset: usize,
        terms: &[&Expr],
        names: &Names<'_>,
        part: usize,
        tag: Tag,
    ) -> (Op, Est) {
        let ix = |i: IndexRef| quire_engine::table::stats::index_name(&t.schema, i).to_string();
        let col = |i: IndexRef, k: usize| {
            t.index_columns(i).get(k).and_then(|&c| t.columns.get(c)).cloned().unwrap_or_else(|| "?".into())
        };
        let reverse = if order == Some(Direction::Backward) { " (reverse)" } else { "" };
        let text = match access {
            Access::Full if order.is_some() => format!("Index scan on {name} using PRIMARY{reverse}"),
            Access::Full => format!("Table scan on {name}"),
            Access::Point(k) => {
                let parts: Vec<String> = k
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("{}={}", col(IndexRef::Primary, i), expr(v, names)))
                    .collect();
                format!("Single-row index lookup on {name} using PRIMARY ({})", parts.join(", "))
            }
            Access::Range { index, lo, hi } => {
                let (eq, sides) = cost::range_shape(access);
                let lo_v = bound_vals(lo);
                let hi_v = bound_vals(hi);
                if sides == 0 && eq > 0 {
                    let parts: Vec<String> = lo_v
                        .iter()
                        .take(eq)
                        .enumerate()
                        .map(|(i, v)| format!("{}={}", col(*index, i), expr(v, names)))
                        .collect();
                    let single = if cost::unique_prefix(t, *index, eq) { "Single-row index" } else { "Index" };
                    format!("{single} lookup on {name} using {} ({}){reverse}", ix(*index), parts.join(", "))
                } else {
                    let mut parts: Vec<String> = lo_v
                        .iter()
                        .take(eq)
                        .enumerate()
                        .map(|(i, v)| format!("{} = {}", col(*index, i), expr(v, names)))
                        .collect();
                    let c = col(*index, eq);
                    let low = lo_v.get(eq).map(|v| (expr(v, names), matches!(lo, Bound::Included(_))));
                    let high = hi_v.get(eq).map(|v| (expr(v, names), matches!(hi, Bound::Included(_))));
                    let op = |incl: bool| if incl { "<=" } else { "<" };
                    match (low, high) {
                        (Some((l, li)), Some((h, hi))) => parts.push(format!("{l} {} {c} {} {h}", op(li), op(hi))),
                        (Some((l, li)), None) => parts.push(format!("{l} {} {c}", op(li))),
                        (None, Some((h, hi))) => parts.push(format!("{c} {} {h}", op(hi))),
                        (None, None) => {}
                    }
                    format!("Index range scan on {name} using {} over ({}){reverse}", ix(*index), parts.join(" AND "))
                }
            }
            Access::Points { index, keys } => {
                let c = col(*index, 0);
                let mut ranges: Vec<String> = Vec::new();
                for (i, k) in keys.iter().enumerate() {
                    if i == 2 && keys.len() > 3 {
                        ranges.push(format!("({} more)", keys.len() - 2));
                        break;
                    }
                    ranges.push(format!("({c} = {})", expr(k, names)));
                }
                format!("Index range scan on {name} using {} over {}{reverse}", ix(*index), ranges.join(" OR "))
            }
        };
        let rows = match access {
            Access::Point(_) => 1.0,
            Access::Full => cost::table_rows(t),
            a => {
                let no_name = |_: usize| None;
                let cx = super::line::Context {
                    offset,
                    terms: terms.to_vec(),
                    avail: &crate::plan::is_constant,
                    column_name: &no_name,
                    env: self.env,
                    index_order: false,
                };
                super::line::range_rows(t, a, &cx).map_or_else(|| cost::rows_per_lookup(t, a), |r| r as f64)
            }
        };
        let per_row = if matches!(access.index(), Some(IndexRef::Secondary(_))) { 2.0 } else { 1.0 };
        let est = (1.0 + rows * per_row, rows);
        (Op::new(self.step(text, Some(est), part, tag)), est)
    }
}

/// What [`Builder::finishing`] needs of a block.
struct Finishing<'a> {
    part: usize,
    aggs: bool,
    group_by: &'a [Expr],
    rollup: bool,
    having: Option<&'a Expr>,
    windows: &'a [String],
    distinct: bool,
    order: &'a [(Expr, bool)],
    limit: &'a Option<Expr>,
    offset: &'a Option<Expr>,
    calc_found_rows: bool,
}

fn bound_vals(b: &Bound<Vec<Expr>>) -> Vec<Expr> {
    match b {
        Bound::Included(v) | Bound::Excluded(v) => v.clone(),
        Bound::Unbounded => Vec::new(),
    }
}

/// Whether `t` is one of `s`'s hash join equalities.
fn is_hash_eq(t: &Expr, s: &Source) -> bool {
    let Expr::Bin(crate::expr::BinOp::Eq, a, b) = t else { return false };
    s.hash_keys.iter().any(|(m, o)| {
        (cost::same_expr(a, m) && cost::same_expr(b, o)) || (cost::same_expr(a, o) && cost::same_expr(b, m))
    })
}

/// The terms the access path does not answer by itself (a lookup's key
/// equalities are; range bounds are checked again, as MySQL shows them).
fn residual<'t>(t: &TableRef, access: &Access, offset: usize, terms: &[&'t Expr]) -> Vec<&'t Expr> {
    let (eq, sides) = cost::range_shape(access);
    let lookup = match access {
        Access::Point(_) => true,
        Access::Range { .. } => sides == 0 && eq > 0,
        _ => false,
    };
    let key_cols: Vec<usize> = match access.index() {
        Some(ix) if lookup => t.index_columns(ix).iter().take(eq).map(|&c| offset + c).collect(),
        _ => Vec::new(),
    };
    let width = t.schema.columns.len();
    terms
        .iter()
        .copied()
        .filter(|term| {
            let mut slots = Vec::new();
            crate::rel::slots_of(term, &mut slots);
            let own: Vec<usize> = slots.iter().copied().filter(|&s| s >= offset && s < offset + width).collect();
            let answered = lookup
                && !own.is_empty()
                && own.iter().all(|s| key_cols.contains(s))
                && matches!(term, Expr::Bin(crate::expr::BinOp::Eq, ..));
            !answered
        })
        .collect()
}

fn sort_text(order: &[(Expr, bool)], distinct: bool, limit: Option<usize>, names: &Names<'_>) -> String {
    let keys: Vec<String> =
        order.iter().map(|(e, desc)| format!("{}{}", expr(e, names), if *desc { " DESC" } else { "" })).collect();
    let mut s = format!("Sort{}: {}", if distinct { " with duplicate removal" } else { "" }, keys.join(", "));
    if let Some(n) = limit {
        s += &format!(", limit input to {n} row(s) per chunk");
    }
    s
}

fn limit_text(limit: &Option<Expr>, offset: &Option<Expr>, calc: bool, env: &dyn Env) -> String {
    let l = crate::query::limit_value(limit, env).ok().flatten();
    let o = crate::query::limit_value(offset, env).ok().flatten().unwrap_or(0);
    let s = match (l, o) {
        (Some(l), 0) => format!("Limit: {l} row(s)"),
        (None, o) => format!("Offset: {o} row(s)"),
        (Some(l), o) => format!("Limit/Offset: {l}/{o} row(s)"),
    };
    if calc {
        s + " (no early end due to SQL_CALC_FOUND_ROWS)"
    } else {
        s
    }
}
