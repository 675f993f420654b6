//! Collation derivation ("coercibility"), MySQL's rules of "Collation
//! Coercibility in Expressions", decided when a statement is bound (its
//! plan is cached), never per row.
//!
//! Every string expression has a collation and a coercibility: an explicit
//! `COLLATE` 0, no collation (a failed mix) 1, a column 2, a system
//! constant (USER(), VERSION()) 3, a literal 4 (the connection's
//! collation, utf8mb4_general_ci), a number 5, NULL 6. An operation that
//! compares strings aggregates its operands' (MySQL's
//! `DTCollation::aggregate`): the lower coercibility wins; of equal ones
//! in one character set a `_bin` collation wins, otherwise the mix has no
//! collation and a comparison of it is error 1267 (1270 for three
//! operands, 1271 for more); Unicode wins over latin1 (a latin1 side is
//! converted), and a coercible literal goes to a column's latin1 if all its
//! characters exist there.
//!
//! [`bind`] rewrites a compiled expression so that each comparison is
//! evaluated under its derived collation: an `Expr::Collate` node around
//! it (the evaluation's collation in force, `expr::CollEnv`) wherever
//! that differs from the collation in force around it, so the default
//! case (every operand utf8mb4_general_ci) adds no node and no per-row
//! work. Invariant: the only `Expr::Collate` nodes in its input are the
//! parser's explicit `x COLLATE c`; the pass runs once per expression.
//!
//! Not tracked (known differences, docs/SQL.md): a user variable's
//! collation (MySQL: the collation of the value assigned, coercibility 2;
//! here it takes no part in the derivation), aggregates, subqueries and
//! window functions (take no part either), and the result collation of
//! string functions outside [`STRING_FUNCS`].

use quire_engine::row::{Collation, Value};

use crate::error::{Result, SqlError};
use crate::expr::{BinOp, Expr, Step};
use crate::plan::MetaType;

pub mod funcs;

/// MySQL's coercibility levels (`COERCIBILITY()` returns the number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Explicit = 0,
    None = 1,
    Implicit = 2,
    SysConst = 3,
    Coercible = 4,
    Numeric = 5,
    Ignorable = 6,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Explicit => "EXPLICIT",
            Level::None => "NONE",
            Level::Implicit => "IMPLICIT",
            Level::SysConst => "SYSCONST",
            Level::Coercible => "COERCIBLE",
            Level::Numeric => "NUMERIC",
            Level::Ignorable => "IGNORABLE",
        }
    }
}

/// A character set with its collation: text, or the `binary` set (binary
/// strings, numbers, NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cs {
    Text(Collation),
    Binary,
}

/// An expression's derived collation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dt {
    pub cs: Cs,
    pub level: Level,
    /// Only ASCII characters (MySQL's repertoire): convertible to any set.
    pub ascii: bool,
    /// Derived by these rules (false: something quire does not track,
    /// which then takes no part in a mix; COLLATION() of it is refused).
    pub known: bool,
}

const DEFAULT: Collation = Collation::Utf8mb4GeneralCi;

impl Dt {
    const NUMBER: Dt = Dt { cs: Cs::Binary, level: Level::Numeric, ascii: true, known: true };
    const UNKNOWN: Dt = Dt { cs: Cs::Binary, level: Level::Numeric, ascii: true, known: false };

    fn text(c: Collation, level: Level, ascii: bool) -> Dt {
        Dt { cs: Cs::Text(c), level, ascii, known: true }
    }

    /// Whether it takes part in a string comparison (a string or NULL).
    fn stringy(&self) -> bool {
        self.level != Level::Numeric
    }

