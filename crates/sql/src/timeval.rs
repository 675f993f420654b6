//! TIME in the SQL layer: reading any value as a TIME (MariaDB's rules,
//! see `quire_engine::row::time`), storing into a TIME column (1264 /
//! 1265 warnings outside strict mode, 1292 in strict mode, as MariaDB
//! 10.11), and the TIME functions: TIMEDIFF, TIME_TO_SEC, SEC_TO_TIME,
//! ADDTIME / SUBTIME, MAKETIME, CURTIME / CURRENT_TIME, TIME(),
//! TIME_FORMAT, CAST(.. AS TIME), and HOUR .. MICROSECOND of a time
//! (HOUR may exceed 23).
//!
//! A TIME used where a DATETIME is wanted is today's date plus the time,
//! as MySQL has it ([`to_datetime`]).
//!
//! Invariant: every `Value::Time` made here is within ±838:59:59.999999
//! (out-of-range results are clipped, as MariaDB clips them).

use quire_engine::row::time::{self, TimeRead};
use quire_engine::row::{Column, DateTime, Decimal, Value};

use crate::diag::{Condition, Level};
use crate::error::{Result, SqlError};
use crate::expr::{as_string, to_decimal, to_i128, Env};
use crate::plan::MetaType;
use crate::store::Place;

const US: i128 = 1_000_000;

/// The functions of this module, with their argument counts.
pub const FUNCS: &[(&str, usize, usize)] = &[
    ("timediff", 2, 2),
    ("time_to_sec", 1, 1),
    ("sec_to_time", 1, 1),
    ("addtime", 2, 2),
    ("subtime", 2, 2),
    ("maketime", 3, 3),
    ("curtime", 0, 1),
    ("current_time", 0, 1),
    ("time", 1, 1),
    ("time_format", 2, 2),
    ("cast_time", 1, 2),
];

/// Whether `name` is one of [`FUNCS`].
pub fn is_func(name: &str) -> bool {
    FUNCS.iter().any(|(n, ..)| *n == name)
}

fn time_of_day(dt: &DateTime) -> i64 {
    ((i64::from(dt.hour) * 60 + i64::from(dt.minute)) * 60 + i64::from(dt.second)) * 1_000_000 + i64::from(dt.micros)
}

/// Reads a value as a TIME, as MySQL converts an argument to one.
pub fn read(v: &Value) -> TimeRead {
    match v {
        Value::Null => TimeRead::Invalid,
        Value::Time(us) => TimeRead::Exact(*us),
        Value::DateTime(dt) => TimeRead::Exact(time_of_day(dt)),
        Value::Date(_) => TimeRead::Exact(0),
        Value::Str(s) => time::parse(s),
        // A binary string reads as its text (MySQL converts it so).
        Value::Bytes(b) => time::parse(&String::from_utf8_lossy(b)),
        Value::Json(j) => match &**j {
            quire_engine::row::json::Json::Time(us) => TimeRead::Exact(*us),
            quire_engine::row::json::Json::Str(s) => time::parse(s),
            _ => TimeRead::Invalid,
        },
        // An ENUM / SET reads as its text.
        Value::Choice(c) => time::parse(&c.text()),
        Value::Int(i) => time::from_number(i128::from(*i), 0),
        Value::UInt(u) => time::from_number(i128::from(*u), 0),
        Value::Double(f) if f.abs() < 1e15 => {
            let us = (f * 1e6) as i128;
            time::from_number(us / US, us % US)
        }
        Value::Double(_) => time::clip(if v.to_string().starts_with('-') { i128::MIN / 2 } else { i128::MAX / 2 }),
        Value::Decimal(d) => {
            let us = d.rescale(6).map_or(if d.coef < 0 { -(1i128 << 100) } else { 1i128 << 100 }, |d| d.coef);
            time::from_number(us / US, us % US)
        }
    }
}

/// A value as a TIME (`None` for NULL or not a time).
pub fn to_time(v: &Value) -> Option<i64> {
    read(v).value()
}

