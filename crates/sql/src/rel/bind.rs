//! Binding a query into a [`QueryPlan`]: FROM items become sources with
//! slots, names resolve to slots (or to captures of an enclosing block),
//! subqueries and derived tables are bound recursively, and WHERE / ON
//! terms are placed in a join tree whose inner joins are ordered for
//! index lookups (`order_units`).
//!
//! Name resolution walks a stack of [`Level`]s, one per block being bound:
//! a name not found in the innermost block is resolved in the one around
//! it and becomes a capture (`Expr::Outer(k)`) of each subquery between.

use std::collections::HashSet;
use std::sync::Arc;

use quire_engine::row::{Collation, ColumnType, Value};
use sqlparser::ast;

use super::{Block, JoinKind, QueryPlan, SetOpKind, SetOpPlan, Source, SourceKind, Subquery};
use crate::error::{Result, SqlError};
use crate::expr::{self, BinOp, Expr, Names, Scope};
use crate::plan::{Access, ColMeta, ColTypes, MetaType};
use crate::query::{ident, Resolver};

/// A column a name can resolve to.
#[derive(Clone, Debug)]
pub(super) struct NamedCol {
    /// The table name or alias that qualifies it.
    pub(super) qual: String,
    pub(super) name: String,
    pub(super) expr: Expr,
    pub(super) meta: ColMeta,
    /// Hidden from unqualified names (a USING / NATURAL column, shown once
    /// through its merged column).
    pub(super) hidden: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) enum LevelKind {
    /// A SELECT block's names.
    #[default]
    Block,
    /// A subquery of an expression: names of the enclosing block become
    /// its captures.
    Subquery,
    /// A derived table, CTE or set operation's ORDER BY: names of the
    /// enclosing query are not visible (no LATERAL).
    Barrier,
}

/// One level of names while a query is bound.
#[derive(Default)]
pub(super) struct Level {
    pub(super) kind: LevelKind,
    pub(super) cols: Vec<NamedCol>,
    /// Table names and aliases of the block (1066 on a repeat).
    pub(super) quals: Vec<String>,
    /// Subquery levels: what it reads of the block around it.
    pub(super) captures: Vec<Expr>,
    /// Types of the block's slots.
    pub(super) slot_meta: Vec<MetaType>,
    pub(super) slot_types: Vec<Option<ColumnType>>,
    pub(super) slot_colls: Vec<Collation>,
    /// The table column behind each slot, if it is one (`DEFAULT(col)`).
    pub(super) slot_defs: Vec<Option<quire_engine::row::Column>>,
    /// A SELECT block's level (not a set operation's ORDER BY, nor an
    /// UPDATE's names): window functions may be called in it.
    pub(super) takes_windows: bool,
    /// The window function calls met so far in the block's select list
    /// and ORDER BY (`Expr::Window(i)` is the i-th).
    pub(super) windows: Vec<super::window::Call>,
    /// The result types of the block's window functions, once bound.
    pub(super) window_meta: Vec<MetaType>,
    /// Sources that are views, with the view's database (their columns
    /// are named `db.view.column` in messages).
    pub(super) view_dbs: Vec<(usize, String)>,
}

impl ColTypes for Level {
    fn col_type(&self, i: usize) -> Option<ColumnType> {
        self.slot_types.get(i).copied().flatten()
    }
    fn col_meta(&self, i: usize) -> Option<MetaType> {
        self.slot_meta.get(i).copied()
    }
    fn window_meta(&self, i: usize) -> Option<MetaType> {
        self.window_meta.get(i).copied()
    }
}

/// Binds one statement's query.
pub struct Binder<'r> {
    pub(super) resolver: &'r dyn Resolver,
    pub(super) levels: Vec<Level>,
    /// Common table expressions in scope, innermost last.
    ctes: Vec<(String, Cte)>,
    /// Recursive CTEs numbered for their working tables.
    next_recursive: usize,
    /// Views being expanded (`db.name`), to refuse a view that reads
    /// itself (1462).
    views: Vec<String>,
    /// Whose privileges tables are read with: a DEFINER view's definer
    /// while its query is bound, else the session's user (`None`).
    rights: Option<String>,
    next_subquery: usize,
    /// Whether some block reads a table (the statement needs a
    /// transaction).
    pub reads_tables: bool,
    /// The first block ONLY_FULL_GROUP_BY refuses (`group_check`).
    pub group_error: Option<SqlError>,
}

