//! The general query engine: queries of several tables (joins), derived
//! tables and common table expressions, subqueries in expressions, and
//! set operations (UNION / EXCEPT / INTERSECT).
//!
//! A query is bound once (`bind`) into a [`QueryPlan`]: a tree of SELECT
//! blocks and set operations. A block reads its FROM clause as a join
//! tree ([`Node`]) over sources ([`Source`]: base tables, materialised
//! derived tables, JSON_TABLE); every source's columns have fixed slots in one wide
//! row, so expressions anywhere in the block address columns by slot
//! (`Expr::Col(slot)`). Execution (`exec`) walks the join tree with
//! nested loops, pushing each joined row on to the block's consumer: a
//! source is read by an index lookup when a join or WHERE term bounds one
//! of its indexes from the slots bound before it, from a hash table built
//! once when an equality joins it and no index helps, else by rescanning.
//!
//! A block's grouping, HAVING, window functions (`window`: bound here,
//! computed over the grouped rows), select list, DISTINCT, ORDER BY and
//! LIMIT run in `query::finish`; GROUP BY ... WITH ROLLUP adds the
//! super-aggregate rows there, the binder pointing expressions at their
//! rolled-up values (`rollup`).
//!
//! Single-table statements without subqueries, window functions or WITH
//! ROLLUP keep the planner of `query.rs`, the hot path of OLTP clients;
//! `needs_general` decides.
//!
//! Invariants:
//! 1. A block's slots are allocated in FROM order; `Block::width` is
//!    their count. Every `Expr::Col(i)` of a block has `i < width`.
//! 2. A WHERE or ON term is evaluated at the first point of the join
//!    tree where every slot it reads is bound and no outer join between
//!    it and that point could still turn those slots to NULL.
//! 3. A correlated subquery reads the rows around it only through its
//!    captures (`Expr::Outer(k)` is `captures[k]` evaluated on the
//!    enclosing row), so it can run, and be cached, apart from them.

pub mod bind;
pub mod exec;
mod join;
mod merge;
mod rollup;
mod select;
mod semijoin;
mod spill;
pub mod table_function;
pub mod window;

use std::sync::Arc;

use quire_engine::row::Collation;
use quire_engine::txn::lock::LockMode;
use sqlparser::ast;

use crate::expr::{Agg, Expr};
use crate::plan::{Access, ColMeta, TableRef};

/// Adds the slots `e` reads to `out` (a subquery's through its captures).
pub fn slots_of(e: &Expr, out: &mut Vec<usize>) {
    join::slots(e, out)
}

/// A bound query expression.
#[derive(Debug)]
pub enum QueryPlan {
    Select(Box<Block>),
    SetOp(Box<SetOpPlan>),
    /// A recursive common table expression's query.
    Recursive(Box<RecursivePlan>),
}

/// `anchor UNION [ALL] step`, where `step` reads the rows the previous
/// round produced (`SourceKind::Working`) until a round adds none.
#[derive(Debug)]
pub struct RecursivePlan {
    /// Names the working table the step reads.
    pub id: usize,
    pub anchor: QueryPlan,
    pub step: QueryPlan,
    /// UNION DISTINCT: a row already produced is not produced again.
    pub distinct: bool,
    pub columns: Vec<ColMeta>,
    pub colls: Vec<Collation>,
}

impl QueryPlan {
    pub fn columns(&self) -> &[ColMeta] {
        match self {
            QueryPlan::Select(b) => &b.columns,
            QueryPlan::SetOp(s) => &s.columns,
            QueryPlan::Recursive(r) => &r.columns,
        }
    }

    /// FOR UPDATE / FOR SHARE of the outermost block.
    pub fn lock(&self) -> Option<LockMode> {
        match self {
            QueryPlan::Select(b) => b.lock,
            QueryPlan::SetOp(_) | QueryPlan::Recursive(_) => None,
        }
    }