/// A TIME as a DATETIME: today's date (in the session's time zone) plus
/// the time, carried across days (MySQL's rule for a TIME compared with or
/// used as a DATETIME).
pub fn to_datetime(us: i64) -> Option<DateTime> {
    let today = crate::timezone::local_now().date;
    let midnight = DateTime { date: today, hour: 0, minute: 0, second: 0, micros: 0 };
    crate::temporal::add(midnight, crate::temporal::Span { months: 0, micros: i128::from(us) })
}

/// Whether a value reads as a date and time rather than a time of day
/// (a DATETIME, a DATE, or text with a date in it).
fn is_datetime_like(v: &Value) -> bool {
    match v {
        Value::DateTime(_) | Value::Date(_) => true,
        Value::Str(s) => {
            let t = s.trim();
            t.contains(['-', '/']) && !t.starts_with('-') && DateTime::parse(t).is_some()
        }
        _ => false,
    }
}

/// Stores `v` (not NULL) into TIME column `col`: out of range is 1264 and
/// the clipped value, not a time 1265 and 00:00:00 outside strict mode;
/// either is 1292 in strict mode (MariaDB 10.11's codes and texts).
pub fn assign(col: &Column, fsp: u8, v: Value, at: Place<'_>, env: &dyn Env) -> Result<Value> {
    let read = read(&v);
    if let TimeRead::Exact(us) = read {
        return Ok(Value::Time(time::with_fsp(us, fsp)));
    }
    if env.mode().abort_on_warning {
        return Err(SqlError::new(
            1292,
            "22007",
            format!(
                "Incorrect time value: '{}' for column `{}`.`{}`.`{}` at row {}",
                as_string(&v),
                at.db,
                at.table,
                col.name,
                at.row
            ),
        ));
    }
    let (code, what, us) = match read {
        TimeRead::Clipped(us) => (1264, "Out of range value", us),
        _ => (1265, "Data truncated", 0),
    };
    env.warn(Condition::new(Level::Warning, code, format!("{what} for column '{}' at row {}", col.name, at.row)))?;
    Ok(Value::Time(time::with_fsp(us, fsp)))
}

/// The fractional digits a TIME result shows: the argument's own (a
/// TIME / DATETIME column's fsp, a literal's digits), 6 when unknown.
pub fn fsp_of(e: &crate::expr::Expr, m: MetaType) -> u8 {
    use crate::expr::Expr;
    match (e, m) {
        (_, MetaType::Time { fsp } | MetaType::DateTime { fsp } | MetaType::Timestamp { fsp }) => fsp,
        (Expr::Lit(Value::Str(s)), _) => {
            s.trim().rsplit_once('.').map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8)
        }
        (Expr::Lit(Value::Decimal(d)), _) => d.scale.min(6),
        (_, MetaType::Int { .. } | MetaType::Date | MetaType::Null) => 0,
        _ => 6,
    }
}

/// The result type of function `name` of [`FUNCS`] (`arg(i)`: the type of
/// argument `i`).
pub fn infer(name: &str, args: &[crate::expr::Expr], arg: &dyn Fn(usize) -> MetaType) -> MetaType {
    let fsp = |i: usize| args.get(i).map_or(0, |a| fsp_of(a, arg(i)));
    let lit_fsp = || match args.first() {
        Some(crate::expr::Expr::Lit(Value::Int(n))) => (*n).clamp(0, 6) as u8,
        _ => 0,
    };
    match name {
        "time_to_sec" => match fsp(0) {
            0 => MetaType::Int { unsigned: false, width: 8 },
            s => MetaType::Decimal { precision: 17, scale: s },
        },
        "time_format" => MetaType::Str { len: 100, fixed: false },
        "curtime" | "current_time" => MetaType::Time { fsp: lit_fsp() },
        "cast_time" => MetaType::Time {
            fsp: match args.get(1) {
                Some(crate::expr::Expr::Lit(Value::Int(n))) => (*n).clamp(0, 6) as u8,
                _ => 0,
            },
        },
        "maketime" => MetaType::Time { fsp: fsp(2) },
        "sec_to_time" => MetaType::Time { fsp: fsp(0) },
        "addtime" | "subtime" => {
            let f = fsp(0).max(fsp(1));
            match arg(0) {
                MetaType::DateTime { .. } | MetaType::Timestamp { .. } | MetaType::Date => {
                    MetaType::DateTime { fsp: f }
                }
                MetaType::Time { .. } => MetaType::Time { fsp: f },
                MetaType::Null => MetaType::Null,
                _ => MetaType::Str { len: 26, fixed: false },
            }
        }
        "timediff" => MetaType::Time { fsp: fsp(0).max(fsp(1)) },
        _ => MetaType::Time { fsp: fsp(0) },
    }
}

