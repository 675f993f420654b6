//! Walks a compiled statement and lists EXPLAIN's lines: the single-table
//! planner's plans (one line), and the general engine's query plans, block
//! by block, tables in join order, then derived tables and subqueries with
//! ids of their own (MySQL's numbering: in the order met).

use crate::expr::{Env, Expr, SubExpr, SubKind};
use crate::plan::{and_terms, constant_with, is_constant, Access, TableRef};
use crate::query::SelectPlan;
use crate::rel::{Block, JoinKind, Node, QueryPlan, SetOpKind, SourceKind};

use super::line::{table_line, Context, Line};

/// A single-table SELECT.
pub fn select(p: &SelectPlan, env: &dyn Env) -> Vec<Line> {
    let Some(t) = &p.table else {
        return vec![Line {
            id: Some(1),
            select_type: "SIMPLE".into(),
            extra: vec!["No tables used".into()],
            ..Default::default()
        }];
    };
    let terms = p.filter.as_ref().map(and_terms).unwrap_or_default();
    let no_name = |_: usize| None;
    let cx = Context {
        offset: 0,
        terms,
        avail: &is_constant,
        column_name: &no_name,
        env,
        index_order: p.index_order.is_some() && matches!(p.access, Access::Full),
    };
    let mut line = table_line(t, t.alias.as_deref().unwrap_or(&t.name), &p.access, &cx);
    line.id = Some(1);
    line.select_type = "SIMPLE".into();
    if !p.group_by.is_empty() || p.distinct {
        line.extra.push("Using temporary".into());
    }
    if !p.order.is_empty() && p.index_order.is_none() {
        line.extra.push("Using filesort".into());
    }
    vec![line]
}

/// A single-table UPDATE or DELETE.
pub fn write(kind: &str, t: &TableRef, access: &Access, filter: Option<&Expr>, env: &dyn Env) -> Vec<Line> {
    let terms = filter.map(and_terms).unwrap_or_default();
    let no_name = |_: usize| None;
    let cx = Context { offset: 0, terms, avail: &is_constant, column_name: &no_name, env, index_order: false };
    let mut line = table_line(t, t.alias.as_deref().unwrap_or(&t.name), access, &cx);
    line.id = Some(1);
    line.select_type = kind.into();
    vec![line]
}

/// INSERT ... VALUES: one line naming the table, nothing read.
pub fn insert(t: &TableRef) -> Vec<Line> {
    vec![Line { id: Some(1), select_type: "INSERT".into(), table: Some(t.name.clone()), ..Default::default() }]
}

/// A query of the general engine.
pub fn query(p: &QueryPlan, env: &dyn Env) -> Vec<Line> {
    let mut w = Walker { next_id: 1, lines: Vec::new(), env };
    let top = if simple(p) { "SIMPLE" } else { "PRIMARY" };
    w.plan(p, top);
    w.lines
}

/// One block reading only base tables (and table functions, as MySQL
/// shows them), with no subquery.
fn simple(p: &QueryPlan) -> bool {
    let QueryPlan::Select(b) = p else { return false };
    b.sources.iter().all(|s| matches!(s.kind, SourceKind::Table(_) | SourceKind::JsonTable(_)))
        && block_subqueries(b).is_empty()
}

struct Walker<'e> {
    next_id: u64,
    lines: Vec<Line>,
    env: &'e dyn Env,
}

