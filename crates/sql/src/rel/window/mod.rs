//! Window functions (`f(...) OVER (...)`): ROW_NUMBER, RANK, DENSE_RANK,
//! PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE,
//! NTH_VALUE, and COUNT / SUM / AVG / MIN / MAX over a window frame.
//!
//! Binding: `expr::compile` hands each call to the block being bound
//! (`Names::window`), its arguments compiled there (they may hold the
//! block's aggregates: `SUM(SUM(x)) OVER ()`), and leaves `Expr::Window(i)`
//! in its place. Once the select list and ORDER BY are bound,
//! `Binder::windows` (`bind.rs`) resolves each call's window (inline, named in the
//! WINDOW clause, or a named one refined: `OVER (w ORDER BY x)`) into a
//! [`Spec`] (PARTITION BY and ORDER BY; calls with the same ones share it)
//! and a [`Frame`].
//!
//! Execution ([`compute`], `exec.rs`) runs after grouping and HAVING and
//! before the select list, DISTINCT, ORDER BY and LIMIT (`query::finish`),
//! over the rows materialised by then: every
//! expression the windows read is evaluated once per row; per spec the
//! row indices are sorted by (partition keys, order keys) with the sort
//! keys and collations ORDER BY uses, split into partitions, and each
//! function of the spec computed over a partition in one pass. Frame
//! aggregates slide: rows entering the frame are added and rows leaving
//! it taken back (COUNT, SUM, AVG; `query::AggState`), while MIN and MAX
//! recompute a frame whose start moved. The rows then leave in the order
//! of the last window that sorts (each sorting the order the one before
//! left), as MySQL's do, for ORDER BY (a stable sort) to reorder.
//!
//! Errors are MySQL 8.0's (MariaDB has its own codes, 4000 and up): 3593 a
//! window function out of place (WHERE, GROUP BY, HAVING, inside an
//! aggregate or another window function), 3595 one in a window's
//! PARTITION BY / ORDER BY, 3594 a window function's alias out of place,
//! 3579 an unknown window, 3591 a window defined twice, 3580 - 3583 bad
//! references between windows, 3584 - 3587 bad frames, 3592 a position
//! (`ORDER BY 1`) in a window, 1210 a bad NTILE / LAG / LEAD / NTH_VALUE
//! constant. Not built (1235): GROUPS frames, RANGE frames over dates
//! (INTERVAL), DISTINCT in a window aggregate, GROUP_CONCAT over a window.
//!
//! Invariants:
//! 1. `Expr::Window(i)` of a block is `Windows::fns[i]`, and every
//!    `WinFn::spec` indexes `Windows::specs`.
//! 2. Within a partition, frames move forward: row i+1's frame starts and
//!    ends at or after row i's (true of ROWS frames by construction and
//!    of RANGE frames because the rows are sorted by the key), which keeps
//!    the sliding aggregate's work linear in the partition (a frame that
//!    moved back would be recomputed, not summed wrongly).

mod bind;
mod exec;

use quire_engine::row::{Collation, Value};
use sqlparser::ast;

use crate::error::{Result, SqlError};
use crate::expr::{self, Agg, AggFn, Expr};
use crate::plan::{agg_type, infer, ColTypes, MetaType};

pub use exec::compute;

/// A window function call as `expr::compile` found it, its window not
/// yet resolved.
#[derive(Clone, Debug)]
pub struct Call {
    /// The function's name, lower case.
    pub name: String,
    pub args: Vec<Expr>,
    pub distinct: bool,
    /// `COUNT(*)`.
    pub star: bool,
    pub over: ast::WindowType,
}

/// 3593: a window function where none may be.
pub fn misplaced(name: &str) -> SqlError {
    SqlError::new(3593, "HY000", format!("You cannot use the window function '{name}' in this context.'"))
}

