//! Storing a value into a column, as MySQL's INSERT and UPDATE do: the
//! value is converted to the column's type, and what does not fit raises a
//! condition (`diag.rs`) — a warning with an adjusted value in non-strict
//! `sql_mode`, an error in strict mode (warnings become errors there by
//! [`Mode::abort_on_warning`](crate::diag::Mode), except that a too-long
//! string is 1406 and a bad date 1292, as MySQL has it).
//!
//! | what | non-strict (warning, value stored) | strict (error) |
//! |---|---|---|
//! | number out of range | 1264, clipped to the nearest bound | 1264 |
//! | `'12abc'` into a number | 1265, the numeric prefix | 1265 |
//! | `'abc'` into a number | 1366, 0 | 1366 |
//! | string too long | 1265, cut to the length | 1406 |
//! | bad date / datetime | 1265, the zero date | 1292 |
//! | NULL into NOT NULL (UPDATE, multi-row INSERT) | 1048, the implicit default | 1048 |
//! | NOT NULL column without default left out | 1364, the implicit default | 1364 |
//!
//! Whatever the mode, decimals rounded to the column's scale, a date's time
//! part dropped and trailing spaces cut from a VARCHAR raise Note 1265, and
//! NULL into NOT NULL in a single-row INSERT is error 1048 (MariaDB's
//! messages; its `db`.`table`.`column` form for 1366 and 1292).
//!
//! The values returned are already of the column's type and in range, so
//! the engine's own (strict) check accepts them unchanged.

use quire_engine::row::{Column, ColumnType, Date, DateTime, Decimal, Value, TEXT_MAX_BYTES};

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{self, Env};

/// Where a value goes, for messages: the table and the 1-based row of the
/// statement.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    pub db: &'a str,
    pub table: &'a str,
    pub row: u64,
}

/// The value a NOT NULL column takes when it gets no usable value in
/// non-strict mode (MySQL's implicit default).
pub fn implicit_default(col: &Column) -> Value {
    let zero_date = Date { year: 0, month: 0, day: 0 };
    match col.ty {
        t if t.is_integer() && t.is_unsigned() => Value::UInt(0),
        t if t.is_integer() => Value::Int(0),
        ColumnType::Decimal { scale, .. } => Value::Decimal(Decimal::new(0, scale)),
        ColumnType::Float { .. } | ColumnType::Double { .. } => Value::Double(0.0),
        ColumnType::Date => Value::Date(zero_date),
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            Value::DateTime(DateTime { date: zero_date, hour: 0, minute: 0, second: 0, micros: 0 })
        }
        ColumnType::Time { .. } => Value::Time(0),
        ColumnType::Binary { len } => Value::Bytes(vec![0; len as usize]),
        ColumnType::VarBinary { .. } | ColumnType::Blob { .. } => Value::Bytes(Vec::new()),
        // MySQL's implicit default of a NOT NULL JSON column: JSON null.
        ColumnType::Json => Value::Json(Box::new(quire_engine::row::json::Json::Null)),
        ColumnType::Enum { members } | ColumnType::Set { members } => crate::choice::implicit_default(members),
        ColumnType::Year => Value::Int(0),
        ColumnType::Bit { .. } => Value::UInt(0),
        _ => Value::Str(String::new()),
    }
}

/// The statement's time for a `DEFAULT` / `ON UPDATE CURRENT_TIMESTAMP`
/// column: the session's wall clock at the column's fractional digits.
pub fn current_timestamp(col: &Column) -> Value {
    let fsp = match col.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
        _ => 0,
    };
    Value::DateTime(crate::timezone::local_now().with_fsp(fsp))
}

/// ON UPDATE CURRENT_TIMESTAMP: when an UPDATE changed `row` from `old`,
/// each such column it did not assign (`assigned`) takes the statement's
/// time, as MariaDB does (a row left as it was keeps its stamp).
pub fn stamp_on_update(columns: &[Column], assigned: &dyn Fn(usize) -> bool, old: &[Value], row: &mut [Value]) {
    if !columns.iter().any(|c| c.on_update_now) || old == row {
        return;
    }
    for (i, c) in columns.iter().enumerate() {
        if c.on_update_now && !assigned(i) {
            row[i] = current_timestamp(c);
        }
    }
}

