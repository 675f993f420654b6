//! Expressions: compiled from the parser's AST against one table's columns
//! (`Scope`), then evaluated per row. Values are the engine's
//! ([`Value`]): integers, exact decimals (MySQL's type for `1.5`, `/`,
//! AVG), strings, dates. Comparisons follow MySQL: NULL makes a
//! comparison unknown, numbers compare numerically across types, a string
//! against a number compares as a number, strings compare by the column's
//! collation (PAD SPACE, case-insensitive by default).

use std::cmp::Ordering;

use quire_engine::row::{Collation, ColumnType, Date, DateTime, Decimal, Value};
use sqlparser::ast;

use crate::diag::{Condition, Level, Mode};
use crate::error::{Result, SqlError};

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Eq,
    NullSafeEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFn {
    Count,
    CountStar,
    Sum,
    Min,
    Max,
    Avg,
    /// GROUP_CONCAT([DISTINCT] a, ... [ORDER BY ...] [SEPARATOR s]).
    GroupConcat,
    /// JSON_ARRAYAGG(v): the group's values as a JSON array, NULLs
    /// included (`json.rs`).
    JsonArrayAgg,
    /// JSON_OBJECTAGG(k, v): the group's pairs as a JSON object.
    JsonObjectAgg,
}

/// An aggregate call found in a projection (replaced there by
/// `Expr::Agg(i)`).
#[derive(Clone, Debug)]
pub struct Agg {
    pub func: AggFn,
    pub arg: Option<Expr>,
    pub distinct: bool,
    /// Arguments after the first (`COUNT(DISTINCT a, b)`, GROUP_CONCAT).
    pub more: Vec<Expr>,
    /// GROUP_CONCAT's ORDER BY (key, descending).
    pub order: Vec<(Expr, bool)>,
    /// GROUP_CONCAT's SEPARATOR (`,` unless given).
    pub separator: String,
}

/// A compiled expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Lit(Value),
    /// The n-th `?`.
    Param(usize),
    /// A column of the scope's table, by position.
    Col(usize),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `first op1 rhs1 op2 rhs2 ...`, left to right: a long run of binary
    /// operators (`1+1+...+1`), kept flat so that neither evaluation nor
    /// drop recurses along it (see `depth`).
    Chain(Box<Expr>, Vec<Step>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    IsNull(Box<Expr>, bool),
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        /// A long list of literals or `?` markers, for binary search (see
        /// [`crate::inset`]): made from `list` by `compile` and only valid
        /// for it (a changed list needs `InSet::new` again, or `None`).
        set: Option<std::sync::Arc<crate::inset::InSet>>,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Func(String, Vec<Expr>),
    /// The i-th aggregate's result (aggregated queries only).
    Agg(usize),
    /// The i-th window function's value on the row (`rel::window`).
    Window(usize),
    /// `@@[global.|session.]name`.
    SysVar {
        name: String,
        global: bool,
    },
    /// Evaluates the inner comparison under a column's collation (other
    /// than the default): see [`with_collations`].
    Collate(Collation, Box<Expr>),
    /// The k-th value a correlated subquery takes from the rows around it
    /// (`rel::Subquery::captures`).
    Outer(usize),
    /// A subquery used as a value: scalar, EXISTS, IN, ANY / ALL.
    Subquery(Box<SubExpr>),
}

/// What a walk does after visiting a node.
#[derive(PartialEq, Eq)]
pub(crate) enum Walk {
    Descend,
    /// Not into this node's children.
    Skip,
    Stop,
}

/// Visits `e` and its parts, a subquery's captures and left-hand sides
/// included (they are evaluated on this block's rows); returns false once
/// stopped.
pub(crate) fn walk(e: &Expr, f: &mut dyn FnMut(&Expr) -> Walk) -> bool {
    match f(e) {
        Walk::Stop => return false,
        Walk::Skip => return true,
        Walk::Descend => {}
    }
    let mut each = |xs: &mut dyn Iterator<Item = &Expr>| {
        for x in xs {
            if !walk(x, f) {
                return false;
            }
        }
        true
    };
    match e {
        Expr::Bin(_, l, r) => each(&mut [&**l, &**r].into_iter()),
        Expr::Chain(first, steps) => each(&mut std::iter::once(&**first).chain(steps.iter().map(|s| &s.rhs))),
        Expr::Not(x) | Expr::Neg(x) | Expr::IsNull(x, _) | Expr::Collate(_, x) => walk(x, f),
        Expr::Between { expr, low, high, .. } => each(&mut [&**expr, &**low, &**high].into_iter()),
        Expr::InList { expr, list, .. } => each(&mut std::iter::once(&**expr).chain(list)),
        Expr::Like { expr, pattern, .. } => each(&mut [&**expr, &**pattern].into_iter()),
        Expr::Case { operand, whens, otherwise } => each(
            &mut operand
                .iter()
                .map(|o| &**o)
                .chain(whens.iter().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter().map(|o| &**o)),
        ),
        Expr::Func(_, args) => each(&mut args.iter()),
        Expr::Subquery(s) => {
            let lhs: Vec<&Expr> = match &s.kind {
                SubKind::In(l) => l.iter().collect(),
                SubKind::Quantified { lhs, .. } => vec![&**lhs],
                SubKind::Scalar | SubKind::Exists => Vec::new(),
            };
            each(&mut lhs.into_iter().chain(&s.query.captures))
        }
        Expr::Lit(_)
        | Expr::Param(_)
        | Expr::Col(_)
        | Expr::Agg(_)
        | Expr::Window(_)
        | Expr::SysVar { .. }
        | Expr::Outer(_) => true,
    }
}

/// Marks in `need` the columns of the scope's row that `e` reads (a
/// subquery's captures and left-hand sides included).
pub(crate) fn mark_columns(e: &Expr, need: &mut [bool]) {
    walk(e, &mut |x| {
        if let Expr::Col(c) = x {
            if let Some(n) = need.get_mut(*c) {
                *n = true;
            }
        }
        Walk::Descend
    });
}

/// How a subquery is used in an expression.
#[derive(Clone, Debug)]
pub enum SubKind {
    /// `(SELECT ...)`: its one value, NULL without rows, 1242 with more.
    Scalar,
    /// `EXISTS (SELECT ...)`.
    Exists,
    /// `lhs IN (SELECT ...)`, `(a, b) IN (SELECT x, y ...)`.
    In(Vec<Expr>),
    /// `lhs op ANY|SOME|ALL (SELECT ...)`.
    Quantified { lhs: Box<Expr>, op: BinOp, all: bool },
}

/// A subquery in an expression ([`Expr::Subquery`]).
#[derive(Clone, Debug)]
pub struct SubExpr {
    pub kind: SubKind,
    /// NOT EXISTS, NOT IN.
    pub negated: bool,
    pub query: std::sync::Arc<crate::rel::Subquery>,
}

/// How names and subqueries of a multi-table query are bound
/// (`rel::bind`); single-table statements leave [`Scope::rel`] empty.
pub trait Names {
    /// The column `qualifier.name` (qualifier: a table name or alias), as
    /// a column of the row or a value captured from an outer query.
    fn column(&mut self, qualifier: Option<&str>, name: &str, place: &'static str) -> Result<Expr>;
    /// Binds a subquery; `params` counts the `?` markers seen so far.
    fn subquery(&mut self, q: &ast::Query, params: &mut usize) -> Result<std::sync::Arc<crate::rel::Subquery>>;
    /// `DEFAULT(col)`: the default of the table column `qualifier.name`
    /// (`defaults::function_value`); 1235 where names are not a block's.
    fn column_default(&mut self, qualifier: Option<&str>, name: &str, place: &'static str) -> Result<Expr> {
        let _ = (qualifier, name, place);
        Err(crate::defaults::function_refused())
    }
    /// Records a window function call of the block being bound, to be
    /// resolved against its window when the block is (`Expr::Window`).
    /// Only SELECT blocks take them.
    fn window(&mut self, call: crate::rel::window::Call) -> Result<Expr> {
        Err(crate::rel::window::misplaced(&call.name))
    }
}

/// One operator of a [`Expr::Chain`] and its right operand.
#[derive(Clone, Debug)]
pub struct Step {
    pub op: BinOp,
    pub rhs: Expr,
    /// The collation this step compares by, when an operand is a column of
    /// another collation than the default (see [`with_collations`]).
    pub coll: Option<Collation>,
}

/// Makes comparisons that involve a column compare by that column's
/// collation: `colls[i]` is column i's. Only needed where some column's
/// collation is not the default (utf8mb4_general_ci).
///
/// Derivation, as MySQL's: an explicit `x COLLATE c` operand (compiled to
/// `Expr::Collate`) wins; between two columns a `_bin` collation wins,
/// else the left one's. (MySQL raises 1267 for two columns of different
/// non-binary collations of one character set; quire compares by the left
/// one's.) A latin1 column meeting a utf8mb4 one compares in utf8mb4, as
/// MySQL converts latin1 up: the utf8mb4 side's collation is taken.
pub fn with_collations(e: Expr, colls: &[Collation]) -> Expr {
    if colls.iter().all(|&c| c == Collation::Utf8mb4GeneralCi) && !has_explicit_collate(&e) {
        return e;
    }
    let column = |x: &Expr| match x {
        Expr::Col(i) => colls.get(*i).copied(),
        _ => None,
    };
    let pick = |l: &Expr, r: &Expr| -> Option<Collation> {
        if let Some(c) = explicit_collation(l).or(explicit_collation(r)) {
            return Some(c);
        }
        let c = match (column(l), column(r)) {
            (Some(a), Some(b)) if a.charset() != b.charset() => Some(if a.charset() == "utf8mb4" { a } else { b }),
            (Some(_), Some(b)) if b.name().ends_with("_bin") => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        };
        c.filter(|&c| c != Collation::Utf8mb4GeneralCi)
    };
    let coll_of = |x: &Expr| pick(x, &Expr::Lit(Value::Null));
    let rec = |x: Box<Expr>| Box::new(with_collations(*x, colls));
    let wrap = |c: Option<Collation>, x: Expr| match c {
        Some(c) => Expr::Collate(c, Box::new(x)),
        None => x,
    };
    match e {
        Expr::Bin(op, l, r) => {
            let (l, r) = (rec(l), rec(r));
            let c = if matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) { None } else { pick(&l, &r) };
            wrap(c, Expr::Bin(op, l, r))
        }
        Expr::Between { expr, low, high, negated } => {
            let c = coll_of(&expr);
            wrap(c, Expr::Between { expr: rec(expr), low: rec(low), high: rec(high), negated })
        }
        Expr::InList { expr, list, negated, set } => {
            // The items of a list with a set are literals, which this
            // leaves as they are; the set compares by whatever collation
            // is in force when it is probed.
            let c = coll_of(&expr);
            let list = list.into_iter().map(|x| with_collations(x, colls)).collect();
            wrap(c, Expr::InList { expr: rec(expr), list, negated, set })
        }
        Expr::Like { expr, pattern, negated } => {
            let c = coll_of(&expr);
            wrap(c, Expr::Like { expr: rec(expr), pattern: rec(pattern), negated })
        }
        Expr::Chain(first, steps) => {
            let first_coll = coll_of(&first);
            let steps = steps
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let logical = matches!(s.op, BinOp::And | BinOp::Or | BinOp::Xor);
                    let coll = if logical { None } else { coll_of(&s.rhs).or(if i == 0 { first_coll } else { None }) };
                    Step { op: s.op, rhs: with_collations(s.rhs, colls), coll }
                })
                .collect();
            Expr::Chain(rec(first), steps)
        }
        Expr::Not(x) => Expr::Not(rec(x)),
        Expr::Neg(x) => Expr::Neg(rec(x)),
        Expr::IsNull(x, n) => Expr::IsNull(rec(x), n),
        // LENGTH of a latin1 column counts latin1 bytes: one a character.
        Expr::Func(n, args)
            if matches!(n.as_str(), "length" | "octet_length")
                && matches!(args.as_slice(), [Expr::Col(i)] if colls.get(*i).is_some_and(|c| c.charset() == "latin1")) =>
        {
            Expr::Func("char_length".into(), args)
        }
        Expr::Func(n, args) => Expr::Func(n, args.into_iter().map(|x| with_collations(x, colls)).collect()),
        Expr::Case { operand, whens, otherwise } => Expr::Case {
            operand: operand.map(rec),
            whens: whens.into_iter().map(|(w, t)| (with_collations(w, colls), with_collations(t, colls))).collect(),
            otherwise: otherwise.map(rec),
        },
        other => other,
    }
}