impl Walker<'_> {
    /// Lists `p`'s lines; returns the ids of its blocks.
    fn plan(&mut self, p: &QueryPlan, select_type: &str) -> Vec<u64> {
        match p {
            QueryPlan::Select(b) => vec![self.block(b, select_type)],
            QueryPlan::SetOp(s) => {
                let (kind, label) = match s.op {
                    SetOpKind::Union => ("UNION", "union"),
                    SetOpKind::Except => ("EXCEPT", "except"),
                    SetOpKind::Intersect => ("INTERSECT", "intersect"),
                };
                let mut ids = self.plan(&s.left, select_type);
                ids.extend(self.plan(&s.right, kind));
                // UNION ALL streams both sides; the others go through a
                // temporary table, MySQL's "<kind> RESULT" line.
                if !(s.op == SetOpKind::Union && s.all) {
                    self.result_line(kind, label, &ids);
                }
                ids
            }
            QueryPlan::Recursive(r) => {
                let mut ids = self.plan(&r.anchor, select_type);
                let from = self.lines.len();
                ids.extend(self.plan(&r.step, "UNION"));
                if let Some(l) = self.lines.get_mut(from) {
                    l.extra.push("Recursive".into());
                }
                self.result_line("UNION", "union", &ids);
                ids
            }
        }
    }

    fn result_line(&mut self, kind: &str, label: &str, ids: &[u64]) {
        let list: Vec<String> = ids.iter().map(u64::to_string).collect();
        self.lines.push(Line {
            id: None,
            select_type: format!("{kind} RESULT"),
            table: Some(format!("<{label}{}>", list.join(","))),
            kind: Some("ALL"),
            extra: vec!["Using temporary".into()],
            ..Default::default()
        });
    }

    fn block(&mut self, b: &Block, select_type: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let first = self.lines.len();
        let mut order = Vec::new();
        if let Some(t) = &b.tree {
            leaves(t, &mut order);
        }
        if order.is_empty() {
            self.lines.push(Line {
                id: Some(id),
                select_type: select_type.into(),
                extra: vec!["No tables used".into()],
                ..Default::default()
            });
        }
        let column_name = |slot: usize| -> Option<String> {
            let s = b.sources.iter().find(|s| slot >= s.offset && slot < s.offset + s.width)?;
            match &s.kind {
                SourceKind::Table(t) => Some(format!("{}.{}.{}", t.db, s.name, t.columns.get(slot - s.offset)?)),
                _ => Some(format!("{}.{}", s.name, slot - s.offset)),
            }
        };
        let mut bound = vec![false; b.width];
        let mut derived = Vec::new();
        let mut semi = Vec::new();
        if let Some(t) = &b.tree {
            semi_extras(t, b, &mut semi);
        }
        for &i in &order {
            let s = &b.sources[i];
            let seen = bound.clone();
            let avail = move |e: &Expr| constant_with(e, &|k| seen.get(k).copied().unwrap_or(false));
            let mut line = match &s.kind {
                SourceKind::Table(t) => {
                    let cx = Context {
                        offset: s.offset,
                        terms: s.filter.iter().collect(),
                        avail: &avail,
                        column_name: &column_name,
                        env: self.env,
                        index_order: false,
                    };
                    table_line(t, &s.name, &s.access, &cx)
                }
                SourceKind::Derived(p) => {
                    derived.push((self.lines.len(), p.clone()));
                    Line {
                        kind: Some("ALL"),
                        filtered: Some(100.0),
                        extra: if s.filter.is_empty() { vec![] } else { vec!["Using where".into()] },
                        ..Default::default()
                    }
                }
                SourceKind::Working(_) | SourceKind::System(_) => {
                    Line { table: Some(s.name.clone()), kind: Some("ALL"), filtered: Some(100.0), ..Default::default() }
                }
                // MySQL's line for a table function (its estimate is 2 rows).
                SourceKind::JsonTable(_) => {
                    let mut extra = vec!["Table function: json_table; Using temporary".to_string()];
                    if !s.filter.is_empty() {
                        extra.push("Using where".into());
                    }
                    Line {
                        table: Some(s.name.clone()),
                        kind: Some("ALL"),
                        rows: Some(2),
                        filtered: Some(100.0),
                        extra,
                        ..Default::default()
                    }
                }
            };
            if !s.hash_keys.is_empty() {
                line.kind = Some("ALL");
                if !line.extra.iter().any(|e| e == "Using where") {
                    line.extra.push("Using where".into());
                }
            }
            line.extra.extend(semi.iter().filter(|(k, _)| *k == i).map(|(_, x)| x.clone()));
            if !s.hash_keys.is_empty() {
                line.extra.push("Using join buffer (hash join)".into());
            }
            line.id = Some(id);
            line.select_type = select_type.into();
            self.lines.push(line);
            for k in s.offset..s.offset + s.width {
                if let Some(x) = bound.get_mut(k) {
                    *x = true;
                }
            }
        }
        if let Some(l) = self.lines.get_mut(first) {
            if !b.group_by.is_empty() || b.distinct {
                l.extra.push("Using temporary".into());
            }
            if !b.order.is_empty() {
                l.extra.push("Using filesort".into());
            }
        }
        for (at, p) in derived {
            let ids = self.plan(&p, "DERIVED");
            if let Some(l) = self.lines.get_mut(at) {
                l.table = Some(format!("<derived{}>", ids.first().copied().unwrap_or(0)));
            }
        }
        for sub in block_subqueries(b) {
            let kind = if sub.query.captures.is_empty() { "SUBQUERY" } else { "DEPENDENT SUBQUERY" };
            self.plan(&sub.query.plan, kind);
        }
        id
    }
}