/// 1048 for NULL into NOT NULL: the implicit default with a warning when
/// `lenient` (UPDATE, multi-row INSERT; an error anyway in strict mode),
/// else the error.
pub fn null_into_not_null(col: &Column, lenient: bool, env: &dyn Env) -> Result<Value> {
    let c = Condition::new(Level::Warning, 1048, format!("Column '{}' cannot be null", col.name));
    if !lenient {
        return Err(c.into_error());
    }
    env.warn(c)?;
    Ok(implicit_default(col))
}

/// 1364 for a NOT NULL column without a default that an INSERT leaves out.
pub fn missing_value(col: &Column, env: &dyn Env) -> Result<Value> {
    // An ENUM's first member is its default whatever the mode (MariaDB's).
    if let ColumnType::Enum { members } = col.ty {
        return Ok(crate::choice::implicit_default(members));
    }
    env.warn(Condition::new(Level::Warning, 1364, format!("Field '{}' doesn't have a default value", col.name)))?;
    Ok(implicit_default(col))
}

/// Converts non-NULL `v` for `col` (see the table above).
pub fn assign(col: &Column, v: Value, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    debug_assert!(!v.is_null(), "NULL is the caller's to handle");
    let truncated = |level: Level| {
        Condition::new(level, 1265, format!("Data truncated for column '{}' at row {}", col.name, at.row))
    };
    let out_of_range = || {
        Condition::new(Level::Warning, 1264, format!("Out of range value for column '{}' at row {}", col.name, at.row))
    };
    let incorrect = |kind: &str, s: &str| {
        Condition::new(
            Level::Warning,
            1366,
            format!(
                "Incorrect {kind} value: '{s}' for column `{}`.`{}`.`{}` at row {}",
                at.db, at.table, col.name, at.row
            ),
        )
    };
    match col.ty {
        t if t.is_integer() => {
            let n = match &v {
                Value::Str(s) => match expr::number_text_level(s) {
                    Some(Level::Warning) if expr::numeric_prefix_len(s.trim_start()) == 0 => {
                        env.warn(incorrect("integer", s))?;
                        0
                    }
                    level => {
                        if let Some(level) = level {
                            env.warn(truncated(level))?;
                        }
                        rounded(expr::str_to_decimal(s).unwrap_or(Decimal::ZERO))
                    }
                },
                other => expr::to_i128(other).unwrap_or(0),
            };
            let (lo, hi) = t.int_range();
            let n = if n < lo || n > hi {
                env.warn(out_of_range())?;
                n.clamp(lo, hi)
            } else {
                n
            };
            Ok(if t.is_unsigned() { Value::UInt(n as u64) } else { Value::Int(n as i64) })
        }
        ColumnType::Decimal { precision, scale, unsigned } => {
            let (d, mut note) = match &v {
                Value::Str(s) => match expr::number_text_level(s) {
                    Some(Level::Warning) if expr::numeric_prefix_len(s.trim_start()) == 0 => {
                        env.warn(incorrect("decimal", s))?;
                        (Decimal::ZERO, None)
                    }
                    level => (expr::str_to_decimal(s).unwrap_or(Decimal::ZERO), level),
                },
                other => (expr::to_decimal(other).unwrap_or(Decimal::ZERO), None),
            };
            // UNSIGNED: a negative value is out of range and stores as 0.
            if unsigned && d.coef < 0 {
                env.warn(out_of_range())?;
                return Ok(Value::Decimal(Decimal::new(0, scale)));
            }
            let max = Decimal::new(10i128.pow(u32::from(precision)) - 1, scale);
            match d.rescale(scale).filter(|r| r.fits(precision, scale)) {
                Some(r) => {
                    if note.is_none() && r != d && r.rescale(d.scale) != Some(d) {
                        note = Some(Level::Note);
                    }
                    if let Some(level) = note {
                        env.warn(truncated(level))?;
                    }
                    Ok(Value::Decimal(r))
                }
                None => {
                    env.warn(out_of_range())?;
                    Ok(Value::Decimal(if d.coef < 0 { Decimal::new(-max.coef, scale) } else { max }))
                }
            }
        }
        ColumnType::Float { digits, unsigned } | ColumnType::Double { digits, unsigned } => {
            let f = match &v {
                Value::Str(s) => match expr::number_text_level(s) {
                    Some(Level::Warning) if expr::numeric_prefix_len(s.trim_start()) == 0 => {
                        env.warn(incorrect("double", s))?;
                        0.0
                    }
                    level => {
                        if let Some(level) = level {
                            env.warn(truncated(level))?;
                        }
                        quire_engine::row::float::leading_f64(s)
                    }
                },
                other => expr::to_f64(other).unwrap_or(0.0),
            };
            if unsigned && f < 0.0 {
                env.warn(out_of_range())?;
                return Ok(Value::Double(0.0));
            }
            match quire_engine::row::approx_in_range(col.ty, f, digits) {
                Some(f) => Ok(Value::Double(f)),
                None => {
                    env.warn(out_of_range())?;
                    let max = match (col.ty, digits) {
                        (_, Some((m, d))) => 10f64.powi(i32::from(m) - i32::from(d)) - 10f64.powi(-i32::from(d)),
                        (ColumnType::Float { .. }, None) => f64::from(f32::MAX),
                        _ => f64::MAX,
                    };
                    Ok(Value::Double(if f < 0.0 { -max } else { max }))
                }
            }
        }
        // Invalid JSON is an error in any sql_mode (MySQL's 3140).
        ColumnType::Json => crate::json::for_column(v, at.table, &col.name),
        ColumnType::Binary { len } | ColumnType::VarBinary { len } | ColumnType::Blob { max_bytes: len } => {
            let mut b = crate::binary::bytes_of(&v);
            if b.len() > len as usize {
                too_long(col, at, env)?;
                b.truncate(len as usize);
            }
            if matches!(col.ty, ColumnType::Binary { .. }) {
                b.resize(len as usize, 0);
            }
            Ok(Value::Bytes(b))
        }
        ColumnType::Char { len } | ColumnType::Varchar { len } => {
            let text = text_for(col, v, at, env)?;
            // One warning a value: after 1366 no 1265 (as MariaDB).
            let converted = col.collation.unmappable(&text).is_some();
            let mut s = into_charset(col, text, at, env)?;
            let fixed = matches!(col.ty, ColumnType::Char { .. });
            if fixed {
                s.truncate(s.trim_end_matches(' ').len());
            }
            let len = len as usize;
            if s.chars().count() > len {
                if s.trim_end_matches(' ').chars().count() > len {
                    if !converted {
                        too_long(col, at, env)?;
                    }
                } else if !fixed && !converted {
                    env.warn(truncated(Level::Note))?;
                }
                s = s.chars().take(len).collect();
            }
            Ok(Value::Str(s))
        }
        ColumnType::Text => {
            let text = text_for(col, v, at, env)?;
            let mut s = into_charset(col, text, at, env)?;
            if s.len() > TEXT_MAX_BYTES {
                too_long(col, at, env)?;
                let mut end = TEXT_MAX_BYTES;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.truncate(end);
            }
            Ok(Value::Str(s))
        }
        ColumnType::Date => {
            let dt = match v {
                Value::Date(d) => return Ok(Value::Date(d)),
                Value::DateTime(dt) => Ok(dt),
                other => parse_datetime(text_of(other)),
            };
            match dt {
                Ok(dt) => {
                    if (dt.hour, dt.minute, dt.second, dt.micros) != (0, 0, 0, 0) {
                        env.warn(truncated(Level::Note))?;
                    }
                    Ok(Value::Date(dt.date))
                }
                Err(text) => bad_date(col, at, "date", &text, env).map(|_| implicit_default(col)),
            }
        }
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => {
            let text = match &v {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            };
            let dt = match v {
                Value::DateTime(dt) => Ok(dt),
                Value::Date(d) => Ok(DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 }),
                other => parse_datetime(text_of(other)),
            };
            match dt {
                Ok(dt) if matches!(col.ty, ColumnType::Timestamp { .. }) && !timestamp_in_range(&dt) => {
                    let text = text.unwrap_or_else(|| dt.format(if dt.micros == 0 { 0 } else { 6 }));
                    out_of_timestamp_range(col, at, &text, env).map(|_| implicit_default(col))
                }
                // A time a named zone skips (its spring gap): MariaDB's
                // 1299, and the instant of the change is stored.
                Ok(dt)
                    if matches!(col.ty, ColumnType::Timestamp { .. }) && !quire_engine::row::tz::local_exists(&dt) =>
                {
                    let text = text.unwrap_or_else(|| dt.format(if dt.micros == 0 { 0 } else { 6 }));
                    if env.mode().abort_on_warning {
                        bad_date(col, at, "datetime", &text, env)?;
                    }
                    let m = format!("Invalid TIMESTAMP value in column '{}' at row {}", col.name, at.row);
                    env.warn(Condition::new(Level::Warning, 1299, m))?;
                    Ok(Value::DateTime(dt.with_fsp(fsp)))
                }
                Ok(dt) => Ok(Value::DateTime(dt.with_fsp(fsp))),
                Err(text) => bad_date(col, at, "datetime", &text, env).map(|_| implicit_default(col)),
            }
        }
        ColumnType::Time { fsp } => crate::timeval::assign(col, fsp, v, at, env),
        ColumnType::Enum { members } | ColumnType::Set { members } => crate::choice::assign(col, members, v, at, env),
        ColumnType::Year => crate::yearbit::assign_year(col, v, at, env),
        ColumnType::Bit { bits } => crate::yearbit::assign_bit(col, bits, v, at, env),
        _ => Err(SqlError::internal(format!("no conversion into {}", col.ty.sql()))),
    }
}