/// The name of a window function called in `args` (a window function's
/// arguments) outside their subqueries, which have windows of their own.
pub fn nested_call(args: &[ast::Expr]) -> Option<String> {
    use ast::Visit;
    use std::ops::ControlFlow;
    struct Find {
        queries: usize,
    }
    impl ast::Visitor for Find {
        type Break = String;
        fn pre_visit_query(&mut self, _: &ast::Query) -> ControlFlow<String> {
            self.queries += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &ast::Query) -> ControlFlow<String> {
            self.queries -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<String> {
            match e {
                ast::Expr::Function(f) if f.over.is_some() && self.queries == 0 => {
                    ControlFlow::Break(f.name.to_string().to_ascii_lowercase())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    let mut find = Find { queries: 0 };
    args.iter().find_map(|a| match a.visit(&mut find) {
        ControlFlow::Break(name) => Some(name),
        ControlFlow::Continue(()) => None,
    })
}

/// What a window function computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    /// COUNT / SUM / AVG / MIN / MAX over the frame.
    Agg(AggFn),
}

impl Func {
    /// Whether the function reads a frame (the others ignore one, as
    /// MySQL does).
    fn framed(self) -> bool {
        matches!(self, Func::FirstValue | Func::LastValue | Func::NthValue | Func::Agg(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    Rows,
    Range,
}

/// One end of a frame; offsets are constants (a literal or a `?`).
#[derive(Clone, Debug)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

/// `ROWS | RANGE BETWEEN start AND end`. Without a frame clause: RANGE
/// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, which is the whole
/// partition when the window has no ORDER BY (every row is a peer).
#[derive(Clone, Debug)]
pub struct Frame {
    pub units: Units,
    pub start: Bound,
    pub end: Bound,
}

/// A window's PARTITION BY and ORDER BY.
#[derive(Debug)]
pub struct Spec {
    pub partition: Vec<Expr>,
    pub partition_colls: Vec<Collation>,
    /// (key, descending)
    pub order: Vec<(Expr, bool)>,
    pub order_colls: Vec<Collation>,
}

/// A bound window function call.
#[derive(Debug)]
pub struct WinFn {
    pub func: Func,
    /// Evaluated on every row: the value argument (none for the ranking
    /// functions and COUNT(*)), then LAG / LEAD's default.
    pub args: Vec<Expr>,
    /// NTILE's bucket count, LAG / LEAD's offset, NTH_VALUE's N: a
    /// literal or a `?`.
    pub n: Option<Expr>,
    /// The aggregate of `Func::Agg` (its own `arg` unused: `args[0]` is).
    pub agg: Option<Agg>,
    /// The collation MIN / MAX compare by.
    pub coll: Collation,
    pub spec: usize,
    pub frame: Frame,
    /// The function's name and its window's, for messages.
    pub name: String,
    pub window: String,
}

impl WinFn {
    /// The result type, `t` typing the block's slots and window functions.
    pub(super) fn meta(&self, t: &dyn ColTypes, aggs: &[Agg]) -> MetaType {
        let arg = || self.args.first().map_or(MetaType::Null, |x| infer(x, Some(t), aggs));
        match self.func {
            Func::RowNumber | Func::Rank | Func::DenseRank | Func::Ntile => MetaType::Int { unsigned: false, width: 8 },
            Func::PercentRank | Func::CumeDist => MetaType::Double,
            Func::Lag | Func::Lead | Func::FirstValue | Func::LastValue | Func::NthValue => arg(),
            Func::Agg(f) => agg_type(f, arg()),
        }
    }

    /// Whether the value is never NULL.
    pub(super) fn not_null(&self) -> bool {
        matches!(
            self.func,
            Func::RowNumber | Func::Rank | Func::DenseRank | Func::Ntile | Func::Agg(AggFn::Count | AggFn::CountStar)
        )
    }
}

/// A block's window functions and the windows they run over.
#[derive(Debug, Default)]
pub struct Windows {
    pub specs: Vec<Spec>,
    pub fns: Vec<WinFn>,
}

impl Windows {
    /// Applies `f` to every expression evaluated per row: arguments,
    /// partition and order keys.
    pub(super) fn map_exprs(&mut self, f: &mut dyn FnMut(Expr) -> Result<Expr>) -> Result<()> {
        for s in &mut self.specs {
            for x in &mut s.partition {
                *x = f(std::mem::replace(x, Expr::Lit(Value::Null)))?;
            }
            for (x, _) in &mut s.order {
                *x = f(std::mem::replace(x, Expr::Lit(Value::Null)))?;
            }
        }
        for w in &mut self.fns {
            for x in &mut w.args {
                *x = f(std::mem::replace(x, Expr::Lit(Value::Null)))?;
            }
        }
        Ok(())
    }

    /// Every expression evaluated per row.
    pub(super) fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let keys = self.specs.iter().flat_map(|s| s.partition.iter().chain(s.order.iter().map(|(x, _)| x)));
        keys.chain(self.fns.iter().flat_map(|w| w.args.iter()))
    }

    /// Sets the collations keys and MIN / MAX compare by, `colls` being
    /// the block's slots' (as ORDER BY's keys get theirs).
    pub(super) fn set_collations(&mut self, colls: &[Collation]) {
        for s in &mut self.specs {
            s.partition_colls = s.partition.iter().map(|x| expr::key_collation(x, colls)).collect();
            s.order_colls = s.order.iter().map(|(x, _)| expr::key_collation(x, colls)).collect();
        }
        for w in &mut self.fns {
            w.coll = w.args.first().map_or(Collation::Utf8mb4GeneralCi, |x| expr::key_collation(x, colls));
        }
        let _ = self.map_exprs(&mut |x| Ok(expr::with_collations(x, colls)));
    }
}
