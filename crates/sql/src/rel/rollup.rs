//! GROUP BY ... WITH ROLLUP and GROUPING(), as bound.
//!
//! `query::group` gives each row of a block WITH ROLLUP its aggregates'
//! values followed by the values of its n grouping expressions (NULL
//! where the row rolls them up) and then n flags (1 where it does). The
//! binder points the expressions evaluated on grouped rows (select list,
//! HAVING, ORDER BY, window arguments and keys) there:
//!
//! - a grouping expression that is not a plain column (`GROUP BY a + 1`)
//!   becomes `Expr::Agg(aggs + p)`, its group's value; a plain column is
//!   left alone, since `query::group` sets it NULL in the representative
//!   row of a super-aggregate row (which also reaches the captures of
//!   subqueries);
//! - `GROUPING(e1, ..., ek)` becomes `2^(k-1) * flag(e1) + ... + flag(ek)`
//!   (MySQL's bit mask), each `ei` having to be a grouping expression
//!   (3602 otherwise).
//!
//! GROUPING() anywhere else (WHERE, GROUP BY, a block without ROLLUP) is
//! 1111, "Invalid use of group function".
//!
//! Expressions match by structure (their compiled form printed), as
//! MySQL matches them by their text.

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::expr::{any_expr, map_expr, BinOp, Expr};

fn is_grouping(e: &Expr) -> bool {
    matches!(e, Expr::Func(name, _) if name == "grouping")
}

/// Whether `e` calls GROUPING().
pub(super) fn holds_grouping(e: &Expr) -> bool {
    any_expr(e, &is_grouping)
}

/// 1111: GROUPING() outside the select list, HAVING and ORDER BY of a
/// block WITH ROLLUP.
pub(super) fn misplaced_grouping() -> SqlError {
    SqlError::new(1111, "HY000", "Invalid use of group function")
}

/// Points `e` at the ROLLUP values of its group (see the module's note);
/// `group_by` are the block's grouping expressions and `aggs` its count
/// of aggregates.
pub(super) fn rewrite(e: Expr, group_by: &[Expr], aggs: usize) -> Result<Expr> {
    let shapes: Vec<String> = group_by.iter().map(|g| format!("{g:?}")).collect();
    let n = group_by.len();
    let find = |x: &Expr| {
        let shape = format!("{x:?}");
        shapes.iter().position(|s| *s == shape)
    };
    map_expr(e, &mut |x| {
        if let Expr::Func(name, args) = x {
            if name == "grouping" {
                return Some(grouping(args, &find, aggs + n));
            }
        }
        if matches!(x, Expr::Col(_)) {
            return None;
        }
        find(x).map(|p| Ok(Expr::Agg(aggs + p)))
    })
}

/// GROUPING(args) as a sum of the flags at `flags + p`.
fn grouping(args: &[Expr], find: &dyn Fn(&Expr) -> Option<usize>, flags: usize) -> Result<Expr> {
    let mut acc: Option<Expr> = None;
    for (k, a) in args.iter().enumerate() {
        let Some(p) = find(a) else {
            return Err(SqlError::new(
                3602,
                "HY000",
                format!("Argument #{} of GROUPING function is not in GROUP BY", k + 1),
            ));
        };
        let flag = Expr::Agg(flags + p);
        acc = Some(match acc {
            None => flag,
            Some(prev) => Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Bin(BinOp::Mul, Box::new(prev), Box::new(Expr::Lit(Value::Int(2))))),
                Box::new(flag),
            ),
        });
    }
    acc.ok_or_else(|| SqlError::syntax("GROUPING() needs an argument"))
}