/// An integer from a decimal, rounding half away from zero (a value too
/// large for i128 is clipped by the range check anyway).
fn rounded(d: Decimal) -> i128 {
    d.rescale(0).map_or(if d.coef < 0 { i128::MIN } else { i128::MAX }, |r| r.coef)
}

fn text_of(v: Value) -> String {
    match v {
        Value::Str(s) => s,
        other => expr::as_string(&other),
    }
}

/// A value as the text a CHAR / VARCHAR / TEXT column stores: a binary
/// string must be UTF-8 — else 1366 in strict mode, or a warning and each
/// bad byte stored as `?` (MariaDB's answers).
fn text_for(col: &Column, v: Value, at: Place<'_>, env: &dyn Env) -> Result<String> {
    let Value::Bytes(b) = v else { return Ok(text_of(v)) };
    match String::from_utf8(b) {
        Ok(s) => Ok(s),
        Err(e) => {
            let b = e.into_bytes();
            let shown = crate::binary::printable(&b);
            incorrect_string(col, at, env, &shown)?;
            Ok(crate::binary::lossy_text(&b))
        }
    }
}

/// 1366 "Incorrect string value" for `col` (`shown`: the offending bytes
/// as MariaDB prints them): an error in strict mode, else a warning.
fn incorrect_string(col: &Column, at: Place<'_>, env: &dyn Env, shown: &str) -> Result<()> {
    env.warn(Condition::new(
        Level::Warning,
        1366,
        format!(
            "Incorrect string value: '{shown}' for column `{}`.`{}`.`{}` at row {}",
            at.db, at.table, col.name, at.row
        ),
    ))
}