    /// NOWAIT / SKIP LOCKED of the top block's locking read.
    pub fn lock_wait(&self) -> quire_engine::table::LockWait {
        match self {
            QueryPlan::Select(b) => b.lock_wait,
            QueryPlan::SetOp(_) | QueryPlan::Recursive(_) => quire_engine::table::LockWait::Wait,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Except,
    Intersect,
}

/// `left op right`, then ORDER BY / LIMIT over the whole.
#[derive(Debug)]
pub struct SetOpPlan {
    pub op: SetOpKind,
    /// ALL: duplicates kept (UNION ALL) or counted (EXCEPT / INTERSECT ALL).
    pub all: bool,
    pub left: QueryPlan,
    pub right: QueryPlan,
    pub columns: Vec<ColMeta>,
    /// Collations the result columns compare by (DISTINCT).
    pub colls: Vec<Collation>,
    /// Keys over the result row.
    pub order: Vec<(Expr, bool)>,
    pub order_colls: Vec<Collation>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
}

/// Where a block's rows come from.
#[derive(Clone, Debug)]
pub enum SourceKind {
    Table(TableRef),
    /// A derived table or a reference to a common table expression:
    /// materialised once per execution.
    Derived(Arc<QueryPlan>),
    /// A recursive CTE's reference to itself in its step: the rows of the
    /// previous round (`RecursivePlan::id`).
    Working(usize),
    /// An information_schema table: its rows made from the catalog at
    /// execution (`infoschema`), then read as a derived table's.
    System(crate::infoschema::View),
    /// JSON_TABLE: the rows of a document evaluated on the slots bound
    /// before it (`table_function.rs`), produced per row of the sources
    /// it reads.
    JsonTable(Arc<table_function::TableFunction>),
}

/// One FROM item, its slots `offset .. offset + width` of the block's row.
#[derive(Clone, Debug)]
pub struct Source {
    pub kind: SourceKind,
    /// The name columns are qualified by (alias or table name).
    pub name: String,
    pub offset: usize,
    pub width: usize,
    /// How the source is read, from the terms pushed to it.
    pub access: Access,
    /// Terms evaluated on each row it yields (with every slot bound
    /// before it, and its own).
    pub filter: Vec<Expr>,
    /// Equality join keys when read through a hash table: (this source's
    /// side, the other side evaluated on the slots bound before it).
    pub hash_keys: Vec<(Expr, Expr)>,
    /// The collations the hash keys compare by.
    pub hash_colls: Vec<Collation>,
    /// Terms over this source's slots alone, applied when its hash table
    /// is built.
    pub local: Vec<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    /// LEFT OUTER (RIGHT joins are bound as LEFT joins, sides swapped).
    Left,
    /// Each left row at most once, when the right side has a row for it
    /// (`EXISTS`, `IN`: `semijoin.rs`).
    Semi,
    /// Each left row for which the right side has no row (`NOT EXISTS`,
    /// `NOT IN` over NOT NULL columns).
    Anti,
}

/// The join tree of a block.
#[derive(Debug)]
pub enum Node {
    /// A source, by index in `Block::sources`.
    Leaf(usize),
    Join {
        kind: JoinKind,
        left: Box<Node>,
        right: Box<Node>,
        /// Slots of the right side (NULL when a LEFT join finds no match).
        right_slots: Vec<(usize, usize)>,
    },
    /// Terms evaluated on the rows of `input` (those placed after an
    /// outer join that could not go further down).
    Filter { input: Box<Node>, terms: Vec<Expr> },
}

/// A bound SELECT block.
#[derive(Debug)]
pub struct Block {
    pub sources: Vec<Source>,
    /// `None`: no FROM clause (one empty row).
    pub tree: Option<Node>,
    pub width: usize,
    /// WHERE terms that could not be pushed into the tree.
    pub filter: Vec<Expr>,
    pub items: Vec<Expr>,
    pub columns: Vec<ColMeta>,
    pub aggs: Vec<Agg>,
    pub agg_colls: Vec<Collation>,
    pub group_by: Vec<Expr>,
    pub group_colls: Vec<Collation>,
    /// GROUP BY ... WITH ROLLUP.
    pub rollup: bool,
    pub having: Option<Expr>,
    /// Window functions of the select list and ORDER BY.
    pub windows: window::Windows,
    pub distinct: bool,
    pub item_colls: Vec<Collation>,
    pub order: Vec<(Expr, bool)>,
    pub order_colls: Vec<Collation>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    pub lock: Option<LockMode>,
    /// NOWAIT / SKIP LOCKED of the locking read.
    pub lock_wait: quire_engine::table::LockWait,
    /// Which columns determine which (ONLY_FULL_GROUP_BY; also read by
    /// the blocks that use this one as a derived table).
    pub fd: crate::group_check::Fd,
    /// Its parts before join planning, when it is a derived table's block
    /// that the block reading it may merge (`merge.rs`).
    pub merge: Option<Box<merge::Mergeable>>,
    /// A subquery's block that the block around it may take in as a
    /// semi-join: its FROM and WHERE as bound (`semijoin.rs`).
    pub pullable: Option<Box<semijoin::Pullable>>,
}

/// A subquery of an expression: its plan and what it reads of the rows
/// around it.
#[derive(Debug)]
pub struct Subquery {
    /// Per statement: results of uncorrelated subqueries are kept by it.
    pub id: usize,
    pub plan: QueryPlan,
    /// Expressions of the enclosing block (or outer captures of it),
    /// evaluated on its row: the subquery's `Expr::Outer(k)` values.
    pub captures: Vec<Expr>,
}

/// A query compiled by this engine, ready to run per execution.
#[derive(Debug)]
pub struct Compiled {
    pub plan: QueryPlan,
    /// Whether some block reads a table (the statement needs a
    /// transaction).
    pub reads_tables: bool,
    /// Number of `?` markers.
    pub params: usize,
    /// What ONLY_FULL_GROUP_BY refuses in some block (`group_check`).
    pub group_error: Option<crate::error::SqlError>,
    /// SELECT SQL_CALC_FOUND_ROWS (`Exec::run_counted`).
    pub calc_found_rows: bool,
}

/// Whether a compiled query could be merged into a block reading it as
/// a view (`merge.rs`): CREATE VIEW ALGORITHM=MERGE's test.
pub fn mergeable_plan(plan: &QueryPlan) -> bool {
    matches!(plan, QueryPlan::Select(b) if merge::shape_mergeable(b))
}

/// Binds and plans `q`.
pub fn compile(mut q: ast::Query, r: &dyn crate::query::Resolver) -> crate::error::Result<Compiled> {
    let calc_found_rows = crate::query::calc_found_rows(&q)?;
    let params = bind::number_params(&mut q);
    let (plan, reads_tables, group_error) = bind::bind_query(&q, r)?;
    Ok(Compiled { plan, reads_tables, params, group_error, calc_found_rows })
}

/// Whether a query needs this engine rather than `query.rs`'s
/// single-table planner: several FROM items or joins, a derived table, a
/// set operation, WITH, a subquery anywhere, window functions, WITH
/// ROLLUP or GROUPING().
pub fn needs_general(q: &ast::Query) -> bool {
    if q.with.is_some() {
        return true;
    }
    let simple_body = match &*q.body {
        ast::SetExpr::Select(s) => match s.from.as_slice() {
            [] => true,
            [twj] => twj.joins.is_empty() && matches!(twj.relation, ast::TableFactor::Table { .. }),
            _ => false,
        },
        ast::SetExpr::Query(inner) => return needs_general(inner),
        _ => false,
    };
    !simple_body || holds_subquery(q) || holds_window_or_rollup(q)
}

/// Whether a query holds a window function, a WINDOW clause, GROUP BY
/// ... WITH ROLLUP (or another GROUP BY modifier), GROUPING() or
/// DEFAULT(col).
fn holds_window_or_rollup(q: &ast::Query) -> bool {
    use ast::Visit;
    use std::ops::ControlFlow;
    struct Find;
    impl ast::Visitor for Find {
        type Break = ();
        fn pre_visit_select(&mut self, s: &ast::Select) -> ControlFlow<()> {
            let modified = matches!(&s.group_by, ast::GroupByExpr::Expressions(_, m) if !m.is_empty());
            if modified || !s.named_window.is_empty() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Function(f)
                    if f.over.is_some()
                        || f.name.to_string().eq_ignore_ascii_case("grouping")
                        || f.name.to_string().eq_ignore_ascii_case("default") =>
                {
                    // DEFAULT(col) too: only the general engine's names know
                    // the column definitions (`defaults.rs`).
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    q.visit(&mut Find).is_break()
}

/// Whether a query or expression holds a subquery anywhere.
pub fn holds_subquery<V: ast::Visit>(v: &V) -> bool {
    use std::ops::ControlFlow;
    struct FindSub;
    impl ast::Visitor for FindSub {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    v.visit(&mut FindSub).is_break()
}