    /// The collation's name as COLLATION() and the 1267 message say it.
    pub fn collation_name(&self) -> &'static str {
        match self.cs {
            // System constants are in MySQL's system character set.
            Cs::Text(Collation::Utf8mb4GeneralCi) if self.level == Level::SysConst => "utf8mb3_general_ci",
            Cs::Text(c) => c.name(),
            Cs::Binary => "binary",
        }
    }

    fn charset(&self) -> &'static str {
        match self.cs {
            Cs::Text(c) => c.charset(),
            Cs::Binary => "binary",
        }
    }

    fn unicode(&self) -> bool {
        self.charset() == "utf8mb4"
    }

    fn bin_sort(&self) -> bool {
        match self.cs {
            Cs::Text(c) => c.name().ends_with("_bin"),
            Cs::Binary => true,
        }
    }

    fn set(&mut self, o: &Dt) {
        let ascii = self.ascii && o.ascii;
        *self = *o;
        self.ascii = ascii;
    }

    fn set_none(&mut self, cs: Cs) {
        self.cs = cs;
        self.level = Level::None;
        self.ascii = false;
    }

    /// MySQL's `DTCollation::aggregate` with superset and coercible
    /// conversions allowed; false when the mix is illegal whatever the
    /// operation (explicit against explicit, or character sets that do
    /// not convert).
    fn aggregate(&mut self, o: &Dt) -> bool {
        if self.charset() != o.charset() {
            if self.cs == Cs::Binary {
                if self.level > o.level {
                    self.set(o);
                }
            } else if o.cs == Cs::Binary {
                if o.level <= self.level {
                    self.set(o);
                }
            } else if superset(self, o) {
                self.ascii &= o.ascii;
            } else if superset(o, self) {
                self.set(o);
            } else if self.level < o.level && o.level >= Level::SysConst {
                self.ascii &= o.ascii;
            } else if o.level < self.level && self.level >= Level::SysConst {
                self.set(o);
            } else {
                self.set_none(Cs::Binary);
                return false;
            }
        } else if o.level < self.level {
            self.set(o);
        } else if self.level < o.level || self.cs == o.cs {
            self.ascii &= o.ascii;
        } else if self.level == Level::Explicit {
            self.set_none(Cs::Binary);
            return false;
        } else if !self.bin_sort() {
            if o.bin_sort() {
                self.set(o);
            } else {
                let bin = if self.charset() == "latin1" { Collation::Latin1Bin } else { Collation::Utf8mb4Bin };
                self.set_none(Cs::Text(bin));
            }
        }
        true
    }
}

/// MySQL's `left_is_superset`: converting `r` into `l`'s set loses
/// nothing and is allowed.
fn superset(l: &Dt, r: &Dt) -> bool {
    if l.unicode() && (l.level < r.level || (l.level == r.level && !r.unicode())) {
        return true;
    }
    r.ascii && (l.level < r.level || (l.level == r.level && !l.ascii))
}

/// What a slot of the row holds, for derivation.
pub fn slot_of(meta: MetaType, coll: Collation) -> Dt {
    match meta {
        MetaType::Str { .. } | MetaType::Text | MetaType::Choice { .. } => Dt::text(coll, Level::Implicit, false),
        MetaType::Binary { .. } | MetaType::Blob { .. } => {
            Dt { cs: Cs::Binary, level: Level::Implicit, ascii: false, known: true }
        }
        MetaType::Json => Dt::UNKNOWN,
        _ => Dt::NUMBER,
    }
}

/// The slots of a table's rows.
pub fn table_slots(columns: &[quire_engine::row::Column]) -> Vec<Dt> {
    columns.iter().map(|c| slot_of(MetaType::of_column(c.ty), c.collation)).collect()
}

/// Functions whose result is a string derived from their arguments (all of
/// them, or from the `skip`-th on).
const STRING_FUNCS: &[(&str, usize)] = &[
    ("concat", 0),
    ("concat_ws", 0),
    ("coalesce", 0),
    ("ifnull", 0),
    ("if", 1),
    ("greatest", 0),
    ("least", 0),
    ("nullif", 0),
    ("upper", 0),
    ("lower", 0),
    ("ucase", 0),
    ("lcase", 0),
    ("trim", 0),
    ("ltrim", 0),
    ("rtrim", 0),
    ("reverse", 0),
    ("repeat", 0),
    ("replace", 0),
    ("substring", 0),
    ("substr", 0),
    ("mid", 0),
    ("left", 0),
    ("right", 0),
    ("lpad", 0),
    ("rpad", 0),
    ("substring_index", 0),
    ("elt", 1),
    ("insert", 0),
];