/// MySQL's Extra for the tables of semi- and anti-joins: `FirstMatch(t)`
/// on a semi-join's last table (`t`: the last table read before it,
/// where the loops go on after a match), `Not exists` on an anti-join's.
fn semi_extras(n: &Node, b: &Block, out: &mut Vec<(usize, String)>) {
    match n {
        Node::Leaf(_) => {}
        Node::Filter { input, .. } => semi_extras(input, b, out),
        Node::Join { kind, left, right, .. } => {
            semi_extras(left, b, out);
            semi_extras(right, b, out);
            let (mut l, mut r) = (Vec::new(), Vec::new());
            leaves(left, &mut l);
            leaves(right, &mut r);
            match kind {
                JoinKind::Semi => {
                    if let (Some(&last), Some(&before)) = (r.last(), l.last()) {
                        out.push((last, format!("FirstMatch({})", b.sources[before].name)));
                    }
                }
                JoinKind::Anti => out.extend(r.iter().map(|&i| (i, "Not exists".to_string()))),
                JoinKind::Inner | JoinKind::Left => {}
            }
        }
    }
}

/// Sources in the order the join reads them.
fn leaves(n: &Node, out: &mut Vec<usize>) {
    match n {
        Node::Leaf(i) => out.push(*i),
        Node::Join { left, right, .. } => {
            leaves(left, out);
            leaves(right, out);
        }
        Node::Filter { input, .. } => leaves(input, out),
    }
}

/// The subqueries of a block's expressions, in the order met.
fn block_subqueries(b: &Block) -> Vec<&SubExpr> {
    let mut out = Vec::new();
    let mut exprs: Vec<&Expr> = Vec::new();
    exprs.extend(b.items.iter());
    exprs.extend(b.sources.iter().flat_map(|s| s.filter.iter()));
    exprs.extend(b.filter.iter());
    exprs.extend(b.group_by.iter());
    exprs.extend(b.having.iter());
    exprs.extend(b.order.iter().map(|(e, _)| e));
    if let Some(t) = &b.tree {
        node_terms(t, &mut exprs);
    }
    for e in exprs {
        subqueries(e, &mut out);
    }
    let mut seen = Vec::new();
    out.retain(|s| {
        let id = s.query.id;
        let new = !seen.contains(&id);
        seen.push(id);
        new
    });
    out
}

fn node_terms<'b>(n: &'b Node, out: &mut Vec<&'b Expr>) {
    match n {
        Node::Leaf(_) => {}
        Node::Join { left, right, .. } => {
            node_terms(left, out);
            node_terms(right, out);
        }
        Node::Filter { input, terms } => {
            out.extend(terms.iter());
            node_terms(input, out);
        }
    }
}

pub(super) fn subqueries<'e>(e: &'e Expr, out: &mut Vec<&'e SubExpr>) {
    match e {
        Expr::Col(_)
        | Expr::Lit(_)
        | Expr::Param(_)
        | Expr::Agg(_)
        | Expr::Window(_)
        | Expr::SysVar { .. }
        | Expr::Outer(_) => {}
        Expr::Bin(_, l, r) => {
            subqueries(l, out);
            subqueries(r, out);
        }
        Expr::Chain(first, steps) => {
            subqueries(first, out);
            for s in steps {
                subqueries(&s.rhs, out);
            }
        }
        Expr::Not(x) | Expr::Neg(x) | Expr::IsNull(x, _) | Expr::Collate(_, x) => subqueries(x, out),
        Expr::Between { expr, low, high, .. } => {
            subqueries(expr, out);
            subqueries(low, out);
            subqueries(high, out);
        }
        Expr::InList { expr, list, .. } => {
            subqueries(expr, out);
            list.iter().for_each(|x| subqueries(x, out));
        }
        Expr::Like { expr, pattern, .. } => {
            subqueries(expr, out);
            subqueries(pattern, out);
        }
        Expr::Case { operand, whens, otherwise } => {
            operand.iter().for_each(|x| subqueries(x, out));
            for (w, t) in whens {
                subqueries(w, out);
                subqueries(t, out);
            }
            otherwise.iter().for_each(|x| subqueries(x, out));
        }
        Expr::Func(_, args) => args.iter().for_each(|x| subqueries(x, out)),
        Expr::Subquery(s) => {
            match &s.kind {
                SubKind::In(lhs) => lhs.iter().for_each(|x| subqueries(x, out)),
                SubKind::Quantified { lhs, .. } => subqueries(lhs, out),
                SubKind::Scalar | SubKind::Exists => {}
            }
            out.push(s);
        }
    }
}
