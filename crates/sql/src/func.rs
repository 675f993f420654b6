//! Scalar functions that depend only on their arguments (the session's
//! own — DATABASE(), USER(), LAST_INSERT_ID() ... — are answered by the
//! session first).

use quire_engine::row::{Date, DateTime, Decimal, Value};

use crate::error::{Result, SqlError};
use crate::expr::{as_string, compare, int_value, to_decimal, to_f64, to_i128, truth};

fn arity(name: &str, args: &[Value], n: std::ops::RangeInclusive<usize>) -> Result<()> {
    if n.contains(&args.len()) {
        Ok(())
    } else {
        Err(SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{name}'")))
    }
}

/// The statement's time in the session's `time_zone`, to the second.
pub fn now() -> DateTime {
    DateTime { micros: 0, ..crate::timezone::local_now() }
}

/// The statement's UTC time, to the second.
fn utc_now() -> DateTime {
    DateTime { micros: 0, ..crate::timezone::utc_now() }
}

/// NOW(fsp) and its kin: `at` to `fsp` fractional digits (the first
/// argument; none without it). 1426 beyond 6, as MySQL.
fn at_fsp(name: &str, at: DateTime, args: &[Value]) -> Result<Value> {
    arity(name, args, 0..=1)?;
    let fsp = match args.first() {
        None => 0,
        Some(v) => match to_i128(v) {
            Some(n @ 0..=6) => n as u8,
            Some(n) => {
                return Err(SqlError::new(
                    1426,
                    "42000",
                    format!("Too big precision {n} specified for '{name}'. Maximum is 6."),
                ))
            }
            None => 0,
        },
    };
    Ok(Value::DateTime(at.with_fsp(fsp)))
}

/// The largest second a TIMESTAMP holds (2038-01-19 03:14:07 UTC): the
/// range of UNIX_TIMESTAMP(dt), as MariaDB 10.11 has it.
const TIMESTAMP_MAX_SECS: i64 = i32::MAX as i64;

pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    if let Some(v) = crate::binary::call(name, args)? {
        return Ok(v);
    }
    if let Some(v) = crate::json::call(name, args)? {
        return Ok(v);
    }
    if let Some(v) = crate::binlog::gtid::call(name, args)? {
        return Ok(v);
    }
    let a0 = || args.first().cloned().unwrap_or(Value::Null);
    Ok(match name {
        "now" | "current_timestamp" | "localtime" | "localtimestamp" => {
            return at_fsp(name, crate::timezone::local_now(), args)
        }
        "sysdate" => return at_fsp(name, crate::timezone::local_sysdate(), args),
        "utc_timestamp" => return at_fsp(name, crate::timezone::utc_now(), args),
        "curdate" | "current_date" => Value::Date(now().date),
        "utc_date" => Value::Date(utc_now().date),
        "convert_tz" => {
            arity(name, args, 3..=3)?;
            if args.iter().any(Value::is_null) {
                return Ok(Value::Null);
            }
            let dt = match &args[0] {
                Value::DateTime(dt) => Some(*dt),
                Value::Date(d) => Some(DateTime { date: *d, hour: 0, minute: 0, second: 0, micros: 0 }),
                other => DateTime::parse(&as_string(other)),
            };
            let (from, to) = (as_string(&args[1]), as_string(&args[2]));
            match dt {
                // The zero date and unknown zones are NULL.
                // (Outside TIMESTAMP's range `dt` comes back unchanged.)
                Some(dt) if dt.date.month != 0 && dt.date.day != 0 => {
                    crate::timezone::convert(dt, &from, &to).map_or(Value::Null, Value::DateTime)
                }
                _ => Value::Null,
            }
        }
        "unix_timestamp" if !args.is_empty() => match args[0].clone() {
            Value::Null => Value::Null,
            v => {
                let dt = match v {
                    Value::DateTime(dt) => Some(dt),
                    Value::Date(d) => Some(DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 }),
                    other => DateTime::parse(&as_string(&other)),
                };
                // `dt` is in the session's zone; outside TIMESTAMP's range
                // the answer is NULL, as MariaDB's.
                match dt {
                    Some(dt) => {
                        let secs = quire_engine::row::tz::local_unix_seconds(&dt);
                        if (0..=TIMESTAMP_MAX_SECS).contains(&secs) {
                            Value::Int(secs)
                        } else {
                            Value::Null
                        }
                    }
                    None => Value::Int(0),
                }
            }
        },
        "unix_timestamp" => Value::Int(crate::timezone::statement_us().div_euclid(1_000_000)),
        "version" => Value::Str(crate::VERSION.into()),
        "get_format" => match args {
            [Value::Str(kind), standard] if !standard.is_null() => {
                crate::str_to_date::get_format(kind, &as_string(standard)).map_or(Value::Null, |f| Value::Str(f.into()))
            }
            _ => Value::Null,
        },
        "concat" => {
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                Value::Str(args.iter().map(as_string).collect())
            }
        }
        "concat_ws" => {
            arity(name, args, 1..=usize::MAX)?;
            if args[0].is_null() {
                Value::Null
            } else {
                let sep = as_string(&args[0]);
                Value::Str(args[1..].iter().filter(|v| !v.is_null()).map(as_string).collect::<Vec<_>>().join(&sep))
            }
        }
        "length" | "char_length" | "character_length" => {
            arity(name, args, 1..=1)?;
            match a0() {
                Value::Null => Value::Null,
                v if name == "length" => Value::Int(as_string(&v).len() as i64),
                v => Value::Int(as_string(&v).chars().count() as i64),
            }
        }
        "upper" | "ucase" => map_str(args, |s| s.to_uppercase())?,
        "lower" | "lcase" => map_str(args, |s| s.to_lowercase())?,
        // MySQL trims spaces only (not tabs or newlines).
        "trim" => map_str(args, |s| s.trim_matches(' ').to_string())?,
        "ltrim" => map_str(args, |s| s.trim_start_matches(' ').to_string())?,
        "rtrim" => map_str(args, |s| s.trim_end_matches(' ').to_string())?,
        "hex" => match a0() {
            Value::Null => Value::Null,
            v @ (Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) => match to_i128(&v) {
                Some(n) if n >= 0 => Value::Str(format!("{n:X}")),
                Some(n) => Value::Str(format!("{:X}", n as i64 as u64)),
                None => Value::Null,
            },
            v => Value::Str(as_string(&v).bytes().map(|b| format!("{b:02X}")).collect()),
        },
        "coalesce" => args.iter().find(|v| !v.is_null()).cloned().unwrap_or(Value::Null),
        "ifnull" => {
            arity(name, args, 2..=2)?;
            if args[0].is_null() {
                args[1].clone()
            } else {
                args[0].clone()
            }
        }
        "isnull" => Value::Int(a0().is_null() as i64),
        "if" => {
            arity(name, args, 3..=3)?;
            if truth(&args[0]) == Some(true) {
                args[1].clone()
            } else {
                args[2].clone()
            }
        }
        "nullif" => {
            arity(name, args, 2..=2)?;
            if compare(&args[0], &args[1], quire_engine::row::Collation::Utf8mb4GeneralCi)
                == Some(std::cmp::Ordering::Equal)
            {
                Value::Null
            } else {
                args[0].clone()
            }
        }
        "abs" | "floor" | "ceil" | "ceiling" | "round" | "truncate"
            if matches!(args.first(), Some(Value::Double(_))) =>
        {
            arity(name, args, 1..=if matches!(name, "round" | "truncate") { 2 } else { 1 })?;
            double_rounding(name, args)?
        }
        "abs" => match a0() {
            Value::Null => Value::Null,
            Value::Int(i) => int_value((i as i128).abs())?,
            Value::UInt(u) => Value::UInt(u),
            v => to_decimal(&v).map_or(Value::Null, |d| Value::Decimal(Decimal::new(d.coef.abs(), d.scale))),
        },
        "round" if args.len() == 2 => {
            // ROUND(x, d): half away from zero at d digits (d < 0: left of
            // the point).
            match (&args[0], to_i128(&args[1])) {
                (Value::Null, _) | (_, None) => Value::Null,
                (v, Some(d)) => {
                    let x = to_decimal(v).unwrap_or(Decimal::ZERO);
                    let d = d.clamp(-30, 30) as i32;
                    let keep = d.max(0) as u8;
                    let drop = x.scale as i32 - d;
                    if drop <= 0 {
                        v.clone()
                    } else {
                        let p = 10i128.checked_pow(drop as u32).unwrap_or(i128::MAX);
                        let half = p / 2;
                        let q = if x.coef >= 0 { (x.coef + half) / p } else { (x.coef - half) / p };
                        let coef = if d < 0 { q.saturating_mul(10i128.pow((-d) as u32)) } else { q };
                        if keep == 0 && matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) && d <= 0 {
                            int_value(coef)?
                        } else {
                            Value::Decimal(Decimal::new(coef, keep))
                        }
                    }
                }
            }
        }
        "floor" | "ceil" | "ceiling" | "round" => {
            arity(name, args, 1..=2)?;
            match a0() {
                Value::Null => Value::Null,
                v @ (Value::Int(_) | Value::UInt(_)) => v,
                v => {
                    let d = to_decimal(&v).unwrap_or(Decimal::ZERO);
                    let p = 10i128.pow(d.scale as u32);
                    let q = match name {
                        "floor" => d.coef.div_euclid(p),
                        "round" => (d.coef + if d.coef >= 0 { p / 2 } else { -(p / 2) }) / p,
                        _ => -((-d.coef).div_euclid(p)),
                    };
                    int_value(q)?
                }
            }
        }
        "truncate" => {
            // TRUNCATE(x, d): cut toward zero at d digits (d < 0: left of
            // the point), never rounding.
            arity(name, args, 2..=2)?;
            match (&args[0], to_i128(&args[1])) {
                (Value::Null, _) | (_, None) => Value::Null,
                (v @ (Value::Int(_) | Value::UInt(_)), Some(d)) if d >= 0 => v.clone(),
                (v, Some(d)) => {
                    let x = to_decimal(v).unwrap_or(Decimal::ZERO);
                    if d >= 0 {
                        Value::Decimal(x.truncate_to(d.min(30) as u8))
                    } else {
                        let p = 10i128.checked_pow((-d).min(38) as u32).unwrap_or(i128::MAX);
                        let int = x.truncate_to(0).coef;
                        let cut = int / p * p;
                        if matches!(v, Value::Int(_) | Value::UInt(_)) {
                            int_value(cut)?
                        } else {
                            Value::Decimal(Decimal::new(cut, 0))
                        }
                    }
                }
            }
        }
        "cast_double" | "cast_float" => match a0() {
            Value::Null => Value::Null,
            v => {
                let f = to_f64(&v).unwrap_or(0.0);
                let f = if name == "cast_float" { f64::from(f as f32) } else { f };
                if !f.is_finite() {
                    return Err(SqlError::new(1690, "22003", format!("DOUBLE value is out of range in '{v}'")));
                }
                Value::Double(quire_engine::row::float::normalize(f))
            }
        },
        "mod" => {
            arity(name, args, 2..=2)?;
            crate::expr::arith(crate::expr::BinOp::Mod, &args[0], &args[1])?
        }
        "greatest" | "least" => {
            arity(name, args, 2..=usize::MAX)?;
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                let mut best = a0();
                for v in &args[1..] {
                    let o = compare(v, &best, quire_engine::row::Collation::Utf8mb4GeneralCi);
                    let better = if name == "greatest" {
                        o == Some(std::cmp::Ordering::Greater)
                    } else {
                        o == Some(std::cmp::Ordering::Less)
                    };
                    if better {
                        best = v.clone();
                    }
                }
                best
            }
        }
        "substring" | "substr" => {
            arity(name, args, 2..=3)?;
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                let s: Vec<char> = as_string(&args[0]).chars().collect();
                let pos = to_i128(&args[1]).unwrap_or(0);
                let start = if pos > 0 {
                    (pos - 1) as usize
                } else if pos < 0 {
                    s.len().saturating_sub((-pos) as usize)
                } else {
                    s.len()
                };
                let len = args.get(2).and_then(to_i128).map_or(s.len(), |l| l.max(0) as usize);
                Value::Str(s.iter().skip(start).take(len).collect())
            }
        }
        "left" | "right" => {
            arity(name, args, 2..=2)?;
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                let s: Vec<char> = as_string(&args[0]).chars().collect();
                let n = (to_i128(&args[1]).unwrap_or(0).max(0) as usize).min(s.len());
                Value::Str(if name == "left" { s[..n].iter().collect() } else { s[s.len() - n..].iter().collect() })
            }
        }
        "repeat" => {
            arity(name, args, 2..=2)?;
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                let n = to_i128(&args[1]).unwrap_or(0).clamp(0, 1 << 30) as usize;
                let s = as_string(&args[0]);
                // MySQL returns NULL beyond max_allowed_packet (64 MiB here).
                if s.len().saturating_mul(n) > 64 << 20 {
                    Value::Null
                } else {
                    Value::Str(s.repeat(n))
                }
            }
        }
        "replace" => {
            arity(name, args, 3..=3)?;
            if args.iter().any(Value::is_null) {
                Value::Null
            } else {
                Value::Str(as_string(&args[0]).replace(&as_string(&args[1]), &as_string(&args[2])))
            }
        }
        "rand" => {
            use rand::Rng;
            Value::Double(rand::thread_rng().gen::<f64>())
        }
        "cast_signed" => match a0() {
            Value::Null => Value::Null,
            v => int_value(to_i128(&v).unwrap_or(0).clamp(i64::MIN as i128, i64::MAX as i128))?,
        },
        "cast_unsigned" => match a0() {
            Value::Null => Value::Null,
            v => Value::UInt(to_i128(&v).unwrap_or(0).clamp(0, u64::MAX as i128) as u64),
        },
        "cast_decimal" => match a0() {
            Value::Null => Value::Null,
            v => to_decimal(&v).map_or(Value::Null, Value::Decimal),
        },
        "cast_char" => match a0() {
            Value::Null => Value::Null,
            v => Value::Str(as_string(&v)),
        },
        "cast_date" => match a0() {
            Value::Date(d) => Value::Date(d),
            Value::Time(us) => crate::timeval::to_datetime(us).map_or(Value::Null, |dt| Value::Date(dt.date)),
            Value::DateTime(dt) => Value::Date(dt.date),
            Value::Null => Value::Null,
            v => Date::parse(&as_string(&v)).map_or(Value::Null, Value::Date),
        },
        "cast_datetime" => match a0() {
            Value::DateTime(dt) => Value::DateTime(dt),
            Value::Time(us) => crate::timeval::to_datetime(us).map_or(Value::Null, Value::DateTime),
            Value::Date(d) => Value::DateTime(DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 }),
            Value::Null => Value::Null,
            v => DateTime::parse(&as_string(&v)).map_or(Value::Null, Value::DateTime),
        },
        "found_rows" | "row_count" | "last_insert_id" | "connection_id" | "database" | "schema" | "user"
        | "current_user" | "session_user" | "system_user" => Value::Null,
        // The function libraries, looked up only for names not above.
        other if crate::timeval::is_func(other) => return crate::timeval::call(other, args),
        "hour" | "minute" | "second" | "microsecond" if !matches!(a0(), Value::Date(_) | Value::DateTime(_)) => {
            return Ok(crate::timeval::part(name, &a0()).unwrap_or(Value::Null))
        }
        other if crate::temporal::FUNCS.iter().any(|(n, ..)| *n == other) => return crate::temporal::call(other, args),
        other if crate::strfunc::FUNCS.iter().any(|(n, ..)| *n == other) => return crate::strfunc::call(other, args),
        other if crate::mathfunc::FUNCS.iter().any(|(n, ..)| *n == other) => return crate::mathfunc::call(other, args),
        other => match crate::compare_const::call(other, args)
            .or_else(|| crate::yearbit::call(other, args))
            .or_else(|| crate::number_text::call(other, args))
        {
            Some(v) => v,
            None => return Err(SqlError::new(1305, "42000", format!("FUNCTION {other} does not exist"))),
        },
    })
}