fn clip_value(us: i128) -> Value {
    match time::clip(us) {
        TimeRead::Exact(v) | TimeRead::Clipped(v) => Value::Time(v),
        TimeRead::Invalid => Value::Null,
    }
}

/// Microseconds since day 0 of a date and time.
fn micros_of(dt: &DateTime) -> i128 {
    i128::from(crate::temporal::to_days(dt.date)) * 86_400 * US + i128::from(time_of_day(dt))
}

fn datetime_of(v: &Value) -> Option<DateTime> {
    crate::temporal::temporal(v).map(|(dt, _)| dt)
}

/// Calls function `name` of [`FUNCS`].
pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    let a0 = args.first().unwrap_or(&Value::Null);
    if name != "curtime" && name != "current_time" && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match name {
        "curtime" | "current_time" => {
            let fsp = args.first().and_then(to_i128).map_or(0, |n| n.clamp(0, 6) as u8);
            Value::Time(time::with_fsp(time_of_day(&crate::timezone::local_now()), fsp))
        }
        "time" => to_time(a0).map_or(Value::Null, Value::Time),
        "cast_time" => {
            let fsp = args.get(1).and_then(to_i128).map_or(0, |n| n.clamp(0, 6) as u8);
            to_time(a0).map_or(Value::Null, |us| Value::Time(time::with_fsp(us, fsp)))
        }
        "time_to_sec" => match to_time(a0) {
            None => Value::Null,
            Some(us) if us % 1_000_000 == 0 => Value::Int(us / 1_000_000),
            Some(us) => {
                let mut d = Decimal::new(i128::from(us), 6);
                while d.scale > 0 && d.coef % 10 == 0 {
                    d = Decimal::new(d.coef / 10, d.scale - 1);
                }
                Value::Decimal(d)
            }
        },
        "sec_to_time" => match to_decimal(a0).and_then(|d| d.rescale(6)) {
            Some(d) => clip_value(d.coef),
            None => clip_value(if to_decimal(a0).is_some_and(|d| d.coef < 0) { -(1 << 100) } else { 1 << 100 }),
        },
        "maketime" => {
            let (Some(h), Some(m)) = (to_i128(&args[0]), to_i128(&args[1])) else { return Ok(Value::Null) };
            let s = to_decimal(&args[2]).and_then(|d| d.rescale(6)).map_or(-1, |d| d.coef);
            if !(0..=59).contains(&m) || !(0..60 * US).contains(&s) {
                return Ok(Value::Null);
            }
            let v = (h.abs() * 3600 + m * 60) * US + s;
            clip_value(if h < 0 { -v } else { v })
        }
        "addtime" | "subtime" => {
            let Some(delta) = to_time(&args[1]) else { return Ok(Value::Null) };
            let delta = i128::from(if name == "subtime" { -delta } else { delta });
            if is_datetime_like(a0) {
                let Some(dt) = datetime_of(a0) else { return Ok(Value::Null) };
                let Some(out) = crate::temporal::add(dt, crate::temporal::Span { months: 0, micros: delta }) else {
                    return Ok(Value::Null);
                };
                return Ok(match a0 {
                    Value::Str(_) => Value::Str(out.format(if out.micros == 0 { 0 } else { 6 })),
                    _ => Value::DateTime(out),
                });
            }
            match to_time(a0) {
                Some(t) => clip_value(i128::from(t) + delta),
                None => Value::Null,
            }
        }
        "timediff" => {
            let (a, b) = (&args[0], &args[1]);
            match (is_datetime_like(a), is_datetime_like(b)) {
                (true, true) => match (datetime_of(a), datetime_of(b)) {
                    (Some(x), Some(y)) => clip_value(micros_of(&x) - micros_of(&y)),
                    _ => Value::Null,
                },
                (false, false) => match (to_time(a), to_time(b)) {
                    (Some(x), Some(y)) => clip_value(i128::from(x) - i128::from(y)),
                    _ => Value::Null,
                },
                // A date and time against a time: NULL, as MySQL.
                _ => Value::Null,
            }
        }
        "time_format" => match to_time(a0) {
            Some(us) => Value::Str(format(us, &as_string(&args[1]))),
            None => Value::Null,
        },
        _ => return Err(SqlError::internal(format!("{name} is not a TIME function"))),
    })
}

