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

use quire_engine::row::{bit, year, Column, Value};

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{self, Env};
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
