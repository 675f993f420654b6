//! YEAR and BIT(n) columns in the SQL layer: storing values into them
//! with MariaDB 10.11's warnings and errors, and their DEFAULTs. Their
//! values are plain numbers (`Value::Int` years, `Value::UInt` bits; see
//! `quire_engine::row::{year, bit}`), so they compare, sort and compute
//! as integers; only the wire shows them otherwise (YEAR as four digits,
//! BIT as its big-endian bytes: the server's `backend::cell`).
//!
//! YEAR (`Field_year::store`):
//!
//! | input | stored | condition |
//! |---|---|---|
//! | 0, 1901..=2155 | itself | |
//! | 1..=69 / 70..=99 | 2001..=2069 / 1970..=1999 | |
//! | text `'0'`, `'00'`, `'000'` | 2000 (only `'0000'` is 0000) | |
//! | any other number | 0000 | 1264 |
//! | text with no number | 0000 | 1366 |
//! | text with trailing garbage / spaces | its number | 1265 warning / note |
//! | a DATE / DATETIME | its year | 1265 |
//!
//! BIT(n) (`Field_bit::store`): a number, or text as its big-endian bytes;
//! more than n bits is the largest value with 1264 outside strict mode
//! and 1406 "Data too long" in it.
//!
//! Read as text (`as_text`, at plan time): a YEAR is its four digits and
//! a BIT(n) its big-endian bytes where a string function or LIKE reads
//! them, as MariaDB's `val_str` (ZEROFILL and FLOAT columns too: see
//! `number_text`).

use quire_engine::row::{bit, year, Column, ColumnType, Value};

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{self, Env, Expr};
use crate::store::Place;

/// Converts non-NULL `v` for YEAR column `col` (see the table above).
pub fn assign_year(col: &Column, v: Value, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    let out_of_range = || {
        env.warn(Condition::new(
            Level::Warning,
            1264,
            format!("Out of range value for column '{}' at row {}", col.name, at.row),
        ))
        .map(|_| Value::Int(0))
    };
    let n = match &v {
        Value::Str(_) | Value::Bytes(_) => return assign_year_text(col, &expr::as_string(&v), at, env),
        // A date keeps its year, with 1265 for the rest (MariaDB's).
        Value::Date(_) | Value::DateTime(_) => {
            env.warn(Condition::new(
                Level::Warning,
                1265,
                format!("Data truncated for column '{}' at row {}", col.name, at.row),
            ))?;
            match &v {
                Value::Date(d) => i128::from(d.year),
                Value::DateTime(dt) => i128::from(dt.date.year),
                _ => 0,
            }
        }
        Value::Double(f) if *f < 0.0 || *f > 2155.0 => return out_of_range(),
        other => match expr::to_i128(other) {
            Some(n) => n,
            None => return out_of_range(),
        },
    };
    match year::from_number(n) {
        Some(y) => Ok(Value::Int(y)),
        None => out_of_range(),
    }
}

fn assign_year_text(col: &Column, s: &str, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    if expr::numeric_prefix_len(s.trim_start()) == 0 {
        env.warn(Condition::new(
            Level::Warning,
            1366,
            format!(
                "Incorrect integer value: '{s}' for column `{}`.`{}`.`{}` at row {}",
                at.db, at.table, col.name, at.row
            ),
        ))?;
        return Ok(Value::Int(0));
    }
    let n = expr::str_to_decimal(s).and_then(|d| d.rescale(0)).map_or(i128::MAX, |d| d.coef);
    let Some(y) = year::from_text_number(n, s.len()) else {
        env.warn(Condition::new(
            Level::Warning,
            1264,
            format!("Out of range value for column '{}' at row {}", col.name, at.row),
        ))?;
        return Ok(Value::Int(0));
    };
    if let Some(level) = expr::number_text_level(s) {
        env.warn(Condition::new(level, 1265, format!("Data truncated for column '{}' at row {}", col.name, at.row)))?;
    }
    Ok(Value::Int(y))
}