/// The collation of an explicit `x COLLATE c`.
fn explicit_collation(e: &Expr) -> Option<Collation> {
    match e {
        Expr::Collate(c, _) => Some(*c),
        _ => None,
    }
}

/// Whether `e` holds an explicit COLLATE anywhere.
fn has_explicit_collate(e: &Expr) -> bool {
    !walk(e, &mut |x| if matches!(x, Expr::Collate(..)) { Walk::Stop } else { Walk::Descend })
}

/// Rebuilds `e` bottom-up through `f`: where `f` gives a replacement for
/// a node, that replaces it (and its children are not visited); else its
/// children are rebuilt. A subquery's captures are not visited.
pub fn map_expr(e: Expr, f: &mut dyn FnMut(&Expr) -> Option<Result<Expr>>) -> Result<Expr> {
    crate::depth::check()?;
    if let Some(r) = f(&e) {
        return r;
    }
    fn rec(x: Expr, f: &mut dyn FnMut(&Expr) -> Option<Result<Expr>>) -> Result<Box<Expr>> {
        Ok(Box::new(map_expr(x, f)?))
    }
    Ok(match e {
        Expr::Bin(op, l, r) => Expr::Bin(op, rec(*l, f)?, rec(*r, f)?),
        Expr::Chain(first, steps) => {
            let first = rec(*first, f)?;
            let steps = steps
                .into_iter()
                .map(|s| Ok(Step { op: s.op, rhs: map_expr(s.rhs, f)?, coll: s.coll }))
                .collect::<Result<_>>()?;
            Expr::Chain(first, steps)
        }
        Expr::Not(x) => Expr::Not(rec(*x, f)?),
        Expr::Neg(x) => Expr::Neg(rec(*x, f)?),
        Expr::IsNull(x, n) => Expr::IsNull(rec(*x, f)?, n),
        Expr::Collate(c, x) => Expr::Collate(c, rec(*x, f)?),
        Expr::Between { expr, low, high, negated } => {
            Expr::Between { expr: rec(*expr, f)?, low: rec(*low, f)?, high: rec(*high, f)?, negated }
        }
        Expr::InList { expr, list, negated, set: _ } => {
            let expr = rec(*expr, f)?;
            let list: Vec<Expr> = list.into_iter().map(|x| map_expr(x, f)).collect::<Result<_>>()?;
            let set = crate::inset::InSet::new(&list).map(std::sync::Arc::new);
            Expr::InList { expr, list, negated, set }
        }
        Expr::Like { expr, pattern, negated } => {
            Expr::Like { expr: rec(*expr, f)?, pattern: rec(*pattern, f)?, negated }
        }
        Expr::Case { operand, whens, otherwise } => {
            let operand = match operand {
                Some(o) => Some(rec(*o, f)?),
                None => None,
            };
            let whens =
                whens.into_iter().map(|(w, t)| Ok((map_expr(w, f)?, map_expr(t, f)?))).collect::<Result<_>>()?;
            let otherwise = match otherwise {
                Some(o) => Some(rec(*o, f)?),
                None => None,
            };
            Expr::Case { operand, whens, otherwise }
        }
        Expr::Func(name, args) => Expr::Func(name, args.into_iter().map(|x| map_expr(x, f)).collect::<Result<_>>()?),
        leaf => leaf,
    })
}

/// Whether some node of `e` satisfies `pred` (a subquery's captures are
/// not looked into).
pub fn any_expr(e: &Expr, pred: &dyn Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    let _ = map_expr(e.clone(), &mut |x| {
        found |= pred(x);
        found.then(|| Ok(Expr::Lit(Value::Null)))
    });
    found
}

/// The collation a sort or group key compares by: its column's, if it is
/// a column.
pub fn key_collation(e: &Expr, colls: &[Collation]) -> Collation {
    match e {
        Expr::Col(i) => colls.get(*i).copied().unwrap_or(Collation::Utf8mb4GeneralCi),
        Expr::Collate(c, _) => *c,
        _ => Collation::Utf8mb4GeneralCi,
    }
}

/// An environment that compares strings by another collation.
struct CollEnv<'a> {
    inner: &'a dyn Env,
    coll: Collation,
}

impl Env for CollEnv<'_> {
    fn param(&self, i: usize) -> Result<Value> {
        self.inner.param(i)
    }
    fn agg(&self, i: usize) -> Result<Value> {
        self.inner.agg(i)
    }
    fn sysvar(&self, name: &str, global: bool) -> Result<Value> {
        self.inner.sysvar(name, global)
    }
    fn func(&self, name: &str, args: &[Value]) -> Result<Value> {
        self.inner.func(name, args)
    }
    fn warn(&self, c: Condition) -> Result<()> {
        self.inner.warn(c)
    }
    fn mode(&self) -> Mode {
        self.inner.mode()
    }
    fn collation(&self) -> Collation {
        self.coll
    }
    fn check_interrupt(&self) -> Result<()> {
        self.inner.check_interrupt()
    }
    fn outer(&self, k: usize) -> Result<Value> {
        self.inner.outer(k)
    }
    fn window(&self, i: usize) -> Result<Value> {
        self.inner.window(i)
    }
    fn subquery(&self, s: &SubExpr, row: &[Value]) -> Result<Value> {
        self.inner.subquery(s, row)
    }
    fn in_keys(
        &self,
        set: &std::sync::Arc<crate::inset::InSet>,
        build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        self.inner.in_keys(set, build)
    }
}

/// What compiled expressions may refer to.
pub struct Scope<'a> {
    /// The table's name and alias (for qualified columns).
    pub table: Option<(&'a str, Option<&'a str>)>,
    /// Column names, in row order.
    pub columns: &'a [String],
    /// Where aggregates go (`None`: aggregates are not allowed here).
    pub aggs: Option<&'a mut Vec<Agg>>,
    /// `?` markers seen so far.
    pub params: usize,
    /// What the expression is part of, for error messages.
    pub place: &'static str,
    /// Names of a multi-table query and its subqueries: when set, columns
    /// are found there instead of in `table` / `columns`.
    pub rel: Option<&'a mut dyn Names>,
}

impl Scope<'_> {
    fn column(&self, name: &str, qualifier: Option<&str>) -> Result<usize> {
        if let (Some(q), Some((t, alias))) = (qualifier, self.table) {
            let ok = alias.map_or(q.eq_ignore_ascii_case(t), |a| a.eq_ignore_ascii_case(q));
            if !ok {
                return Err(SqlError::unknown_column(&format!("{q}.{name}"), self.place));
            }
        }
        self.columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
            .ok_or_else(|| SqlError::unknown_column(name, self.place))
    }
}

/// A literal of the parser as a value.
pub fn literal(v: &ast::Value) -> Result<Value> {
    Ok(match v {
        ast::Value::Number(n, _) => number(n)?,
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => Value::Str(s.clone()),
        ast::Value::HexStringLiteral(h) => Value::Bytes(crate::binary::hex_literal(h)?),
        ast::Value::SingleQuotedByteStringLiteral(b) => Value::Bytes(crate::binary::bit_literal(b)?),
        ast::Value::Boolean(b) => Value::Int(*b as i64),
        ast::Value::Null => Value::Null,
        other => return Err(SqlError::unsupported(format!("literal {other}"))),
    })
}

/// A numeric literal: an integer if it has no point or exponent, a
/// double (MySQL's approximate literal) if it has an exponent, else an
/// exact decimal.
pub fn number(n: &str) -> Result<Value> {
    if n.contains(['e', 'E']) {
        return match n.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Double(quire_engine::row::float::normalize(f))),
            _ => Err(SqlError::new(1367, "22007", format!("Illegal double '{n}' value found during parsing"))),
        };
    }
    if let Ok(i) = n.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = n.parse::<u64>() {
        return Ok(Value::UInt(u));
    }
    Decimal::parse(n).map(Value::Decimal).ok_or_else(|| SqlError::syntax(format!("bad number '{n}'")))
}

fn ident_name(i: &ast::Ident) -> &str {
    &i.value
}