/// A string for a column whose character set cannot hold some of its
/// characters (latin1): 1366 with the bytes from the first such character
/// (six at most, then "...", as MariaDB), each replaced by '?' when the
/// mode lets it be stored. Values stay UTF-8 inside quire.
fn into_charset(col: &Column, s: String, at: Place<'_>, env: &dyn Env) -> Result<String> {
    let Some(bad) = col.collation.unmappable(&s) else { return Ok(s) };
    let rest = &s.as_bytes()[s.find(bad).unwrap_or(0)..];
    let mut shown = String::new();
    for &b in rest.iter().take(6) {
        if b.is_ascii_graphic() || b == b' ' {
            shown.push(b as char);
        } else {
            shown.push_str(&format!("\\x{b:02X}"));
        }
    }
    if rest.len() > 6 {
        shown.push_str("...");
    }
    incorrect_string(col, at, env, &shown)?;
    Ok(s.chars()
        .map(|c| if col.collation.unmappable(c.encode_utf8(&mut [0; 4])).is_some() { '?' } else { c })
        .collect())
}

fn too_long(col: &Column, at: Place<'_>, env: &dyn Env) -> Result<()> {
    if env.mode().abort_on_warning {
        return Err(SqlError::new(1406, "22001", format!("Data too long for column '{}' at row {}", col.name, at.row)));
    }
    env.warn(Condition::new(
        Level::Warning,
        1265,
        format!("Data truncated for column '{}' at row {}", col.name, at.row),
    ))
}