/// Converts non-NULL `v` for BIT(bits) column `col` (see the module note).
pub fn assign_bit(col: &Column, bits: u8, v: Value, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    let n = match &v {
        Value::Str(s) => bit::from_bytes(s.as_bytes()),
        Value::Bytes(b) => bit::from_bytes(b),
        Value::UInt(u) => Some(*u),
        // A negative number is its two's complement, as MariaDB stores it.
        Value::Int(i) => Some(*i as u64),
        Value::Double(f) => Some(f.trunc() as i64 as u64),
        other => expr::to_i128(other).map(|n| n as i64 as u64),
    };
    match n.filter(|&n| n <= bit::max(bits)) {
        Some(n) => Ok(Value::UInt(n)),
        None => {
            if env.mode().abort_on_warning {
                return Err(SqlError::new(
                    1406,
                    "22001",
                    format!("Data too long for column '{}' at row {}", col.name, at.row),
                ));
            }
            env.warn(Condition::new(
                Level::Warning,
                1264,
                format!("Out of range value for column '{}' at row {}", col.name, at.row),
            ))?;
            Ok(Value::UInt(bit::max(bits)))
        }
    }
}

/// A BIT value as MariaDB prints a default: `b'101'` (`b'0'` for zero).
pub fn bit_literal(n: u64) -> String {
    format!("b'{n:b}'")
}

/// The internal function giving a YEAR value as text (`'0000'`, `'1999'`).
pub const YEAR_TEXT: &str = "year text";
/// The internal function giving a BIT(n) value as text: its big-endian
/// bytes, `(the value, n)`.
pub const BIT_TEXT: &str = "bit text";
/// The internal function giving a YEAR value as a date: `yyyy-00-00`, as
/// MariaDB's `Field_year::get_date` (`YEAR(y)` is the year, `MONTH(y)` 0).
pub const YEAR_DATE: &str = "year date";

/// Date functions and the argument they read as a date.
const DATE_ARGS: &[(&str, usize)] = &[
    ("year", 0),
    ("month", 0),
    ("day", 0),
    ("dayofmonth", 0),
    ("quarter", 0),
    ("date_format", 0),
    ("extract", 1),
    ("cast_date", 0),
];

/// String functions and the arguments they read as text (`None`: all of
/// them). A YEAR or BIT column there is read as MariaDB's `val_str` gives
/// it, not as its number: `CONCAT(y)` of year 0 is `'0000'`, `LENGTH` of a
/// BIT(10) is 2 (bytes).
const TEXT_ARGS: &[(&str, Option<&[usize]>)] = &[
    ("concat", None),
    ("concat_ws", None),
    ("length", None),
    ("octet_length", None),
    ("char_length", None),
    ("character_length", None),
    ("bit_length", None),
    ("upper", None),
    ("ucase", None),
    ("lower", None),
    ("lcase", None),
    ("reverse", None),
    ("trim", None),
    ("ltrim", None),
    ("rtrim", None),
    ("replace", None),
    ("instr", None),
    ("locate", Some(&[0, 1])),
    ("position", None),
    ("substring", Some(&[0])),
    ("substr", Some(&[0])),
    ("mid", Some(&[0])),
    ("left", Some(&[0])),
    ("right", Some(&[0])),
    ("lpad", Some(&[0, 2])),
    ("rpad", Some(&[0, 2])),
    ("repeat", Some(&[0])),
    ("insert", Some(&[0, 3])),
    ("strcmp", None),
    ("quote", None),
    ("md5", None),
    ("sha1", None),
    ("sha", None),
    ("to_base64", None),
    ("ascii", None),
    ("ord", None),
    ("cast_char", None),
];

/// Whether a table with these column types has YEAR / BIT columns to
/// read as text.
pub fn wanted(mut types: impl Iterator<Item = ColumnType>) -> bool {
    types.any(|t| matches!(t, ColumnType::Year | ColumnType::Bit { .. }))
}