/// Compiles `e` in `scope`.
pub fn compile(e: &ast::Expr, scope: &mut Scope<'_>) -> Result<Expr> {
    use ast::Expr as E;
    crate::depth::check()?;
    // Parentheses add nothing: strip them without a frame per level.
    let mut e = e;
    while let E::Nested(inner) = e {
        e = inner;
    }
    Ok(match e {
        E::Value(v) => match &v.value {
            // `?N`: numbered in text order before binding (`rel::bind`),
            // where the parts of a statement are not bound in that order.
            ast::Value::Placeholder(p) if p.len() > 1 && p[1..].bytes().all(|b| b.is_ascii_digit()) => {
                let n: usize = p[1..].parse().map_err(|_| SqlError::syntax("bad parameter marker"))?;
                scope.params = scope.params.max(n + 1);
                Expr::Param(n)
            }
            ast::Value::Placeholder(_) => {
                scope.params += 1;
                Expr::Param(scope.params - 1)
            }
            other => Expr::Lit(literal(other)?),
        },
        E::Identifier(i) => {
            let name = ident_name(i);
            if let Some(var) = name.strip_prefix("@@") {
                sysvar(var)?
            } else if let Some(var) = name.strip_prefix('@').filter(|_| i.quote_style.is_none()) {
                // A user variable: read when evaluated (`Session::sysvar`).
                Expr::SysVar { name: format!("@{}", var.to_ascii_lowercase()), global: false }
            } else if let Some(rel) = scope.rel.as_deref_mut() {
                match rel.column(None, name, scope.place) {
                    Err(e) if i.quote_style == Some('"') && e.code == 1054 => Expr::Lit(Value::Str(name.to_string())),
                    r => r?,
                }
            } else if i.quote_style == Some('"') && scope.column(name, None).is_err() {
                Expr::Lit(Value::Str(name.to_string()))
            } else {
                Expr::Col(scope.column(name, None)?)
            }
        }
        E::CompoundIdentifier(parts) => {
            let first = parts.first().map(ident_name).unwrap_or_default();
            if let Some(scope_kw) = first.strip_prefix("@@") {
                let name = parts[1..].iter().map(ident_name).collect::<Vec<_>>().join(".");
                let global = scope_kw.eq_ignore_ascii_case("global");
                let session = scope_kw.eq_ignore_ascii_case("session") || scope_kw.eq_ignore_ascii_case("local");
                session_scope_allowed(&name, session)?;
                Expr::SysVar { name: name.to_ascii_lowercase(), global }
            } else {
                let (q, name) = match parts.as_slice() {
                    [t, c] => (t.value.as_str(), c.value.as_str()),
                    [_, t, c] => (t.value.as_str(), c.value.as_str()),
                    _ => return Err(SqlError::unknown_column(&e.to_string(), scope.place)),
                };
                match scope.rel.as_deref_mut() {
                    Some(rel) => rel.column(Some(q), name, scope.place)?,
                    None => Expr::Col(scope.column(name, Some(q))?),
                }
            }
        }
        E::UnaryOp { op, expr } => {
            let x = crate::binary::numeric_literal(compile(expr, scope)?);
            match op {
                ast::UnaryOperator::Not => Expr::Not(Box::new(x)),
                ast::UnaryOperator::Minus => match x {
                    Expr::Lit(Value::Int(i)) => Expr::Lit(int_value(-(i as i128))?),
                    Expr::Lit(Value::Decimal(d)) => Expr::Lit(Value::Decimal(Decimal::new(-d.coef, d.scale))),
                    Expr::Lit(Value::UInt(u)) if u == 1u64 << 63 => Expr::Lit(Value::Int(i64::MIN)),
                    x => Expr::Neg(Box::new(x)),
                },
                ast::UnaryOperator::Plus => x,
                other => return Err(SqlError::unsupported(format!("operator {other}"))),
            }
        }
        // `d + INTERVAL n unit`, `INTERVAL n unit + d`, `d - INTERVAL ...`.
        E::BinaryOp { left, op: op @ (ast::BinaryOperator::Plus | ast::BinaryOperator::Minus), right }
            if matches!(**right, E::Interval(_)) || matches!(**left, E::Interval(_)) =>
        {
            let minus = matches!(op, ast::BinaryOperator::Minus);
            match (&**left, &**right) {
                (d, E::Interval(iv)) if !matches!(d, E::Interval(_)) => date_arith(d, iv, minus, scope)?,
                (E::Interval(iv), d) if !minus && !matches!(d, E::Interval(_)) => date_arith(d, iv, false, scope)?,
                _ => return Err(SqlError::syntax("an INTERVAL must be added to or subtracted from a date")),
            }
        }
        E::Interval(_) => return Err(SqlError::syntax("INTERVAL outside DATE_ADD, DATE_SUB or date arithmetic")),
        E::Collate { expr, collation } => {
            let c = crate::create::charset::collation(&collation.to_string())?;
            let x = compile(expr, scope)?;
            // A string literal is in the connection's character set, utf8mb4.
            if c.charset() != "utf8mb4" && matches!(x, Expr::Lit(Value::Str(_))) {
                return Err(SqlError::new(
                    1253,
                    "42000",
                    format!("COLLATION '{}' is not valid for CHARACTER SET 'utf8mb4'", c.name()),
                ));
            }
            Expr::Collate(c, Box::new(x))
        }
        E::Position { expr, r#in } => Expr::Func("locate".into(), vec![compile(expr, scope)?, compile(r#in, scope)?]),
        E::Extract { field, expr, .. } => {
            let unit = interval_unit(field)?;
            Expr::Func("extract".into(), vec![Expr::Lit(Value::Str(unit.name().into())), compile(expr, scope)?])
        }
        E::BinaryOp { left, op: op @ (ast::BinaryOperator::Arrow | ast::BinaryOperator::LongArrow), right } => {
            let unquote = matches!(op, ast::BinaryOperator::LongArrow);
            match arrow_rebind(left, right, unquote) {
                Some(rebound) => compile(&rebound, scope)?,
                None => crate::json::arrow(compile(left, scope)?, compile(right, scope)?, unquote),
            }
        }
        E::BinaryOp { left, op: ast::BinaryOperator::Assignment, right } => {
            crate::assign::compile(left, compile(right, scope)?)?
        }
        E::BinaryOp { left, op, right } => {
            let op = bin_op(op)?;
            let (l, r) = crate::binary::numeric_operands(op, compile(left, scope)?, compile(right, scope)?);
            Expr::Bin(op, Box::new(l), Box::new(r))
        }
        E::Prefixed { prefix, value } => crate::binary::introduced(&prefix.value, compile(value, scope)?)?,
        E::Tuple(_) if crate::depth::chain_parts(e).is_some() => {
            let (first, parts) = crate::depth::chain_parts(e).ok_or_else(|| SqlError::internal("not a chain"))?;
            let first = compile(first, scope)?;
            let mut steps = Vec::with_capacity(parts.len());
            for (op, rhs) in parts {
                steps.push(Step { op: bin_op(op)?, rhs: compile(rhs, scope)?, coll: None });
            }
            Expr::Chain(Box::new(first), steps)
        }
        E::IsNull(x) => Expr::IsNull(Box::new(compile(x, scope)?), false),
        E::IsNotNull(x) => Expr::IsNull(Box::new(compile(x, scope)?), true),
        E::IsTrue(x) => Expr::Bin(BinOp::Ne, Box::new(compile(x, scope)?), Box::new(Expr::Lit(Value::Int(0)))),
        E::IsFalse(x) => Expr::Bin(BinOp::Eq, Box::new(compile(x, scope)?), Box::new(Expr::Lit(Value::Int(0)))),
        E::Between { expr, negated, low, high } => Expr::Between {
            expr: Box::new(compile(expr, scope)?),
            low: Box::new(compile(low, scope)?),
            high: Box::new(compile(high, scope)?),
            negated: *negated,
        },
        E::InList { expr, list, negated } => {
            // In text order: `?` markers are numbered as they are met.
            let expr = Box::new(compile(expr, scope)?);
            let list: Vec<Expr> = list.iter().map(|x| compile(x, scope)).collect::<Result<_>>()?;
            let set = crate::inset::InSet::new(&list).map(std::sync::Arc::new);
            Expr::InList { expr, list, negated: *negated, set }
        }
        E::Like { escape_char: Some(c), .. } if c.to_string() != "\\" && c.to_string() != "'\\'" => {
            return Err(SqlError::unsupported("LIKE ... ESCAPE other than '\\'"))
        }
        E::Floor { expr, field: ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime) } => {
            Expr::Func("floor".into(), vec![compile(expr, scope)?])
        }
        E::Ceil { expr, field: ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime) } => {
            Expr::Func("ceil".into(), vec![compile(expr, scope)?])
        }
        // `CEIL(x, d)` / `FLOOR(x TO unit)`: MySQL's CEIL and FLOOR take
        // one argument.
        E::Floor { .. } | E::Ceil { .. } => {
            let name = if matches!(e, E::Floor { .. }) { "floor" } else { "ceil" };
            return Err(SqlError::new(
                1582,
                "42000",
                format!("Incorrect parameter count in the call to native function '{name}'"),
            ));
        }
        E::Substring { expr, substring_from, substring_for, .. } => {
            let mut args = vec![compile(expr, scope)?];
            // MySQL's grammar has no SUBSTRING(str) (1064).
            let Some(from) = substring_from else {
                return Err(SqlError::syntax("SUBSTRING needs a position"));
            };
            args.push(compile(from, scope)?);
            if let Some(n) = substring_for {
                args.push(compile(n, scope)?);
            }
            Expr::Func("substring".into(), args)
        }
        E::Trim { expr, trim_where: None, trim_what: None, trim_characters: None } => {
            Expr::Func("trim".into(), vec![compile(expr, scope)?])
        }
        E::Like { negated, expr, pattern, .. } => Expr::Like {
            expr: Box::new(compile(expr, scope)?),
            pattern: Box::new(compile(pattern, scope)?),
            negated: *negated,
        },
        E::Case { operand, conditions, else_result, .. } => Expr::Case {
            operand: operand.as_ref().map(|o| compile(o, scope).map(Box::new)).transpose()?,
            whens: conditions
                .iter()
                .map(|w| Ok((compile(&w.condition, scope)?, compile(&w.result, scope)?)))
                .collect::<Result<_>>()?,
            otherwise: else_result.as_ref().map(|o| compile(o, scope).map(Box::new)).transpose()?,
        },
        E::Function(f) => function(f, scope)?,
        E::MemberOf(m) => {
            let args = vec![compile(&m.value, scope)?, compile(&m.array, scope)?];
            let ast_args = [(*m.value).clone()];
            Expr::Func(
                crate::json::MEMBER_OF.into(),
                crate::json::mark_booleans(crate::json::MEMBER_OF, &ast_args, args),
            )
        }
        E::Cast { expr, data_type: ast::DataType::Binary(None), .. }
            if crate::binary::rebind_binary_cast(expr).is_some() =>
        {
            let rebound = crate::binary::rebind_binary_cast(expr).ok_or_else(|| SqlError::internal("rebind"))?;
            compile(&rebound, scope)?
        }
        // CAST(.. AS type ARRAY): MySQL's multi-valued index key parts.
        E::Cast { data_type: ast::DataType::Array(_), .. } => {
            return Err(SqlError::unsupported("CAST(.. AS .. ARRAY) (multi-valued indexes)"))
        }
        E::Cast { expr, data_type, .. } => {
            let x = compile(expr, scope)?;
            let ty = data_type.to_string().to_ascii_uppercase();
            if ty == "JSON" {
                let x = crate::json::mark_booleans(crate::json::CAST, std::slice::from_ref(&**expr), vec![x]);
                return Ok(Expr::Func(crate::json::CAST.into(), x));
            }
            if let Some(cast) = crate::binary::cast(&ty, x.clone())? {
                return Ok(cast);
            }
            let target = if ty.contains("UNSIGNED") {
                "cast_unsigned"
            } else if ty.contains("SIGNED") || ty.contains("INT") {
                "cast_signed"
            } else if ty.starts_with("DECIMAL") {
                "cast_decimal"
            } else if ty.starts_with("FLOAT") {
                "cast_float"
            } else if ty.starts_with("DOUBLE") || ty.starts_with("REAL") {
                "cast_double"
            } else if ty.starts_with("DATETIME") {
                "cast_datetime"
            } else if ty.starts_with("DATE") {
                "cast_date"
            } else if ty.starts_with("TIME") && !ty.starts_with("TIMESTAMP") {
                // CAST(x AS TIME(n)): the fsp rides as a second argument.
                let fsp = ty.split(['(', ')']).nth(1).and_then(|n| n.trim().parse::<i64>().ok()).unwrap_or(0);
                return Ok(Expr::Func("cast_time".into(), vec![x, Expr::Lit(Value::Int(fsp.min(6)))]));
            } else {
                "cast_char"
            };
            Expr::Func(target.into(), vec![x])
        }
        E::Subquery(q) => subquery(q, SubKind::Scalar, false, scope)?,
        E::Exists { subquery: q, negated } => subquery(q, SubKind::Exists, *negated, scope)?,
        E::InSubquery { expr, subquery: q, negated } => {
            let lhs = match &**expr {
                E::Tuple(items) => items.iter().map(|x| compile(x, scope)).collect::<Result<Vec<_>>>()?,
                x => vec![compile(x, scope)?],
            };
            subquery(q, SubKind::In(lhs), *negated, scope)?
        }
        E::AnyOp { left, compare_op, right, .. } | E::AllOp { left, compare_op, right } => {
            let all = matches!(e, E::AllOp { .. });
            let mut r = &**right;
            while let E::Nested(inner) = r {
                r = inner;
            }
            let E::Subquery(q) = r else {
                return Err(SqlError::unsupported("ANY / ALL of anything but a subquery"));
            };
            let op = bin_op(compare_op)?;
            if !matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
                return Err(SqlError::syntax("ANY / ALL need a comparison"));
            }
            let lhs = Box::new(compile(left, scope)?);
            subquery(q, SubKind::Quantified { lhs, op, all }, false, scope)?
        }
        E::TypedString(ts) => {
            let s = match &ts.value.value {
                ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
                other => other.to_string(),
            };
            let ty = ts.data_type.to_string().to_ascii_uppercase();
            if ty == "TIME" {
                let fsp = crate::timeval::fsp_of(&Expr::Lit(Value::Str(s.clone())), crate::plan::MetaType::Null);
                return Ok(Expr::Func(
                    "cast_time".into(),
                    vec![Expr::Lit(Value::Str(s)), Expr::Lit(Value::Int(fsp.into()))],
                ));
            }
            if let Some(cast) = crate::binary::cast(&ty, Expr::Lit(Value::Str(s.clone())))? {
                return Ok(cast);
            }
            let f =
                if ty.starts_with("DATETIME") || ty.starts_with("TIMESTAMP") { "cast_datetime" } else { "cast_date" };
            Expr::Func(f.into(), vec![Expr::Lit(Value::Str(s))])
        }
        other => return Err(SqlError::unsupported(format!("expression {other}"))),
    })
}