fn map_str(args: &[Value], f: impl Fn(&str) -> String) -> Result<Value> {
    match args {
        [Value::Null] => Ok(Value::Null),
        [v] => Ok(Value::Str(f(&as_string(v)))),
        _ => Err(SqlError::new(1582, "42000", "Incorrect parameter count in the call to native function")),
    }
}

/// ABS, FLOOR, CEIL, ROUND and TRUNCATE of a double: a double, as MySQL
/// (ROUND rounds half to even, as its `rint`: ROUND(2.5e0) is 2; with
/// digits it scales, rounds and scales back, so ROUND(1.005e0, 2) is 1).
fn double_rounding(name: &str, args: &[Value]) -> Result<Value> {
    let Some(Value::Double(x)) = args.first() else { return Ok(Value::Null) };
    let x = *x;
    let d = match args.get(1) {
        None => 0,
        Some(v) => match to_i128(v) {
            None => return Ok(Value::Null),
            Some(d) => d.clamp(-400, 400) as i32,
        },
    };
    let scaled = |f: fn(f64) -> f64| {
        let p = 10f64.powi(d.abs());
        if d >= 0 {
            let r = f(x * p) / p;
            if r.is_finite() {
                r
            } else {
                x
            }
        } else {
            f(x / p) * p
        }
    };
    let r = match name {
        "abs" => x.abs(),
        "floor" => x.floor(),
        "ceil" | "ceiling" => x.ceil(),
        "round" => scaled(f64::round_ties_even),
        _ => scaled(f64::trunc),
    };
    Ok(Value::Double(quire_engine::row::float::normalize(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_epoch_and_rounding_convert() {
        assert_eq!(quire_engine::row::tz::unix_seconds(&DateTime::parse("2000-02-29 00:00:00").unwrap()), 951_782_400);
        let round =
            |x: &str, d: i64| call("round", &[Value::Decimal(Decimal::parse(x).unwrap()), Value::Int(d)]).unwrap();
        assert_eq!(round("1.2345", 2).to_string(), "1.23");
        assert_eq!(call("round", &[Value::Int(15), Value::Int(-1)]).unwrap(), Value::Int(20));
        assert_eq!(call("hex", &[Value::Int(255)]).unwrap(), Value::Str("FF".into()));
    }
}