/// Functions of the system character set (coercibility 3).
const SYSCONST_FUNCS: &[&str] =
    &["user", "current_user", "session_user", "system_user", "database", "schema", "version", "current_role"];

/// `e`'s derived collation, `slots` being the row's.
pub fn derive(e: &Expr, slots: &[Dt]) -> Result<Dt> {
    crate::depth::check()?;
    Ok(match e {
        Expr::Lit(Value::Str(s)) => Dt::text(DEFAULT, Level::Coercible, s.is_ascii()),
        Expr::Lit(Value::Bytes(_)) => Dt { cs: Cs::Binary, level: Level::Coercible, ascii: false, known: true },
        Expr::Lit(Value::Null) => Dt { cs: Cs::Binary, level: Level::Ignorable, ascii: true, known: true },
        Expr::Lit(_) => Dt::NUMBER,
        // A `?` is bound per execution: as a literal, which any column wins over.
        Expr::Param(_) => Dt::text(DEFAULT, Level::Coercible, true),
        Expr::Col(i) => slots.get(*i).copied().unwrap_or(Dt::UNKNOWN),
        Expr::Collate(c, _) => Dt::text(*c, Level::Explicit, false),
        Expr::Case { whens, otherwise, .. } => {
            let results: Vec<&Expr> = whens.iter().map(|(_, t)| t).chain(otherwise.iter().map(|o| &**o)).collect();
            string_result("case", &results, slots)?
        }
        Expr::Func(name, args) => {
            if SYSCONST_FUNCS.contains(&name.as_str()) {
                Dt::text(DEFAULT, Level::SysConst, false)
            } else if name == "cast_char" {
                Dt::text(DEFAULT, Level::Implicit, false)
            } else if let Some(&(_, skip)) = STRING_FUNCS.iter().find(|(n, _)| n == name) {
                let args: Vec<&Expr> = args.iter().skip(skip).collect();
                string_result(name, &args, slots)?
            } else if crate::strfunc::FUNCS.iter().any(|(n, ..)| n == name) || COMPARERS.contains(&name.as_str()) {
                Dt::NUMBER
            } else {
                Dt::UNKNOWN
            }
        }
        Expr::Bin(..)
        | Expr::Chain(..)
        | Expr::Not(_)
        | Expr::Neg(_)
        | Expr::IsNull(..)
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::Like { .. } => Dt::NUMBER,
        // A user variable: its collation is not tracked; taken as the
        // connection's, it joins a mix but never makes one illegal.
        Expr::SysVar { name, .. } if name.starts_with('@') => {
            Dt { cs: Cs::Text(DEFAULT), level: Level::Implicit, ascii: false, known: false }
        }
        Expr::Agg(_) | Expr::Window(_) | Expr::SysVar { .. } | Expr::Outer(_) | Expr::Subquery(_) => Dt::UNKNOWN,
    })
}

/// The collation of a string function's result: its string arguments'
/// mix (no collation allowed, but not an explicit conflict); numbers
/// convert to the connection's character set.
fn string_result(op: &str, args: &[&Expr], slots: &[Dt]) -> Result<Dt> {
    let dts = args.iter().map(|a| derive(a, slots)).collect::<Result<Vec<_>>>()?;
    if dts.iter().any(|d| !d.known) {
        return Ok(Dt::UNKNOWN);
    }
    let as_text = |d: &Dt| if d.level == Level::Numeric { Dt::text(DEFAULT, Level::Numeric, true) } else { *d };
    let Some(first) = dts.first() else { return Ok(Dt::text(DEFAULT, Level::Coercible, true)) };
    let mut acc = as_text(first);
    for d in &dts[1..] {
        if !acc.aggregate(&as_text(d)) {
            return Err(illegal_mix(op, &dts));
        }
    }
    if acc.level == Level::Numeric {
        acc.level = Level::Coercible;
    }
    Ok(acc)
}