/// `doc -> 'path' + 1` as MySQL reads it, `(doc -> 'path') + 1`: the
/// parser gives `->` a lower precedence than arithmetic, so when the
/// right side is an operator chain, the arrow is moved onto its leftmost
/// operand (the path). `None` when the right side is the path alone.
fn arrow_rebind(left: &ast::Expr, right: &ast::Expr, unquote: bool) -> Option<ast::Expr> {
    let ast::Expr::BinaryOp { left: rl, op, right: rr } = right else { return None };
    let arrow = if unquote { ast::BinaryOperator::LongArrow } else { ast::BinaryOperator::Arrow };
    let inner = match arrow_rebind(left, rl, unquote) {
        Some(e) => e,
        None => ast::Expr::BinaryOp { left: Box::new(left.clone()), op: arrow, right: rl.clone() },
    };
    Some(ast::Expr::BinaryOp { left: Box::new(inner), op: op.clone(), right: rr.clone() })
}

/// A subquery used as a value: bound through [`Scope::rel`].
fn subquery(q: &ast::Query, kind: SubKind, negated: bool, scope: &mut Scope<'_>) -> Result<Expr> {
    let Some(rel) = scope.rel.as_deref_mut() else {
        return Err(SqlError::unsupported("subqueries here"));
    };
    let query = rel.subquery(q, &mut scope.params)?;
    let width = match &kind {
        SubKind::Exists => None,
        SubKind::In(lhs) => Some(lhs.len()),
        _ => Some(1),
    };
    if width.is_some_and(|w| w != query.plan.columns().len()) {
        return Err(SqlError::new(1241, "21000", format!("Operand should contain {} column(s)", width.unwrap_or(1))));
    }
    Ok(Expr::Subquery(Box::new(SubExpr { kind, negated, query })))
}

/// The compiled form of a binary operator of the parser.
fn bin_op(op: &ast::BinaryOperator) -> Result<BinOp> {
    Ok(match op {
        ast::BinaryOperator::Plus => BinOp::Add,
        ast::BinaryOperator::Minus => BinOp::Sub,
        ast::BinaryOperator::Multiply => BinOp::Mul,
        ast::BinaryOperator::Divide => BinOp::Div,
        ast::BinaryOperator::MyIntegerDivide => BinOp::IntDiv,
        ast::BinaryOperator::Modulo => BinOp::Mod,
        ast::BinaryOperator::Eq => BinOp::Eq,
        ast::BinaryOperator::Spaceship => BinOp::NullSafeEq,
        ast::BinaryOperator::NotEq => BinOp::Ne,
        ast::BinaryOperator::Lt => BinOp::Lt,
        ast::BinaryOperator::LtEq => BinOp::Le,
        ast::BinaryOperator::Gt => BinOp::Gt,
        ast::BinaryOperator::GtEq => BinOp::Ge,
        ast::BinaryOperator::And => BinOp::And,
        ast::BinaryOperator::Or => BinOp::Or,
        ast::BinaryOperator::Xor => BinOp::Xor,
        other => return Err(SqlError::unsupported(format!("operator {other}"))),
    })
}

fn sysvar(var: &str) -> Result<Expr> {
    let lower = var.to_ascii_lowercase();
    Ok(if let Some(n) = lower.strip_prefix("global.") {
        Expr::SysVar { name: n.to_string(), global: true }
    } else if let Some(n) = lower.strip_prefix("session.").or_else(|| lower.strip_prefix("local.")) {
        session_scope_allowed(n, true)?;
        Expr::SysVar { name: n.to_string(), global: false }
    } else {
        Expr::SysVar { name: lower, global: false }
    })
}

/// `@@session.x` / `@@local.x` of a variable with only a global value is
/// 1238, as in MySQL and MariaDB (`@@x` alone reads the global value).
fn session_scope_allowed(name: &str, explicit_session: bool) -> Result<()> {
    match crate::sysvars::lookup(name) {
        Some(d) if explicit_session && d.scope == crate::sysvars::Scope::Global => {
            Err(SqlError::new(1238, "HY000", format!("Variable '{}' is a GLOBAL variable", d.name)))
        }
        _ => Ok(()),
    }
}

