//! Window functions (`f(...) OVER (...)`): ROW_NUMBER, RANK, DENSE_RANK,
//! PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE,
//! NTH_VALUE, and COUNT / SUM / AVG / MIN / MAX over a window frame.
//!
//! Binding: `expr::compile` hands each call to the block being bound
//! (`Names::window`), its arguments compiled there (they may hold the
//! block's aggregates: `SUM(SUM(x)) OVER ()`), and leaves `Expr::Window(i)`
//! in its place. Once the select list and ORDER BY are bound,
//! [`Binder::windows`] resolves each call's window (inline, named in the
//! WINDOW clause, or a named one refined: `OVER (w ORDER BY x)`) into a
//! [`Spec`] (PARTITION BY and ORDER BY; calls with the same ones share it)
//! and a [`Frame`].
//!
//! Execution ([`compute`]) runs after grouping and HAVING and before the
//! select list, DISTINCT, ORDER BY and LIMIT (`query::finish`): every
//! expression the windows read is evaluated once per row; per spec the
//! row indices are sorted by (partition keys, order keys) with the sort
//! keys and collations ORDER BY uses, split into partitions, and each
//! function of the spec computed over a partition in one pass. Frame
//! aggregates slide: rows entering the frame are added and rows leaving
//! it taken back (COUNT, SUM, AVG; `query::AggState`), while MIN and MAX
//! recompute a frame whose start moved.
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
//!    of RANGE frames because the rows are sorted by the key), which the
//!    sliding aggregate relies on.

use quire_engine::row::{Collation, Decimal, Value};
use sqlparser::ast;

use super::bind::{position, Binder};
use crate::error::{Result, SqlError};
use crate::expr::{self, eval, to_decimal, Agg, AggFn, Env, Expr, Scope};
use crate::plan::{agg_type, infer, ColTypes, MetaType};
use crate::query::{cmp_keys, sort_key, AggEnv, AggState, GroupedRow, SortKey};

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

/// How MySQL names a window without a name in messages.
const UNNAMED: &str = "<unnamed window>";

/// A window with the named windows it refines folded in.
struct Resolved<'q> {
    /// Its name for messages.
    name: String,
    partition: &'q [ast::Expr],
    order: &'q [ast::OrderByExpr],
    frame: Option<&'q ast::WindowFrame>,
}

/// The definition of the named window `name` (3579 when there is none).
fn lookup<'q>(named: &'q [ast::NamedWindowDefinition], name: &str) -> Result<&'q ast::WindowSpec> {
    match named.iter().find(|d| d.0.value.eq_ignore_ascii_case(name)) {
        Some(ast::NamedWindowDefinition(_, ast::NamedWindowExpr::WindowSpec(s))) => Ok(s),
        Some(_) => Err(SqlError::unsupported("WINDOW w AS other_window")),
        None => Err(SqlError::new(3579, "HY000", format!("Window name '{name}' is not defined."))),
    }
}

/// Folds the windows `spec` refers to into it, with MySQL's rules: the
/// referring window adds an ORDER BY (if the other has none) and a frame,
/// never a PARTITION BY, and the window referred to has no frame.
fn resolve<'q>(
    spec: &'q ast::WindowSpec,
    name: &str,
    named: &'q [ast::NamedWindowDefinition],
    depth: usize,
) -> Result<Resolved<'q>> {
    let Some(base_name) = &spec.window_name else {
        return Ok(Resolved {
            name: name.to_string(),
            partition: &spec.partition_by,
            order: &spec.order_by,
            frame: spec.window_frame.as_ref(),
        });
    };
    if depth > named.len() {
        return Err(SqlError::new(3580, "HY000", "There is a circularity in the window dependency graph."));
    }
    let base_name = &base_name.value;
    let base = resolve(lookup(named, base_name)?, base_name, named, depth + 1)?;
    if !spec.partition_by.is_empty() {
        return Err(SqlError::new(3581, "HY000", "A window which depends on another cannot define partitioning."));
    }
    if base.frame.is_some() {
        return Err(SqlError::new(
            3582,
            "HY000",
            format!("Window '{base_name}' has a frame definition, so cannot be referenced by another window."),
        ));
    }
    if !spec.order_by.is_empty() && !base.order.is_empty() {
        return Err(SqlError::new(
            3583,
            "HY000",
            format!("Window '{name}' cannot inherit '{base_name}' since both contain an ORDER BY clause."),
        ));
    }
    let order = if spec.order_by.is_empty() { base.order } else { &spec.order_by };
    Ok(Resolved { name: name.to_string(), partition: base.partition, order, frame: spec.window_frame.as_ref() })
}

