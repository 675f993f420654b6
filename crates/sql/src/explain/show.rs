//! Compiled expressions as EXPLAIN FORMAT=TREE prints conditions and
//! keys, in MySQL's `Item::print` style: `(t.b > 3)`, `((t.a = 1) and
//! (t.c < 5))`, `count(0)`, `(select #2)`. Columns are named through the
//! block's slots, parameters (`?`, and the literals a normalised plan
//! holds as parameters) by their values, a subquery's outer references
//! by the enclosing block's expression.

use std::cell::RefCell;
use std::collections::HashMap;

use quire_engine::row::Value;

use crate::expr::{eval, Agg, AggFn, BinOp, Env, Expr, SubKind};

/// What naming a block's expressions needs.
pub struct Names<'a> {
    /// `alias.column` of a slot.
    pub slot: &'a dyn Fn(usize) -> String,
    /// Text of the block's captured outer values (`Expr::Outer(k)`).
    pub outer: &'a [String],
    pub aggs: &'a [Agg],
    /// Names of the block's window functions.
    pub windows: &'a [String],
    pub env: &'a dyn Env,
    /// Select numbers of subqueries, by subquery id (assigned when first
    /// met, see [`Numbers`]).
    pub numbers: &'a Numbers,
}

/// MySQL's select numbers (`#N`), handed out in the order blocks and
/// subqueries are met.
#[derive(Default)]
pub struct Numbers {
    next: RefCell<u64>,
    subqueries: RefCell<HashMap<usize, u64>>,
}

impl Numbers {
    /// A new number for a block.
    pub fn fresh(&self) -> u64 {
        let mut n = self.next.borrow_mut();
        *n += 1;
        *n
    }

    /// The number of subquery `id` (fresh on first use).
    pub fn subquery(&self, id: usize) -> u64 {
        if let Some(n) = self.subqueries.borrow().get(&id) {
            return *n;
        }
        let n = self.fresh();
        self.subqueries.borrow_mut().insert(id, n);
        n
    }
}

pub(crate) fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::IntDiv => "div",
        BinOp::Mod => "%",
        BinOp::Eq => "=",
        BinOp::NullSafeEq => "<=>",
        BinOp::Ne => "<>",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
    }
}

/// A value as a literal.
pub fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => v.to_string(),
        other => format!("'{}'", other.to_string().replace('\'', "''")),
    }
}

fn list(xs: &[Expr], n: &Names<'_>) -> String {
    xs.iter().map(|x| expr(x, n)).collect::<Vec<_>>().join(",")
}