fn function(f: &ast::Function, scope: &mut Scope<'_>) -> Result<Expr> {
    let name = f.name.to_string().to_ascii_lowercase();
    if f.filter.is_some() || f.null_treatment.is_some() || !f.within_group.is_empty() {
        return Err(SqlError::unsupported(format!("this form of {name}()")));
    }
    let mut order_by: Vec<ast::OrderByExpr> = Vec::new();
    let mut separator = String::from(",");
    let mut returning: Option<ColumnType> = None;
    let (args, distinct, star) = match &f.args {
        ast::FunctionArguments::None => (vec![], false, false),
        ast::FunctionArguments::List(l) => {
            for c in &l.clauses {
                match c {
                    ast::FunctionArgumentClause::OrderBy(o) if name == "group_concat" => order_by = o.clone(),
                    ast::FunctionArgumentClause::Separator(v) if name == "group_concat" => {
                        separator = match &v.value {
                            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
                            other => return Err(SqlError::syntax(format!("SEPARATOR {other}"))),
                        }
                    }
                    ast::FunctionArgumentClause::JsonReturningClause(r) if name == "json_value" => {
                        returning = Some(crate::json::value_returning::column_type(&r.data_type)?);
                    }
                    other => return Err(SqlError::syntax(format!("{other} in {name}()"))),
                }
            }
            let distinct = matches!(l.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct));
            let mut star = false;
            let mut out = Vec::new();
            for a in &l.args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => out.push(x.clone()),
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => star = true,
                    other => return Err(SqlError::unsupported(format!("function argument {other}"))),
                }
            }
            (out, distinct, star)
        }
        ast::FunctionArguments::Subquery(_) => return Err(SqlError::unsupported("subqueries")),
    };
    if let Some(over) = &f.over {
        return window_call(name, args, distinct, star, over, scope);
    }
    if name == "default" {
        let (qualifier, column) = match args.as_slice() {
            [ast::Expr::Identifier(c)] => (None, &c.value),
            [ast::Expr::CompoundIdentifier(p)] if p.len() == 2 => (Some(p[0].value.as_str()), &p[1].value),
            [_] => return Err(SqlError::syntax("DEFAULT() takes a column name")),
            _ => return Err(SqlError::new(1064, "42000", "DEFAULT() takes one column name")),
        };
        return match scope.rel.as_mut() {
            Some(names) => names.column_default(qualifier, column, scope.place),
            None => Err(crate::defaults::function_refused()),
        };
    }
    let agg = match name.as_str() {
        "count" => Some(if star { AggFn::CountStar } else { AggFn::Count }),
        "sum" => Some(AggFn::Sum),
        "min" => Some(AggFn::Min),
        "max" => Some(AggFn::Max),
        "avg" => Some(AggFn::Avg),
        "group_concat" => Some(AggFn::GroupConcat),
        "json_arrayagg" => Some(AggFn::JsonArrayAgg),
        "json_objectagg" => Some(AggFn::JsonObjectAgg),
        _ => None,
    };
    if let Some(func) = agg {
        if scope.aggs.is_none() {
            return Err(SqlError::new(1111, "HY000", "Invalid use of group function"));
        }
        if let Some(e) = crate::json::check_aggregate(func, args.len(), distinct) {
            return Err(e);
        }
        // Several arguments: GROUP_CONCAT, JSON_OBJECTAGG, and COUNT with
        // DISTINCT only.
        let many_ok = func == AggFn::GroupConcat || func == AggFn::JsonObjectAgg || (func == AggFn::Count && distinct);
        if args.len() > 1 && !many_ok {
            return Err(SqlError::syntax(format!("{name}() of {} arguments", args.len())));
        }
        // Aggregates do not nest: compile the arguments without them.
        let saved = scope.aggs.take();
        type Compiled = (Vec<Expr>, Vec<(Expr, bool)>);
        let compiled = (|| -> Result<Compiled> {
            let xs = if func == AggFn::CountStar {
                Vec::new()
            } else {
                args.iter().map(|a| compile(a, scope)).collect::<Result<Vec<_>>>()?
            };
            let order = order_by
                .iter()
                .map(|o| Ok((compile(&o.expr, scope)?, matches!(o.options.sort, Some(ast::OrderBySort::Desc)))))
                .collect::<Result<Vec<_>>>()?;
            Ok((xs, order))
        })();
        scope.aggs = saved;
        let (xs, order) = compiled?;
        let mut xs = crate::json::mark_aggregate_booleans(func, &args, xs);
        let arg = if xs.is_empty() { None } else { Some(xs.remove(0)) };
        if arg.is_none() && func != AggFn::CountStar {
            return Err(SqlError::wrong_arguments(&name));
        }
        let aggs = scope.aggs.as_deref_mut().ok_or_else(|| SqlError::internal("aggregate scope lost"))?;
        aggs.push(Agg { func, arg, distinct, more: xs, order, separator });
        return Ok(Expr::Agg(aggs.len() - 1));
    }
    if let Some(unit) = name.strip_prefix(crate::temporal::EXTRACT_CARRIER).and_then(crate::temporal::Unit::parse) {
        let [x] = args.as_slice() else { return Err(SqlError::syntax("EXTRACT(unit FROM expr)")) };
        return Ok(Expr::Func("extract".into(), vec![Expr::Lit(Value::Str(unit.name().into())), compile(x, scope)?]));
    }
    // TIMESTAMPADD(unit, n, d) / TIMESTAMPDIFF(unit, a, b): the unit is a
    // bare word.
    if let "timestampadd" | "timestampdiff" = name.as_str() {
        let [unit, a, b] = args.as_slice() else {
            return Err(SqlError::syntax(format!("wrong number of arguments to {name}()")));
        };
        let unit = match unit {
            ast::Expr::Identifier(i) => crate::temporal::Unit::parse(&i.value).filter(|u| u.name().find('_').is_none()),
            _ => None,
        }
        .ok_or_else(|| SqlError::syntax(format!("{name}() needs a unit")))?;
        let unit = Expr::Lit(Value::Str(unit.name().into()));
        let (a, b) = (compile(a, scope)?, compile(b, scope)?);
        return Ok(if name == "timestampadd" {
            let mut args = vec![b, a, unit];
            if !matches!(args[0], Expr::Lit(_)) {
                args.push(Expr::Lit(Value::Int(6)));
            }
            Expr::Func("date_add".into(), args)
        } else {
            Expr::Func("timestampdiff".into(), vec![unit, a, b])
        });
    }
    if let "date_add" | "date_sub" | "adddate" | "subdate" = name.as_str() {
        let [d, n] = args.as_slice() else {
            return Err(SqlError::syntax(format!("wrong number of arguments to {name}()")));
        };
        let minus = matches!(name.as_str(), "date_sub" | "subdate");
        return match n {
            ast::Expr::Interval(iv) => date_arith(d, iv, minus, scope),
            // ADDDATE(d, n) / SUBDATE(d, n): n days.
            n if name.ends_with("date") => {
                let d = compile(d, scope)?;
                let n = compile(n, scope)?;
                let f = if minus { "date_sub" } else { "date_add" };
                let mut args = vec![d, n, Expr::Lit(Value::Str("day".into()))];
                if !matches!(args[0], Expr::Lit(_)) {
                    args.push(Expr::Lit(Value::Int(6)));
                }
                Ok(Expr::Func(f.into(), args))
            }
            _ => Err(SqlError::syntax(format!("{name}() needs an INTERVAL"))),
        };
    }
    let ast_args = args;
    let mut args = match (name.as_str(), ast_args.as_slice()) {
        // GET_FORMAT(DATE, ...): the type is a bare word.
        ("get_format", [ast::Expr::Identifier(kind), standard]) if kind.quote_style.is_none() => {
            vec![Expr::Lit(Value::Str(kind.value.to_ascii_uppercase())), compile(standard, scope)?]
        }
        _ => ast_args.iter().map(|a| compile(a, scope)).collect::<Result<Vec<_>>>()?,
    };
    if name == "str_to_date" {
        return crate::str_to_date::bind(args);
    }
    if name == "get_format" {
        return crate::str_to_date::bind_get_format(args);
    }
    if let Some(ty) = returning {
        return crate::json::value_returning::bind(args, ty);
    }
    if crate::json::is_func(&name) {
        crate::json::check_arity(&name, args.len())?;
        args = crate::json::mark_booleans(&name, &ast_args, args);
    } else if let Some(e) = crate::json::not_built(&name) {
        return Err(e);
    }
    // The functions quire has, with the argument counts MySQL accepts
    // (`usize::MAX`: any number from the minimum), and whether MySQL's
    // grammar spells the call out (a wrong count is then a syntax error,
    // 1064, not 1582).
    const ARITY: &[(&str, usize, usize, bool)] = &[
        // Folded into literals when the expression is bound (`coercion`).
        ("collation", 1, 1, false),
        ("coercibility", 1, 1, false),
        ("database", 0, 0, false),
        ("schema", 0, 0, false),
        ("version", 0, 0, false),
        ("connection_id", 0, 0, false),
        ("last_insert_id", 0, 1, false),
        ("user", 0, 0, true),
        ("current_user", 0, 0, true),
        ("session_user", 0, 0, true),
        ("system_user", 0, 0, true),
        ("now", 0, 1, true),
        ("current_timestamp", 0, 1, true),
        ("sysdate", 0, 1, true),
        ("utc_timestamp", 0, 1, true),
        ("localtime", 0, 1, true),
        ("localtimestamp", 0, 1, true),
        ("utc_date", 0, 0, true),
        ("convert_tz", 3, 3, false),
        ("curdate", 0, 0, true),
        ("current_date", 0, 0, true),
        ("concat", 1, usize::MAX, false),
        ("concat_ws", 2, usize::MAX, false),
        ("length", 1, 1, false),
        ("char_length", 1, 1, false),
        ("character_length", 1, 1, false),
        ("upper", 1, 1, false),
        ("ucase", 1, 1, false),
        ("lower", 1, 1, false),
        ("lcase", 1, 1, false),
        ("coalesce", 1, usize::MAX, false),
        ("ifnull", 2, 2, false),
        ("if", 3, 3, true),
        ("nullif", 2, 2, false),
        ("abs", 1, 1, false),
        ("floor", 1, 1, false),
        ("ceil", 1, 1, false),
        ("ceiling", 1, 1, false),
        ("round", 1, 2, false),
        ("truncate", 2, 2, true),
        ("mod", 2, 2, true),
        ("greatest", 2, usize::MAX, false),
        ("least", 2, usize::MAX, false),
        ("substring", 2, 3, true),
        ("substr", 2, 3, true),
        ("left", 2, 2, true),
        ("right", 2, 2, true),
        ("trim", 1, 1, false),
        ("ltrim", 1, 1, false),
        ("rtrim", 1, 1, false),
        ("repeat", 2, 2, true),
        ("replace", 3, 3, true),
        ("rand", 0, 1, false),
        ("found_rows", 0, 0, false),
        ("row_count", 0, 0, false),
        ("unix_timestamp", 0, 1, false),
        ("isnull", 1, 1, false),
        ("hex", 1, 1, false),
        ("sleep", 1, 1, false),
        ("gtid_subset", 2, 2, false),
        ("gtid_subtract", 2, 2, false),
        // Rewritten by the binder of a block WITH ROLLUP (`rel::select`).
        ("grouping", 1, usize::MAX, false),
    ];
    let temporal = crate::temporal::FUNCS
        .iter()
        .chain(crate::timeval::FUNCS)
        .chain(crate::strfunc::FUNCS)
        .chain(crate::user_lock::FUNCS)
        .chain(crate::mathfunc::FUNCS)
        .chain(crate::binary::FUNCS)
        .chain(crate::json::FUNCS)
        .find(|(n, ..)| *n == name)
        .map(|&(n, lo, hi)| (n, lo, hi, false));
    let Some((_, min, max, grammar)) = ARITY.iter().copied().find(|(n, ..)| *n == name).or(temporal) else {
        // Not built in: a stored function (`stored::func`)?
        return crate::stored::func::resolve(&f.name, args)?
            .ok_or_else(|| SqlError::new(1305, "42000", format!("FUNCTION {name} does not exist")));
    };
    if (args.len() < min || args.len() > max) && grammar {
        return Err(SqlError::syntax(format!("wrong number of arguments to {name}()")));
    }
    if args.len() < min || args.len() > max {
        return Err(SqlError::new(
            1582,
            "42000",
            format!("Incorrect parameter count in the call to native function '{name}'"),
        ));
    }
    Ok(Expr::Func(name, args))
}

/// The unit of an INTERVAL or EXTRACT, as MySQL names them.
fn interval_unit(field: &ast::DateTimeField) -> Result<crate::temporal::Unit> {
    crate::temporal::Unit::parse(&field.to_string())
        .ok_or_else(|| SqlError::syntax(format!("{field} is not an interval unit MySQL knows")))
}

/// `d ± INTERVAL n unit` as `date_add` / `date_sub` (`temporal.rs`).
fn date_arith(d: &ast::Expr, iv: &ast::Interval, minus: bool, scope: &mut Scope<'_>) -> Result<Expr> {
    let (Some(field), None) = (&iv.leading_field, &iv.last_field) else {
        return Err(SqlError::syntax("an INTERVAL needs one unit"));
    };
    let mut unit = interval_unit(field)?;
    let mut value = &*iv.value;
    // A compound unit carried through the parser (`temporal.rs`).
    if let ast::Expr::Function(f) = value {
        let name = f.name.to_string().to_ascii_lowercase();
        if let Some(u) = name.strip_prefix(crate::temporal::UNIT_CARRIER).and_then(crate::temporal::Unit::parse) {
            if let ast::FunctionArguments::List(l) = &f.args {
                if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] = l.args.as_slice() {
                    unit = u;
                    value = x;
                }
            }
        }
    }
    let d = compile(d, scope)?;
    let n = compile(value, scope)?;
    let f = if minus { "date_sub" } else { "date_add" };
    let mut args = vec![d, n, Expr::Lit(Value::Str(unit.name().into()))];
    // A string result of a value that is not a literal shows six
    // fractional digits, as MariaDB's (it cannot know the value's own).
    if !matches!(args[0], Expr::Lit(_)) {
        args.push(Expr::Lit(Value::Int(6)));
    }
    Ok(Expr::Func(f.into(), args))
}