/// 3586: a frame offset that is negative, NULL or (ROWS) not an integer.
fn bad_offset(window: &str) -> SqlError {
    SqlError::new(
        3586,
        "HY000",
        format!("Window '{window}': frame start or end is negative, NULL or of non-integral type"),
    )
}

/// A frame offset's value: a non-negative number, an integer for ROWS.
fn offset_value(v: &Value, units: Units, window: &str) -> Result<Decimal> {
    let d = match v {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => to_decimal(v),
        _ => None,
    };
    match d {
        Some(d) if d.coef >= 0 && (units == Units::Range || d.rescale(0).is_some_and(|r| r.cmp(&d).is_eq())) => Ok(d),
        _ => Err(bad_offset(window)),
    }
}

/// NTILE's bucket count, LAG / LEAD's offset or NTH_VALUE's N: a
/// non-negative integer (positive but for LAG / LEAD), else 1210.
fn n_value(f: Func, v: &Value, name: &str) -> Result<usize> {
    let n = match v {
        Value::Int(_) | Value::UInt(_) => expr::to_i128(v),
        Value::Decimal(d) if d.rescale(0).is_some_and(|r| r.cmp(d).is_eq()) => expr::to_i128(v),
        _ => None,
    };
    let least = if matches!(f, Func::Lag | Func::Lead) { 0 } else { 1 };
    match n {
        Some(n) if n >= least => Ok(n.min(usize::MAX as i128) as usize),
        _ => Err(SqlError::wrong_arguments(name)),
    }
}