/// HOUR / MINUTE / SECOND / MICROSECOND of a value read as a TIME (the
/// hour of a time may exceed 23); `None` when the value is no time.
pub fn part(name: &str, v: &Value) -> Option<Value> {
    let us = match v {
        Value::Date(_) | Value::DateTime(_) | Value::Null => return None,
        other => to_time(other)?.unsigned_abs(),
    };
    let secs = us / 1_000_000;
    Some(Value::Int(match name {
        "hour" => secs / 3600,
        "minute" => secs / 60 % 60,
        "second" => secs % 60,
        "microsecond" => us % 1_000_000,
        _ => return None,
    } as i64))
}

/// TIME_FORMAT: DATE_FORMAT's specifiers that concern the time (`%H`
/// and `%k` may exceed 23); date specifiers print as NULL would in
/// MySQL... here as their zero values, as MariaDB prints them.
pub fn format(us: i64, fmt: &str) -> String {
    let a = us.unsigned_abs();
    let secs = a / 1_000_000;
    let (h, m, s, f) = (secs / 3600, secs / 60 % 60, secs % 60, a % 1_000_000);
    let h12 = match h % 12 {
        0 => 12,
        x => x,
    };
    let ampm = if h % 24 < 12 { "AM" } else { "PM" };
    let mut out = String::new();
    if us < 0 {
        out.push('-');
    }
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else { break };
        match spec {
            'H' => out.push_str(&format!("{h:02}")),
            'k' => out.push_str(&h.to_string()),
            'h' | 'I' => out.push_str(&format!("{h12:02}")),
            'l' => out.push_str(&h12.to_string()),
            'i' => out.push_str(&format!("{m:02}")),
            's' | 'S' => out.push_str(&format!("{s:02}")),
            'f' => out.push_str(&format!("{f:06}")),
            'p' => out.push_str(ampm),
            'r' => out.push_str(&format!("{h12:02}:{m:02}:{s:02} {ampm}")),
            'T' => out.push_str(&format!("{h:02}:{m:02}:{s:02}")),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_format_prints_hours_beyond_a_day() {
        let us = ((100 * 60 + 2) * 60 + 3) * 1_000_000;
        assert_eq!(format(us, "%H %k %h %i %s %f %p"), "100 100 04 02 03 000000 AM");
    }

    #[test]
    fn functions_match_mariadb() {
        let s = |x: &str| Value::Str(x.into());
        assert_eq!(call("timediff", &[s("12:00:00"), s("13:30:00")]).unwrap().to_string(), "-01:30:00");
        assert_eq!(
            call("timediff", &[s("2020-01-02 00:00:00"), s("2020-01-01 10:00:00")]).unwrap().to_string(),
            "14:00:00"
        );
        assert_eq!(call("time_to_sec", &[s("-01:00:01")]).unwrap(), Value::Int(-3601));
        assert_eq!(call("sec_to_time", &[Value::Int(4_000_000)]).unwrap().to_string(), "838:59:59");
        assert_eq!(
            call("maketime", &[Value::Int(100), Value::Int(2), Value::Int(3)]).unwrap().to_string(),
            "100:02:03"
        );
        assert_eq!(call("subtime", &[s("10:00"), s("11:00")]).unwrap().to_string(), "-01:00:00");
        assert_eq!(call("addtime", &[s("2020-01-01 23:00:00"), s("02:00:00")]).unwrap(), s("2020-01-02 01:00:00"));
        assert_eq!(part("hour", &s("100:02:03")), Some(Value::Int(100)));
    }
}