/// Functions that compare their string arguments, with the name MySQL's
/// 1267 gives the operation.
const COMPARERS: &[&str] =
    &["strcmp", "nullif", "find_in_set", "field", "locate", "instr", "substring_index", "replace", "greatest", "least"];

/// 1267 / 1270 / 1271 for `args` mixed in `op`.
fn illegal_mix(op: &str, args: &[Dt]) -> SqlError {
    let one = |d: &Dt| format!("({},{})", d.collation_name(), d.level.name());
    match args {
        [a, b] => SqlError::new(
            1267,
            "HY000",
            format!("Illegal mix of collations {} and {} for operation '{op}'", one(a), one(b)),
        ),
        [a, b, c] => SqlError::new(
            1270,
            "HY000",
            format!("Illegal mix of collations {}, {}, {} for operation '{op}'", one(a), one(b), one(c)),
        ),
        _ => SqlError::new(1271, "HY000", format!("Illegal mix of collations for operation '{op}'")),
    }
}

/// The collation a comparison of `args` in `op` uses: `None` when it is
/// not a string comparison (an operand is a number or not tracked), or
/// when the operands are binary strings; 1267 / 1270 / 1271 when they do
/// not mix.
fn compare_collation(op: &str, args: &[Dt]) -> Result<Option<Collation>> {
    // A number makes it a numeric comparison; what is not tracked (an
    // aggregate, a subquery) yields to the other operands.
    if args.iter().any(|d| d.known && !d.stringy()) {
        return Ok(None);
    }
    let kept: Vec<Dt> = args.iter().copied().filter(Dt::stringy).collect();
    if kept.iter().all(|d| d.level == Level::Ignorable) {
        return Ok(None);
    }
    let (all, args) = (args, &kept[..]);
    let mix = |args: &mut dyn Iterator<Item = &Dt>| -> Option<Dt> {
        let mut acc = *args.next()?;
        for d in args {
            if !acc.aggregate(d) {
                return None;
            }
        }
        Some(acc).filter(|a| a.level != Level::None)
    };
    let acc = match mix(&mut args.iter()) {
        Some(acc) => acc,
        // An operand whose collation is not tracked (a user variable)
        // yields to the others rather than make the mix illegal.
        None if args.iter().any(|d| !d.known) => match mix(&mut args.iter().filter(|d| d.known)) {
            Some(acc) => acc,
            None => return Err(illegal_mix(op, all)),
        },
        None => return Err(illegal_mix(op, all)),
    };
    Ok(match acc.cs {
        Cs::Text(c) => Some(c),
        Cs::Binary => None,
    })
}

/// Checks that the literals a comparison converts into latin1 exist there
/// (MySQL: 1267 when a character would be lost). Literals the plan cache
/// turned into `?` (those of WHERE, `normalize.rs`) are not checked: a
/// character latin1 lacks then compares as '?' (docs/SQL.md).
fn literals_convert(op: &str, c: Collation, xs: &[&Expr], dts: &[Dt]) -> Result<()> {
    if c.charset() != "latin1" {
        return Ok(());
    }
    for x in xs {
        if let Expr::Lit(Value::Str(s)) = x {
            if c.unmappable(s).is_some() {
                return Err(illegal_mix(op, dts));
            }
        }
    }
    Ok(())
}

/// The operation a comparison names in 1267 (EXPLAIN's spelling).
fn op_name(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    matches!(op, Eq | NullSafeEq | Ne | Lt | Le | Gt | Ge).then(|| crate::explain::show::op_text(op))
}

/// The collation a sort or group key of `e` compares by.
pub fn key_collation(e: &Expr, slots: &[Dt]) -> Collation {
    match derive(e, slots) {
        Ok(Dt { cs: Cs::Text(c), .. }) => c,
        _ => DEFAULT,
    }
}

/// Rewrites `e` so that every string comparison in it is evaluated under
/// its derived collation, checks `COLLATE` clauses against their
/// operand's character set (1253), and replaces COLLATION() and
/// COERCIBILITY() by their answers.
pub fn bind(e: Expr, slots: &[Dt]) -> Result<Expr> {
    rewrite(e, slots, DEFAULT)
}