/// The text of `e`.
pub fn expr(e: &Expr, n: &Names<'_>) -> String {
    match e {
        Expr::Lit(v) => literal(v),
        Expr::Param(_) => eval(e, &[], n.env).map_or_else(|_| "?".into(), |v| literal(&v)),
        Expr::Col(s) => (n.slot)(*s),
        Expr::Bin(op, l, r) => format!("({} {} {})", expr(l, n), op_text(*op), expr(r, n)),
        Expr::Chain(first, steps) => {
            let mut s = expr(first, n);
            for st in steps {
                s = format!("({s} {} {})", op_text(st.op), expr(&st.rhs, n));
            }
            s
        }
        Expr::Not(x) => format!("(not({}))", expr(x, n)),
        Expr::Neg(x) => format!("-({})", expr(x, n)),
        Expr::IsNull(x, false) => format!("({} is null)", expr(x, n)),
        Expr::IsNull(x, true) => format!("({} is not null)", expr(x, n)),
        Expr::Between { expr: x, low, high, negated } => format!(
            "({} {}between {} and {})",
            expr(x, n),
            if *negated { "not " } else { "" },
            expr(low, n),
            expr(high, n)
        ),
        Expr::InList { expr: x, list: l, negated, .. } => {
            format!("({} {}in ({}))", expr(x, n), if *negated { "not " } else { "" }, list(l, n))
        }
        Expr::Like { expr: x, pattern, negated } => {
            format!("({} {}like {})", expr(x, n), if *negated { "not " } else { "" }, expr(pattern, n))
        }
        Expr::Case { operand, whens, otherwise } => {
            let mut s = String::from("(case");
            if let Some(o) = operand {
                s += &format!(" {}", expr(o, n));
            }
            for (w, t) in whens {
                s += &format!(" when {} then {}", expr(w, n), expr(t, n));
            }
            if let Some(o) = otherwise {
                s += &format!(" else {}", expr(o, n));
            }
            s + " end)"
        }
        // A constant converted for a YEAR / ENUM / SET column prints as
        // written (MySQL prints the item it replaced); so does a YEAR / BIT
        // column read as text.
        Expr::Func(name, args)
            if matches!(name.as_str(), crate::compare_const::YEAR_CONST | crate::compare_const::MEMBER_CONST) =>
        {
            args.last().map_or_else(String::new, |x| expr(x, n))
        }
        Expr::Func(name, args)
            if matches!(
                name.as_str(),
                crate::yearbit::YEAR_TEXT
                    | crate::yearbit::BIT_TEXT
                    | crate::yearbit::YEAR_DATE
                    | crate::number_text::NUMBER_TEXT
            ) =>
        {
            args.first().map_or_else(String::new, |x| expr(x, n))
        }
        Expr::Func(name, args) => format!("{}({})", name.to_ascii_lowercase(), list(args, n)),
        Expr::Agg(i) => n.aggs.get(*i).map_or_else(|| "<aggregate>".into(), |a| agg(a, n)),
        Expr::Window(i) => n.windows.get(*i).cloned().unwrap_or_else(|| "<window function>".into()),
        Expr::SysVar { name, global } => format!("@@{}{name}", if *global { "global." } else { "" }),
        Expr::Collate(_, x) => expr(x, n),
        Expr::Outer(k) => n.outer.get(*k).cloned().unwrap_or_else(|| "<outer>".into()),
        Expr::Subquery(s) => {
            let no = n.numbers.subquery(s.query.id);
            let text = match &s.kind {
                SubKind::Scalar => format!("(select #{no})"),
                SubKind::Exists => format!("exists(select #{no})"),
                SubKind::In(lhs) => {
                    let l = if lhs.len() == 1 { expr(&lhs[0], n) } else { format!("({})", list(lhs, n)) };
                    format!("<in_optimizer>({l},{l} in (select #{no}))")
                }
                SubKind::Quantified { lhs, op, all } => {
                    format!("({} {} {} (select #{no}))", expr(lhs, n), op_text(*op), if *all { "all" } else { "any" })
                }
            };
            if s.negated {
                format!("(not({text}))")
            } else {
                text
            }
        }
    }
}

/// An aggregate as MySQL prints it: `count(0)` for COUNT(*).
pub fn agg(a: &Agg, n: &Names<'_>) -> String {
    let name = match a.func {
        AggFn::Count | AggFn::CountStar => "count",
        AggFn::Sum => "sum",
        AggFn::Min => "min",
        AggFn::Max => "max",
        AggFn::Avg => "avg",
        AggFn::GroupConcat => "group_concat",
        AggFn::JsonArrayAgg => "json_arrayagg",
        AggFn::JsonObjectAgg => "json_objectagg",
    };
    if a.func == AggFn::CountStar {
        return "count(0)".into();
    }
    let mut args: Vec<String> = a.arg.iter().chain(&a.more).map(|x| expr(x, n)).collect();
    if a.func == AggFn::GroupConcat {
        let sep = literal(&Value::Str(a.separator.clone()));
        if let Some(last) = args.last_mut() {
            *last = format!("{last} separator {sep}");
        }
    }
    format!("{name}({}{})", if a.distinct { "distinct " } else { "" }, args.join(","))
}

/// Terms joined by AND, as one condition.
pub fn conjunction(terms: &[&Expr], n: &Names<'_>) -> String {
    let mut it = terms.iter();
    let Some(first) = it.next() else { return String::new() };
    let mut s = expr(first, n);
    for t in it {
        s = format!("({s} and {})", expr(t, n));
    }
    s
}