/// A window function call (`f(...) OVER ...`): allowed only in a SELECT
/// block's select list and ORDER BY, outside aggregates and other window
/// functions (3593, as MySQL). Its arguments may hold aggregates (they
/// are evaluated on the grouped rows); its window is resolved by the
/// binder ([`Names::window`]).
fn window_call(
    name: String,
    args: Vec<ast::Expr>,
    distinct: bool,
    star: bool,
    over: &ast::WindowType,
    scope: &mut Scope<'_>,
) -> Result<Expr> {
    let placed = matches!(scope.place, "field list" | "order clause") && scope.aggs.is_some();
    if !placed || scope.rel.is_none() {
        return Err(crate::rel::window::misplaced(&name));
    }
    if let Some(inner) = crate::rel::window::nested_call(&args) {
        return Err(crate::rel::window::misplaced(&inner));
    }
    let args = args.iter().map(|a| compile(a, scope)).collect::<Result<Vec<_>>>()?;
    let call = crate::rel::window::Call { name, args, distinct, star, over: over.clone() };
    match scope.rel.as_deref_mut() {
        Some(rel) => rel.window(call),
        None => Err(crate::rel::window::misplaced(&call.name)),
    }
}

/// What evaluation may read besides the row.
pub trait Env {
    fn param(&self, i: usize) -> Result<Value>;
    fn agg(&self, i: usize) -> Result<Value>;
    fn sysvar(&self, name: &str, global: bool) -> Result<Value>;
    fn func(&self, name: &str, args: &[Value]) -> Result<Value>;
    /// Raises a condition in the session's diagnostics area; a warning is
    /// an error instead when [`Mode::abort_on_warning`] (`diag.rs`).
    fn warn(&self, c: Condition) -> Result<()>;
    /// The running statement's `sql_mode` flags.
    fn mode(&self) -> Mode;
    /// `Err` when the running statement must stop (KILL QUERY,
    /// `max_execution_time`); row loops ask once per row.
    fn check_interrupt(&self) -> Result<()> {
        Ok(())
    }
    /// The collation strings compare by.
    fn collation(&self) -> Collation {
        Collation::Utf8mb4GeneralCi
    }
    /// A correlated subquery's k-th captured value ([`Expr::Outer`]).
    fn outer(&self, _k: usize) -> Result<Value> {
        Err(SqlError::internal("an outer reference outside a subquery"))
    }
    /// The i-th window function's value on the row being projected
    /// ([`Expr::Window`]).
    fn window(&self, _i: usize) -> Result<Value> {
        Err(SqlError::internal("a window function outside a SELECT block"))
    }
    /// The value of a subquery in an expression, `row` being the row the
    /// expression is evaluated on.
    fn subquery(&self, _s: &SubExpr, _row: &[Value]) -> Result<Value> {
        Err(SqlError::unsupported("subqueries here"))
    }
    /// The keys of an IN list with `?` markers (whose values are fixed for
    /// an execution), built by `build` once per execution and kept in a
    /// [`crate::inset::Memo`]; `None` where none is kept (the list is then
    /// scanned).
    fn in_keys(
        &self,
        _set: &std::sync::Arc<crate::inset::InSet>,
        _build: &dyn Fn() -> Option<crate::inset::Keys>,
    ) -> Option<std::sync::Arc<crate::inset::Keys>> {
        None
    }
}

/// MySQL truth: NULL is unknown, numbers are true when non-zero, strings
/// by their numeric prefix.
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Decimal(d) => Some(!d.is_zero()),
        Value::Double(f) => Some(*f != 0.0),
        Value::Str(s) => Some(str_to_decimal(s).is_some_and(|d| !d.is_zero())),
        Value::Date(_) | Value::DateTime(_) => Some(true),
        Value::Time(us) => Some(*us != 0),
        Value::Bytes(b) => Some(str_to_decimal(&String::from_utf8_lossy(b)).is_some_and(|d| !d.is_zero())),
        Value::Json(j) => Some(!crate::json::to_decimal(j).is_zero()),
        Value::Choice(c) => Some(c.n != 0),
    }
}

fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

/// The numeric prefix of a string (MySQL converts `'12abc'` to 12).
pub fn str_to_decimal(s: &str) -> Option<Decimal> {
    let t = s.trim_start();
    Decimal::parse(&t[..numeric_prefix_len(t)]).or(Some(Decimal::ZERO))
}

/// Length of the number `t` starts with: `[+-]digits[.digits][e[+-]digits]`
/// (0 when it starts with no digit).
pub fn numeric_prefix_len(t: &str) -> usize {
    let b = t.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut end = usize::from(!b.is_empty() && (b[0] == b'-' || b[0] == b'+'));
    let int_end = digits(end);
    let mut any = int_end > end;
    end = int_end;
    if end < b.len() && b[end] == b'.' {
        let frac_end = digits(end + 1);
        any |= frac_end > end + 1;
        end = frac_end;
    }
    if !any {
        return 0;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
            e += 1;
        }
        if e < b.len() && b[e].is_ascii_digit() {
            end = digits(e);
        }
    }
    end
}

/// How a string reads as a number, as MySQL judges it: `None` when all
/// of it is the number (leading spaces allowed), a note when only
/// trailing spaces follow it, a warning when anything else does or there
/// is no number at all.
pub fn number_text_level(s: &str) -> Option<Level> {
    let t = s.trim_start();
    let n = numeric_prefix_len(t);
    let rest = &t[n..];
    if n == 0 {
        Some(Level::Warning)
    } else if rest.is_empty() {
        None
    } else if rest.trim_start().is_empty() {
        Some(Level::Note)
    } else {
        Some(Level::Warning)
    }
}

/// Raises 1292 for a string used as a number that is not all a number
/// (`'12abc' + 1`; MySQL converts such operands to DOUBLE).
fn check_number_operand(v: &Value, env: &dyn Env) -> Result<()> {
    if let Value::Str(s) = v {
        let beyond = || quire_engine::row::float::leading_f64(s).is_infinite();
        if let Some(level) = number_text_level(s).or_else(|| beyond().then_some(Level::Warning)) {
            env.warn(Condition::new(level, 1292, format!("Truncated incorrect DOUBLE value: '{s}'")))?;
        }
    }
    Ok(())
}

/// A value as an exact number (`None` for NULL).
pub fn to_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(Decimal::from_i64(*i)),
        Value::UInt(u) => Some(Decimal::new(*u as i128, 0)),
        Value::Decimal(d) => Some(*d),
        // The decimal of the double's shortest text (`None` beyond what a
        // decimal holds: 1e50).
        Value::Double(f) => Decimal::parse(&format!("{f:e}")),
        Value::Str(s) => str_to_decimal(s),
        Value::Date(d) => Some(Decimal::new(d.year as i128 * 10000 + d.month as i128 * 100 + d.day as i128, 0)),
        Value::DateTime(dt) => Some(Decimal::new(
            ((dt.date.year as i128 * 100 + dt.date.month as i128) * 100 + dt.date.day as i128) * 1_000_000
                + dt.hour as i128 * 10_000
                + dt.minute as i128 * 100
                + dt.second as i128,
            0,
        )),
        Value::Time(us) => {
            let (n, micros) = quire_engine::row::time::to_hhmmss(*us);
            Some(if micros == 0 {
                Decimal::new(n.into(), 0)
            } else {
                Decimal::new(i128::from(n) * 1_000_000 + i128::from(micros), 6)
            })
        }
        // A binary string reads as its text does (a VARBINARY holding
        // '12' is 12); hex literals in arithmetic were made numbers when
        // compiled (`binary::numeric_operands`).
        Value::Bytes(b) => str_to_decimal(&String::from_utf8_lossy(b)),
        Value::Json(j) => Some(crate::json::to_decimal(j)),
        // An ENUM's index, a SET's bitmap (`e + 0`).
        Value::Choice(c) => Some(Decimal::new(i128::from(c.n), 0)),
    }
}

/// A value as a double, as MySQL converts it for a comparison or
/// arithmetic with a double (`None` for NULL).
pub fn to_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Double(f) => Some(*f),
        // Beyond a double: its largest value (MySQL warns, 1292).
        Value::Str(s) => Some(quire_engine::row::float::leading_f64(s).clamp(f64::MIN, f64::MAX)),
        Value::Bytes(b) => {
            Some(quire_engine::row::float::leading_f64(&String::from_utf8_lossy(b)).clamp(f64::MIN, f64::MAX))
        }
        Value::Json(j) => Some(j.as_f64().unwrap_or_else(|| crate::json::to_decimal(j).to_f64())),
        other => to_decimal(other).map(|d| d.to_f64()),
    }
}

/// A value as an integer, rounding decimals half away from zero and
/// doubles half to even (MySQL's `rint`; `None` for NULL or a double
/// beyond i128).
pub fn to_i128(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        Value::Double(f) if f.abs() < 1e38 => Some(f.round_ties_even() as i128),
        Value::Double(_) => None,
        other => to_decimal(other).and_then(|d| d.rescale(0)).map(|d| d.coef),
    }
}

/// An integer result as the narrowest value type.
pub fn int_value(n: i128) -> Result<Value> {
    if let Ok(i) = i64::try_from(n) {
        Ok(Value::Int(i))
    } else if let Ok(u) = u64::try_from(n) {
        Ok(Value::UInt(u))
    } else {
        Err(SqlError::new(1690, "22003", "BIGINT value is out of range"))
    }
}