impl Binder<'_> {
    /// Resolves the window function calls of a block (`calls`, in
    /// `Expr::Window` order) against its WINDOW clause; partition and
    /// order keys may add aggregates to `aggs`.
    pub(super) fn windows(
        &mut self,
        calls: Vec<Call>,
        named: &[ast::NamedWindowDefinition],
        params: &mut usize,
        aggs: &mut Vec<Agg>,
    ) -> Result<Windows> {
        for (i, d) in named.iter().enumerate() {
            let name = &d.0.value;
            if named[..i].iter().any(|o| o.0.value.eq_ignore_ascii_case(name)) {
                return Err(SqlError::new(3591, "HY000", format!("Window '{name}' is defined twice.")));
            }
            resolve(lookup(named, name)?, name, named, 0)?;
        }
        let mut w = Windows::default();
        // The specs' keys as text, to share a spec between calls.
        let mut shapes: Vec<String> = Vec::new();
        for call in calls {
            let over = call.over.clone();
            let r = match &over {
                ast::WindowType::NamedWindow(id) => resolve(lookup(named, &id.value)?, &id.value, named, 0)?,
                ast::WindowType::WindowSpec(s) => resolve(s, UNNAMED, named, 0)?,
            };
            let mut partition = Vec::new();
            for e in r.partition {
                partition.push(self.window_key(e, &r.name, params, "window partition by", aggs)?);
            }
            let mut order = Vec::new();
            for o in r.order {
                let x = self.window_key(&o.expr, &r.name, params, "window order by", aggs)?;
                order.push((x, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
            }
            let frame = self.frame(r.frame, &r.name, &order, params, aggs)?;
            let shape = format!("{partition:?} {order:?}");
            let spec = match shapes.iter().position(|s| *s == shape) {
                Some(i) => i,
                None => {
                    shapes.push(shape);
                    w.specs.push(Spec { partition, partition_colls: Vec::new(), order, order_colls: Vec::new() });
                    w.specs.len() - 1
                }
            };
            w.fns.push(win_fn(call, spec, frame, r.name)?);
        }
        Ok(w)
    }

    /// A PARTITION BY or ORDER BY key of window `window`.
    fn window_key(
        &mut self,
        e: &ast::Expr,
        window: &str,
        params: &mut usize,
        place: &'static str,
        aggs: &mut Vec<Agg>,
    ) -> Result<Expr> {
        if position(e).is_some() {
            return Err(SqlError::new(
                3592,
                "HY000",
                format!("Window '{window}': ORDER BY or PARTITION BY uses legacy position indication which is not supported, use expression."),
            ));
        }
        self.expr(e, params, place, Some(aggs)).map_err(|err| {
            if err.code == 3593 {
                SqlError::new(
                    3595,
                    "HY000",
                    format!("You cannot nest a window function in the specification of window '{window}'."),
                )
            } else {
                err
            }
        })
    }

    fn frame(
        &mut self,
        f: Option<&ast::WindowFrame>,
        window: &str,
        order: &[(Expr, bool)],
        params: &mut usize,
        aggs: &[Agg],
    ) -> Result<Frame> {
        let Some(f) = f else {
            return Ok(Frame { units: Units::Range, start: Bound::UnboundedPreceding, end: Bound::CurrentRow });
        };
        let units = match f.units {
            ast::WindowFrameUnits::Rows => Units::Rows,
            ast::WindowFrameUnits::Range => Units::Range,
            ast::WindowFrameUnits::Groups => return Err(SqlError::unsupported("GROUPS frames")),
        };
        let start = frame_bound(&f.start_bound, units, window, params)?;
        let end = match &f.end_bound {
            Some(b) => frame_bound(b, units, window, params)?,
            None => Bound::CurrentRow,
        };
        if matches!(start, Bound::UnboundedFollowing) {
            return Err(SqlError::new(
                3584,
                "HY000",
                format!("Window '{window}': frame start cannot be UNBOUNDED FOLLOWING."),
            ));
        }
        if matches!(end, Bound::UnboundedPreceding) {
            return Err(SqlError::new(
                3585,
                "HY000",
                format!("Window '{window}': frame end cannot be UNBOUNDED PRECEDING."),
            ));
        }
        let offset = |b: &Bound| matches!(b, Bound::Preceding(_) | Bound::Following(_));
        if units == Units::Range && (offset(&start) || offset(&end)) {
            let bad_order = || {
                SqlError::new(
                    3587,
                    "HY000",
                    format!("Window '{window}' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type"),
                )
            };
            let [(key, _)] = order else { return Err(bad_order()) };
            let level = self.levels.last().ok_or_else(|| SqlError::internal("no block level"))?;
            match infer(key, Some(level as &dyn ColTypes), aggs) {
                MetaType::Str { .. } | MetaType::Text => return Err(bad_order()),
                MetaType::Date | MetaType::DateTime { .. } | MetaType::Timestamp { .. } => {
                    return Err(SqlError::unsupported("RANGE frames over dates (INTERVAL)"));
                }
                _ => {}
            }
        }
        Ok(Frame { units, start, end })
    }
}

/// One end of a frame as written.
fn frame_bound(b: &ast::WindowFrameBound, units: Units, window: &str, params: &mut usize) -> Result<Bound> {
    let (e, preceding) = match b {
        ast::WindowFrameBound::CurrentRow => return Ok(Bound::CurrentRow),
        ast::WindowFrameBound::Preceding(None) => return Ok(Bound::UnboundedPreceding),
        ast::WindowFrameBound::Following(None) => return Ok(Bound::UnboundedFollowing),
        ast::WindowFrameBound::Preceding(Some(e)) => (e, true),
        ast::WindowFrameBound::Following(Some(e)) => (e, false),
    };
    if matches!(**e, ast::Expr::Interval(_)) {
        return Err(SqlError::unsupported("RANGE frames over dates (INTERVAL)"));
    }
    let mut scope = Scope { table: None, columns: &[], aggs: None, params: *params, place: "window frame", rel: None };
    let x = expr::compile(e, &mut scope).map_err(|_| bad_offset(window))?;
    *params = scope.params;
    match &x {
        Expr::Lit(v) => {
            offset_value(v, units, window)?;
        }
        Expr::Param(_) => {}
        _ => return Err(bad_offset(window)),
    }
    Ok(if preceding { Bound::Preceding(x) } else { Bound::Following(x) })
}

/// A call resolved against its window: the function, its arguments
/// checked as MySQL's grammar and rules check them.
fn win_fn(call: Call, spec: usize, frame: Frame, window: String) -> Result<WinFn> {
    let Call { name, mut args, distinct, star, .. } = call;
    let func = match name.as_str() {
        "row_number" => Func::RowNumber,
        "rank" => Func::Rank,
        "dense_rank" => Func::DenseRank,
        "percent_rank" => Func::PercentRank,
        "cume_dist" => Func::CumeDist,
        "ntile" => Func::Ntile,
        "lag" => Func::Lag,
        "lead" => Func::Lead,
        "first_value" => Func::FirstValue,
        "last_value" => Func::LastValue,
        "nth_value" => Func::NthValue,
        "count" if star => Func::Agg(AggFn::CountStar),
        "count" => Func::Agg(AggFn::Count),
        "sum" => Func::Agg(AggFn::Sum),
        "avg" => Func::Agg(AggFn::Avg),
        "min" => Func::Agg(AggFn::Min),
        "max" => Func::Agg(AggFn::Max),
        "group_concat" => return Err(SqlError::unsupported("GROUP_CONCAT as a window function")),
        _ => return Err(SqlError::syntax(format!("{name}() cannot have an OVER clause"))),
    };
    if distinct {
        return Err(SqlError::unsupported(format!("{}(DISTINCT ...) as a window function", name.to_uppercase())));
    }
    if star && func != Func::Agg(AggFn::CountStar) {
        return Err(SqlError::syntax(format!("{name}(*)")));
    }
    let (least, most) = match func {
        Func::RowNumber | Func::Rank | Func::DenseRank | Func::PercentRank | Func::CumeDist => (0, 0),
        Func::Agg(AggFn::CountStar) => (0, 0),
        Func::Ntile | Func::FirstValue | Func::LastValue | Func::Agg(_) => (1, 1),
        Func::Lag | Func::Lead => (1, 3),
        Func::NthValue => (2, 2),
    };
    if args.len() < least || args.len() > most {
        return Err(SqlError::syntax(format!("wrong number of arguments to {name}()")));
    }
    let n = match func {
        Func::Ntile => Some(args.remove(0)),
        Func::Lag | Func::Lead | Func::NthValue if args.len() >= 2 => Some(args.remove(1)),
        _ => None,
    };
    match &n {
        Some(Expr::Lit(v)) => {
            n_value(func, v, &name)?;
        }
        Some(Expr::Param(_)) | None => {}
        Some(_) => return Err(SqlError::wrong_arguments(&name)),
    }
    let agg = match func {
        Func::Agg(f) => Some(Agg {
            func: f,
            arg: None,
            distinct: false,
            more: Vec::new(),
            order: Vec::new(),
            separator: String::new(),
        }),
        _ => None,
    };
    Ok(WinFn { func, args, n, agg, coll: Collation::Utf8mb4GeneralCi, spec, frame, name, window })
}

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

/// A DOUBLE result (PERCENT_RANK, CUME_DIST), held as the decimal of its
/// shortest text, which the protocol turns back into the same double.
/// (MySQL 8.0 prints it so, `0.5`; MariaDB prints ten decimals,
/// `0.5000000000`.)
fn double(x: f64) -> Value {
    Decimal::parse(&format!("{x}")).map_or(Value::Null, Value::Decimal)
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

    fn part(keys: &[Option<i64>], desc: bool) -> (Vec<usize>, Vec<Vec<SortKey>>, Vec<Value>) {
        let vals: Vec<Value> = keys.iter().map(|k| k.map_or(Value::Null, Value::Int)).collect();
        let sk = vals.iter().map(|v| vec![sort_key(v, Collation::Utf8mb4GeneralCi)]).collect();
        ((0..keys.len()).collect(), sk, vals)
    }

    #[test]
    fn range_offsets_skip_nulls_and_null_rows_frame_their_peers() {
        // Ascending: NULL, 1, 1, 2, 4.
        let (rows, sk, first) = part(&[None, Some(1), Some(1), Some(2), Some(4)], false);
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
        let (rows, sk, first) = part(&[Some(4), Some(2), Some(1), None], true);
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