fn wrap(c: Option<Collation>, in_force: Collation, x: Expr) -> Expr {
    match c {
        Some(c) if c != in_force => Expr::Collate(c, Box::new(x)),
        _ => x,
    }
}

fn rewrite(e: Expr, slots: &[Dt], in_force: Collation) -> Result<Expr> {
    crate::depth::check()?;
    let under = |c: Option<Collation>| c.unwrap_or(in_force);
    let rec = |x: Box<Expr>, f: Collation| -> Result<Box<Expr>> { Ok(Box::new(rewrite(*x, slots, f)?)) };
    Ok(match e {
        Expr::Bin(op, l, r) => match op_name(op) {
            Some(name) => {
                let dts = [derive(&l, slots)?, derive(&r, slots)?];
                let c = compare_collation(name, &dts)?;
                if let Some(c) = c {
                    literals_convert(name, c, &[&l, &r], &dts)?;
                }
                let f = under(c);
                wrap(c, in_force, Expr::Bin(op, rec(l, f)?, rec(r, f)?))
            }
            None => Expr::Bin(op, rec(l, in_force)?, rec(r, in_force)?),
        },
        Expr::Chain(first, steps) => {
            let mut prev = derive(&first, slots)?;
            let mut out = Vec::with_capacity(steps.len());
            for s in steps {
                let rhs_dt = derive(&s.rhs, slots)?;
                let coll = match op_name(s.op) {
                    Some(name) => {
                        let c = compare_collation(name, &[prev, rhs_dt])?;
                        c.filter(|&c| c != in_force)
                    }
                    None => None,
                };
                prev = Dt::NUMBER;
                out.push(Step { op: s.op, rhs: rewrite(s.rhs, slots, coll.unwrap_or(in_force))?, coll });
            }
            Expr::Chain(rec(first, in_force)?, out)
        }
        Expr::Between { expr, low, high, negated } => {
            let dts = [derive(&expr, slots)?, derive(&low, slots)?, derive(&high, slots)?];
            let c = compare_collation("between", &dts)?;
            if let Some(c) = c {
                literals_convert("between", c, &[&expr, &low, &high], &dts)?;
            }
            let f = under(c);
            wrap(c, in_force, Expr::Between { expr: rec(expr, f)?, low: rec(low, f)?, high: rec(high, f)?, negated })
        }
        Expr::InList { expr, list, negated, set } => {
            let mut dts = vec![derive(&expr, slots)?];
            for x in &list {
                dts.push(derive(x, slots)?);
            }
            let name = if list.len() == 1 { "=" } else { "in" };
            let c = compare_collation(name, &dts)?;
            if let Some(c) = c {
                let xs: Vec<&Expr> = std::iter::once(&*expr).chain(&list).collect();
                literals_convert(name, c, &xs, &dts)?;
            }
            let f = under(c);
            // The set (of literals and `?`) compares by the collation in
            // force where it is probed: the list stays as it is.
            let list = list.into_iter().map(|x| rewrite(x, slots, f)).collect::<Result<_>>()?;
            wrap(c, in_force, Expr::InList { expr: rec(expr, f)?, list, negated, set })
        }
        Expr::Like { expr, pattern, negated } => {
            let dts = [derive(&expr, slots)?, derive(&pattern, slots)?];
            let c = compare_collation("like", &dts)?;
            let f = under(c);
            wrap(c, in_force, Expr::Like { expr: rec(expr, f)?, pattern: rec(pattern, f)?, negated })
        }
        Expr::Case { operand, whens, otherwise } => {
            // The results' mix is checked (an explicit conflict is an error).
            let results: Vec<&Expr> = whens.iter().map(|(_, t)| t).chain(otherwise.iter().map(|o| &**o)).collect();
            string_result("case", &results, slots)?;
            let c = match &operand {
                Some(o) => {
                    let mut dts = vec![derive(o, slots)?];
                    for (w, _) in &whens {
                        dts.push(derive(w, slots)?);
                    }
                    compare_collation("case", &dts)?
                }
                None => None,
            };
            let f = under(c);
            let operand = operand.map(|o| rec(o, f)).transpose()?;
            let whens = whens
                .into_iter()
                .map(|(w, t)| Ok((rewrite(w, slots, f)?, rewrite(t, slots, f)?)))
                .collect::<Result<_>>()?;
            let otherwise = otherwise.map(|o| rec(o, f)).transpose()?;
            wrap(c, in_force, Expr::Case { operand, whens, otherwise })
        }
        Expr::Collate(c, x) => {
            let d = derive(&x, slots)?;
            let cs = d.charset();
            if d.known && d.level != Level::Ignorable && cs != c.charset() {
                let cs = if d.cs == Cs::Text(DEFAULT) && d.level == Level::SysConst { "utf8mb3" } else { cs };
                return Err(SqlError::new(
                    1253,
                    "42000",
                    format!("COLLATION '{}' is not valid for CHARACTER SET '{cs}'", c.name()),
                ));
            }
            Expr::Collate(c, rec(x, c)?)
        }
        Expr::Func(name, args) if (name == "collation" || name == "coercibility") && args.len() == 1 => {
            let d = derive(&args[0], slots)?;
            if !d.known {
                return Err(SqlError::unsupported(format!(
                    "{}() of a user variable, aggregate, subquery or this function",
                    name.to_ascii_uppercase()
                )));
            }
            Expr::Lit(if name == "collation" {
                Value::Str(d.collation_name().into())
            } else {
                Value::Int(d.level as i64)
            })
        }
        // LENGTH of a latin1 column counts latin1 bytes: one a character.
        Expr::Func(n, args)
            if matches!(n.as_str(), "length" | "octet_length")
                && matches!(args.as_slice(), [Expr::Col(i)] if slots.get(*i).is_some_and(|d| d.charset() == "latin1")) =>
        {
            Expr::Func("char_length".into(), args)
        }
        Expr::Func(name, args) => {
            let c = match compared_args(&name, &args) {
                Some(cmp) => {
                    let dts = cmp.iter().map(|x| derive(x, slots)).collect::<Result<Vec<_>>>()?;
                    let op = if name == "instr" { "locate" } else { name.as_str() };
                    if matches!(op, "greatest" | "least") {
                        // A string result: a mix without a collation is
                        // allowed and compares by the set's `_bin` one.
                        let d = string_result(op, &cmp, slots)?;
                        match d.cs {
                            Cs::Text(c) if dts.iter().all(Dt::stringy) => Some(c),
                            _ => None,
                        }
                    } else {
                        compare_collation(op, &dts)?
                    }
                }
                None => None,
            };
            let f = under(c);
            let args = args.into_iter().map(|x| rewrite(x, slots, f)).collect::<Result<_>>()?;
            // REPLACE matches byte for byte whatever the collation (MySQL).
            let c = if name == "replace" { None } else { c };
            wrap(c, in_force, Expr::Func(name, args))
        }
        Expr::Not(x) => Expr::Not(rec(x, in_force)?),
        Expr::Neg(x) => Expr::Neg(rec(x, in_force)?),
        Expr::IsNull(x, n) => Expr::IsNull(rec(x, in_force)?, n),
        other => other,
    })
}

/// The arguments a comparing function mixes, in the order MySQL's message
/// names them.
fn compared_args<'a>(name: &str, args: &'a [Expr]) -> Option<Vec<&'a Expr>> {
    Some(match (name, args) {
        ("strcmp" | "nullif" | "find_in_set", [a, b]) => vec![a, b],
        ("locate", [needle, hay, ..]) => vec![hay, needle],
        ("instr", [hay, needle]) => vec![hay, needle],
        ("substring_index", [s, delim, _]) => vec![s, delim],
        ("replace", [s, from, to]) => vec![s, from, to],
        ("field" | "greatest" | "least", _) if args.len() >= 2 => args.iter().collect(),
        _ => return None,
    })
}