/// A value no date can be made of: 1292 in strict mode, else 1265 (the
/// caller stores the zero date).
fn bad_date(col: &Column, at: Place<'_>, kind: &str, text: &str, env: &dyn Env) -> Result<()> {
    if env.mode().abort_on_warning {
        return Err(SqlError::new(
            1292,
            "22007",
            format!(
                "Incorrect {kind} value: '{text}' for column `{}`.`{}`.`{}` at row {}",
                at.db, at.table, col.name, at.row
            ),
        ));
    }
    env.warn(Condition::new(
        Level::Warning,
        1265,
        format!("Data truncated for column '{}' at row {}", col.name, at.row),
    ))
}

/// Whether a TIMESTAMP given in the session's zone is the zero date or
/// within 1970-01-01 00:00:01 .. 2038-01-19 03:14:07 UTC.
fn timestamp_in_range(dt: &DateTime) -> bool {
    if dt.date.month == 0 || dt.date.day == 0 {
        return dt.date.year == 0 && (dt.hour, dt.minute, dt.second, dt.micros) == (0, 0, 0, 0);
    }
    let utc = quire_engine::row::tz::local_unix_seconds(dt);
    (1..=i64::from(i32::MAX)).contains(&utc)
}

/// A date outside TIMESTAMP's range: 1292 in strict mode, else 1264 (the
/// caller stores the zero date), as MariaDB has it.
fn out_of_timestamp_range(col: &Column, at: Place<'_>, text: &str, env: &dyn Env) -> Result<()> {
    if env.mode().abort_on_warning {
        return bad_date(col, at, "datetime", text, env);
    }
    env.warn(Condition::new(
        Level::Warning,
        1264,
        format!("Out of range value for column '{}' at row {}", col.name, at.row),
    ))
}

/// A date or datetime from text: `YYYY-MM-DD[ hh:mm:ss[.ffffff]]`,
/// `YYYYMMDD`, and the zero date (allowed: quire's sql_mode has no
/// NO_ZERO_DATE). The text back when it is none of these.
fn parse_datetime(s: String) -> std::result::Result<DateTime, String> {
    if let Some(d) = Date::parse(&s) {
        return Ok(DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 });
    }
    if let Some(dt) = DateTime::parse(&s) {
        return Ok(dt);
    }
    let t = s.trim();
    let zero = t.starts_with("0000") && t.bytes().all(|b| matches!(b, b'0' | b'-' | b':' | b' ' | b'.' | b'/'));
    if zero {
        return Ok(DateTime { date: Date { year: 0, month: 0, day: 0 }, hour: 0, minute: 0, second: 0, micros: 0 });
    }
    Err(s)
}