/// Compares two non-NULL values as MySQL does (`None` if either is NULL).
pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        // JSON against anything: as JSON values (`json::compare`).
        (Value::Json(_), _) | (_, Value::Json(_)) => crate::json::compare(a, b),
        (Value::Str(x), Value::Str(y))
            if x.is_ascii() && y.is_ascii() && matches!(coll, Collation::Utf8mb4Bin | Collation::Utf8mb4GeneralCi) =>
        {
            Some(ascii_cmp(x, y, coll))
        }
        // A binary operand makes the comparison binary: byte by byte, no
        // padding, no case folding.
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Str(y)) => Some(x.as_slice().cmp(y.as_bytes())),
        (Value::Str(x), Value::Bytes(y)) => Some(x.as_bytes().cmp(y.as_slice())),
        (Value::Str(x), Value::Str(y)) => Some(quire_engine::row::collation::compare(coll, x, y)),
        (Value::Date(x), Value::Date(y)) => Some(x.cmp(y)),
        (Value::DateTime(x), Value::DateTime(y)) => Some(x.cmp(y)),
        (Value::Date(x), Value::DateTime(y)) => Some(midnight(*x).cmp(y)),
        (Value::DateTime(x), Value::Date(y)) => Some(x.cmp(&midnight(*y))),
        (Value::Time(x), Value::Time(y)) => Some(x.cmp(y)),
        (Value::Time(x), Value::Str(_)) => Some(x.cmp(&crate::timeval::to_time(b)?)),
        (Value::Str(_), Value::Time(y)) => Some(crate::timeval::to_time(a)?.cmp(y)),
        (Value::Time(x), Value::Date(_) | Value::DateTime(_)) => {
            compare(&Value::DateTime(crate::timeval::to_datetime(*x)?), b, coll)
        }
        (Value::Date(_) | Value::DateTime(_), Value::Time(y)) => {
            compare(a, &Value::DateTime(crate::timeval::to_datetime(*y)?), coll)
        }
        (Value::Date(_) | Value::DateTime(_), Value::Str(s)) => {
            let other = parse_temporal(s)?;
            compare(a, &other, coll)
        }
        (Value::Str(s), Value::Date(_) | Value::DateTime(_)) => {
            let other = parse_temporal(s)?;
            compare(&other, b, coll)
        }
        (Value::Date(_) | Value::DateTime(_), Value::Bytes(s)) => {
            let other = parse_temporal(std::str::from_utf8(s).ok()?)?;
            compare(a, &other, coll)
        }
        (Value::Bytes(s), Value::Date(_) | Value::DateTime(_)) => {
            let other = parse_temporal(std::str::from_utf8(s).ok()?)?;
            compare(&other, b, coll)
        }
        // A number (a BIT column's value, an integer column) with
        // at most 8 bytes: the bytes as a big-endian number, as MySQL reads
        // `bit_col = b'101'` (and a bit or hex literal against a number).
        (Value::UInt(x), Value::Bytes(y)) if y.len() <= 8 => {
            Some(x.cmp(&quire_engine::row::bit::from_bytes(y).unwrap_or(u64::MAX)))
        }
        (Value::Bytes(x), Value::UInt(y)) if x.len() <= 8 => {
            Some(quire_engine::row::bit::from_bytes(x).unwrap_or(u64::MAX).cmp(y))
        }
        // The same with a signed number (`int_col > b'100'`, `0b100`,
        // `x'04'`).
        (Value::Int(x), Value::Bytes(y)) if y.len() <= 8 => {
            let y = quire_engine::row::bit::from_bytes(y).unwrap_or(u64::MAX);
            Some(i128::from(*x).cmp(&i128::from(y)))
        }
        (Value::Bytes(x), Value::Int(y)) if x.len() <= 8 => {
            let x = quire_engine::row::bit::from_bytes(x).unwrap_or(u64::MAX);
            Some(i128::from(x).cmp(&i128::from(*y)))
        }
        // ENUM / SET: two values of one column by their numbers (MIN, MAX,
        // DISTINCT as MariaDB), with text as text, else as numbers.
        (Value::Choice(x), Value::Choice(y)) if std::ptr::eq(x.members, y.members) => Some(x.n.cmp(&y.n)),
        (Value::Choice(x), Value::Choice(y)) => compare(&Value::Str(x.text()), &Value::Str(y.text()), coll),
        (Value::Choice(x), Value::Str(_) | Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) | Value::Time(_)) => {
            compare(&Value::Str(x.text()), b, coll)
        }
        (Value::Str(_) | Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) | Value::Time(_), Value::Choice(y)) => {
            compare(a, &Value::Str(y.text()), coll)
        }
        // With a double on either side, as doubles (MySQL's rule).
        (Value::Double(_), _) | (_, Value::Double(_)) => to_f64(a)?.partial_cmp(&to_f64(b)?),
        // Anything else compares as numbers (MySQL's fallback to DOUBLE;
        // exact here).
        _ => Some(to_decimal(a)?.cmp(&to_decimal(b)?)),
    }
}

/// ASCII strings under utf8mb4_bin or general_ci, without building weights.
fn ascii_cmp(x: &str, y: &str, coll: Collation) -> Ordering {
    let (x, y) = (x.trim_end_matches(' ').as_bytes(), y.trim_end_matches(' ').as_bytes());
    match coll {
        Collation::Utf8mb4GeneralCi => {
            for (a, b) in x.iter().zip(y) {
                match a.to_ascii_uppercase().cmp(&b.to_ascii_uppercase()) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        _ => x.cmp(y),
    }
}

fn midnight(d: Date) -> DateTime {
    DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 }
}

fn parse_temporal(s: &str) -> Option<Value> {
    if let Some(d) = Date::parse(s) {
        return Some(Value::Date(d));
    }
    DateTime::parse(s).map(Value::DateTime)
}

/// Evaluates `e` on `row`.
pub fn eval(e: &Expr, row: &[Value], env: &dyn Env) -> Result<Value> {
    if !matches!(e, Expr::Lit(_) | Expr::Param(_) | Expr::Col(_)) {
        crate::depth::check()?;
    }
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Param(i) => env.param(*i)?,
        Expr::Col(i) => row.get(*i).cloned().ok_or_else(|| SqlError::internal("column out of the row"))?,
        Expr::Agg(i) => env.agg(*i)?,
        Expr::Window(i) => env.window(*i)?,
        Expr::SysVar { name, global } => env.sysvar(name, *global)?,
        Expr::Outer(k) => env.outer(*k)?,
        Expr::Subquery(s) => env.subquery(s, row)?,
        Expr::Collate(c, x) => eval(x, row, &CollEnv { inner: env, coll: *c })?,
        Expr::Not(x) => bool_value(truth(&eval(x, row, env)?).map(|b| !b)),
        Expr::Neg(x) => match eval(x, row, env)? {
            Value::Null => Value::Null,
            Value::Str(s) => {
                let v = Value::Str(s);
                check_number_operand(&v, env)?;
                let d = to_decimal(&v).unwrap_or(Decimal::ZERO);
                Value::Decimal(Decimal::new(-d.coef, d.scale))
            }
            Value::Int(i) => int_value(-(i as i128))?,
            Value::UInt(u) => int_value(-(u as i128))?,
            Value::Double(f) => Value::Double(quire_engine::row::float::normalize(-f)),
            other => match to_decimal(&other) {
                Some(d) => Value::Decimal(Decimal::new(-d.coef, d.scale)),
                None => Value::Null,
            },
        },
        Expr::IsNull(x, negated) => Value::Int((eval(x, row, env)?.is_null() != *negated) as i64),
        Expr::Bin(op, l, r) => binary(*op, eval(l, row, env)?, r, row, env)?,
        Expr::Chain(first, steps) => {
            let mut acc = eval(first, row, env)?;
            for s in steps {
                acc = match s.coll {
                    Some(coll) => binary(s.op, acc, &s.rhs, row, &CollEnv { inner: env, coll })?,
                    None => binary(s.op, acc, &s.rhs, row, env)?,
                };
            }
            acc
        }
        Expr::Between { expr, low, high, negated } => {
            let v = eval(expr, row, env)?;
            let (lo, hi) = (eval(low, row, env)?, eval(high, row, env)?);
            let c = env.collation();
            let ge = compare(&v, &lo, c).map(|o| o != Ordering::Less);
            let le = compare(&v, &hi, c).map(|o| o != Ordering::Greater);
            let r = and3(ge, le);
            bool_value(if *negated { r.map(|b| !b) } else { r })
        }
        Expr::InList { expr, list, negated, set } => {
            let v = eval(expr, row, env)?;
            let found = match set.as_ref().and_then(|s| crate::inset::probe(s, &v, list, env)) {
                Some(found) => found,
                None => in_list_scan(&v, list, row, env)?,
            };
            bool_value(if *negated { found.map(|b| !b) } else { found })
        }
        Expr::Like { expr, pattern, negated } => {
            let (v, p) = (eval(expr, row, env)?, eval(pattern, row, env)?);
            if v.is_null() || p.is_null() {
                Value::Null
            } else {
                // A binary operand makes LIKE binary (case-sensitive).
                let binary = matches!(v, Value::Bytes(_)) || matches!(p, Value::Bytes(_));
                let coll = if binary { Collation::Utf8mb4Bin } else { env.collation() };
                let m = like_in(&as_string(&v), &as_string(&p), coll);
                Value::Int((m != *negated) as i64)
            }
        }
        Expr::Case { operand, whens, otherwise } => {
            let base = operand.as_ref().map(|o| eval(o, row, env)).transpose()?;
            for (w, then) in whens {
                let wv = eval(w, row, env)?;
                let hit = match &base {
                    Some(b) => compare(b, &wv, env.collation()) == Some(Ordering::Equal),
                    None => truth(&wv) == Some(true),
                };
                if hit {
                    return eval(then, row, env);
                }
            }
            match otherwise {
                Some(o) => eval(o, row, env)?,
                None => Value::Null,
            }
        }
        Expr::Func(name, args) => {
            let vals = args.iter().map(|a| eval(a, row, env)).collect::<Result<Vec<_>>>()?;
            // STR_TO_DATE warns (1411), so it needs the evaluation's env.
            if name == "str_to_date" {
                crate::str_to_date::call(&vals, env)?
            } else if env.collation() != Collation::Utf8mb4GeneralCi && crate::coercion::funcs::collated(name) {
                // Under a derived collation (`coercion::bind` put it there).
                crate::coercion::funcs::call(name, &vals, env.collation())?
            } else {
                match crate::defaults::call(name, &vals) {
                    Some(v) => v, // a CURRENT_TIMESTAMP default (`defaults.rs`)
                    None => env.func(name, &vals)?,
                }
            }
        }
    })
}

/// `v IN (list)` by comparing `v` with each item in turn: true on a
/// match, otherwise unknown if a comparison was (a NULL), otherwise false.
fn in_list_scan(v: &Value, list: &[Expr], row: &[Value], env: &dyn Env) -> Result<Option<bool>> {
    let mut found = Some(false);
    for x in list {
        match compare(v, &eval(x, row, env)?, env.collation()) {
            Some(Ordering::Equal) => {
                found = Some(true);
                break;
            }
            None => found = None,
            _ => {}
        }
    }
    if v.is_null() {
        found = None;
    }
    Ok(found)
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// A value's text (as CONCAT and LIKE see it).
pub fn as_string(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Null => String::new(),
        // As MariaDB converts bytes to text: `?` for each invalid byte.
        Value::Bytes(b) => crate::binary::lossy_text(b),
        other => other.to_string(),
    }
}

