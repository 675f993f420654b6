//! Taking a [`Hint`] from the terms placed on an information_schema
//! source: `TABLE_SCHEMA = <constant>` / `IN (<constants>)` (and the
//! table name's likewise), so that a query about one schema or table
//! builds only its rows. A constant is a literal, a `?` marker, or a
//! function of them (`DATABASE()`); anything reading a row or the rows
//! around the query is not one.

use crate::expr::{eval, BinOp, Env, Expr};

use super::{Hint, View};

/// The hint `terms` give for source `v` whose slots start at `offset`.
pub fn of_terms<'t>(v: View, offset: usize, terms: impl Iterator<Item = &'t Expr>, env: &dyn Env) -> Hint {
    let (schema, table) = v.key_columns();
    let mut hint = Hint::default();
    for t in terms {
        for (col, out) in [(schema, &mut hint.schema), (table, &mut hint.table)] {
            let Some(col) = col else { continue };
            if out.is_none() {
                *out = values(t, offset + col, env);
            }
        }
    }
    hint
}

/// The names `t` restricts slot `slot` to, if it is such a term.
fn values(t: &Expr, slot: usize, env: &dyn Env) -> Option<Vec<String>> {
    let is_slot = |e: &Expr| matches!(e, Expr::Col(k) if *k == slot);
    let list: Vec<&Expr> = match t {
        Expr::Bin(BinOp::Eq, l, r) if is_slot(l) => vec![&**r],
        Expr::Bin(BinOp::Eq, l, r) if is_slot(r) => vec![&**l],
        Expr::InList { expr, list, negated: false, .. } if is_slot(expr) => list.iter().collect(),
        _ => return None,
    };
    list.into_iter()
        .map(|e| {
            if !constant(e) {
                return None;
            }
            match eval(e, &[], env).ok()? {
                quire_engine::row::Value::Null => Some(None),
                v => Some(Some(crate::expr::as_string(&v))),
            }
        })
        .collect::<Option<Vec<Option<String>>>>()
        .map(|v| v.into_iter().flatten().collect())
}

fn constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Param(_) => true,
        Expr::Func(_, args) => args.iter().all(|a| matches!(a, Expr::Lit(_) | Expr::Param(_))),
        _ => false,
    }
}