/// Wraps the YEAR / BIT columns (slot types `types`) that `e` reads as
/// text — arguments of the string functions above and both sides of LIKE —
/// in [`YEAR_TEXT`] / [`BIT_TEXT`], and the YEAR columns date functions
/// read in [`YEAR_DATE`]. Anywhere else they stay numbers, as
/// they compare, sort and compute in MariaDB. Runs once per compiled
/// statement, with `compare_const::rewrite`.
pub fn as_text(e: Expr, types: &[Option<ColumnType>], zerofill: &[Option<u8>]) -> Expr {
    let zerofill_of = |i: usize| zerofill.get(i).copied().flatten();
    let numbers = || {
        zerofill.iter().any(Option::is_some)
            || types.iter().enumerate().any(|(i, t)| t.is_some_and(|t| crate::number_text::wanted(t, zerofill_of(i))))
    };
    if !wanted(types.iter().flatten().copied()) && !numbers() {
        return e;
    }
    let text = |x: &Expr| -> Option<Expr> {
        let Expr::Col(i) = x else { return None };
        // A derived table's or view's column: ZEROFILL known from its
        // result metadata, not its type.
        if let (None, Some(width)) = (types.get(*i).copied().flatten(), zerofill_of(*i)) {
            return Some(crate::number_text::padded(x.clone(), width));
        }
        match types.get(*i).copied().flatten()? {
            t if crate::number_text::wanted(t, zerofill_of(*i)) => {
                crate::number_text::wrap(x.clone(), t, zerofill_of(*i))
            }
            ColumnType::Year => Some(Expr::Func(YEAR_TEXT.into(), vec![x.clone()])),
            ColumnType::Bit { bits } => {
                Some(Expr::Func(BIT_TEXT.into(), vec![x.clone(), Expr::Lit(Value::Int(i64::from(bits)))]))
            }
            _ => None,
        }
    };
    // An argument read as text: the column wrapped, anything else rewritten
    // inside.
    let arg = |x: Expr| text(&x).unwrap_or_else(|| as_text(x, types, zerofill));
    let mut f = |x: &Expr| -> Option<crate::error::Result<Expr>> {
        match x {
            Expr::Func(name, args) if DATE_ARGS.iter().any(|(n, _)| n == name) => {
                let (_, k) = DATE_ARGS.iter().find(|(n, _)| n == name)?;
                let args = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match a {
                        Expr::Col(c) if i == *k && types.get(*c).copied().flatten() == Some(ColumnType::Year) => {
                            Expr::Func(YEAR_DATE.into(), vec![a.clone()])
                        }
                        _ => as_text(a.clone(), types, zerofill),
                    })
                    .collect();
                Some(Ok(Expr::Func(name.clone(), args)))
            }
            Expr::Func(name, args) => {
                let (_, which) = TEXT_ARGS.iter().find(|(n, _)| n == name)?;
                let args = args
                    .iter()
                    .enumerate()
                    .map(|(k, a)| match which {
                        Some(ks) if !ks.contains(&k) => as_text(a.clone(), types, zerofill),
                        _ => arg(a.clone()),
                    })
                    .collect();
                Some(Ok(Expr::Func(name.clone(), args)))
            }
            Expr::Like { expr, pattern, negated } => Some(Ok(Expr::Like {
                expr: Box::new(arg((**expr).clone())),
                pattern: Box::new(arg((**pattern).clone())),
                negated: *negated,
            })),
            _ => None,
        }
    };
    expr::map_expr(e.clone(), &mut f).unwrap_or(e)
}

/// GROUP_CONCAT reads its arguments as text: a YEAR / BIT / ZEROFILL /
/// FLOAT column among them is wrapped as [`as_text`] wraps it in CONCAT.
pub fn group_concat_as_text(aggs: &mut [expr::Agg], types: &[Option<ColumnType>], zerofill: &[Option<u8>]) {
    for a in aggs.iter_mut().filter(|a| a.func == expr::AggFn::GroupConcat) {
        let wrap = |x: Expr| match as_text(Expr::Func("concat".into(), vec![x.clone()]), types, zerofill) {
            Expr::Func(_, mut args) if args.len() == 1 => args.remove(0),
            _ => x,
        };
        a.arg = a.arg.take().map(wrap);
        a.more = std::mem::take(&mut a.more).into_iter().map(wrap).collect();
    }
}

/// The internal functions' values (`None`: `name` is not one of them).
pub fn call(name: &str, args: &[Value]) -> Option<Value> {
    match (name, args) {
        (YEAR_TEXT | BIT_TEXT | YEAR_DATE, [Value::Null, ..]) => Some(Value::Null),
        (YEAR_DATE, [v]) => {
            let year = expr::to_i128(v).unwrap_or(0) as u16;
            Some(Value::Date(quire_engine::row::Date { year, month: 0, day: 0 }))
        }
        (YEAR_TEXT, [v]) => Some(Value::Str(format!("{:04}", expr::to_i128(v).unwrap_or(0)))),
        (BIT_TEXT, [v, Value::Int(bits)]) => {
            let n = match v {
                Value::UInt(u) => *u,
                other => expr::to_i128(other).unwrap_or(0) as u64,
            };
            Some(Value::Bytes(bit::to_bytes(n, *bits as u8)))
        }
        _ => None,
    }
}