/// `a op r`, with `a` the left operand's value (already evaluated, so a
/// chain folds left to right without recursing).
fn binary(op: BinOp, a: Value, r: &Expr, row: &[Value], env: &dyn Env) -> Result<Value> {
    match op {
        BinOp::And => {
            let a = truth(&a);
            if a == Some(false) {
                return Ok(Value::Int(0));
            }
            return Ok(bool_value(and3(a, truth(&eval(r, row, env)?))));
        }
        BinOp::Or => {
            let a = truth(&a);
            if a == Some(true) {
                return Ok(Value::Int(1));
            }
            let b = truth(&eval(r, row, env)?);
            return Ok(bool_value(match (a, b) {
                (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            }));
        }
        _ => {}
    }
    let b = eval(r, row, env)?;
    let c = env.collation();
    let cmp = |f: fn(Ordering) -> bool| -> Value { bool_value(compare(&a, &b, c).map(f)) };
    Ok(match op {
        BinOp::Eq => cmp(|o| o == Ordering::Equal),
        BinOp::Ne => cmp(|o| o != Ordering::Equal),
        BinOp::Lt => cmp(|o| o == Ordering::Less),
        BinOp::Le => cmp(|o| o != Ordering::Greater),
        BinOp::Gt => cmp(|o| o == Ordering::Greater),
        BinOp::Ge => cmp(|o| o != Ordering::Less),
        BinOp::NullSafeEq => Value::Int(match (a.is_null(), b.is_null()) {
            (true, true) => 1,
            (false, false) => (compare(&a, &b, c) == Some(Ordering::Equal)) as i64,
            _ => 0,
        }),
        BinOp::Xor => match (truth(&a), truth(&b)) {
            (Some(x), Some(y)) => Value::Int((x != y) as i64),
            _ => Value::Null,
        },
        _ => {
            check_number_operand(&a, env)?;
            check_number_operand(&b, env)?;
            let divides = matches!(op, BinOp::Div | BinOp::IntDiv | BinOp::Mod);
            if divides && !a.is_null() && to_decimal(&b).is_some_and(|d| d.is_zero()) && env.mode().div_zero {
                env.warn(Condition::new(Level::Warning, 1365, "Division by 0"))?;
            }
            arith(op, &a, &b)?
        }
    })
}

/// MySQL's `div_precision_increment` default: `/` gives the dividend's
/// scale plus this many digits (`1/3` = 0.3333, `1.0/3` = 0.33333).
pub const DIV_PRECISION_INCREMENT: u8 = 4;

/// The most fractional digits a computed decimal keeps (MySQL's
/// DECIMAL_MAX_SCALE).
pub const MAX_RESULT_SCALE: u8 = 30;

/// Arithmetic: integers stay integers (checked), anything else is exact
/// decimal; `/` is always decimal (scale + 4, as MySQL's
/// div_precision_increment); division by zero gives NULL.
pub fn arith(op: BinOp, a: &Value, b: &Value) -> Result<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let ints = matches!(a, Value::Int(_) | Value::UInt(_)) && matches!(b, Value::Int(_) | Value::UInt(_));
    // JSON operands are read as doubles, as MySQL's (a JSON item's result
    // type is a string's).
    let as_double = |v: &Value| matches!(v, Value::Double(_) | Value::Str(_) | Value::Json(_));
    if as_double(a) || as_double(b) {
        return arith_double(op, a, b);
    }
    if ints && !matches!(op, BinOp::Div) {
        let (x, y) = (to_i128(a).unwrap_or(0), to_i128(b).unwrap_or(0));
        let r = match op {
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::IntDiv | BinOp::Mod if y == 0 => return Ok(Value::Null),
            BinOp::IntDiv => Some(x / y),
            BinOp::Mod => Some(x % y),
            _ => None,
        };
        // MySQL: a result with an unsigned operand is BIGINT UNSIGNED
        // (0..=2^64-1), otherwise BIGINT (i64); outside, error 1690. DIV
        // and MOD results always fit.
        let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
        return match r {
            Some(n) if matches!(op, BinOp::IntDiv | BinOp::Mod) => int_value(n),
            Some(n) if unsigned && (0..=u64::MAX as i128).contains(&n) => Ok(Value::UInt(n as u64)),
            Some(n) if !unsigned && i64::try_from(n).is_ok() => Ok(Value::Int(n as i64)),
            _ if unsigned => Err(SqlError::new(1690, "22003", "BIGINT UNSIGNED value is out of range")),
            _ => Err(SqlError::new(1690, "22003", "BIGINT value is out of range")),
        };
    }
    let (x, y) = match (to_decimal(a), to_decimal(b)) {
        (Some(x), Some(y)) => (x, y),
        _ => return Ok(Value::Null),
    };
    let overflow = || SqlError::new(1690, "22003", "DECIMAL value is out of range");
    Ok(match op {
        BinOp::Add => Value::Decimal(x.checked_add(y).ok_or_else(overflow)?),
        BinOp::Sub => Value::Decimal(x.checked_sub(y).ok_or_else(overflow)?),
        BinOp::Mul => Value::Decimal(x.checked_mul(y).ok_or_else(overflow)?),
        // Division by zero is NULL; warning 1365 ("Division by 0") is
        // raised by the caller, `binary`, which reaches the session.
        BinOp::Div | BinOp::IntDiv | BinOp::Mod if y.is_zero() => Value::Null,
        BinOp::Div => Value::Decimal(x.checked_div(y, DIV_PRECISION_INCREMENT).ok_or_else(overflow)?),
        // DIV truncates the exact quotient toward zero (never rounds), and
        // the operands' scales are aligned first: 7.5 DIV 2 is 3.
        BinOp::IntDiv => int_value(x.checked_div_trunc(y).ok_or_else(overflow)?)?,
        BinOp::Mod => Value::Decimal(x.checked_rem(y).ok_or_else(overflow)?),
        _ => return Err(SqlError::internal("not an arithmetic operator")),
    })
}

/// Arithmetic with a double or string operand: in doubles, as MySQL
/// (`0.1e0 + 0.2e0` is 0.30000000000000004). Division by zero is NULL;
/// a result beyond a double's range is 1690; DIV truncates to an integer.
fn arith_double(op: BinOp, a: &Value, b: &Value) -> Result<Value> {
    let (Some(x), Some(y)) = (to_f64(a), to_f64(b)) else { return Ok(Value::Null) };
    let sign = match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::IntDiv => "DIV",
        _ => "%",
    };
    let out_of_range = || {
        SqlError::new(
            1690,
            "22003",
            format!("DOUBLE value is out of range in '{} {sign} {}'", as_string(a), as_string(b)),
        )
    };
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div | BinOp::IntDiv | BinOp::Mod if y == 0.0 => return Ok(Value::Null),
        BinOp::Div => x / y,
        BinOp::IntDiv => {
            let q = (x / y).trunc();
            if !q.is_finite() || q.abs() >= 9.3e18 {
                return Err(SqlError::new(1690, "22003", "BIGINT value is out of range"));
            }
            return int_value(q as i128);
        }
        BinOp::Mod => x % y,
        _ => return Err(SqlError::internal("not an arithmetic operator")),
    };
    if !r.is_finite() {
        return Err(out_of_range());
    }
    Ok(Value::Double(quire_engine::row::float::normalize(r)))
}

/// SQL LIKE with `%`, `_` and `\\` escapes, case-insensitive (the default
/// collation).
pub fn like(s: &str, p: &str) -> bool {
    like_in(s, p, Collation::Utf8mb4GeneralCi)
}

/// A character under a UCA or latin1_swedish_ci collation as LIKE compares
/// it (one character against one): characters of equal single weight fold
/// to one stand-in (UCA weights to the private-use plane 15).
fn like_fold(coll: Collation, c: char) -> char {
    let mut w = Vec::with_capacity(4);
    let mut buf = [0u8; 4];
    quire_engine::row::key::weights(coll, c.encode_utf8(&mut buf), &mut w);
    match (coll, w.as_slice()) {
        (Collation::Latin1SwedishCi, [b]) => *b as char,
        (_, [hi, lo]) => char::from_u32(0xF0000 + u32::from(u16::from_be_bytes([*hi, *lo]))).unwrap_or(c),
        _ => c.to_lowercase().next().unwrap_or(c),
    }
}

/// LIKE under `coll`: iterative, backtracking only to the last `%`, so it
/// never takes exponential time.
pub fn like_in(s: &str, p: &str, coll: Collation) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Any,
        One,
        Lit(char),
    }
    // utf8mb4_bin and general_ci fold the whole pattern first (as they
    // always have); the other collations fold each literal after the
    // wildcards are recognised, as their stand-ins may be any character.
    let simple = matches!(coll, Collation::Utf8mb4Bin | Collation::Utf8mb4GeneralCi);
    let fold_all = |x: &str| -> Vec<char> {
        match coll {
            Collation::Utf8mb4Bin | Collation::Latin1Bin => x.chars().collect(),
            Collation::Utf8mb4GeneralCi => x.chars().flat_map(|c| c.to_lowercase()).collect(),
            other => x.chars().map(|c| like_fold(other, c)).collect(),
        }
    };
    let s = fold_all(s);
    let p: Vec<char> = if simple { fold_all(p) } else { p.chars().collect() };
    let lit = |c: char| if simple { Tok::Lit(c) } else { Tok::Lit(fold_all(c.encode_utf8(&mut [0; 4]))[0]) };
    let mut toks = Vec::with_capacity(p.len());
    let mut k = 0;
    while k < p.len() {
        toks.push(match p[k] {
            '%' => Tok::Any,
            '_' => Tok::One,
            '\\' if k + 1 < p.len() => {
                k += 1;
                lit(p[k])
            }
            c => lit(c),
        });
        k += 1;
    }
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match toks.get(pi) {
            Some(Tok::Any) => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(Tok::One) => {
                si += 1;
                pi += 1;
            }
            Some(Tok::Lit(c)) if *c == s[si] => {
                si += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    toks[pi..].iter().all(|t| *t == Tok::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_follow_mysql() {
        let c = Collation::Utf8mb4GeneralCi;
        assert_eq!(compare(&Value::Int(2), &Value::Str("10".into()), c), Some(Ordering::Less));
        assert_eq!(compare(&Value::Str("abc ".into()), &Value::Str("ABC".into()), c), Some(Ordering::Equal));
        assert_eq!(compare(&Value::Null, &Value::Int(1), c), None);
        assert_eq!(
            compare(&Value::Decimal(Decimal::parse("1.50").unwrap()), &Value::Int(1), c),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn like_matches_wildcards() {
        assert!(like("Hello", "h%o"));
        assert!(like("abc", "a_c"));
        assert!(!like("abc", "a_"));
        assert!(like("50%", "50\\%"));
    }

    #[test]
    fn integer_arithmetic_is_checked_and_division_is_decimal() {
        assert_eq!(arith(BinOp::Add, &Value::Int(1), &Value::Int(2)).unwrap(), Value::Int(3));
        assert!(arith(BinOp::Mul, &Value::Int(i64::MAX), &Value::UInt(u64::MAX)).is_err());
        assert_eq!(arith(BinOp::Div, &Value::Int(1), &Value::Int(0)).unwrap(), Value::Null);
        assert_eq!(arith(BinOp::Div, &Value::Int(1), &Value::Int(4)).unwrap().to_string(), "0.2500");
    }
}