/// Numbers the `?` markers of `q` in text order (`?0`, `?1`, ...), since
/// the parts of a block are not bound in that order; returns their count.
pub fn number_params(q: &mut ast::Query) -> usize {
    use std::ops::ControlFlow;
    let mut n = 0usize;
    let _ = ast::visit_expressions_mut(q, |e| {
        if let ast::Expr::Value(v) = e {
            if let ast::Value::Placeholder(p) = &mut v.value {
                if p == "?" {
                    *p = format!("?{n}");
                    n += 1;
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    n
}

/// Binds `q` (its `?` markers numbered by [`number_params`]).
pub fn bind_query(q: &ast::Query, resolver: &dyn Resolver) -> Result<(QueryPlan, bool, Option<SqlError>)> {
    let mut b = Binder::new(resolver, false);
    let mut params = 0;
    let plan = b.query(q, &mut params)?;
    Ok((plan, b.reads_tables, b.group_error))
}

/// Expressions equal by construction (the same slot or capture).
fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Col(x), Expr::Col(y)) | (Expr::Outer(x), Expr::Outer(y)) => x == y,
        _ => false,
    }
}

/// The type of a set operation's column from its two sides'.
fn union_type(l: MetaType, r: MetaType) -> MetaType {
    match (l, r) {
        (MetaType::Null, x) | (x, MetaType::Null) => x,
        (MetaType::Int { unsigned: a, width: w }, MetaType::Int { unsigned: b, width: v }) => {
            MetaType::Int { unsigned: a && b, width: w.max(v) }
        }
        (MetaType::Decimal { scale: a, .. }, MetaType::Decimal { scale: b, .. }) => {
            MetaType::Decimal { precision: 65, scale: a.max(b) }
        }
        (MetaType::Decimal { scale, .. }, MetaType::Int { .. })
        | (MetaType::Int { .. }, MetaType::Decimal { scale, .. }) => MetaType::Decimal { precision: 65, scale },
        (a @ MetaType::Approx { .. }, b) if a == b => a,
        (
            MetaType::Double | MetaType::Approx { .. },
            MetaType::Int { .. } | MetaType::Decimal { .. } | MetaType::Double | MetaType::Approx { .. },
        )
        | (MetaType::Int { .. } | MetaType::Decimal { .. }, MetaType::Double | MetaType::Approx { .. }) => {
            MetaType::Double
        }
        (MetaType::Date, MetaType::Date) => MetaType::Date,
        (a @ MetaType::DateTime { .. }, MetaType::DateTime { .. }) => a,
        (MetaType::Str { len: a, .. }, MetaType::Str { len: b, .. }) => MetaType::Str { len: a.max(b), fixed: false },
        (MetaType::Text, _) | (_, MetaType::Text) => MetaType::Text,
        (MetaType::Json, MetaType::Json) => MetaType::Json,
        _ => MetaType::Str { len: 255, fixed: false },
    }
}

/// The collations a plan's result columns compare by: a column's own, the
/// default (utf8mb4_general_ci) for other expressions.
pub(super) fn result_colls(plan: &QueryPlan) -> Vec<Collation> {
    match plan {
        QueryPlan::Select(b) => b.item_colls.clone(),
        QueryPlan::SetOp(s) => s.colls.clone(),
        QueryPlan::Recursive(r) => r.colls.clone(),
    }
}

/// A set operation's column collations from its two sides', as MySQL and
/// MariaDB aggregate them: of two columns of one character set, the
/// binary collation wins (`utf8mb4_bin` UNION `utf8mb4_general_ci`
/// compares by `utf8mb4_bin`), and a column's collation wins over a
/// literal's or an expression's (which quire gives the default). Two
/// explicit collations (`COLLATE`, 1267 when they differ) cannot occur:
/// quire has no COLLATE in expressions.
fn union_colls(l: &[Collation], r: &[Collation]) -> Vec<Collation> {
    l.iter()
        .zip(r)
        .map(
            |(&a, &b)| if a == Collation::Utf8mb4Bin || b == Collation::Utf8mb4Bin { Collation::Utf8mb4Bin } else { a },
        )
        .collect()
}

/// A block that yields no rows, `width` columns wide.
fn empty_block(width: usize) -> Block {
    Block {
        sources: Vec::new(),
        tree: None,
        width: 0,
        filter: vec![Expr::Lit(Value::Int(0))],
        items: vec![Expr::Lit(Value::Null); width],
        columns: vec![ColMeta::expr("", MetaType::Null); width],
        aggs: Vec::new(),
        agg_colls: Vec::new(),
        group_by: Vec::new(),
        group_colls: Vec::new(),
        rollup: false,
        having: None,
        windows: Default::default(),
        distinct: false,
        item_colls: vec![Collation::Utf8mb4GeneralCi; width],
        order: Vec::new(),
        order_colls: Vec::new(),
        limit: None,
        offset: None,
        lock: None,
        lock_wait: Default::default(),
        fd: Default::default(),
        merge: None,
        pullable: None,
    }
}

/// Renames a derived table's or CTE's columns (`AS d (a, b)`).
fn rename_columns(mut plan: QueryPlan, names: &[ast::TableAliasColumnDef]) -> Result<QueryPlan> {
    if names.is_empty() {
        return Ok(plan);
    }
    let cols = match &mut plan {
        QueryPlan::Select(b) => &mut b.columns,
        QueryPlan::SetOp(s) => &mut s.columns,
        QueryPlan::Recursive(r) => &mut r.columns,
    };
    if cols.len() != names.len() {
        return Err(SqlError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
    }
    for (c, n) in cols.iter_mut().zip(names) {
        c.name = n.name.value.clone();
    }
    Ok(plan)
}

/// Names of the innermost level for `expr::compile`.
struct BlockNames<'a, 'r> {
    b: &'a mut Binder<'r>,
}

impl Names for BlockNames<'_, '_> {
    fn column(&mut self, qualifier: Option<&str>, name: &str, place: &'static str) -> Result<Expr> {
        let at = self.b.levels.len().saturating_sub(1);
        self.b.resolve(at, qualifier, name, place)
    }
    fn subquery(&mut self, q: &ast::Query, params: &mut usize) -> Result<Arc<Subquery>> {
        self.b.subquery(q, params)
    }
    fn column_default(&mut self, qualifier: Option<&str>, name: &str, place: &'static str) -> Result<Expr> {
        let at = self.b.levels.len().saturating_sub(1);
        match self.b.resolve(at, qualifier, name, place)? {
            Expr::Col(i) => match self.b.levels.get(at).and_then(|l| l.slot_defs.get(i)) {
                Some(Some(col)) => crate::defaults::function_value(col),
                _ => Err(crate::defaults::function_refused()),
            },
            _ => Err(crate::defaults::function_refused()),
        }
    }
    fn window(&mut self, call: super::window::Call) -> Result<Expr> {
        let level = self.b.level();
        if !level.takes_windows {
            return Err(super::window::misplaced(&call.name));
        }
        level.windows.push(call);
        Ok(Expr::Window(level.windows.len() - 1))
    }
}

/// A join tree as bound, before its terms are placed (`join.rs`).
#[derive(Clone, Debug)]
pub(super) enum Tree {
    Leaf(usize),
    Join {
        kind: JoinKind,
        left: Box<Tree>,
        right: Box<Tree>,
        on: Vec<Expr>,
        /// STRAIGHT_JOIN: the left side is read first (the group keeps
        /// the order written).
        straight: bool,
    },
    /// A subquery's tables joined to the rest of their group with
    /// semi-join semantics (`semijoin.rs`): each row of the tables
    /// before it passes at most once, when some row of `inner` satisfies
    /// `on` (`anti`: when none does).
    Semi {
        anti: bool,
        inner: Box<Tree>,
        on: Vec<Expr>,
        /// The term it was made from (`EXISTS (...)`, `x IN (...)`, their
        /// negations), evaluated as a subquery instead when the planner
        /// estimates that cheaper (`join/semicost.rs`); `None` for a
        /// semi-join pulled up from a subquery's own.
        sub: Option<Box<Expr>>,
    },
}

impl<'r> Binder<'r> {
    fn new(resolver: &'r dyn Resolver, reads_tables: bool) -> Self {
        Binder {
            resolver,
            levels: Vec::new(),
            ctes: Vec::new(),
            next_subquery: 0,
            next_recursive: 0,
            views: Vec::new(),
            rights: None,
            reads_tables,
            group_error: None,
        }
    }
}

impl Binder<'_> {
    pub(super) fn level(&mut self) -> &mut Level {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let n = self.levels.len() - 1;
        &mut self.levels[n]
    }

    /// Binds a query expression (WITH, set operations, ORDER BY, LIMIT).
    fn query(&mut self, q: &ast::Query, params: &mut usize) -> Result<QueryPlan> {
        crate::depth::check()?;
        let ctes_before = self.ctes.len();
        let r = self.query_inner(q, params);
        self.ctes.truncate(ctes_before);
        r
    }

    fn query_inner(&mut self, q: &ast::Query, params: &mut usize) -> Result<QueryPlan> {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.clone();
                let plan = if with.recursive && reads_table(&cte.query, &name) {
                    self.recursive(cte, params)?
                } else {
                    let plan = self.derived(&cte.query, params)?;
                    rename_columns(plan, &cte.alias.columns)?
                };
                self.ctes.push((name, Cte::Plan(Arc::new(plan))));
            }
        }
        let lock = crate::query::lock_of(q)?;
        match &*q.body {
            ast::SetExpr::Select(sel) => {
                let mut b = self.select(sel, q.order_by.as_ref(), q.limit_clause.as_ref(), lock, params)?;
                b.lock_wait = crate::query::lock_wait_of(q);
                Ok(QueryPlan::Select(Box::new(b)))
            }
            ast::SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => self.query(inner, params),
            _ if lock.is_some() => Err(SqlError::unsupported("FOR UPDATE / FOR SHARE of a set operation")),
            body => {
                let inner = self.set_body(body, params)?;
                self.finish_set(inner, q.order_by.as_ref(), q.limit_clause.as_ref(), params)
            }
        }
    }

    pub(super) fn with_level<T>(
        &mut self,
        kind: LevelKind,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<(T, Level)> {
        self.levels.push(Level { kind, ..Level::default() });
        let r = f(self);
        let level = self.levels.pop().unwrap_or_default();
        Ok((r?, level))
    }

    /// A derived table's or CTE's query: bound apart from the enclosing
    /// block's names.
    fn derived(&mut self, q: &ast::Query, params: &mut usize) -> Result<QueryPlan> {
        Ok(self.with_level(LevelKind::Barrier, |b| b.query(q, params))?.0)
    }

    /// Binds a subquery of an expression of the innermost block.
    fn subquery(&mut self, q: &ast::Query, params: &mut usize) -> Result<Arc<Subquery>> {
        let (plan, level) = self.with_level(LevelKind::Subquery, |b| b.query(q, params))?;
        let id = self.next_subquery;
        self.next_subquery += 1;
        Ok(Arc::new(Subquery { id, plan, captures: level.captures }))
    }

    fn set_body(&mut self, body: &ast::SetExpr, params: &mut usize) -> Result<QueryPlan> {
        crate::depth::check()?;
        match body {
            ast::SetExpr::Select(sel) => Ok(QueryPlan::Select(Box::new(self.select(sel, None, None, None, params)?))),
            ast::SetExpr::Query(q) => self.query(q, params),
            ast::SetExpr::SetOperation { op, set_quantifier, left, right } => {
                let left = self.set_body(left, params)?;
                let right = self.set_body(right, params)?;
                let op = match op {
                    ast::SetOperator::Union => SetOpKind::Union,
                    ast::SetOperator::Except | ast::SetOperator::Minus => SetOpKind::Except,
                    ast::SetOperator::Intersect => SetOpKind::Intersect,
                };
                let all = match set_quantifier {
                    ast::SetQuantifier::All => true,
                    ast::SetQuantifier::None | ast::SetQuantifier::Distinct => false,
                    other => return Err(SqlError::unsupported(format!("set quantifier {other}"))),
                };
                if left.columns().len() != right.columns().len() {
                    return Err(SqlError::new(
                        1222,
                        "21000",
                        "The used SELECT statements have a different number of columns",
                    ));
                }
                let columns: Vec<ColMeta> = left
                    .columns()
                    .iter()
                    .zip(right.columns())
                    .map(|(l, r)| {
                        let mut c = ColMeta::expr(&l.name, union_type(l.ty, r.ty));
                        c.not_null = l.not_null && r.not_null;
                        c
                    })
                    .collect();
                let colls = union_colls(&result_colls(&left), &result_colls(&right));
                Ok(QueryPlan::SetOp(Box::new(SetOpPlan {
                    op,
                    all,
                    left,
                    right,
                    columns,
                    colls,
                    order: Vec::new(),
                    order_colls: Vec::new(),
                    limit: None,
                    offset: None,
                })))
            }
            ast::SetExpr::Values(_) => Err(SqlError::unsupported("VALUES as a query")),
            other => Err(SqlError::unsupported(format!("query {other}"))),
        }
    }

    /// ORDER BY / LIMIT over a set operation: names and positions of its
    /// result columns.
    fn finish_set(
        &mut self,
        inner: QueryPlan,
        order_by: Option<&ast::OrderBy>,
        limit: Option<&ast::LimitClause>,
        params: &mut usize,
    ) -> Result<QueryPlan> {
        let mut s = match inner {
            QueryPlan::SetOp(s) if s.order.is_empty() && s.limit.is_none() && s.offset.is_none() => s,
            other => {
                // `(SELECT ... LIMIT 1) ORDER BY ...`: a union of one.
                let columns = other.columns().to_vec();
                Box::new(SetOpPlan {
                    op: SetOpKind::Union,
                    all: true,
                    colls: result_colls(&other),
                    right: QueryPlan::Select(Box::new(empty_block(columns.len()))),
                    left: other,
                    columns,
                    order: Vec::new(),
                    order_colls: Vec::new(),
                    limit: None,
                    offset: None,
                })
            }
        };
        let columns = s.columns.clone();
        let colls = s.colls.clone();
        let ((order, limit, offset), _) = self.with_level(LevelKind::Barrier, |b| {
            b.with_level(LevelKind::Block, |b| {
                let level = b.level();
                for (i, c) in columns.iter().enumerate() {
                    level.cols.push(NamedCol {
                        qual: String::new(),
                        name: c.name.clone(),
                        expr: Expr::Col(i),
                        meta: c.clone(),
                        hidden: false,
                    });
                    level.slot_meta.push(c.ty);
                    level.slot_types.push(None);
                    level.slot_colls.push(colls.get(i).copied().unwrap_or(Collation::Utf8mb4GeneralCi));
                    level.slot_defs.push(None);
                }
                let mut order = Vec::new();
                if let Some(ob) = order_by {
                    let ast::OrderByKind::Expressions(list) = &ob.kind else {
                        return Err(SqlError::unsupported("ORDER BY ALL"));
                    };
                    for o in list {
                        let x = match position(&o.expr) {
                            Some(n) if n >= 1 && n <= columns.len() => Expr::Col(n - 1),
                            Some(n) => return Err(SqlError::unknown_column(&n.to_string(), "order clause")),
                            None => b.expr(&o.expr, params, "order clause", None)?,
                        };
                        order.push((x, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
                    }
                }
                let (l, o) = b.limit(limit, params)?;
                Ok((order, l, o))
            })
            .map(|(r, _)| r)
        })?;
        let order: Vec<(Expr, bool)> = order.into_iter().map(|(x, d)| (expr::with_collations(x, &colls), d)).collect();
        s.order_colls = order.iter().map(|(x, _)| expr::key_collation(x, &colls)).collect();
        s.order = order;
        s.limit = limit;
        s.offset = offset;
        Ok(QueryPlan::SetOp(s))
    }

    pub(super) fn limit(
        &mut self,
        lc: Option<&ast::LimitClause>,
        params: &mut usize,
    ) -> Result<(Option<Expr>, Option<Expr>)> {
        let Some(lc) = lc else { return Ok((None, None)) };
        let mut scope =
            Scope { table: None, columns: &[], aggs: None, params: *params, place: "limit clause", rel: None };
        let r = match lc {
            ast::LimitClause::LimitOffset { limit, offset, .. } => (
                limit.as_ref().map(|e| expr::compile(e, &mut scope)).transpose()?,
                offset.as_ref().map(|o| expr::compile(&o.value, &mut scope)).transpose()?,
            ),
            ast::LimitClause::OffsetCommaLimit { offset, limit } => {
                let o = expr::compile(offset, &mut scope)?;
                (Some(expr::compile(limit, &mut scope)?), Some(o))
            }
        };
        *params = scope.params;
        Ok(r)
    }

    /// Compiles an expression of the innermost block.
    pub(super) fn expr(
        &mut self,
        e: &ast::Expr,
        params: &mut usize,
        place: &'static str,
        aggs: Option<&mut Vec<crate::expr::Agg>>,
    ) -> Result<Expr> {
        let mut names = BlockNames { b: self };
        let mut scope = Scope { table: None, columns: &[], aggs, params: *params, place, rel: Some(&mut names) };
        let x = expr::compile(e, &mut scope)?;
        *params = scope.params;
        Ok(x)
    }

    /// Resolves `qual.name` at level `at` (an index into `levels`).
    fn resolve(&mut self, at: usize, qual: Option<&str>, name: &str, place: &'static str) -> Result<Expr> {
        let full = || match qual {
            Some(q) => format!("{q}.{name}"),
            None => name.to_string(),
        };
        let level = &self.levels[at];
        match level.kind {
            LevelKind::Block => {
                let found: Vec<&NamedCol> = level
                    .cols
                    .iter()
                    .filter(|c| c.name.eq_ignore_ascii_case(name))
                    .filter(|c| match qual {
                        Some(q) => c.qual.eq_ignore_ascii_case(q),
                        None => !c.hidden,
                    })
                    .collect();
                match found.as_slice() {
                    [c] => return Ok(c.expr.clone()),
                    [c, rest @ ..] if rest.iter().all(|r| same_expr(&r.expr, &c.expr)) => return Ok(c.expr.clone()),
                    [_, _, ..] => {
                        return Err(SqlError::new(1052, "23000", format!("Column '{name}' in {place} is ambiguous")));
                    }
                    [] => {}
                }
                if at == 0 {
                    return Err(SqlError::unknown_column(&full(), place));
                }
                self.resolve(at - 1, qual, name, place)
            }
            LevelKind::Barrier => Err(SqlError::unknown_column(&full(), place)),
            LevelKind::Subquery => {
                if at == 0 {
                    return Err(SqlError::unknown_column(&full(), place));
                }
                let outer = self.resolve(at - 1, qual, name, place)?;
                let caps = &mut self.levels[at].captures;
                let k = match caps.iter().position(|c| same_expr(c, &outer)) {
                    Some(k) => k,
                    None => {
                        caps.push(outer);
                        caps.len() - 1
                    }
                };
                Ok(Expr::Outer(k))
            }
        }
    }

    /// Adds a source's columns to the innermost block: its slots.
    pub(super) fn add_source(
        &mut self,
        sources: &mut Vec<Source>,
        kind: SourceKind,
        qual: &str,
        cols: Vec<SlotCol>,
    ) -> Result<usize> {
        let level = self.level();
        if level.quals.iter().any(|q| q.eq_ignore_ascii_case(qual)) {
            return Err(SqlError::new(1066, "42000", format!("Not unique table/alias: '{qual}'")));
        }
        level.quals.push(qual.to_string());
        let offset = level.slot_meta.len();
        for (i, c) in cols.iter().enumerate() {
            level.cols.push(NamedCol {
                qual: qual.to_string(),
                name: c.meta.name.clone(),
                expr: Expr::Col(offset + i),
                meta: c.meta.clone(),
                hidden: false,
            });
            level.slot_meta.push(c.meta.ty);
            level.slot_types.push(c.ty);
            level.slot_colls.push(c.coll);
            level.slot_defs.push(c.def.clone());
        }
        sources.push(Source {
            kind,
            name: qual.to_string(),
            offset,
            width: cols.len(),
            access: Access::Full,
            filter: Vec::new(),
            hash_keys: Vec::new(),
            hash_colls: Vec::new(),
            local: Vec::new(),
        });
        Ok(sources.len() - 1)
    }

    /// Binds one FROM item (a table factor): a leaf, or a nested join.
    fn factor(
        &mut self,
        f: &ast::TableFactor,
        sources: &mut Vec<Source>,
        params: &mut usize,
    ) -> Result<(Tree, Vec<NamedCol>)> {
        crate::depth::check()?;
        match f {
            ast::TableFactor::Table { name, alias, args: None, partitions, version: None, sample: None, .. }
                if partitions.is_empty() =>
            {
                let alias_name = alias.as_ref().map(|a| ident(&a.name));
                let single = (name.0.len() == 1).then(|| name.to_string());
                let cte = single.and_then(|n| {
                    let n = n.trim_matches('`').to_string();
                    self.ctes
                        .iter()
                        .rev()
                        .find(|(c, _)| c.eq_ignore_ascii_case(&n))
                        .map(|(c, p)| (c.clone(), p.clone()))
                });
                match cte {
                    Some((cte_name, Cte::Plan(plan))) => {
                        let qual = alias_name.unwrap_or(cte_name);
                        return self.derived_source(sources, plan, &qual, alias.as_ref());
                    }
                    Some((cte_name, Cte::Working { id, columns, colls, level })) => {
                        if self.levels.len() != level {
                            return Err(SqlError::new(
                                3577,
                                "HY000",
                                format!("In recursive query block of Recursive Common Table Expression '{cte_name}', the recursive table must be referenced only once, and not in any subquery"),
                            ));
                        }
                        let qual = alias_name.unwrap_or(cte_name);
                        let cols = columns
                            .iter()
                            .zip(colls)
                            .map(|(c, coll)| {
                                let mut meta = c.clone();
                                meta.table = qual.clone();
                                meta.org_table = qual.clone();
                                SlotCol { meta, ty: None, coll, def: None }
                            })
                            .collect();
                        let i = self.add_source(sources, SourceKind::Working(id), &qual, cols)?;
                        return Ok((Tree::Leaf(i), self.star_of(sources, i)));
                    }
                    None => {}
                }
                if let Some(v) = self.resolver.system_view(name)? {
                    let written = name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone());
                    let qual = alias_name.or(written).unwrap_or_else(|| v.name().to_string());
                    let cols = crate::infoschema::shape::columns(v)
                        .into_iter()
                        .map(|c| {
                            let meta = ColMeta {
                                name: c.name.clone(),
                                org_name: c.name.clone(),
                                table: qual.clone(),
                                org_table: v.name().to_string(),
                                db: crate::infoschema::DB.to_string(),
                                ty: crate::plan::MetaType::of_column(c.ty),
                                not_null: !c.nullable,
                                primary_key: false,
                                unique_key: false,
                                multiple_key: false,
                                auto_increment: false,
                                zerofill: None,
                            };
                            SlotCol { meta, ty: Some(c.ty), coll: c.collation, def: Some(c) }
                        })
                        .collect();
                    let i = self.add_source(sources, SourceKind::System(v), &qual, cols)?;
                    return Ok((Tree::Leaf(i), self.star_of(sources, i)));
                }
                if let Some(v) = self.resolver.view_as(name, self.rights.as_deref())? {
                    return self.view_source(sources, v, alias.as_ref());
                }
                let t = self.resolver.resolve_as(name, alias_name.clone(), self.rights.as_deref())?;
                self.reads_tables = true;
                let qual = alias_name.unwrap_or_else(|| t.name.clone());
                let cols: Vec<SlotCol> = (0..t.columns.len())
                    .map(|c| SlotCol {
                        meta: ColMeta::column(&t, c, &t.columns[c]),
                        ty: Some(t.schema.columns[c].ty),
                        coll: t.schema.columns[c].collation,
                        def: Some(t.schema.columns[c].clone()),
                    })
                    .collect();
                let i = self.add_source(sources, SourceKind::Table(t), &qual, cols)?;
                Ok((Tree::Leaf(i), self.star_of(sources, i)))
            }
            ast::TableFactor::Derived { lateral: false, subquery, alias, .. } => {
                let Some(a) = alias else {
                    return Err(SqlError::new(1248, "42000", "Every derived table must have its own alias"));
                };
                let plan = self.derived(subquery, params)?;
                let plan = Arc::new(rename_columns(plan, &a.columns)?);
                self.derived_source(sources, plan, &a.name.value, None)
            }
            ast::TableFactor::NestedJoin { table_with_joins, alias: None } => {
                self.joins(table_with_joins, sources, params)
            }
            ast::TableFactor::JsonTable { json_expr, json_path, columns, alias } => {
                self.json_table(json_expr, json_path, columns, alias.as_ref(), sources, params)
            }
            other => Err(SqlError::unsupported(format!("FROM item {other}"))),
        }
    }

    fn derived_source(
        &mut self,
        sources: &mut Vec<Source>,
        plan: Arc<QueryPlan>,
        qual: &str,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(Tree, Vec<NamedCol>)> {
        let mut names: Vec<String> = plan.columns().iter().map(|c| c.name.clone()).collect();
        if let Some(a) = alias.filter(|a| !a.columns.is_empty()) {
            if a.columns.len() != names.len() {
                return Err(SqlError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
            }
            names = a.columns.iter().map(|c| c.name.value.clone()).collect();
        }
        let mut seen = HashSet::new();
        for n in &names {
            if !seen.insert(n.to_ascii_lowercase()) {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{n}'")));
            }
        }
        let colls = result_colls(&plan);
        let cols: Vec<SlotCol> = plan
            .columns()
            .iter()
            .zip(&names)
            .zip(colls)
            .map(|((c, n), coll)| {
                let mut meta = c.clone();
                meta.name = n.clone();
                meta.org_name = n.clone();
                meta.table = qual.to_string();
                meta.org_table = qual.to_string();
                SlotCol { meta, ty: None, coll, def: None }
            })
            .collect();
        let i = self.add_source(sources, SourceKind::Derived(plan), qual, cols)?;
        Ok((Tree::Leaf(i), self.star_of(sources, i)))
    }

    pub(super) fn star_of(&mut self, sources: &[Source], i: usize) -> Vec<NamedCol> {
        let s = &sources[i];
        let level = self.level();
        level
            .cols
            .iter()
            .filter(|c| matches!(c.expr, Expr::Col(k) if k >= s.offset && k < s.offset + s.width))
            .cloned()
            .collect()
    }

    /// A FROM item with its joins, left to right.
    pub(super) fn joins(
        &mut self,
        twj: &ast::TableWithJoins,
        sources: &mut Vec<Source>,
        params: &mut usize,
    ) -> Result<(Tree, Vec<NamedCol>)> {
        let start = self.level().slot_meta.len();
        let (mut tree, mut star) = self.factor(&twj.relation, sources, params)?;
        for j in &twj.joins {
            let right_from = self.level().slot_meta.len();
            let (right, rstar) = self.factor(&j.relation, sources, params)?;
            let right_to = self.level().slot_meta.len();
            use ast::JoinOperator as J;
            let (kind, swap, c) = match &j.join_operator {
                J::Join(c) | J::Inner(c) | J::StraightJoin(c) | J::CrossJoin(c) => (JoinKind::Inner, false, c),
                J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, false, c),
                J::Right(c) | J::RightOuter(c) => (JoinKind::Left, true, c),
                other => return Err(SqlError::unsupported(format!("join {other:?}"))),
            };
            // A RIGHT JOIN's preserved side is read first: a table
            // function there may not read the other side.
            if swap {
                super::table_function::check_right_join(&sources[..], start, right_from)?;
            }
            // The outer join's inner side may come out NULL.
            if kind == JoinKind::Left {
                let (lo, hi) = if swap { (start, right_from) } else { (right_from, right_to) };
                for c in self.level().cols.iter_mut() {
                    if matches!(c.expr, Expr::Col(k) if k >= lo && k < hi) {
                        c.meta.not_null = false;
                    }
                }
            }
            let mut on = Vec::new();
            let using: Vec<String> = match c {
                ast::JoinConstraint::On(e) => {
                    on.push(self.expr(e, params, "on clause", None)?);
                    Vec::new()
                }
                ast::JoinConstraint::Using(cols) => {
                    cols.iter().map(|c| c.to_string().trim_matches('`').to_string()).collect()
                }
                ast::JoinConstraint::Natural => {
                    let visible =
                        |s: &Vec<NamedCol>| s.iter().filter(|c| !c.hidden).map(|c| c.name.clone()).collect::<Vec<_>>();
                    let r = visible(&rstar);
                    visible(&star).into_iter().filter(|n| r.iter().any(|x| x.eq_ignore_ascii_case(n))).collect()
                }
                ast::JoinConstraint::None => {
                    if kind == JoinKind::Left {
                        return Err(SqlError::syntax("LEFT / RIGHT JOIN needs ON or USING"));
                    }
                    Vec::new()
                }
            };
            let mut merged = Vec::new();
            let (mut lrest, mut rrest) = (star.clone(), rstar.clone());
            for u in &using {
                let pick = |s: &mut Vec<NamedCol>| -> Result<NamedCol> {
                    let k: Vec<usize> =
                        (0..s.len()).filter(|&k| !s[k].hidden && s[k].name.eq_ignore_ascii_case(u)).collect();
                    match k.as_slice() {
                        [k] => Ok(s.remove(*k)),
                        [] => Err(SqlError::unknown_column(u, "from clause")),
                        _ => Err(SqlError::new(1052, "23000", format!("Column '{u}' in from clause is ambiguous"))),
                    }
                };
                let l = pick(&mut lrest)?;
                let r = pick(&mut rrest)?;
                on.push(Expr::Bin(BinOp::Eq, Box::new(l.expr.clone()), Box::new(r.expr.clone())));
                let keep = if swap { &r } else { &l };
                let mut m = keep.clone();
                m.qual = String::new();
                m.hidden = false;
                merged.push(m);
                let level = self.level();
                for c in level.cols.iter_mut() {
                    if same_expr(&c.expr, &l.expr) || same_expr(&c.expr, &r.expr) {
                        c.hidden = true;
                    }
                }
                level.cols.push(merged.last().cloned().expect("pushed"));
            }
            let mut new_star = merged;
            if swap {
                new_star.extend(rrest);
                new_star.extend(lrest);
            } else {
                new_star.extend(lrest);
                new_star.extend(rrest);
            }
            star = new_star;
            let (l, r) = if swap { (right, tree) } else { (tree, right) };
            let straight = matches!(j.join_operator, J::StraightJoin(_));
            tree = Tree::Join { kind, left: Box::new(l), right: Box::new(r), on, straight };
        }
        Ok((tree, star))
    }
}

/// A common table expression in scope.
#[derive(Clone)]
enum Cte {
    Plan(Arc<QueryPlan>),
    /// A recursive CTE seen from its own step: the working table `id`,
    /// readable only from the step's own block (at `level` levels deep).
    Working {
        id: usize,
        columns: Vec<ColMeta>,
        /// The anchor's result collations.
        colls: Vec<Collation>,
        level: usize,
    },
}

/// Whether `q` reads a table called `name` (a recursive CTE's reference
/// to itself).
fn reads_table(q: &ast::Query, name: &str) -> bool {
    use std::ops::ControlFlow;
    ast::visit_relations(q, |r: &ast::ObjectName| {
        if r.0.len() == 1 && r.to_string().trim_matches('`').eq_ignore_ascii_case(name) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

impl Binder<'_> {
    /// A view named in FROM: its query bound as a derived table.
    fn view_source(
        &mut self,
        sources: &mut Vec<Source>,
        v: crate::view::ViewRef,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(Tree, Vec<NamedCol>)> {
        let key = format!("{}.{}", v.db, v.name);
        if self.views.contains(&key) {
            return Err(SqlError::new(1462, "HY000", format!("`{}`.`{}` contains view recursion", v.db, v.name)));
        }
        let (columns, query, rights) = v.parse()?;
        let temptable = v.temptable();
        self.views.push(key);
        // Inside the view, tables are read with its definer's privileges
        // (SQL SECURITY DEFINER) or the reader's (INVOKER).
        let inner_rights = rights.or_else(|| self.rights.clone());
        let outer_rights = std::mem::replace(&mut self.rights, inner_rights);
        let mut params = 0;
        self.resolver.view_scope(true);
        let plan = self.derived(&query, &mut params);
        self.resolver.view_scope(false);
        self.rights = outer_rights;
        self.views.pop();
        let mut plan = plan?;
        // ALGORITHM=TEMPTABLE: always materialised.
        if let (true, QueryPlan::Select(b)) = (temptable, &mut plan) {
            b.merge = None;
        }
        if !columns.is_empty() {
            let cols = match &mut plan {
                QueryPlan::Select(b) => &mut b.columns,
                QueryPlan::SetOp(s) => &mut s.columns,
                QueryPlan::Recursive(r) => &mut r.columns,
            };
            for (c, n) in cols.iter_mut().zip(columns) {
                c.name = n;
            }
        }
        let qual = alias.map(|a| a.name.value.clone()).unwrap_or_else(|| v.name.clone());
        let r = self.derived_source(sources, Arc::new(plan), &qual, alias)?;
        let i = sources.len() - 1;
        self.level().view_dbs.push((i, v.db.clone()));
        Ok(r)
    }

    /// `WITH RECURSIVE name AS (anchor UNION [ALL] step)`.
    fn recursive(&mut self, cte: &ast::Cte, params: &mut usize) -> Result<QueryPlan> {
        let name = cte.alias.name.value.clone();
        let q = &cte.query;
        let ast::SetExpr::SetOperation { op: ast::SetOperator::Union, set_quantifier, left, right } = &*q.body else {
            return Err(SqlError::new(
                3573,
                "HY000",
                format!("Recursive Common Table Expression '{name}' should have one or more non-recursive query blocks followed by one or more recursive ones"),
            ));
        };
        if q.order_by.is_some() || q.limit_clause.is_some() {
            return Err(SqlError::unsupported("ORDER BY / LIMIT in a recursive common table expression"));
        }
        let distinct = match set_quantifier {
            ast::SetQuantifier::All => false,
            ast::SetQuantifier::None | ast::SetQuantifier::Distinct => true,
            other => return Err(SqlError::unsupported(format!("set quantifier {other}"))),
        };
        let anchor = self.with_level(LevelKind::Barrier, |b| b.set_body(left, params))?.0;
        let anchor = rename_columns(anchor, &cte.alias.columns)?;
        let columns: Vec<ColMeta> = anchor
            .columns()
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.not_null = false;
                c
            })
            .collect();
        let id = self.next_recursive;
        self.next_recursive += 1;
        // The step's block sits under a barrier level and its own.
        let level = self.levels.len() + 2;
        // MySQL types a recursive CTE's columns by its anchor alone, their
        // collations too.
        let colls = result_colls(&anchor);
        self.ctes.push((name.clone(), Cte::Working { id, columns: columns.clone(), colls: colls.clone(), level }));
        let step = self.with_level(LevelKind::Barrier, |b| b.set_body(right, params));
        self.ctes.pop();
        let step = step?.0;
        if step.columns().len() != columns.len() {
            return Err(SqlError::new(1222, "21000", "The used SELECT statements have a different number of columns"));
        }
        Ok(QueryPlan::Recursive(Box::new(super::RecursivePlan { id, anchor, step, distinct, columns, colls })))
    }
}

/// A source's column as bound.
pub(super) struct SlotCol {
    pub(super) meta: ColMeta,
    pub(super) ty: Option<ColumnType>,
    pub(super) coll: Collation,
    /// The table column it is, if it is one.
    pub(super) def: Option<quire_engine::row::Column>,
}

/// A number literal used as a position (ORDER BY 2).
pub(super) fn position(e: &ast::Expr) -> Option<usize> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Names of a single-table UPDATE or DELETE whose expressions hold
/// subqueries: the table's columns are slots `0..n` (as `Expr::Col` of the
/// single-table path), and subqueries may capture them.
pub struct TableNames<'r> {
    b: Binder<'r>,
}

impl<'r> TableNames<'r> {
    pub fn new(t: &crate::plan::TableRef, resolver: &'r dyn Resolver) -> Self {
        let mut b = Binder::new(resolver, true);
        let qual = t.alias.clone().unwrap_or_else(|| t.name.clone());
        let level = b.level();
        level.quals.push(qual.clone());
        for (c, name) in t.columns.iter().enumerate() {
            level.cols.push(NamedCol {
                qual: qual.clone(),
                name: name.clone(),
                expr: Expr::Col(c),
                meta: ColMeta::column(t, c, name),
                hidden: false,
            });
            level.slot_meta.push(MetaType::of_column(t.schema.columns[c].ty));
            level.slot_types.push(Some(t.schema.columns[c].ty));
            level.slot_colls.push(t.schema.columns[c].collation);
            level.slot_defs.push(Some(t.schema.columns[c].clone()));
        }
        Self { b }
    }

    /// Compiles an expression over the table's columns.
    pub fn expr(&mut self, e: &ast::Expr, params: &mut usize, place: &'static str) -> Result<Expr> {
        self.b.expr(e, params, place, None)
    }
}

/// Whether an expression holds a subquery, or a `DEFAULT(col)` call
/// (which only these names can bind).
pub fn has_subquery(e: &ast::Expr) -> bool {
    super::holds_subquery(e) || crate::defaults::calls_function(e)
}
