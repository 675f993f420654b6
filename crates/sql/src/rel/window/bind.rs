//! Binding a block's window function calls to their windows (see the
//! parent module): named windows folded in, keys compiled, frames and
//! constant arguments checked, calls with equal keys sharing a spec.

use quire_engine::row::{Collation, Decimal, Value};
use sqlparser::ast;

use super::{Bound, Call, Frame, Func, Spec, Units, WinFn, Windows};
use crate::error::{Result, SqlError};
use crate::expr::{self, to_decimal, Agg, AggFn, Expr, Scope};
use crate::plan::{infer, ColTypes, MetaType};
use crate::rel::bind::{position, Binder};

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
pub(super) fn offset_value(v: &Value, units: Units, window: &str) -> Result<Decimal> {
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
pub(super) fn n_value(f: Func, v: &Value, name: &str) -> Result<usize> {
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
    pub(in crate::rel) fn windows(
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
        "json_arrayagg" | "json_objectagg" => {
            return Err(SqlError::unsupported(format!("{} as a window function", name.to_uppercase())))
        }
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
